"""The console command language of the TUI (gdb-like, on the machine's own specs).

`execute(line, session)` runs one command and returns a `Reply`: text lines to
print and, for commands that change the UI or take long, an `action` the App
carries out. Errors come back as one red line, never raise. Breakpoint specs and
expressions are machine.breakpoints / machine.expr's (docs/expressions.md). Each
command is declared once, with `@REGISTRY.command` (neurondbg.registry): HELP,
COMMANDS and ALIASES below, the completion, the palette and the help screen read it.

The long commands (`continue [N]`, `until` / `advance`, `reverse-continue`) arm
the session (`Session.arm`) and return the `continue` action: the App runs
`Session.run()` in its worker, which carries out what was armed. A slow command
(`slow=True`: `diagnose`) reads the session in its handler and returns the rest as
`Reply.work`; `execute` runs that at once, or with `defer_slow` hands it back for
the console's thread worker (ConsoleView.run_work: the UI stays live, Esc stops it).
Decisions where the issue is silent, as gdb does them:
- `continue N` passes the breakpoint it stopped at N-1 more times (an ignore count
  kept per breakpoint until used up); not stopped at one, the count is ignored.
- `until ADDR` and `advance ADDR` are the same here (no frames): run until the PC is
  ADDR (or a label), stopping earlier at any breakpoint; without ADDR they run to
  the record under the Program cursor (the `until-cursor` action).
- `enable` / `disable` without numbers act on every breakpoint.
- `x/NF` shows at most X_MAX elements.

The module imports no model (numpy, machine.expr, the formats): the App's first frame
composes the console's completion words from REGISTRY before any program is loaded
(issue 17), so each handler imports what it evaluates with.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from machine.breakpoint_kinds import examples, spec_words
from neurondbg.panes import CORE_PANES, PANES
from neurondbg.registry import Palette, Registry

X_LETTERS: dict[str, str] = {"x": "uint8", "b": "bf16", "h": "fp16", "f": "fp32", "d": "int32",
                             "u": "uint32"}
X_MAX = 1024  # elements one `x` shows: a console, not a dump (`--dump-sbuf` is)
REGISTRY = Registry()  # every console command, declared below with @REGISTRY.command


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
    args: tuple[Any, ...] = ()
    work: Callable[[Cancelled], Reply] | None = None

    def say(self, text: str, style: str = "") -> Reply:
        self.lines.append((text, style))
        return self


def error(text: str) -> Reply:
    return Reply().say(f"error: {text}", "bold red")


def execute(line: str, session: Any, *, defer_long: bool = False,
            defer_slow: bool = False) -> Reply:
    """Run one console line against a views.session.Session. Never raises.

    With `defer_long`, a command's long form (step N, reverse N with N > 1) is not run
    here but handed back as an action for the App's worker. With `defer_slow`, a slow
    command's work is not run here but handed back in `Reply.work` (which never raises
    either) for a thread worker (views.console_view.ConsoleView.run_work)."""
    if not line.strip():
        return Reply()
    head, cmd, rest = REGISTRY.split(line)
    if cmd is None:
        near = REGISTRY.nearest(head)
        if near is not None:
            return error(f"unknown command {head!r}; did you mean {near!r}? (`help` lists "
                         "every command)")
        return error(f"unknown command {head!r}; expected one of: {', '.join(COMMANDS)}")
    if defer_long and cmd.long is not None:
        deferred = _contained(cmd.name, cmd.long, rest)
        if deferred is not None:
            return deferred
    reply = _contained(cmd.name, cmd.handler, session, rest)
    if reply.work is None:
        return reply
    work = reply.work
    reply.work = lambda cancelled: _contained(cmd.name, work, cancelled)
    if defer_slow:
        return reply
    done = reply.work(lambda: False)
    return Reply(reply.lines + done.lines, reply.action, reply.args)


def _contained(name: str, fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args), a bad input or a bug in it turned into one error line (a Reply)."""
    try:
        return fn(*args)
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        return error(f"{name}: {exc}")
    except Exception as exc:  # the containment boundary: a bug is a line, the UI lives on
        return error(f"{name}: internal error: {type(exc).__name__}: {exc}")


def _count(rest: str, default: int = 1) -> int:
    if not rest:
        return default
    try:
        n = int(rest, 0)
    except ValueError:
        raise ValueError(f"expected a step count, found {rest!r}") from None
    if n < 1:
        raise ValueError(f"expected a positive step count, found {n}")
    return n


