"""The console command registry: one declaration per command (pwndbg's `@Command`).

A `Command` carries everything the App knows about a console command: its name,
aliases, its arguments, help text, whether it needs a loaded program, how the
palette shows it, and its handler. Each argument is an `Arg`, declared once with
its name in the usage, its help, how its text becomes a typed value and what
completes it (as pwndbg declares an argparse parser): the usage and `help COMMAND`,
the parsing `execute` does before the handler runs, and the completion are all read
from those declarations. The console's HELP, the completion words, the palette
entries, the help screen and dispatch are all read from a `Registry`, so adding a
command is one decorated function and adding an argument one `Arg` (see
neurondbg.console and docs/architecture.md).

Decided where the specification is silent:
- a command word may carry gdb's `/FMT` suffix (`x/4f`) only when its declaration
  says so (`suffix=True`: its first argument is the suffix); `step/3` stays an
  unknown command, as before.
- arguments are words, the last one taking the rest of the line (an expression, a
  breakpoint spec, a list of numbers); a command whose syntax is not words in order
  (`goto P, BYTE`, shell quoting, an `.npy` found anywhere) declares its `split`.
- an optional argument that is not given is parsed from the empty text (its parser
  gives the default: `step` is `step 1`); a required one is refused with its
  `missing` message. An optional argument after an optional one is shown nested
  (`lab [VALUE [SRC [DST]]]`): a later one cannot be given without the earlier.
- a command that declares no argument refuses any (`takes no argument, found 'x'`).
- completion of the first word offers canonical names only (aliases are for
  typing, not for listing, as gdb's `help` lists them); a later word is completed
  by the argument it falls in (the last argument for any word past it).
- a line may start with one `:` (gdb's and vim's habit: `:` is also the key that opens
  the command line), which is not part of the command: `:break op:CAST` is
  `break op:CAST`, and `::x` is the unknown command `:x`.
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
import shlex
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from neurondbg.console_reply import Reply
from neurondbg.debug.controller import DebugSession

USAGE_WIDTH = 20  # the usage column of a help line; a longer usage is followed by GAP
ARG_WIDTH = 14  # the name column of an argument's line in `help COMMAND`
GAP = "   "
NEAR = 0.6  # difflib's ratio from which an unknown word is taken for a misspelt command

T = TypeVar("T")
# The session a command runs on (a program's or a kernel's: debug.controller.DebugSession,
# a Protocol: no model loads with it), or None before anything is loaded.
Session = DebugSession | None
Completer = Callable[[Session, str], Sequence[str]]  # (session or None, the word typed)
Splitter = Callable[[str, int], list[str]]  # (the text after the word, n) -> n texts


def no_completion(session: Session, word: str) -> Sequence[str]:
    """The completer of an argument nothing can be offered for (a number, an expression)."""
    return ()


@dataclass(frozen=True, eq=False)
class Arg(Generic[T]):
    """One argument of a console command, declared once.

    `parse` turns the argument's text into its value (ValueError, with the message the
    console prints, when it cannot); an optional argument not given is parsed from "".
    `missing` is the error for a required argument not given."""

    name: str  # as the usage shows it: "N", "ADDR|LABEL", "TARGET = VALUE"
    help: str  # what it is (`help COMMAND`)
    parse: Callable[[str], T]
    complete: Completer = no_completion  # candidates for the word being typed
    optional: bool = False
    missing: str = ""  # the error when a required argument is not given

    @property
    def missing_error(self) -> str:
        return self.missing or f"expected {self.name}"

    def value(self, text: str) -> T:
        """The argument's value from its text (the empty text: not given)."""
        if not text and not self.optional:
            raise ValueError(self.missing_error)
        return self.parse(text)


def text(t: str) -> str:
    """The argument's text as typed (a parser for arguments judged later: a breakpoint
    spec, an expression, a path)."""
    return t


def words(rest: str, n: int) -> list[str]:
    """The first n-1 words of `rest`, then the rest of it (the last argument takes the
    remaining text whole); "" for each argument not given."""
    parts = rest.split(None, n - 1) if n else []
    return [p.strip() for p in parts] + [""] * (n - len(parts))


def shell_words(rest: str, n: int) -> list[str]:
    """Words quoted as in a shell (a PATH with spaces); the last argument takes the
    remaining words, joined by spaces."""
    try:
        parts = shlex.split(rest)
    except ValueError as e:
        raise ValueError(f"{e}: quote a PATH with spaces as in a shell") from None
    if len(parts) > n:
        parts[n - 1:] = [" ".join(parts[n - 1:])]
    return parts + [""] * (n - len(parts))


class Args:
    """The values of a command's arguments, read by their declarations (typed: args[N] is
    what N's parser returns)."""

    def __init__(self, texts: Mapping[Arg[Any], str], flags: frozenset[str] = frozenset()
                 ) -> None:
        self._texts = dict(texts)
        self._values = {arg: arg.value(t) for arg, t in texts.items()}  # in order: errors too
        self.flags = flags  # the declared flags given (`--force`)

    def __getitem__(self, arg: Arg[T]) -> T:
        return cast(T, self._values[arg])  # made by `arg.value`, which returns a T

    def text(self, arg: Arg[Any]) -> str:
        """The argument's text as typed ("" when not given)."""
        return self._texts[arg]

    def given(self, arg: Arg[Any]) -> bool:
        return bool(self._texts[arg])


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


# (the session, the parsed arguments): a command that needs no program (`needs_program`
# False) is also run with None, and its handler takes `Session`
Handler = Callable[[DebugSession, Args], Reply]
LongForm = Callable[[Args], Reply | None]  # the parsed arguments -> a deferred Reply, or None


@dataclass(frozen=True)
class Flag:
    """A flag a command takes anywhere among its words (`--force`)."""

    name: str
    help: str


