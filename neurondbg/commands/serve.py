"""`neurondbg serve [PROGRAM|SESSION|KERNEL] [--port N] [--host 127.0.0.1]
[--max-sessions N] [--public-url URL] [--save-dir DIR] [--warm N] [--verbose]`: the
TUI in a browser, through textual-serve (one `neurondbg tui` process per open page).

Decisions: it binds loopback (127.0.0.1) unless `--host` says otherwise, and prints one
banner line with the URL to open, which holds a random token (as Jupyter's does): the
server answers only requests that carry it, whose Host is an address of the server, and
WebSockets from its own page (neurondbg.serve, docs/security.md). Any other host prints
a warning: whoever reaches the port and learns the token (it travels in clear over
http) runs neurondbg as this user, with this user's files. `--port 0` picks a free port.
At most `--max-sessions` pages run an app at once; more are told so in the page. What to
open is checked before serving (a missing file is one line, exit 2), so a typo does not
become a page that shows an error to every visitor.

The banner's URL is one another machine can open: the bound address, the machine's name
for a wildcard bind (0.0.0.0, ::), or `--public-url` behind a reverse proxy (the page
itself takes its addresses from where the browser loaded it). Each page's app runs in a
folder of that visitor's own (0700, named in the page) under `--save-dir` (default: a
new private folder in the temp dir), so what one visitor saves or exports never lands
in the server's working folder or another visitor's. `--warm N` app processes are
started before anyone asks, so a page's first screen does not wait for an interpreter to
start (docs/serve.md). Requests are logged only with `--verbose`.
"""

from __future__ import annotations

import shlex
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from neurondbg.errors import InputError
from neurondbg.params import ENGINE, GEN
from neurondbg.serve.guard import PublicURL, parse_public_url
from neurondbg.serve.listen import is_loopback, listening_socket

__all__ = ["banner_url", "command", "is_loopback", "visitor_command"]

if TYPE_CHECKING:  # the model is the visitor's process's to load, not the server's
    from neurondbg.machine.dtypes import Gen

DEFAULT_PORT = 8000  # textual-serve's
DEFAULT_MAX_SESSIONS = 4  # app processes at once (each a Python with the model: ~40 MB)
DEFAULT_WARM = 1  # app processes started ahead of visitors (each as big as a session's)
MAX_WARM = 8


def visitor_command(program: Path | None, gen: Gen | None, engine: str | None, *,
                    waiting: bool = False, subgraph: str | None = None,
                    inputs: Sequence[tuple[str, Path]] = ()) -> str:
    """The shell command each visitor's app process runs; `waiting`: the same app
    started ahead of its visitor (neurondbg.serve.waiting: it starts when told the page's
    size). `subgraph`, `inputs`: a NEFF's, as `tui` takes them (paths resolved)."""
    words = [sys.executable, "-m", "neurondbg.serve.waiting" if waiting else "neurondbg", "tui"]
    if program is not None:
        words.append(str(program.resolve()))
    if gen is not None:
        words += ["--gen", gen.label]
    if engine is not None:
        words += ["--engine", engine]
    if subgraph is not None:
        words += ["--subgraph", subgraph]
    for name, file in inputs:
        words += ["--input", f"{name}={file.resolve()}"]
    return shlex.join(words)


def banner_url(host: str, port: int, token: str, public: PublicURL | None) -> str:
    """The URL the banner prints: one a browser can open, on this machine or (for a
    wildcard bind) another, or the proxy's public URL. Never a wildcard address."""
    if public is not None:
        base = public.origin
    else:
        name = socket.gethostname() if _is_wildcard(host) else host
        base = f"http://{f'[{name}]' if ':' in name else name}:{port}"
    return f"{base}/?token={token}"


def _banner(host: str, port: int, token: str, public: PublicURL | None, files: Path) -> None:
    """The lines the server starts with: the URL to open and who can reach it, the
    warning for a host that is not loopback, where visitors' files go."""
    who = ("(through the proxy at --public-url)" if public is not None
           else "(loopback only: this machine's browsers)" if is_loopback(host)
           else "(all who can reach this address)")
    click.echo(f"neurondbg serve: {banner_url(host, port, token, public)} {who}", err=True)
    if not is_loopback(host):
        click.echo(f"neurondbg: warning: --host {host}: anyone who reaches port {port} and "
                   "learns the token (sent in clear over http) runs neurondbg as you, with "
                   "your files", err=True)
    click.echo(f"neurondbg serve: each page's files go to a folder of its own in {files}",
               err=True)