def _many(action: Action) -> Callable[[str], Reply | None]:
    """The long form of a stepping command: N > 1 goes to the App's worker (it can take
    long); anything else (1, or a bad count the handler reports) runs here."""

    def deferred(rest: str) -> Reply | None:
        try:
            n = _count(rest)
        except ValueError:
            return None
        return Reply(action=action, args=(n,)) if n > 1 else None

    return deferred


# -- argument completion (the word being typed -> candidates) ---------------------------
def _labels(session: Any, word: str) -> Sequence[str]:
    return sorted(session.labels) if session is not None else []


def _breakpoint_ids(session: Any, word: str) -> Sequence[str]:
    return [str(bp.id) for bp in session.breakpoints()] if session is not None else []


def _break_specs(session: Any, word: str) -> Sequence[str]:
    return spec_words() + [f"label:{name}" for name in _labels(session, word)]


def _info_topics(session: Any, word: str) -> Sequence[str]:
    kernel = session is not None and session.has_schedule
    return ["breakpoints", "registers", *(["races"] if kernel else [])]


def _dtypes(session: Any, word: str) -> Sequence[str]:
    from views.memory import DTYPES

    return list(DTYPES)


def _panes(session: Any, word: str) -> Sequence[str]:
    """The panes of the layout the session opens in (a kernel's has no Plot)."""
    return list(CORE_PANES if session is not None and session.has_schedule else PANES)


def _tours(session: Any, word: str) -> Sequence[str]:
    from sessions.tours import list_tours

    return [t.name for t in list_tours()]


PATH_CHOICES = 200  # a completion lists at most this many files of one folder


def _paths(suffixes: tuple[str, ...]) -> Callable[[Any, str], Sequence[str]]:
    """Complete a path: the folders and the `suffixes` files of the folder typed so far
    (a folder ends in '/'; an unreadable folder offers nothing)."""

    def complete(session: Any, word: str) -> Sequence[str]:
        stem = word[:word.rfind("/") + 1]  # the folder typed so far, with its "/"
        name = word[len(stem):]
        try:
            found = sorted(p for p in Path(stem or ".").iterdir() if p.name.startswith(name))
        except OSError:
            return []
        return [f"{stem}{p.name}/" if p.is_dir() else f"{stem}{p.name}"
                for p in found[:PATH_CHOICES] if p.is_dir() or p.suffix in suffixes]

    return complete


def _command_names(session: Any, word: str) -> Sequence[str]:
    return REGISTRY.names


# -- the commands, in the order `help` lists them ---------------------------------------
@REGISTRY.command("step", "step [N]", "execute N instructions (default 1)", aliases=("s",),
                  palette=Palette("Step", "Execute one instruction", "step", key="app.step"),
                  long=_many(Action.STEPS))
def _step(session: Any, rest: str) -> Reply:
    if rest == "core":  # DESIGN: `step core` (S) advances the scheduler one instruction
        return Reply(action=Action.REFRESH).say(_core(session, "step core").step_core())
    return Reply(action=Action.REFRESH).say(session.step(_count(rest)))


def _core(session: Any, what: str) -> Any:
    """The session when it runs a kernel (its engines share a schedule)."""
    if session is None or not session.has_schedule:
        raise ValueError(f"{what} needs a kernel (several engine queues); this is one "
                         "program")
    return session


@REGISTRY.command("next", "next [N]",
                  "step N instructions (default 1; no calls in this ISA: same as step N)",
                  aliases=("n",), long=_many(Action.STEPS))
def _next(session: Any, rest: str) -> Reply:
    return _step(session, rest)


@REGISTRY.command("continue", "continue [N]",
                  "run until a breakpoint, fault, halt (Esc / Ctrl+C stops); "
                  "N: pass the current breakpoint N-1 more times",
                  aliases=("c",), needs_program=False,  # the App says why nothing can run
                  palette=Palette("Continue", "Run to the next stop", "continue",
                                  key="app.continue"))
def _continue(session: Any, rest: str) -> Reply:
    reply = Reply(action=Action.CONTINUE)
    if session is None:  # the App says why nothing can run
        return reply
    n = _count(rest)
    session.arm("continue")
    return reply.say(session.ignore_current(n), "dim") if rest else reply


