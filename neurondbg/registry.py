"""The console command registry: one declaration per command (pwndbg's `@Command`).

A `Command` carries everything the App knows about a console command: its name,
aliases, usage, help text, argument completion, whether it needs a loaded program,
how the palette shows it, and its handler. The console's HELP, the completion
words, the palette entries, the help screen and dispatch are all read from a
`Registry`, so adding a command is one decorated function (see neurondbg.console).

Decided where the issue is silent:
- a command word may carry gdb's `/FMT` suffix (`x/4f`) only when its declaration
  says so (`suffix=True`); `step/3` stays an unknown command, as before.
- completion of the first word offers canonical names only (aliases are for
  typing, not for listing, as gdb's `help` lists them).
- an unknown command word is answered with the nearest command name when one is
  close (difflib's ratio >= NEAR, as git's "did you mean"); aliases are not offered
  (one or two letters are near too many words).
- a `slow` command (`diagnose`) is one whose handler returns its computation as
  `Reply.work` instead of doing it: the handler reads the session on the caller's
  thread, and dispatch (neurondbg.console.execute) decides where the work runs, at
  once or in the console's thread worker (views.console_view), which Esc stops.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

USAGE_WIDTH = 20  # the usage column of a help line; a longer usage is followed by GAP
GAP = "   "
NEAR = 0.6  # difflib's ratio from which an unknown word is taken for a misspelt command

Handler = Callable[[Any, str], Any]  # (session or None, the text after the command word)
Completer = Callable[[Any, str], Sequence[str]]  # (session or None, the word being typed)
LongForm = Callable[[str], Any]  # the text after the word -> a deferred Reply, or None


@dataclass(frozen=True)
class Palette:
    """How the command palette shows a command: its title, a one-line help, and the
    console line it runs; a line ending in a space is typed into the console for the
    user to finish (a command that needs an argument) instead of run. `key` is the id
    of the key binding that does the same, named in the help from the binding itself."""

    title: str
    help: str
    line: str
    key: str = ""


@dataclass(frozen=True)
class Command:
    """One console command."""

    name: str
    usage: str  # "step [N]": the name and its arguments, as the help shows them
    text: str  # what it does, one line
    handler: Handler
    aliases: tuple[str, ...] = ()
    complete: Completer | None = None  # candidates for the argument being typed
    needs_program: bool = True  # refused (with the reason) without an idle, loaded program
    palette: Palette | None = None  # None: not in the command palette
    suffix: bool = False  # accepts gdb's `/FMT` glued to its name (x/4f)
    long: LongForm | None = None  # the form the App runs in a worker (step N with N > 1)
    slow: bool = False  # the handler returns Reply.work: run off the UI thread, Esc stops it

    @property
    def help_line(self) -> str:
        """`usage` in its column, then `text` (what `help` prints)."""
        if len(self.usage) < USAGE_WIDTH:
            return f"{self.usage:<{USAGE_WIDTH}}{self.text}"
        return f"{self.usage}{GAP}{self.text}"


class Registry:
    """Commands in the order they were declared (the order `help` lists them)."""

    def __init__(self) -> None:
        self._commands: dict[str, Command] = {}
        self._aliases: dict[str, str] = {}

    def command(self, name: str, usage: str, text: str, *, aliases: tuple[str, ...] = (),
                complete: Completer | None = None, needs_program: bool = True,
                palette: Palette | None = None, suffix: bool = False,
                long: LongForm | None = None,
                slow: bool = False) -> Callable[[Handler], Handler]:
        """Decorator: declare the decorated function as the handler of command `name`."""

        def register(handler: Handler) -> Handler:
            self.add(Command(name, usage, text, handler, aliases, complete, needs_program,
                             palette, suffix, long, slow))
            return handler

        return register

    def add(self, cmd: Command) -> None:
        """Register `cmd`; a name or alias declared twice is a programming error."""
        for word in (cmd.name, *cmd.aliases):
            if word in self._commands or word in self._aliases:
                raise ValueError(f"console command {word!r} declared twice")
        self._commands[cmd.name] = cmd
        self._aliases.update((a, cmd.name) for a in cmd.aliases)

    def __iter__(self) -> Iterator[Command]:
        return iter(self._commands.values())

    def __len__(self) -> int:
        return len(self._commands)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._commands)

    @property
    def aliases(self) -> dict[str, str]:
        return dict(self._aliases)

    def get(self, word: str) -> Command | None:
        """The command `word` names (a name or an alias), or None."""
        return self._commands.get(self._aliases.get(word, word))

    def nearest(self, word: str) -> str | None:
        """The command name closest to an unknown `word` (`stpe` -> `step`), or None when
        none is near (module docstring)."""
        found = difflib.get_close_matches(word.partition("/")[0], self.names, n=1,
                                          cutoff=NEAR)
        return found[0] if found else None

    def split(self, line: str) -> tuple[str, Command | None, str]:
        """(the word typed, its command or None, the rest) of a console line; for a
        command that takes a `/FMT` suffix the rest starts with it (`/4f sb[0, 0]`)."""
        head, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        word, slash, fmt = head.partition("/")
        cmd = self.get(word)
        if slash and cmd is not None and cmd.suffix:
            return word, cmd, f"/{fmt} {rest}".rstrip()
        return head, self.get(head), rest

    def completions(self, line: str, session: Any = None) -> list[str]:
        """Candidates for the last word of `line`: command names for the first word,
        else what the command's `complete` offers for its argument (whole lines, so an
        input can put one in place as it is)."""
        if " " not in line.lstrip():
            word = line.strip()
            return [n for n in self.names if n.startswith(word)]
        cmd = self.split(line)[1]
        if cmd is None or cmd.complete is None:
            return []
        stem, _, word = line.rpartition(" ")
        return [f"{stem} {c}" for c in cmd.complete(session, word) if c.startswith(word)]
