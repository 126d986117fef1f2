"""The `--force` option of every command that writes files.

Outputs are written by sessions.atomic, which refuses to replace a file holding
another kind of content (a program over an assembly source, a session over a
manifest, ...). `@force_option` adds `--force` to a command without a parameter of
its own: the flag allows those replacements for the rest of the command's run
(sessions.atomic.set_replacing) and is undone when the command's context closes, so
one invocation's --force never leaks into the next (tests run many in one process).
Without the flag nothing is set or imported; a refusal's hint names --force because
the running command has the option (sessions.atomic looks at click's context).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

F = TypeVar("F", bound=Callable[..., object])

HELP = ("replace an output file even when it holds another kind of file (an assembly "
        "source, a program, a session, a manifest, an image, a trace, a NEFF)")


def _allow(ctx: click.Context, _param: click.Parameter, force: bool) -> bool:
    if not force:  # the default: nothing to set (and sessions stays unimported)
        return force
    from neurondbg.sessions.atomic import reset_replacing, set_replacing

    token = set_replacing(True)
    ctx.call_on_close(lambda: reset_replacing(token))
    return force


def force_option(command: F) -> F:
    """Add `--force` (HELP) to a click command; the command takes no parameter for it."""
    return click.option("--force", is_flag=True, expose_value=False, callback=_allow,
                        help=HELP)(command)