@REGISTRY.command("reverse", "reverse [N]", "undo the last N steps (and set edits) exactly",
                  aliases=("r",), long=_many(Action.REVERSE_STEPS),
                  palette=Palette("Reverse step", "Undo one step", "reverse", key="app.reverse"))
def _reverse(session: Any, rest: str) -> Reply:
    return Reply(action=Action.REFRESH).say(session.reverse(_count(rest)))


@REGISTRY.command("reverse-continue", "reverse-continue",
                  "run backwards to the previous breakpoint or watch hit, or the start (rc)",
                  aliases=("rc",),
                  palette=Palette("Reverse continue", "Run backwards to the previous stop",
                                  "reverse-continue"))
def _reverse_continue(session: Any, rest: str) -> Reply:
    if rest:
        raise ValueError(f"takes no argument, found {rest!r}")
    session.arm("reverse-continue")
    return Reply(action=Action.CONTINUE)


@REGISTRY.command("until", "until [ADDR|LABEL]",
                  "run until the PC is ADDR (no ADDR: the cursor's record); "
                  "breakpoints still stop", aliases=("u",), complete=_labels,
                  palette=Palette("Run to cursor", "Until the PC is the program cursor's record",
                                  "until"))
def _until(session: Any, rest: str) -> Reply:
    if not rest:
        return Reply(action=Action.UNTIL_CURSOR)
    session.arm("until", session.resolve_pc(rest))
    return Reply(action=Action.CONTINUE)


@REGISTRY.command("advance", "advance ADDR|LABEL", "the same as until ADDR", complete=_labels)
def _advance(session: Any, rest: str) -> Reply:
    if not rest:
        raise ValueError("expected an address or label: advance 0x80")
    return _until(session, rest)


@REGISTRY.command("break", "break [SPEC]",
                  f"breakpoint: {examples()}; on a kernel any SPEC@ENGINE (no SPEC: the "
                  "record under the cursor)",
                  aliases=("b",), complete=_break_specs,
                  palette=Palette("Toggle breakpoint", "At the program cursor", "break",
                                  key="app.break"))
def _break(session: Any, rest: str) -> Reply:
    if not rest:
        return Reply(action=Action.BREAK_CURSOR)
    if rest[:1].isdigit():  # a bare address: gdb's `break *0x80`
        rest = f"pc:{rest}"
    bp = session.add_breakpoint(rest)
    return Reply(action=Action.REFRESH).say(f"breakpoint {bp.describe()}", "green")


@REGISTRY.command("delete", "delete [N|all]", "delete breakpoint #N (or all)", aliases=("d",),
                  complete=lambda session, word: ["all", *_breakpoint_ids(session, word)])
def _delete(session: Any, rest: str) -> Reply:
    if rest in ("", "all"):
        n = session.delete_breakpoint(None)
        return Reply(action=Action.REFRESH).say(f"deleted {n} breakpoint(s)")
    try:
        ident = int(rest.lstrip("#"), 0)
    except ValueError:
        raise ValueError(f"expected a breakpoint number or 'all', found {rest!r}") from None
    session.delete_breakpoint(ident)
    return Reply(action=Action.REFRESH).say(f"deleted breakpoint #{ident}")


def _ids(rest: str) -> list[int] | None:
    if not rest:
        return None
    try:
        return [int(w.lstrip("#"), 0) for w in rest.replace(",", " ").split()]
    except ValueError:
        raise ValueError(f"expected breakpoint numbers, found {rest!r}") from None


@REGISTRY.command("enable", "enable [N...]", "enable breakpoints #N (no N: all)",
                  complete=_breakpoint_ids)
def _enable(session: Any, rest: str) -> Reply:
    return Reply(action=Action.REFRESH).say(session.enable(_ids(rest), True))


@REGISTRY.command("disable", "disable [N...]",
                  "disable breakpoints #N (no N: all); they stay listed",
                  complete=_breakpoint_ids)
def _disable(session: Any, rest: str) -> Reply:
    return Reply(action=Action.REFRESH).say(session.enable(_ids(rest), False))


@REGISTRY.command("watch", "watch TARGET",
                  "stop after a step writes TARGET: R5, sb[0, 0:64], acc[2]")
def _watch(session: Any, rest: str) -> Reply:
    if not rest:
        raise ValueError("expected a target: watch R5 / watch sb[0, 0:64]")
    return _break(session, f"watch:{rest}")


