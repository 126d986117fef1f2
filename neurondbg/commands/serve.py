"""`neurondbg serve [PROGRAM|SESSION|KERNEL] [--port N] [--host 127.0.0.1]
[--max-sessions N]`: the TUI in a browser, through textual-serve (one `neurondbg tui`
process per open page).

Decisions: it binds loopback (127.0.0.1) unless `--host` says otherwise, and prints one
banner line with the URL to open, which holds a random token (as Jupyter's does): the
server answers only requests that carry it, whose Host is an address of the server, and
WebSockets from its own page (neurondbg.serve, docs/security.md). Any other host prints
a warning: whoever reaches the port and learns the token (it travels in clear over
http) runs neurondbg as this user, with this user's files. `--port 0` picks a free port.
At most `--max-sessions` pages run an app at once; more are told so in the page. What to
open is checked before serving (a missing file is one line, exit 2), so a typo does not
become a page that shows an error to every visitor.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from neurondbg.errors import InputError
from neurondbg.params import ENGINE, GEN
from neurondbg.serve.listen import is_loopback, listening_socket

__all__ = ["command", "is_loopback", "visitor_command"]

if TYPE_CHECKING:  # the model is the visitor's process's to load, not the server's
    from machine.dtypes import Gen

DEFAULT_PORT = 8000  # textual-serve's
DEFAULT_MAX_SESSIONS = 4  # app processes at once (each a Python with the model: ~40 MB)


def visitor_command(program: Path | None, gen: Gen | None, engine: str | None) -> str:
    """The shell command each visitor's app process runs (textual-serve starts it)."""
    words = [sys.executable, "-m", "neurondbg", "tui"]
    if program is not None:
        words.append(str(program.resolve()))
    if gen is not None:
        words += ["--gen", gen.label]
    if engine is not None:
        words += ["--engine", engine]
    return shlex.join(words)


@click.command("serve")
@click.argument("program", required=False, type=click.Path(path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT,
              show_default=True, help="the TCP port to serve on (0: any free port)")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="the address to bind; anything but loopback is reachable by others")
@click.option("--max-sessions", type=click.IntRange(1, 256), default=DEFAULT_MAX_SESSIONS,
              show_default=True, help="pages that may run the app at once")
@click.option("--gen", type=GEN, default=None, help="hardware generation")
@click.option("--engine", type=ENGINE, default=None, help="the engine queue of a PROGRAM")
def command(program: Path | None, port: int, host: str, max_sessions: int, gen: Gen | None,
            engine: str | None) -> None:
    """Serve the debugger UI on PROGRAM / SESSION / KERNEL (or the demo) to a browser."""
    from neurondbg.serve.guard import Guard, new_token
    from neurondbg.serve.web import GuardedServer

    if program is not None and not program.is_file():
        raise InputError(f"{program}: no such file")
    host = host.strip("[]")  # `[::1]` as a URL writes it
    try:
        sock = listening_socket(host, port)
    except OSError as e:  # the port is taken, or the host is not this machine's
        raise InputError(f"--port {port}: cannot listen on {host}: {e.strerror or e}") from None
    bound = int(sock.getsockname()[1])
    guard = Guard.for_bind(host, bound, new_token())
    url_host = f"[{host}]" if ":" in host else host
    click.echo(f"neurondbg serve: http://{url_host}:{bound}/?token={guard.token} "
               + ("(loopback only: this machine's browsers)" if is_loopback(host)
                  else "(all who can reach this address)"), err=True)
    if not is_loopback(host):
        click.echo(f"neurondbg: warning: --host {host}: anyone who reaches port {bound} and "
                   "learns the token (sent in clear over http) runs neurondbg as you, with "
                   "your files", err=True)
    server = GuardedServer(visitor_command(program, gen, engine), guard, host=host,
                           max_sessions=max_sessions)
    try:
        with sock:
            if server.serve_on(sock):
                raise KeyboardInterrupt  # the CLI's Ctrl+C: "neurondbg: interrupted", exit 130
    except KeyboardInterrupt:
        # A Ctrl+C that lands while asyncio builds an event loop leaves a half-built loop
        # whose destructor complains at exit; the one line the user gets is the interrupt.
        sys.unraisablehook = lambda _: None
        raise


if __name__ == "__main__":
    command()