def _stop_before_serving(signum: int, frame: object) -> None:
    raise SystemExit(0)  # as a SIGTERM while serving ends it: quietly, exit 0


def _is_wildcard(host: str) -> bool:
    return host in ("0.0.0.0", "::", "")


def _public_url(ctx: click.Context, param: click.Parameter, value: str | None
                ) -> PublicURL | None:
    try:
        return None if value is None else parse_public_url(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


@click.command("serve")
@click.argument("program", required=False, type=click.Path(path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT,
              show_default=True, help="the TCP port to serve on (0: any free port)")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="the address to bind; anything but loopback is reachable by others")
@click.option("--max-sessions", type=click.IntRange(1, 256), default=DEFAULT_MAX_SESSIONS,
              show_default=True, help="pages that may run the app at once")
@click.option("--public-url", callback=_public_url, metavar="URL",
              help="where browsers reach the server through a reverse proxy "
                   "(https://HOST[:PORT]); the bind stays --host")
@click.option("--save-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="where each visitor's own folder is made (default: a new private "
                   "folder in the temp dir)")
@click.option("--warm", type=click.IntRange(0, MAX_WARM), default=DEFAULT_WARM,
              show_default=True, help="app processes started before a page asks")
@click.option("--verbose", is_flag=True, help="log each request on stderr")
@click.option("--gen", type=GEN, default=None, help="hardware generation")
@click.option("--engine", type=ENGINE, default=None, help="the engine queue of a PROGRAM")
@click.option("--subgraph", default=None, metavar="sgNN",
              help="a NEFF's subgraph (default: the first that has work)")
@click.option("--input", "input_specs", multiple=True, metavar="NAME=FILE.npy",
              help="NEFF: an input tensor (tensor_map.json name; shape and dtype checked)")
def command(program: Path | None, port: int, host: str, max_sessions: int,
            public_url: PublicURL | None, save_dir: Path | None, warm: int, verbose: bool,
            gen: Gen | None, engine: str | None, subgraph: str | None,
            input_specs: tuple[str, ...]) -> None:
    """Serve the debugger UI on PROGRAM / SESSION / KERNEL (or the demo) to a browser."""
    from neurondbg.serve.folders import FolderError, VisitorFolders
    from neurondbg.serve.guard import Guard, new_token
    from neurondbg.serve.web import GuardedServer

    if program is not None and not program.is_file():
        raise InputError(f"{program}: no such file")
    inputs: list[tuple[str, Path]] = []
    if input_specs:
        from neurondbg.commands.neff_run import pairs

        inputs = pairs(input_specs, "--input")
    if program is None and (subgraph is not None or inputs):
        raise InputError(f"{'--subgraph' if subgraph is not None else '--input'} applies "
                         "to a NEFF only")
    if subgraph is not None or inputs:  # refused here in one line, not on each page
        from neurondbg.commands.tui import refuse_unopenable

        assert program is not None
        refuse_unopenable(program, subgraph, inputs)
    host = host.strip("[]")  # `[::1]` as a URL writes it
    try:
        sock = listening_socket(host, port)
    except OSError as e:  # the port is taken, or the host is not this machine's
        raise InputError(f"--port {port}: cannot listen on {host}: {e.strerror or e}") from None
    # a SIGTERM from here until the server's own handler is in place still cleans up
    signal.signal(signal.SIGTERM, _stop_before_serving)
    try:
        folders = VisitorFolders.open(save_dir)
    except FolderError as e:
        sock.close()
        raise InputError(f"--save-dir {e}") from None
    try:
        bound = int(sock.getsockname()[1])
        guard = Guard.for_bind(host, bound, new_token(), public_url)
        _banner(host, bound, guard.token, public_url, folders.base)
        server = GuardedServer(
            visitor_command(program, gen, engine, subgraph=subgraph, inputs=inputs), guard,
            host=host, max_sessions=max_sessions, folders=folders, warm=warm,
            waiting_command=visitor_command(program, gen, engine, waiting=True,
                                            subgraph=subgraph, inputs=inputs),
            verbose=verbose)
        with sock:
            if server.serve_on(sock):
                raise KeyboardInterrupt  # the CLI's Ctrl+C: "neurondbg: interrupted", exit 130
    except KeyboardInterrupt:
        # A Ctrl+C that lands while asyncio builds an event loop leaves a half-built loop
        # whose destructor complains at exit; the one line the user gets is the interrupt.
        sys.unraisablehook = lambda _: None
        raise
    finally:
        folders.close()  # the base folder, if the server made it and nothing was saved


if __name__ == "__main__":
    command()
