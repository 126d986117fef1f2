"""The console command language of the TUI (gdb-like, on the machine's own specs).

`execute(line, session)` runs one command and returns a `Reply`: text lines to
print and, for commands that change the UI or take long, an `action` the App
carries out. Errors come back as one red line, never raise. Breakpoint specs and
expressions are machine.breakpoints / machine.expr's (docs/expressions.md).

The long commands (`continue [N]`, `until` / `advance`, `reverse-continue`) arm
the session (`Session.arm`) and return the `continue` action: the App runs
`Session.run()` in its worker, which carries out what was armed. Decisions where
the issue is silent, as gdb does them:
- `continue N` passes the breakpoint it stopped at N-1 more times (an ignore count
  kept per breakpoint until used up); not stopped at one, the count is ignored.
- `until ADDR` and `advance ADDR` are the same here (no frames): run until the PC is
  ADDR (or a label), stopping earlier at any breakpoint; without ADDR they run to
  the record under the Program cursor (the `until-cursor` action).
- `enable` / `disable` without numbers act on every breakpoint.
- `x/NF` shows at most X_MAX elements.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from machine import expr
from machine.convert.formats import parse_format
from views.lab_model import values_of

HELP: dict[str, str] = {
    "step": "step [N]            execute N instructions (default 1)",
    "next": "next N              step N instructions (no calls in this ISA: same as step N)",
    "continue": "continue [N]        run until a breakpoint, fault, halt (Esc / Ctrl+C stops); "
                "N: pass the current breakpoint N-1 more times",
    "reverse": "reverse [N]         undo the last N steps (and set edits) exactly",
    "reverse-continue": "reverse-continue    run backwards to the previous breakpoint or watch "
                        "hit, or the start (rc)",
    "until": "until [ADDR|LABEL]  run until the PC is ADDR (no ADDR: the cursor's record); "
             "breakpoints still stop",
    "advance": "advance ADDR|LABEL  the same as until ADDR",
    "break": "break [SPEC]        breakpoint: pc:0x80 op:CAST label:loop invalid fault if:R5>3 "
             "saturate tie nan inf (no SPEC: the record under the cursor)",
    "delete": "delete [N|all]      delete breakpoint #N (or all)",
    "enable": "enable [N...]       enable breakpoints #N (no N: all)",
    "disable": "disable [N...]      disable breakpoints #N (no N: all); they stay listed",
    "watch": "watch TARGET        stop after a step writes TARGET: R5, sb[0, 0:64], acc[2]",
    "info": "info breakpoints    list breakpoints; info registers: the changed ones",
    "print": "print EXPR          evaluate: R5 + 1, R5:fp32, sb[3, 0x40]:bf16, acc[0]",
    "x": "x/NF ADDR           examine N elements of format F at sb[P, BYTE] / psum[P, BYTE]; "
         "F: x hex byte, b bf16, h fp16, f fp32, d int32, u uint32, or a format name",
    "set": "set TARGET = VALUE  store into R5, R5:fp32, PC, sb[P, BYTE]:FMT, sem[N], acc[P]; "
           "prints what was stored, refuses what does not fit; reverse undoes it",
    "who": "who TARGET          which step last wrote R5, sb[P, BYTE], acc[P], sem[N] "
           "(PC: the previous step)",
    "lab": "lab [VALUE [SRC [DST]]]   open the Convert Lab; lab iss NAME [VALUE]: on an "
           "ISS primitive of reference 003",
    "goto": "goto P BYTE [sbuf|psum]   show SBUF/PSUM from partition P, byte BYTE",
    "dtype": "dtype NAME          SBUF pane element format (hex, fp32, bf16, int8, ...)",
    "pane": "pane NAME           maximise a pane (program, registers, struct, legality, memory, "
            "accum, lanes, plot, console); `pane` alone restores",
    "open": "open PATH           load a program (.asm / .bin) or a session (.toml)",
    "tour": "tour [NAME]         list the guided tours, or open one",
    "load": "load PATH.toml      open a session file (the same as open)",
    "save": "save [PATH.toml]    save a session file (program, step, breakpoints, layout); "
            "default: PROGRAM.session.toml in the current folder",
    "help": "help [COMMAND]      this list",
    "quit": "quit                leave neurondbg",
}
COMMANDS: tuple[str, ...] = tuple(HELP)
ALIASES: dict[str, str] = {"s": "step", "n": "next", "c": "continue", "r": "reverse",
                           "rc": "reverse-continue", "u": "until", "b": "break",
                           "d": "delete", "p": "print", "i": "info", "q": "quit"}
X_LETTERS: dict[str, str] = {"x": "uint8", "b": "bf16", "h": "fp16", "f": "fp32", "d": "int32",
                             "u": "uint32"}
X_MAX = 1024  # elements one `x` shows: a console, not a dump (`--dump-sbuf` is)


@dataclass
class Reply:
    """What a command printed, and what the App should do next."""

    lines: list[tuple[str, str]] = field(default_factory=list)  # (text, style)
    action: str | None = None  # continue, lab, goto, dtype, pane, quit, break-cursor, refresh
    args: tuple[Any, ...] = ()

    def say(self, text: str, style: str = "") -> Reply:
        self.lines.append((text, style))
        return self


def error(text: str) -> Reply:
    return Reply().say(f"error: {text}", "bold red")


def execute(line: str, session: Any) -> Reply:
    """Run one console line against a views.adapter.Session. Never raises."""
    text = line.strip()
    if not text:
        return Reply()
    head, _, rest = text.partition(" ")
    rest = rest.strip()
    fmt = ""
    if head.startswith("x/") or head == "x":
        head, fmt = "x", head[2:]
    name = ALIASES.get(head, head)
    handler = HANDLERS.get(name)
    if handler is None:
        return error(f"unknown command {head!r}; expected one of: {', '.join(COMMANDS)}")
    try:
        return handler(session, rest, fmt) if name == "x" else handler(session, rest)
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


def _step(session: Any, rest: str) -> Reply:
    return Reply(action="refresh").say(session.step(_count(rest)))


def _next(session: Any, rest: str) -> Reply:
    if not rest:
        raise ValueError("expected a step count: next N")
    return _step(session, rest)


def _continue(session: Any, rest: str) -> Reply:
    reply = Reply(action="continue")
    if session is None:  # the App says why nothing can run
        return reply
    n = _count(rest)
    session.arm("continue")
    return reply.say(session.ignore_current(n), "dim") if rest else reply


def _reverse_continue(session: Any, rest: str) -> Reply:
    if rest:
        raise ValueError(f"takes no argument, found {rest!r}")
    session.arm("reverse-continue")
    return Reply(action="continue")


def _until(session: Any, rest: str) -> Reply:
    if not rest:
        return Reply(action="until-cursor")
    session.arm("until", session.resolve_pc(rest))
    return Reply(action="continue")


def _advance(session: Any, rest: str) -> Reply:
    if not rest:
        raise ValueError("expected an address or label: advance 0x80")
    return _until(session, rest)


def _ids(rest: str) -> list[int] | None:
    if not rest:
        return None
    try:
        return [int(w.lstrip("#"), 0) for w in rest.replace(",", " ").split()]
    except ValueError:
        raise ValueError(f"expected breakpoint numbers, found {rest!r}") from None


def _enable(session: Any, rest: str) -> Reply:
    return Reply(action="refresh").say(session.enable(_ids(rest), True))


def _disable(session: Any, rest: str) -> Reply:
    return Reply(action="refresh").say(session.enable(_ids(rest), False))


def _reverse(session: Any, rest: str) -> Reply:
    return Reply(action="refresh").say(session.reverse(_count(rest)))


def _break(session: Any, rest: str) -> Reply:
    if not rest:
        return Reply(action="break-cursor")
    if rest[:1].isdigit():  # a bare address: gdb's `break *0x80`
        rest = f"pc:{rest}"
    bp = session.add_breakpoint(rest)
    return Reply(action="refresh").say(f"breakpoint {bp.describe()}", "green")


def _delete(session: Any, rest: str) -> Reply:
    if rest in ("", "all"):
        n = session.delete_breakpoint(None)
        return Reply(action="refresh").say(f"deleted {n} breakpoint(s)")
    try:
        ident = int(rest.lstrip("#"), 0)
    except ValueError:
        raise ValueError(f"expected a breakpoint number or 'all', found {rest!r}") from None
    session.delete_breakpoint(ident)
    return Reply(action="refresh").say(f"deleted breakpoint #{ident}")


def _watch(session: Any, rest: str) -> Reply:
    if not rest:
        raise ValueError("expected a target: watch R5 / watch sb[0, 0:64]")
    return _break(session, f"watch:{rest}")


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
    raise ValueError(f"expected 'info breakpoints' or 'info registers', found {what!r}")


def _print(session: Any, rest: str) -> Reply:
    if not rest:
        raise ValueError("expected an expression: print R5 + 1")
    value = expr.parse(rest)(session.state)
    shown = f"{value} ({value:#x})" if isinstance(value, int) and not isinstance(
        value, bool) else repr(value)
    return Reply().say(f"{rest} = {shown}")


def _x_format(fmt: str) -> tuple[int, str]:
    digits = fmt[:len(fmt) - len(fmt.lstrip("0123456789"))]
    spec = fmt[len(digits):]
    count = int(digits[:6]) if digits else 8
    if not 1 <= count <= X_MAX or len(digits) > 6:
        raise ValueError(f"expected a count 1..{X_MAX}, found {digits}")
    name = X_LETTERS.get(spec, spec or "uint8")
    parse_format(name)  # ValueError lists the names
    return count, name


def _x(session: Any, rest: str, fmt: str) -> Reply:
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


def _set(session: Any, rest: str) -> Reply:
    left, eq, right = rest.partition("=")
    if not eq:
        raise ValueError("expected TARGET = VALUE, e.g. set R5 = 3")
    return Reply(action="refresh").say(session.set_value(left.strip(), right.strip()))


def _who(session: Any, rest: str) -> Reply:
    if not rest:
        raise ValueError("expected a target: who R5")
    return Reply().say(session.who(rest))


def _lab(session: Any, rest: str) -> Reply:
    parts = shlex.split(rest)
    if parts and parts[0] == "iss":  # lab iss NAME [VALUE]: an ISS primitive of ref 003
        from machine.convert.iss import ISS_PRIMITIVES

        if len(parts) < 2 or parts[1] not in ISS_PRIMITIVES:
            raise ValueError("expected: lab iss NAME [VALUE]; primitives: "
                             + ", ".join(ISS_PRIMITIVES))
        return Reply(action="lab-iss", args=(parts[1], parts[2] if len(parts) > 2 else ""))
    return Reply(action="lab", args=tuple(parts[:3]))


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
        session.check(expr.Target("mem", partition, partition + 1, byte, byte + 1,
                                  space or "sbuf"))
    return Reply(action="goto", args=(partition, byte, space))


def _dtype(session: Any, rest: str) -> Reply:
    from views.memory import DTYPES

    if rest not in DTYPES:
        raise ValueError(f"expected one of: {', '.join(DTYPES)}")
    return Reply(action="dtype", args=(rest,))


def _pane(session: Any, rest: str) -> Reply:
    return Reply(action="pane", args=(rest,))


def _help(session: Any, rest: str) -> Reply:
    reply = Reply()
    if rest:
        name = ALIASES.get(rest, rest)
        if name not in HELP:
            raise ValueError(f"no command {rest!r}")
        return reply.say(HELP[name])
    for name in COMMANDS:
        reply.say(HELP[name])
    return reply.say("keys: s step · c continue · r reverse · b breakpoint · ? help · q quit · "
                     "Ctrl+P palette", "dim")


def _open(session: Any, rest: str) -> Reply:
    if not rest:
        raise ValueError("expected a path: open examples/demo.asm")
    return Reply(action="open", args=(rest,))


def _load(session: Any, rest: str) -> Reply:
    if not rest:
        raise ValueError("expected a session file: load here.toml")
    return Reply(action="open", args=(rest,))


def default_session_path(session: Any) -> str:
    """Where `save` writes without a PATH: PROGRAM.session.toml in the current folder.

    Never the session file that was opened: that may be a shipped tour or the demo,
    and a bare `save` must not rewrite what the next start opens."""
    if session is None:
        raise ValueError("no program loaded: nothing to save")
    return f"{Path(session.program_path).stem}.session.toml"


def _save(session: Any, rest: str) -> Reply:
    rest = rest or default_session_path(session)
    if not rest.endswith(".toml"):
        raise ValueError(f"expected a session file name ending in .toml, found {rest!r}")
    return Reply(action="save", args=(rest,))


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
            return Reply(action="open", args=(str(t.path),))
    raise ValueError(f"no tour {rest!r}; expected one of: {', '.join(t.name for t in tours)}")


def _quit(session: Any, rest: str) -> Reply:
    return Reply(action="quit")


HANDLERS: dict[str, Callable[..., Reply]] = {
    "step": _step, "next": _next, "continue": _continue, "reverse": _reverse,
    "reverse-continue": _reverse_continue, "until": _until, "advance": _advance,
    "break": _break, "delete": _delete, "enable": _enable, "disable": _disable,
    "watch": _watch, "info": _info, "print": _print, "x": _x, "set": _set,
    "who": _who, "lab": _lab, "goto": _goto, "dtype": _dtype, "pane": _pane, "help": _help,
    "open": _open, "load": _load, "tour": _tour, "save": _save, "quit": _quit,
}
