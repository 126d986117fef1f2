"""What a console command gives back: the lines it printed and what the App does next.

Its own module so that the command registry (neurondbg.registry) can type handlers
without importing the commands (neurondbg.console imports the registry)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Action(StrEnum):
    """What a Reply asks the App to do after printing its lines."""

    REFRESH = "refresh"
    CONTINUE = "continue"  # run what the console armed, in the App's worker
    STEPS = "steps"  # step N (N > 1) in the App's worker; args (N,)
    REVERSE_STEPS = "reverse-steps"  # reverse N (N > 1) in the App's worker; args (N,)
    BREAK_CURSOR = "break-cursor"
    UNTIL_CURSOR = "until-cursor"
    LAB = "lab"
    LAB_ISS = "lab-iss"
    GOTO = "goto"
    DTYPE = "dtype"
    PANE = "pane"
    QUIT = "quit"
    OPEN = "open"
    SAVE = "save"
    DELIVER = "deliver"  # a file the command wrote: served in a browser, it downloads; args (path,)


Cancelled = Callable[[], bool]  # True once the user stopped a slow command's work


@dataclass
class Reply:
    """What a command printed, and what the App should do next.

    `work` is a slow command's computation, not yet run: given `cancelled`, it returns
    the Reply whose lines follow these (it checks `cancelled` between its parts and
    returns early once it is True; its own action is not applied). It must not touch the
    session: the handler read what it needs, so the work may run on another thread."""

    lines: list[tuple[str, str]] = field(default_factory=list)  # (text, style)
    action: Action | None = None
    args: tuple[Any, ...] = ()  # the action's arguments (a path, a count, a pane name)
    work: Callable[[Cancelled], Reply] | None = None

    def say(self, text: str, style: str = "") -> Reply:
        self.lines.append((text, style))
        return self


def error(text: str) -> Reply:
    return Reply().say(f"error: {text}", "bold red")