@REGISTRY.command("info", "info breakpoints",
                  "list breakpoints; info registers: the changed ones; info races: the "
                  "races found so far (a kernel)", aliases=("i",), complete=_info_topics)
def _info(session: Any, rest: str) -> Reply:
    what = rest or "breakpoints"
    reply = Reply()
    if "breakpoints".startswith(what) or what == "b":
        bps = session.breakpoints()
        if not bps:
            return reply.say("no breakpoints")
        for bp in bps:
            left = session.ignore.get(bp.id, 0)
            reply.say(f"{bp.describe()}  hits {bp.hits}" +
                      (f"  (will ignore the next {left} crossing(s))" if left else ""))
        return reply
    if "registers".startswith(what):
        snap = session.snapshot()
        changed = sorted(snap.changed_registers)
        for r in changed or range(8):
            reply.say(f"R{r:<2} = {snap.registers[r]:#010x} ({snap.registers[r]})")
        return reply
    if len(what) >= 2 and "races".startswith(what):
        return _info_races(session, reply)
    raise ValueError(f"expected 'info breakpoints', 'info registers' or 'info races', "
                     f"found {what!r}")


def _info_races(session: Any, reply: Reply) -> Reply:
    """Each race found so far, in the order found: both accesses, the bytes, the edge
    that would order them (and the wait that follows the code's intent), and the global
    step that found it. They follow reverse: a race found after the current step is
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
        reply.say(f"race {row.n} at step {row.step}: {e0} {op0} at pc {pc0:#x} {k0}s and "
                  f"{e1} {op1} at pc {pc1:#x} {k1}s {row.where}: {row.missing}")
    if dropped:
        reply.say(f"... and {dropped} more not kept")
    return reply


@REGISTRY.command("print", "print EXPR", "evaluate: R5 + 1, R5:fp32, sb[3, 0x40]:bf16, acc[0]",
                  aliases=("p",))
def _print(session: Any, rest: str) -> Reply:
    if not rest:
        raise ValueError("expected an expression: print R5 + 1")
    from machine import expr

    value = expr.parse(rest)(session.state)
    shown = f"{value} ({value:#x})" if isinstance(value, int) and not isinstance(
        value, bool) else repr(value)
    return Reply().say(f"{rest} = {shown}")


def _x_format(fmt: str) -> tuple[int, str]:
    from machine.convert.formats import parse_format

    digits = fmt[:len(fmt) - len(fmt.lstrip("0123456789"))]
    spec = fmt[len(digits):]
    count = int(digits[:6]) if digits else 8
    if not 1 <= count <= X_MAX or len(digits) > 6:
        raise ValueError(f"expected a count 1..{X_MAX}, found {digits}")
    name = X_LETTERS.get(spec, spec or "uint8")
    parse_format(name)  # ValueError lists the names
    return count, name


@REGISTRY.command("x", "x/NF ADDR",
                  "examine N elements of format F at sb[P, BYTE] / psum[P, BYTE]; "
                  "F: x hex byte, b bf16, h fp16, f fp32, d int32, u uint32, or a format name",
                  suffix=True)
def _x(session: Any, rest: str) -> Reply:
    import numpy as np

    from machine import expr
    from machine.convert.formats import parse_format
    from views.lab_model import values_of

    fmt = ""
    if rest.startswith("/"):  # the /NF glued to the command word (Registry.split)
        fmt, _, rest = rest[1:].partition(" ")
        rest = rest.strip()
    count, name = _x_format(fmt)
    if not rest:
        raise ValueError("expected an address: x/8f sb[3, 0x40]")
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
    for i in range(0, count, per_line):
        chunk = values[i:i + per_line]
        cells = [f"{int(v):#04x}" if name == "uint8" and fmt[-1:] == "x" else f"{v:g}"
                 for v in chunk]
        reply.say(f"{target.space}[{p}, {b + i * size:#06x}]  " + "  ".join(cells))
    return reply


@REGISTRY.command("set", "set TARGET = VALUE",
                  "store into R5, R5:fp32, PC, sb[P, BYTE]:FMT, sem[N], acc[P]; "
                  "prints what was stored, refuses what does not fit; reverse undoes it")
def _set(session: Any, rest: str) -> Reply:
    left, eq, right = rest.partition("=")
    if not eq:
        raise ValueError("expected TARGET = VALUE, e.g. set R5 = 3")
    return Reply(action=Action.REFRESH).say(session.set_value(left.strip(), right.strip()))


@REGISTRY.command("fix", "fix [N]",
                  "apply the checked legality fix of record N (default: the one at the PC; "
                  "on a kernel: of the focused engine's queue) to the program in memory, "
                  "as the Legality pane's F; reverse undoes it")
def _fix(session: Any, rest: str) -> Reply:
    try:
        index = int(rest.replace("_", ""), 0) if rest else None
    except ValueError:
        raise ValueError(f"fix: expected a record number such as 3, found {rest!r}") from None
    return Reply(action=Action.REFRESH).say(session.apply_fix(index))


@REGISTRY.command("who", "who TARGET",
                  "which step last wrote R5, sb[P, BYTE], acc[P], sem[N] (PC: the previous step)")
def _who(session: Any, rest: str) -> Reply:
    if not rest:
        raise ValueError("expected a target: who R5")
    return Reply().say(session.who(rest))


def _engines(session: Any, word: str) -> Sequence[str]:
    return list(getattr(session, "engines", ()))


@REGISTRY.command("focus", "focus [ENGINE]",
                  "kernel: the engine the Program, Registers and Struct panes show "
                  "(e / E cycle); no ENGINE: the engines", complete=_engines)
def _focus(session: Any, rest: str) -> Reply:
    core = _core(session, "focus")
    if not rest:
        return Reply().say(f"focus: {core.engine} (engines: {', '.join(core.engines)})")
    return Reply(action=Action.REFRESH).say(core.focus_engine(rest))


@REGISTRY.command("schedule", "schedule [POLICY]",
                  "kernel: the scheduler's policy rr | in-order | random:SEED (restarts the "
                  "kernel at step 0); no POLICY: the current one",
                  complete=lambda session, word: ["rr", "in-order", "random:"])
def _schedule(session: Any, rest: str) -> Reply:
    core = _core(session, "schedule")
    if not rest:
        return Reply().say(f"schedule: {core.core.schedule}")
    return Reply(action=Action.REFRESH).say(core.set_schedule(rest))


@REGISTRY.command("lab", "lab [VALUE [SRC [DST]]]",
                  "open the Convert Lab; lab iss NAME [VALUE]: on an ISS primitive of "
                  "reference 003", needs_program=False,
                  palette=Palette("Convert Lab", "Explore one value's conversion", "lab",
                                  key="app.lab"))
def _lab(session: Any, rest: str) -> Reply:
    parts = shlex.split(rest)
    if parts and parts[0] == "iss":  # lab iss NAME [VALUE]: an ISS primitive of ref 003
        from machine.convert.iss import ISS_PRIMITIVES

        if len(parts) < 2 or parts[1] not in ISS_PRIMITIVES:
            raise ValueError("expected: lab iss NAME [VALUE]; primitives: "
                             + ", ".join(ISS_PRIMITIVES))
        return Reply(action=Action.LAB_ISS, args=(parts[1], parts[2] if len(parts) > 2 else ""))
    return Reply(action=Action.LAB, args=tuple(parts[:3]))


@REGISTRY.command("goto", "goto P BYTE [sbuf|psum]",
                  "show SBUF/PSUM from partition P, byte BYTE", needs_program=False)
def _goto(session: Any, rest: str) -> Reply:
    parts = rest.replace(",", " ").split()
    if len(parts) < 2:
        raise ValueError("expected: goto PARTITION BYTE [sbuf|psum]")
    space = parts[2] if len(parts) > 2 else None
    if space not in (None, "sbuf", "psum"):
        raise ValueError(f"expected sbuf or psum, found {space!r}")
    try:
        partition, byte = int(parts[0], 0), int(parts[1], 0)
    except ValueError:
        raise ValueError(f"expected numbers: goto PARTITION BYTE, found {rest!r}") from None
    if session is not None:
        from machine import expr

        session.check(expr.Target("mem", partition, partition + 1, byte, byte + 1,
                                  space or "sbuf"))
    return Reply(action=Action.GOTO, args=(partition, byte, space))


@REGISTRY.command("dtype", "dtype NAME", "SBUF pane element format (hex, fp32, bf16, int8, ...)",
                  needs_program=False, complete=_dtypes)
def _dtype(session: Any, rest: str) -> Reply:
    if rest not in _dtypes(session, rest):
        raise ValueError(f"expected one of: {', '.join(_dtypes(session, rest))}")
    return Reply(action=Action.DTYPE, args=(rest,))


@REGISTRY.command("pane", "pane NAME",
                  f"maximise a pane ({', '.join(PANES)}; a kernel: "
                  f"{', '.join(p for p in CORE_PANES if p not in PANES)}); `pane` alone restores",
                  needs_program=False, complete=_panes)
def _pane(session: Any, rest: str) -> Reply:
    return Reply(action=Action.PANE, args=(rest,))


@REGISTRY.command("open", "open PATH", "load a program (.asm / .bin) or a session (.toml)",
                  needs_program=False,
                  complete=_paths((".asm", ".bin", ".toml")),
                  palette=Palette("Open", "open PATH in the console", "open "))
def _open(session: Any, rest: str) -> Reply:
    if not rest:
        raise ValueError("expected a path: open examples/demo.asm")
    return Reply(action=Action.OPEN, args=(rest,))


@REGISTRY.command("tour", "tour [NAME]", "list the guided tours, or open one",
                  needs_program=False, complete=_tours)
def _tour(session: Any, rest: str) -> Reply:
    from sessions.tours import list_tours

    tours = list_tours()
    if not rest:
        reply = Reply()
        for t in tours:
            reply.say(f"{t.name:<18} {t.title}")
        return reply.say("open one with: tour NAME", "dim")
    for t in tours:
        if t.name == rest:
            return Reply(action=Action.OPEN, args=(str(t.path),))
    raise ValueError(f"no tour {rest!r}; expected one of: {', '.join(t.name for t in tours)}")


@REGISTRY.command("load", "load PATH.toml", "open a session file (the same as open)",
                  needs_program=False,
                  complete=_paths((".toml",)),
                  palette=Palette("Load session", "load PATH.toml in the console", "load "))
def _load(session: Any, rest: str) -> Reply:
    if not rest:
        raise ValueError("expected a session file: load here.toml")
    return Reply(action=Action.OPEN, args=(rest,))


def default_session_path(session: Any) -> str:
    """Where `save` writes without a PATH: PROGRAM.session.toml in the current folder.

    Never the session file that was opened: that may be a shipped tour or the demo,
    and a bare `save` must not rewrite what the next start opens."""
    if session is None:
        raise ValueError("no program loaded: nothing to save")
    return f"{Path(session.program_path).stem}.session.toml"


@REGISTRY.command("save", "save [PATH.toml]",
                  "save a session file (program, step, breakpoints, layout); "
                  "default: PROGRAM.session.toml in the current folder",
                  complete=_paths((".toml",)),
                  palette=Palette("Save session", "save [PATH.toml] in the console", "save "))
def _save(session: Any, rest: str) -> Reply:
    rest = rest or default_session_path(session)
    if not rest.endswith(".toml"):
        raise ValueError(f"expected a session file name ending in .toml, found {rest!r}")
    return Reply(action=Action.SAVE, args=(rest,))


@REGISTRY.command("help", "help [COMMAND]", "this list", needs_program=False,
                  complete=_command_names)
def _help(session: Any, rest: str) -> Reply:
    reply = Reply()
    if rest:
        cmd = REGISTRY.get(rest)
        if cmd is None:
            raise ValueError(f"no command {rest!r}")
        return reply.say(cmd.help_line)
    from neurondbg.screens.help import key_summary  # the keys, from the App's bindings

    for cmd in REGISTRY:
        reply.say(cmd.help_line)
    return reply.say(f"keys: {key_summary()}", "dim")


@REGISTRY.command("quit", "quit", "leave neurondbg", aliases=("q",), needs_program=False)
def _quit(session: Any, rest: str) -> Reply:
    return Reply(action=Action.QUIT)


# Commands declared in modules of their own (they import REGISTRY and Reply from here,
# so they are imported once both exist): explain (issue 12), diagnose (issue 13).
from neurondbg import console_diagnose, console_explain, console_export  # noqa: E402, F401

# Read from the registry (tests and the completion words use them).
HELP: dict[str, str] = {cmd.name: cmd.help_line for cmd in REGISTRY}
COMMANDS: tuple[str, ...] = REGISTRY.names
ALIASES: dict[str, str] = REGISTRY.aliases