@dataclass(frozen=True)
class Command:
    """One console command."""

    name: str
    text: str  # what it does, one line
    handler: Handler
    args: tuple[Arg[Any], ...] = ()
    aliases: tuple[str, ...] = ()
    needs_program: bool = True  # refused (with the reason) without an idle, loaded program
    palette: Palette | None = None  # None: not in the command palette
    suffix: bool = False  # accepts gdb's `/FMT` glued to its name (x/4f): args[0]
    long: LongForm | None = None  # the form the App runs in a worker (step N with N > 1)
    slow: bool = False  # the handler returns Reply.work: run off the UI thread, Esc stops it
    split: Splitter = words  # the text after the word -> one text per argument
    flags: tuple[Flag, ...] = ()
    positional: bool = True  # arguments come in order (False: `split` finds each anywhere)

    @property
    def usage(self) -> str:
        """"step [N]": the name and its arguments, as the help shows them (optional ones
        nest: `lab [VALUE [SRC [DST]]]`)."""
        head, args = self.name, list(self.args)
        if self.suffix and args:
            head += args.pop(0).name
        parts, depth = [head], 0
        for arg in args:
            if arg.optional:
                parts.append(f"[{arg.name}" + ("" if self.positional else "]"))
                depth += self.positional
                continue
            parts[-1] += "]" * depth
            parts.append(arg.name)
            depth = 0
        parts[-1] += "]" * depth
        return " ".join(parts + [f"[{f.name}]" for f in self.flags])

    @property
    def help_line(self) -> str:
        """`usage` in its column, then `text` (what `help` prints)."""
        if len(self.usage) < USAGE_WIDTH:
            return f"{self.usage:<{USAGE_WIDTH}}{self.text}"
        return f"{self.usage}{GAP}{self.text}"

    @property
    def arg_lines(self) -> list[str]:
        """One line per argument and flag (what `help COMMAND` adds to the help line)."""
        named: list[Arg[Any] | Flag] = [*self.args, *self.flags]
        return [f"  {a.name:<{ARG_WIDTH}}{a.help}" if len(a.name) < ARG_WIDTH else
                f"  {a.name}{GAP}{a.help}" for a in named]

    def parse(self, rest: str) -> Args:
        """The arguments' values from the text after the command word; ValueError with
        the message to print when one is missing or wrong."""
        flags = frozenset(f.name for f in self.flags if f.name in rest.split())
        for f in flags:
            rest = " ".join(w for w in rest.split(" ") if w != f)
        if not self.args:
            if rest.strip():
                raise ValueError(f"takes no argument, found {rest.strip()!r}")
            return Args({}, flags)
        if self.suffix:  # the /FMT glued to the command word (Registry.split)
            fmt, rest = (rest[1:].partition(" ")[::2] if rest.startswith("/") else ("", rest))
            texts = [fmt, *self.split(rest.strip(), len(self.args) - 1)]
        else:
            texts = self.split(rest, len(self.args))
        return Args(dict(zip(self.args, texts, strict=True)), flags)

    def arg_at(self, line: str) -> Arg[Any] | None:
        """The argument the last word of `line` (a whole console line) falls in."""
        if not self.args:
            return None
        args = self.args[1:] if self.suffix else self.args
        before = len(line.split()) - (0 if line.endswith(" ") else 1)  # words done
        return args[min(max(before - 1, 0), len(args) - 1)] if args else None


def unprompted(line: str) -> str:
    """A console line from its command word on: without the blanks before it, nor one
    leading `:` (the key that opens the command line, typed again by habit) and the
    blanks after that `:`."""
    text = line.lstrip()
    return text[1:].lstrip() if text.startswith(":") else text


class Registry:
    """Commands in the order they were declared (the order `help` lists them)."""

    def __init__(self) -> None:
        self._commands: dict[str, Command] = {}
        self._aliases: dict[str, str] = {}

    def command(self, name: str, text: str, *, args: tuple[Arg[Any], ...] = (),
                aliases: tuple[str, ...] = (), needs_program: bool = True,
                palette: Palette | None = None, suffix: bool = False,
                long: LongForm | None = None, slow: bool = False, split: Splitter = words,
                flags: tuple[Flag, ...] = (), positional: bool = True
                ) -> Callable[[Handler], Handler]:
        """Decorator: declare the decorated function as the handler of command `name`."""

        def register(handler: Handler) -> Handler:
            self.add(Command(name, text, handler, args, aliases, needs_program, palette,
                             suffix, long, slow, split, flags, positional))
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
        """(the word typed, its command or None, the rest) of a console line (one
        leading `:` dropped); for a command that takes a `/FMT` suffix the rest starts
        with it (`/4f sb[0, 0]`)."""
        head, _, rest = unprompted(line).strip().partition(" ")
        rest = rest.strip()
        word, slash, fmt = head.partition("/")
        cmd = self.get(word)
        if slash and cmd is not None and cmd.suffix:
            return word, cmd, f"/{fmt} {rest}".rstrip()
        return head, self.get(head), rest

    def completions(self, line: str, session: Session = None) -> list[str]:
        """Candidates for the last word of `line`: command names for the first word,
        else what the argument that word falls in offers (whole lines, so an input can
        put one in place as it is)."""
        body = unprompted(line)
        if " " not in body:  # the command word (after a leading `:`, kept in front)
            colon = line.lstrip()[:len(line.lstrip()) - len(body)]
            return [colon + n for n in self.names if n.startswith(body)]
        cmd = self.split(line)[1]
        arg = cmd.arg_at(body) if cmd is not None else None
        if arg is None:
            return []
        stem, _, word = line.rpartition(" ")
        return [f"{stem} {c}" for c in arg.complete(session, word) if c.startswith(word)]
