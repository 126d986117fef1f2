"""`neurondbg serve [PROGRAM|SESSION|KERNEL] [--port N] [--host 127.0.0.1]`: the TUI in a
browser, through textual-serve (one `neurondbg tui` process per visitor).

Decisions: it binds loopback (127.0.0.1) unless `--host` says otherwise, and says where
it listens; any other host prints a warning that there is no authentication (anyone
who reaches the port runs neurondbg as this user, with this user's files). `--port 0`
picks a free port. What to open is checked before serving (a missing file is one line,
exit 2), so a typo does not become a page that shows an error to every visitor.
"""

from __future__ import annotations

import ipaddress
import shlex
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from neurondbg.errors import InputError
from neurondbg.params import ENGINE, GEN

if TYPE_CHECKING:  # the model is the visitor's process's to load, not the server's
    from machine.dtypes import Gen

DEFAULT_PORT = 8000  # textual-serve's


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


def is_loopback(host: str) -> bool:
    """Whether `host` names only this machine (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def free_port(host: str) -> int:
    """A TCP port free on `host` now (for `--port 0`)."""
    with socket.create_server((host, 0)) as s:
        return int(s.getsockname()[1])


@click.command("serve")
@click.argument("program", required=False, type=click.Path(path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT,
              show_default=True, help="the TCP port to serve on (0: any free port)")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="the address to bind; anything but loopback has no authentication")
@click.option("--gen", type=GEN, default=None, help="hardware generation")
@click.option("--engine", type=ENGINE, default=None, help="the engine queue of a PROGRAM")
def command(program: Path | None, port: int, host: str, gen: Gen | None,
            engine: str | None) -> None:
    """Serve the debugger UI on PROGRAM / SESSION / KERNEL (or the demo) to a browser."""
    from textual_serve.server import Server

    if program is not None and not program.is_file():
        raise InputError(f"{program}: no such file")
    try:
        bound = port or free_port(host)
    except OSError as e:
        raise InputError(f"--host {host}: cannot listen: {e.strerror or e}") from None
    url_host = f"[{host}]" if ":" in host else host
    click.echo(f"neurondbg serve: http://{url_host}:{bound}/ "
               + ("(loopback only: this machine's browsers)" if is_loopback(host)
                  else "(all who can reach this address)"), err=True)
    if not is_loopback(host):
        click.echo(f"neurondbg: warning: --host {host}: there is no authentication; anyone "
                   f"who reaches port {bound} runs neurondbg as you, with your files", err=True)
    server = Server(visitor_command(program, gen, engine), host=host, port=bound,
                    title="neurondbg", public_url=f"http://{url_host}:{bound}")
    try:
        server.serve()
    except OSError as e:  # the port is taken, or the host is not this machine's
        raise InputError(f"--port {bound}: cannot listen on {host}: {e.strerror or e}") from None


if __name__ == "__main__":
    command()
