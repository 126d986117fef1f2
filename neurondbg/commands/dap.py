"""`neurondbg dap [--port N] [--host 127.0.0.1]`: a Debug Adapter Protocol server.

Without `--port` it speaks DAP on stdin/stdout (what VS Code's and nvim-dap's
`executable` adapters start); with `--port` it listens on loopback (or `--host`) for
one client and prints `listening on HOST:PORT` on stderr once it can be reached
(`--port 0` picks a free port). The adapter itself is neurondbg.dap.
"""

from __future__ import annotations

import sys

import click


@click.command("dap")
@click.option("--port", type=click.IntRange(0, 65535), default=None,
              help="listen on this TCP port for one client instead of using stdio")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="the address --port listens on")
def command(port: int | None, host: str) -> None:
    """Debug PROGRAMs, sessions and kernels from an editor (VS Code, nvim-dap, dape)."""
    from neurondbg.dap.server import serve_streams, serve_tcp
    from neurondbg.errors import InputError

    if port is None:
        serve_streams(sys.stdin.buffer, sys.stdout.buffer)
        return

    def ready(bound: int) -> None:
        click.echo(f"neurondbg dap: listening on {host}:{bound}", err=True)

    try:
        serve_tcp(host, port, ready)
    except OSError as e:
        raise InputError(f"--port {port}: cannot listen on {host}: {e.strerror or e}") from None


if __name__ == "__main__":
    command()
