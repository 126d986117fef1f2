"""The console command language of the TUI (gdb-like, on the machine's own specs).

`execute(line, session)` runs one command and returns a `Reply`: text lines to
print and, for commands that change the UI or take long, an `action` the App
carries out. Errors come back as one red line, never raise. Breakpoint specs and
expressions are machine.breakpoints / machine.expr's (docs/expressions.md). Each
command is declared once, with `@REGISTRY.command` (neurondbg.registry), and each of
its arguments once, as an `Arg` (its name in the usage, its help, its parser, its
completer): HELP, COMMANDS and ALIASES below, `help COMMAND`, the completion, the
palette and the help screen read them, and `execute` parses the arguments before the
handler runs, so a handler reads typed values (`args[COUNT]`), never the raw text.

The long commands (`continue [N]`, `until` / `advance`, `reverse-continue`) arm
the session (`Session.arm`) and return the `continue` action: the App runs
`Session.run()` in its worker, which carries out what was armed. A slow command
(`slow=True`: `diagnose`) reads the session in its handler and returns the rest as
`Reply.work`; `execute` runs that at once, or with `defer_slow` hands it back for
the console's thread worker (ConsoleView.run_work: the UI stays live, Esc stops it).
Decisions where the specification is silent, as gdb does them:
- `continue N` passes the breakpoint it stopped at N-1 more times (an ignore count
  kept per breakpoint until used up); not stopped at one, the count is ignored.
- `until ADDR` and `advance ADDR` are the same here (no frames): run until the PC is
  ADDR (or a label), stopping earlier at any breakpoint; without ADDR they run to
  the record under the Program cursor (the `until-cursor` action).
- `enable` / `disable` without numbers act on every breakpoint.
- `x/NF` shows at most X_MAX elements.

The module imports no model (numpy, machine.expr, the formats): the App's first frame
composes the console's completion words from REGISTRY before any program is loaded,
so each handler imports what it evaluates with.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TypeVar, cast

from neurondbg.console_reply import Action, Cancelled, Reply, error
from neurondbg.debug.controller import DebugSession
from neurondbg.machine.breakpoint_kinds import examples, spec_words
from neurondbg.panes import CORE_PANES, PANES
from neurondbg.registry import Arg, Args, Palette, Registry, Session, shell_words, text, unprompted

__all__ = ["ALIASES", "COMMANDS", "HELP", "REGISTRY", "Action", "Cancelled", "Reply",
           "default_session_path", "error", "execute"]

X_LETTERS: dict[str, str] = {"x": "uint8", "b": "bf16", "h": "fp16", "f": "fp32", "d": "int32",
                             "u": "uint32"}
X_MAX = 1024  # elements one `x` shows: a console, not a dump (`--dump-sbuf` is)
REGISTRY = Registry()  # every console command, declared below with @REGISTRY.command
T = TypeVar("T")


def execute(line: str, session: Session, *, defer_long: bool = False,
            defer_slow: bool = False) -> Reply:
    """Run one console line against a debug session (None: nothing loaded). Never raises.

    With `defer_long`, a command's long form (step N, reverse N with N > 1) is not run
    here but handed back as an action for the App's worker. With `defer_slow`, a slow
    command's work is not run here but handed back in `Reply.work` (which never raises
    either) for a thread worker (views.console_view.ConsoleView.run_work)."""
    if not unprompted(line).strip():  # nothing, or `:` alone
        return Reply()
    head, cmd, rest = REGISTRY.split(line)
    if cmd is None:
        near = REGISTRY.nearest(head)
        if near is not None:
            return error(f"unknown command {head!r}; did you mean {near!r}? (`help` lists "
                         "every command)")
        return error(f"unknown command {head!r}; expected one of: {', '.join(COMMANDS)}")
    try:
        args = cmd.parse(rest)
    except Exception as exc:  # a bad input, or a bug in a parser: one line
        return _refusal(cmd.name, exc)
    if defer_long and cmd.long is not None:
        deferred = _contained(cmd.name, lambda: cmd.long(args) if cmd.long else None)
        if deferred is not None:
            return deferred
    if session is None and cmd.needs_program:
        return error(f"{cmd.name}: no program is loaded")
    # a command that needs no program takes None too (its handler says so: `Session`)
    loaded = cast(DebugSession, session)
    reply = _contained(cmd.name, lambda: cmd.handler(loaded, args))
    if reply is None or reply.work is None:
        return reply or Reply()
    work = reply.work
    reply.work = lambda cancelled: _contained(cmd.name, lambda: work(cancelled)) or Reply()
    if defer_slow:
        return reply
    done = reply.work(lambda: False)
    return Reply(reply.lines + done.lines, reply.action, reply.args)


def _contained(name: str, fn: Callable[[], Reply | None]) -> Reply | None:
    """fn(), a bad input or a bug in it turned into one error line (a Reply)."""
    try:
        return fn()
    except Exception as exc:  # the containment boundary: a bug is a line, the UI lives on
        return _refusal(name, exc)


def _refusal(name: str, exc: Exception) -> Reply:
    """The line for a bad input (its message), or for a bug (named as one)."""
    if isinstance(exc, ValueError | KeyError | IndexError | TypeError):
        return error(f"{name}: {exc}")
    return error(f"{name}: internal error: {type(exc).__name__}: {exc}")


# -- argument parsers (an argument's text -> its value; "" when an optional one is absent) ---
def _count(rest: str) -> int:
    """A step count (default 1)."""
    if not rest:
        return 1
    try:
        n = int(rest, 0)
    except ValueError:
        raise ValueError(f"expected a step count, found {rest!r}") from None
    if n < 1:
        raise ValueError(f"expected a positive step count, found {n}")
    return n


def _count_or_core(rest: str) -> int | str:
    """A step count, or `core` (DESIGN: `step core` advances the scheduler one step)."""
    return rest if rest == "core" else _count(rest)


def _ids(rest: str) -> list[int] | None:
    """Breakpoint numbers (#3, 0x3, commas or spaces between them); None: all."""
    if not rest:
        return None
    try:
        return [int(w.lstrip("#"), 0) for w in rest.replace(",", " ").split()]
    except ValueError:
        raise ValueError(f"expected breakpoint numbers, found {rest!r}") from None


def _id_or_all(rest: str) -> int | None:
    """One breakpoint number, or None for `all` (or nothing)."""
    if rest in ("", "all"):
        return None
    try:
        return int(rest.lstrip("#"), 0)
    except ValueError:
        raise ValueError(f"expected a breakpoint number or 'all', found {rest!r}") from None


def _spec(rest: str) -> str:
    """A breakpoint spec; a bare address is gdb's `break *0x80` (pc:0x80)."""
    return f"pc:{rest}" if rest[:1].isdigit() else rest


def _topic(rest: str) -> str:
    """`info`'s topic, by any prefix (b, reg, ra); the default is breakpoints."""
    what = rest or "breakpoints"
    if "breakpoints".startswith(what) or what == "b":
        return "breakpoints"
    if "registers".startswith(what):
        return "registers"
    if len(what) >= 2 and "races".startswith(what):
        return "races"
    raise ValueError(f"expected 'info breakpoints', 'info registers' or 'info races', "
                     f"found {what!r}")


def _assignment(rest: str) -> tuple[str, str]:
    """(TARGET, VALUE) of `TARGET = VALUE`."""
    left, eq, right = rest.partition("=")
    if not eq:
        raise ValueError("expected TARGET = VALUE, e.g. set R5 = 3")
    return left.strip(), right.strip()


def _record(rest: str) -> int | None:
    """A record number (None: the one at the PC)."""
    try:
        return int(rest.replace("_", ""), 0) if rest else None
    except ValueError:
        raise ValueError(f"fix: expected a record number such as 3, found {rest!r}") from None


def _x_format(fmt: str) -> tuple[int, str]:
    """(count, format name) of x's /NF (N default 8, F default x: hex bytes)."""
    from neurondbg.machine.convert.formats import parse_format

    digits = fmt[:len(fmt) - len(fmt.lstrip("0123456789"))]
    spec = fmt[len(digits):]
    count = int(digits[:6]) if digits else 8
    if not 1 <= count <= X_MAX or len(digits) > 6:
        raise ValueError(f"expected a count 1..{X_MAX}, found {digits}")
    name = X_LETTERS.get(spec, spec or "uint8")
    parse_format(name)  # ValueError lists the names
    return count, name


def _number(what: str) -> Callable[[str], int]:
    def parse(rest: str) -> int:
        try:
            return int(rest, 0)
        except ValueError:
            raise ValueError(f"expected numbers: goto PARTITION BYTE, found {what} "
                             f"{rest!r}") from None

    return parse


def _space(rest: str) -> str | None:
    if rest not in ("", "sbuf", "psum"):
        raise ValueError(f"expected sbuf or psum, found {rest!r}")
    return rest or None


def _dtype(rest: str) -> str:
    from neurondbg.views.memory import DTYPES

    if rest not in DTYPES:
        raise ValueError(f"expected one of: {', '.join(DTYPES)}")
    return rest


def _session_file(rest: str) -> str:
    if rest and not rest.endswith(".toml"):
        raise ValueError(f"expected a session file name ending in .toml, found {rest!r}")
    return rest


def _command_name(rest: str) -> str:
    if rest and REGISTRY.get(rest) is None:
        raise ValueError(f"no command {rest!r}")
    return rest


def _commas_too(rest: str, n: int) -> list[str]:
    """Words separated by spaces or commas (`goto 3, 0x40`)."""
    parts = rest.replace(",", " ").split()
    return (parts + [""] * n)[:n]


# -- argument completion (the word being typed -> candidates) ---------------------------
def _labels(session: Session, word: str) -> Sequence[str]:
    return sorted(session.labels) if session is not None else []


def _breakpoint_ids(session: Session, word: str) -> Sequence[str]:
    return [str(bp.id) for bp in session.breakpoints()] if session is not None else []


def _break_specs(session: Session, word: str) -> Sequence[str]:
    return spec_words() + [f"label:{name}" for name in _labels(session, word)]


def _info_topics(session: Session, word: str) -> Sequence[str]:
    kernel = session is not None and session.has_schedule
    return ["breakpoints", "registers", *(["races"] if kernel else [])]


def _dtypes(session: Session, word: str) -> Sequence[str]:
    from neurondbg.views.memory import DTYPES

    return list(DTYPES)


def _panes(session: Session, word: str) -> Sequence[str]:
    """The panes of the layout the session opens in (a kernel's has no Plot)."""
    return list(CORE_PANES if session is not None and session.has_schedule else PANES)


def _tours(session: Session, word: str) -> Sequence[str]:
    from neurondbg.sessions.tours import list_tours

    return [t.name for t in list_tours()]


def _engines(session: Session, word: str) -> Sequence[str]:
    return list(getattr(session, "engines", ()))


PATH_CHOICES = 200  # a completion lists at most this many files of one folder


def path_completer(suffixes: tuple[str, ...]) -> Callable[[Session, str], Sequence[str]]:
    """Complete a path: the folders and the `suffixes` files of the folder typed so far
    (a folder ends in '/'; an unreadable folder offers nothing)."""

    def complete(session: Session, word: str) -> Sequence[str]:
        stem = word[:word.rfind("/") + 1]  # the folder typed so far, with its "/"
        name = word[len(stem):]
        try:
            found = sorted(p for p in Path(stem or ".").iterdir() if p.name.startswith(name))
        except OSError:
            return []
        return [f"{stem}{p.name}/" if p.is_dir() else f"{stem}{p.name}"
                for p in found[:PATH_CHOICES] if p.is_dir() or p.suffix in suffixes]

    return complete


def _command_names(session: Session, word: str) -> Sequence[str]:
    return REGISTRY.names


# -- arguments several commands share --------------------------------------------------------
COUNT = Arg("N", "how many instructions (default 1)", _count, optional=True)
TARGET_HELP = "a register, memory element or slot: R5, sb[0, 0:64], acc[2], sem[3]"


def _many(action: Action, count: Arg[T]) -> Callable[[Args], Reply | None]:
    """The long form of a stepping command: N > 1 goes to the App's worker (it can take
    long); anything else (1, or `step core`) runs here."""

    def deferred(args: Args) -> Reply | None:
        n = args[count]
        return Reply(action=action, args=(n,)) if isinstance(n, int) and n > 1 else None

    return deferred


def _core(session: DebugSession, what: str) -> DebugSession:
    """The session when it runs a kernel (its engines share a schedule)."""
    if not session.has_schedule:
        raise ValueError(f"{what} needs a kernel (several engine queues); this is one "
                         "program")
    return session


# -- the commands, in the order `help` lists them ---------------------------------------
STEP_COUNT = Arg("N", "how many instructions (default 1); on a kernel `core`: one "
                 "scheduler step", _count_or_core, optional=True)


@REGISTRY.command("step", "execute N instructions (default 1)", args=(STEP_COUNT,),
                  aliases=("s",),
                  palette=Palette("Step", "Execute one instruction", "step", key="app.step"),
                  long=_many(Action.STEPS, STEP_COUNT))
def _step(session: DebugSession, args: Args) -> Reply:
    n = args[STEP_COUNT]
    if n == "core":  # DESIGN: `step core` (S) advances the scheduler one instruction
        return Reply(action=Action.REFRESH).say(_core(session, "step core").step_core())
    assert isinstance(n, int)  # a count, or "core" above
    return Reply(action=Action.REFRESH).say(session.step(n))


@REGISTRY.command("next", "step N instructions (default 1; no calls in this ISA: same as step N)",
                  args=(STEP_COUNT,), aliases=("n",), long=_many(Action.STEPS, STEP_COUNT))
def _next(session: DebugSession, args: Args) -> Reply:
    return _step(session, args)


PASSES = Arg("N", "pass the breakpoint stopped at N-1 more times", _count, optional=True)


@REGISTRY.command("continue", "run until a breakpoint, fault, halt (Esc / Ctrl+C stops); "
                  "N: pass the current breakpoint N-1 more times", args=(PASSES,),
                  aliases=("c",), needs_program=False,  # the App says why nothing can run
                  palette=Palette("Continue", "Run to the next stop", "continue",
                                  key="app.continue"))
def _continue(session: Session, args: Args) -> Reply:
    reply = Reply(action=Action.CONTINUE)
    if session is None:  # the App says why nothing can run
        return reply
    n = args[PASSES]
    session.arm("continue")
    return reply.say(session.ignore_current(n), "dim") if args.given(PASSES) else reply


@REGISTRY.command("reverse", "undo the last N steps (and set edits) exactly", args=(COUNT,),
                  aliases=("r",), long=_many(Action.REVERSE_STEPS, COUNT),
                  palette=Palette("Reverse step", "Undo one step", "reverse", key="app.reverse"))
def _reverse(session: DebugSession, args: Args) -> Reply:
    return Reply(action=Action.REFRESH).say(session.reverse(args[COUNT]))


@REGISTRY.command("reverse-continue",
                  "run backwards to the previous breakpoint or watch hit, or the start (rc)",
                  aliases=("rc",),
                  palette=Palette("Reverse continue", "Run backwards to the previous stop",
                                  "reverse-continue"))
def _reverse_continue(session: DebugSession, args: Args) -> Reply:
    session.arm("reverse-continue")
    return Reply(action=Action.CONTINUE)


UNTIL_ADDR = Arg("ADDR|LABEL", "a record address or label (none: the cursor's record)", text,
                 complete=_labels, optional=True)


def _run_until(session: DebugSession, where: str) -> Reply:
    session.arm("until", session.resolve_pc(where))
    return Reply(action=Action.CONTINUE)


@REGISTRY.command("until", "run until the PC is ADDR (no ADDR: the cursor's record); "
                  "breakpoints still stop", args=(UNTIL_ADDR,), aliases=("u",),
                  palette=Palette("Run to cursor", "Until the PC is the program cursor's record",
                                  "until"))
def _until(session: DebugSession, args: Args) -> Reply:
    if not args[UNTIL_ADDR]:
        return Reply(action=Action.UNTIL_CURSOR)
    return _run_until(session, args[UNTIL_ADDR])


ADVANCE_ADDR = Arg("ADDR|LABEL", "a record address or label", text, complete=_labels,
                   missing="expected an address or label: advance 0x80")


@REGISTRY.command("advance", "the same as until ADDR", args=(ADVANCE_ADDR,))
def _advance(session: DebugSession, args: Args) -> Reply:
    return _run_until(session, args[ADVANCE_ADDR])


SPEC = Arg("SPEC", f"a breakpoint: {examples()}; a bare address is pc:ADDR (none: the record "
           "under the cursor)", _spec, complete=_break_specs, optional=True)


def _add_breakpoint(session: DebugSession, spec: str) -> Reply:
    bp = session.add_breakpoint(spec)
    return Reply(action=Action.REFRESH).say(f"breakpoint {bp.describe()}", "green")


@REGISTRY.command("break", f"breakpoint: {examples()}; on a kernel any SPEC@ENGINE (no SPEC: "
                  "the record under the cursor)", args=(SPEC,),
                  aliases=("b",),
                  palette=Palette("Toggle breakpoint", "At the program cursor", "break",
                                  key="app.break"))
def _break(session: DebugSession, args: Args) -> Reply:
    if not args[SPEC]:
        return Reply(action=Action.BREAK_CURSOR)
    return _add_breakpoint(session, args[SPEC])


DELETE_ID = Arg("N|all", "a breakpoint number, or all (the default)", _id_or_all,
                complete=lambda session, word: ["all", *_breakpoint_ids(session, word)],
                optional=True)


@REGISTRY.command("delete", "delete breakpoint #N (or all)", args=(DELETE_ID,), aliases=("d",))
def _delete(session: DebugSession, args: Args) -> Reply:
    ident = args[DELETE_ID]
    if ident is None:
        n = session.delete_breakpoint(None)
        return Reply(action=Action.REFRESH).say(f"deleted {n} breakpoint(s)")
    session.delete_breakpoint(ident)
    return Reply(action=Action.REFRESH).say(f"deleted breakpoint #{ident}")


IDS = Arg("N...", "breakpoint numbers (none: every breakpoint)", _ids,
          complete=_breakpoint_ids, optional=True)


@REGISTRY.command("enable", "enable breakpoints #N (no N: all)", args=(IDS,))
def _enable(session: DebugSession, args: Args) -> Reply:
    return Reply(action=Action.REFRESH).say(session.enable(args[IDS], True))


@REGISTRY.command("disable", "disable breakpoints #N (no N: all); they stay listed",
                  args=(IDS,))
def _disable(session: DebugSession, args: Args) -> Reply:
    return Reply(action=Action.REFRESH).say(session.enable(args[IDS], False))


WATCHED = Arg("TARGET", TARGET_HELP, text,
              missing="expected a target: watch R5 / watch sb[0, 0:64]")


@REGISTRY.command("watch", "stop after a step writes TARGET: R5, sb[0, 0:64], acc[2]",
                  args=(WATCHED,))
def _watch(session: DebugSession, args: Args) -> Reply:
    return _add_breakpoint(session, f"watch:{args[WATCHED]}")


TOPIC = Arg("TOPIC", "breakpoints (the default), registers, races (a kernel)", _topic,
            complete=_info_topics, optional=True)


@REGISTRY.command("info", "TOPIC breakpoints (the default): list them; registers: the changed "
                  "ones; races: the races found so far (a kernel)", args=(TOPIC,),
                  aliases=("i",))
def _info(session: DebugSession, args: Args) -> Reply:
    reply = Reply()
    what = args[TOPIC]
    if what == "breakpoints":
        bps = session.breakpoints()
        if not bps:
            return reply.say("no breakpoints")
        for bp in bps:
            left = session.ignore.get(bp.id, 0)
            reply.say(f"{bp.describe()}  hits {bp.hits}" +
                      (f"  (will ignore the next {left} crossing(s))" if left else ""))
        return reply
    if what == "registers":
        snap = session.snapshot()
        changed = sorted(snap.changed_registers)
        for r in changed or range(8):
            reply.say(f"R{r:<2} = {snap.registers[r]:#010x} ({snap.registers[r]})")
        return reply
    return _info_races(session, reply)


def _info_races(session: DebugSession, reply: Reply) -> Reply:
    """Each race found so far, in the order found: both accesses, the bytes, the edge
    that would order them (and the wait that follows the code's intent), and the global
    step that found it, counted as the title and the Races pane count (the N-th step
    taken is step N). They follow reverse: a race found after the current step is
    gone."""
    if not session.has_schedule:
        return reply.say("a program has one queue: there is nothing to race with")
    core = session.core
    if core.detector is None:
        return reply.say("race checking is off for this kernel")
    rows, dropped = core.race_rows()
    if not rows:
        return reply.say("no races found so far")
    for row in rows:
        (e0, pc0, op0, k0), (e1, pc1, op1, k1) = row.first, row.second
        reply.say(f"race {row.n} at step {row.step + 1}: {e0} {op0} at pc {pc0:#x} {k0}s and "
                  f"{e1} {op1} at pc {pc1:#x} {k1}s {row.where}: {row.missing}")
    if dropped:
        reply.say(f"... and {dropped} more not kept")
    return reply


EXPR = Arg("EXPR", "an expression (docs/expressions.md): R5 + 1, R5:fp32, sb[3, 0x40]:bf16",
           text, missing="expected an expression: print R5 + 1")


@REGISTRY.command("print", "evaluate: R5 + 1, R5:fp32, sb[3, 0x40]:bf16, acc[0]", args=(EXPR,),
                  aliases=("p",))
def _print(session: DebugSession, args: Args) -> Reply:
    from neurondbg.machine import expr

    rest = args[EXPR]
    value = expr.parse(rest)(session.state)
    shown = f"{value} ({value:#x})" if isinstance(value, int) and not isinstance(
        value, bool) else repr(value)
    return Reply().say(f"{rest} = {shown}")


X_FORMAT = Arg("/NF", "N elements (default 8) of format F: x hex byte, b bf16, h fp16, "
               "f fp32, d int32, u uint32, or a format name", _x_format, optional=True)
X_ADDR = Arg("ADDR", "where the first element is: sb[P, BYTE] or psum[P, BYTE]", text,
             missing="expected an address: x/8f sb[3, 0x40]")


@REGISTRY.command("x", "examine N elements of format F at sb[P, BYTE] / psum[P, BYTE]; "
                  "F: x hex byte, b bf16, h fp16, f fp32, d int32, u uint32, or a format name",
                  args=(X_FORMAT, X_ADDR), suffix=True)
def _x(session: DebugSession, args: Args) -> Reply:
    import numpy as np

    from neurondbg.debug.lab_model import values_of
    from neurondbg.machine import expr
    from neurondbg.machine.convert.formats import parse_format

    count, name = args[X_FORMAT]
    rest = args[X_ADDR]
    target = expr.parse_target(rest)
    if target.kind != "mem":
        raise ValueError(f"expected sb[P, BYTE] or psum[P, BYTE], found {rest!r}")
    f = parse_format(name)
    size = max(1, f.bits // 8)
    p, b = target.index, target.b0
    end = b + count * size
    session.check(replace(target, b1=end))
    mem = session.state.memory(target.space)
    codes = np.ascontiguousarray(mem[p, b:end])
    if size > 1:
        codes = codes.view(f.container)
    values = values_of(f, codes)
    reply = Reply()
    per_line = 8
    hex_bytes = name == "uint8" and args.text(X_FORMAT)[-1:] == "x"
    for i in range(0, count, per_line):
        chunk = values[i:i + per_line]
        cells = [f"{int(v):#04x}" if hex_bytes else f"{v:g}" for v in chunk]
        reply.say(f"{target.space}[{p}, {b + i * size:#06x}]  " + "  ".join(cells))
    return reply


ASSIGNMENT = Arg("TARGET = VALUE", "a target (R5, R5:fp32, PC, sb[P, BYTE]:FMT, sem[N], "
                 "acc[P]) and an expression", _assignment,
                 missing="expected TARGET = VALUE, e.g. set R5 = 3")


@REGISTRY.command("set", "store into R5, R5:fp32, PC, sb[P, BYTE]:FMT, sem[N], acc[P]; "
                  "prints what was stored, refuses what does not fit; reverse undoes it",
                  args=(ASSIGNMENT,))
def _set(session: DebugSession, args: Args) -> Reply:
    left, right = args[ASSIGNMENT]
    return Reply(action=Action.REFRESH).say(session.set_value(left, right))


RECORD = Arg("N", "a record number (none: the one at the PC)", _record, optional=True)


@REGISTRY.command("fix", "apply the checked legality fix of record N (default: the one at the "
                  "PC; on a kernel: of the focused engine's queue) to the program in memory, "
                  "as the Legality pane's F; reverse undoes it", args=(RECORD,))
def _fix(session: DebugSession, args: Args) -> Reply:
    return Reply(action=Action.REFRESH).say(session.apply_fix(args[RECORD]))


WHO_TARGET = Arg("TARGET", TARGET_HELP + "; PC", text, missing="expected a target: who R5")


@REGISTRY.command("who", "which step last wrote R5, sb[P, BYTE], acc[P], sem[N] (PC: the "
                  "previous step)", args=(WHO_TARGET,))
def _who(session: DebugSession, args: Args) -> Reply:
    return Reply().say(session.who(args[WHO_TARGET]))


ENGINE = Arg("ENGINE", "an engine of the kernel (none: list them)", text, complete=_engines,
             optional=True)


@REGISTRY.command("focus", "kernel: the engine the Program, Registers and Struct panes show "
                  "(e / E cycle); no ENGINE: the engines", args=(ENGINE,))
def _focus(session: DebugSession, args: Args) -> Reply:
    core = _core(session, "focus")
    if not args[ENGINE]:
        return Reply().say(f"focus: {core.engine} (engines: {', '.join(core.engines)})")
    return Reply(action=Action.REFRESH).say(core.focus_engine(args[ENGINE]))


POLICY = Arg("POLICY", "rr, in-order or random:SEED (none: show the current one)", text,
             complete=lambda session, word: ["rr", "in-order", "random:"], optional=True)


@REGISTRY.command("schedule", "kernel: the scheduler's policy rr | in-order | random:SEED "
                  "(restarts the kernel at step 0); no POLICY: the current one", args=(POLICY,))
def _schedule(session: DebugSession, args: Args) -> Reply:
    core = _core(session, "schedule")
    if not args[POLICY]:
        return Reply().say(f"schedule: {core.core.schedule}")
    return Reply(action=Action.REFRESH).say(core.set_schedule(args[POLICY]))


LAB_VALUE = Arg("VALUE", "the value to convert (`iss`: an ISS primitive, then its NAME and "
                "VALUE)", text, optional=True)
LAB_SRC = Arg("SRC", "the source format", text, optional=True)
LAB_DST = Arg("DST", "the destination format", text, optional=True)


@REGISTRY.command("lab", "open the Convert Lab; lab iss NAME [VALUE]: on an ISS primitive of "
                  "reference 003", args=(LAB_VALUE, LAB_SRC, LAB_DST), needs_program=False,
                  split=shell_words,
                  palette=Palette("Convert Lab", "Explore one value's conversion", "lab",
                                  key="app.lab"))
def _lab(session: Session, args: Args) -> Reply:
    parts = [args[a] for a in (LAB_VALUE, LAB_SRC, LAB_DST)]
    if parts[0] == "iss":  # lab iss NAME [VALUE]: an ISS primitive of ref 003
        from neurondbg.machine.convert.iss import ISS_PRIMITIVES

        if parts[1] not in ISS_PRIMITIVES:
            raise ValueError("expected: lab iss NAME [VALUE]; primitives: "
                             + ", ".join(ISS_PRIMITIVES))
        return Reply(action=Action.LAB_ISS, args=(parts[1], parts[2]))
    return Reply(action=Action.LAB, args=tuple(p for p in parts if p))


GOTO_MISSING = "expected: goto PARTITION BYTE [sbuf|psum]"
PARTITION = Arg("P", "a partition", _number("partition"), missing=GOTO_MISSING)
BYTE = Arg("BYTE", "a byte in the partition", _number("byte"), missing=GOTO_MISSING)
SPACE = Arg("sbuf|psum", "the memory (default: the one shown)", _space,
            complete=lambda session, word: ["sbuf", "psum"], optional=True)


@REGISTRY.command("goto", "show SBUF/PSUM from partition P, byte BYTE",
                  args=(PARTITION, BYTE, SPACE), needs_program=False, split=_commas_too)
def _goto(session: Session, args: Args) -> Reply:
    partition, byte, space = args[PARTITION], args[BYTE], args[SPACE]
    if session is not None:
        from neurondbg.machine import expr

        session.check(expr.Target("mem", partition, partition + 1, byte, byte + 1,
                                  space or "sbuf"))
    return Reply(action=Action.GOTO, args=(partition, byte, space))


DTYPE = Arg("NAME", "an element format: hex, fp32, bf16, int8, ...", _dtype,
            complete=_dtypes, missing="expected a format name: dtype fp32")


@REGISTRY.command("dtype", "SBUF pane element format (hex, fp32, bf16, int8, ...)",
                  args=(DTYPE,), needs_program=False)
def _dtype_command(session: Session, args: Args) -> Reply:
    return Reply(action=Action.DTYPE, args=(args[DTYPE],))


PANE = Arg("NAME", "a pane of the layout (none: restore the layout)", text,
           complete=_panes, optional=True)


@REGISTRY.command("pane", f"maximise a pane ({', '.join(PANES)}; a kernel: "
                  f"{', '.join(p for p in CORE_PANES if p not in PANES)}); `pane` alone restores",
                  args=(PANE,), needs_program=False)
def _pane(session: Session, args: Args) -> Reply:
    return Reply(action=Action.PANE, args=(args[PANE],))


OPEN_PATH = Arg("PATH", "a program (.asm / .bin) or a session (.toml)", text,
                complete=path_completer((".asm", ".bin", ".toml")),
                missing="expected a path: open examples/demo.asm")


@REGISTRY.command("open", "load a program (.asm / .bin) or a session (.toml)",
                  args=(OPEN_PATH,), needs_program=False,
                  palette=Palette("Open", "open PATH in the console", "open "))
def _open(session: Session, args: Args) -> Reply:
    return Reply(action=Action.OPEN, args=(args[OPEN_PATH],))


TOUR = Arg("NAME", "a guided tour (none: list them)", text, complete=_tours, optional=True)


@REGISTRY.command("tour", "list the guided tours, or open one", args=(TOUR,),
                  needs_program=False)
def _tour(session: Session, args: Args) -> Reply:
    from neurondbg.sessions.tours import list_tours

    tours = list_tours()
    name = args[TOUR]
    if not name:
        reply = Reply()
        for t in tours:
            reply.say(f"{t.name:<18} {t.title}")
        return reply.say("open one with: tour NAME", "dim")
    for t in tours:
        if t.name == name:
            return Reply(action=Action.OPEN, args=(str(t.path),))
    raise ValueError(f"no tour {name!r}; expected one of: {', '.join(t.name for t in tours)}")


LOAD_PATH = Arg("PATH.toml", "a session file", text, complete=path_completer((".toml",)),
                missing="expected a session file: load here.toml")


@REGISTRY.command("load", "open a session file (the same as open)", args=(LOAD_PATH,),
                  needs_program=False,
                  palette=Palette("Load session", "load PATH.toml in the console", "load "))
def _load(session: Session, args: Args) -> Reply:
    return Reply(action=Action.OPEN, args=(args[LOAD_PATH],))


def default_session_path(session: Session) -> str:
    """Where `save` writes without a PATH: PROGRAM.session.toml in the current folder.

    Never the session file that was opened: that may be a shipped tour or the demo,
    and a bare `save` must not rewrite what the next start opens."""
    if session is None:
        raise ValueError("no program loaded: nothing to save")
    return f"{Path(session.program_path).stem}.session.toml"


SAVE_PATH = Arg("PATH.toml", "the session file to write (default: PROGRAM.session.toml)",
                _session_file, complete=path_completer((".toml",)), optional=True)


@REGISTRY.command("save", "save a session file (program, step, breakpoints, layout); "
                  "default: PROGRAM.session.toml in the current folder", args=(SAVE_PATH,),
                  palette=Palette("Save session", "save [PATH.toml] in the console", "save "))
def _save(session: DebugSession, args: Args) -> Reply:
    return Reply(action=Action.SAVE, args=(args[SAVE_PATH] or default_session_path(session),))


COMMAND = Arg("COMMAND", "a command (none: every command, then the keys)", _command_name,
              complete=_command_names, optional=True)


@REGISTRY.command("help", "this list", args=(COMMAND,), needs_program=False)
def _help(session: Session, args: Args) -> Reply:
    reply = Reply()
    cmd = REGISTRY.get(args[COMMAND]) if args[COMMAND] else None
    if cmd is not None:
        reply.say(cmd.help_line)
        for line in cmd.arg_lines:
            reply.say(line, "dim")
        return reply
    from neurondbg.screens.help import key_summary  # the keys, from the App's bindings

    for cmd in REGISTRY:
        reply.say(cmd.help_line)
    return reply.say(f"keys: {key_summary()}", "dim")


@REGISTRY.command("quit", "leave neurondbg", aliases=("q",), needs_program=False)
def _quit(session: Session, args: Args) -> Reply:
    return Reply(action=Action.QUIT)


# Commands declared in modules of their own (they import REGISTRY and Reply from here,
# so they are imported once both exist): explain, diagnose, export.
from neurondbg import console_diagnose, console_explain, console_export  # noqa: E402, F401

# Read from the registry (tests and the completion words use them).
HELP: dict[str, str] = {cmd.name: cmd.help_line for cmd in REGISTRY}
COMMANDS: tuple[str, ...] = REGISTRY.names
ALIASES: dict[str, str] = REGISTRY.aliases
