"""`neurondbg dap [--port N [--host 127.0.0.1] [--token]]`: a Debug Adapter Protocol server.

Without `--port` it speaks DAP on stdin/stdout (what VS Code's and nvim-dap's
`executable` adapters start); with `--port` it listens on loopback (or `--host`) and
serves one client at a time, one after another, until Ctrl+C; it prints `listening on
HOST:PORT` on stderr once it can be reached (`--port 0` picks a free port), then a line
per client. Any other host than loopback prints a warning, as `neurondbg serve` does.
`--token` makes a random token, printed once; a client must send it as the `token`
argument of `launch` (or `initialize`) before anything but `initialize` is answered.
An HTTP request on the port (a browser's `fetch`) is refused. docs/security.md says
what this protects against. The adapter itself is neurondbg.dap.
"""

from __future__ import annotations

import sys

import click


@click.command("dap")
@click.option("--port", type=click.IntRange(0, 65535), default=None,
              help="listen on this TCP port (clients one at a time) instead of using stdio")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="the address --port listens on; anything but loopback is reachable by others")
@click.option("--token", "use_token", is_flag=True,
              help="with --port: require a random token (printed once) in `launch`")
def command(port: int | None, host: str, use_token: bool) -> None:
    """Debug PROGRAMs, sessions and kernels from an editor (VS Code, nvim-dap, dape)."""
    from neurondbg.dap.server import serve_streams, serve_tcp
    from neurondbg.errors import InputError

    if port is None:
        if use_token:
            raise InputError("--token: only with --port (stdio reaches only the editor "
                             "that started the adapter)")
        serve_streams(sys.stdin.buffer, sys.stdout.buffer)
        return
    from neurondbg.serve.guard import new_token  # not on stdio's path: start-up is measured
    from neurondbg.serve.listen import is_loopback

    host = host.strip("[]")
    token = new_token() if use_token else None
    shown = f"[{host}]" if ":" in host else host

    def log(text: str) -> None:
        click.echo(f"neurondbg dap: {text}", err=True)

    def ready(bound: int) -> None:
        log(f"listening on {shown}:{bound}")
        if token is not None:
            log(f'token {token} (send it as the "token" argument of launch)')
        if not is_loopback(host):
            click.echo(f"neurondbg: warning: --host {host}: anyone who reaches port {bound} "
                       + ("and has the token " if token else "")
                       + "can debug programs as you, with your files"
                       + ("" if token else " (--token requires a secret)"), err=True)

    try:
        serve_tcp(host, port, ready, token, log)
    except OSError as e:
        raise InputError(f"--port {port}: cannot listen on {host}: {e.strerror or e}") from None


if __name__ == "__main__":
    command()
