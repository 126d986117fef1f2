"""The breakpoint SPEC language shared by `run --break SPEC` and the UI console.

    op:CAST | op:0x47        before executing an instruction with that opcode
    pc:0x80                  before executing the instruction at that byte address
    label:loop               before executing the instruction at a label
    invalid                  before executing an instruction that fails legality
    fault                    when a step faults (faults always stop; this names it)
    if:EXPR                  after a step that makes EXPR (machine/expr.py) true (an edge:
                             not again while it stays true); an error in EXPR is false
    watch:TARGET             after a step that writes TARGET (R5, PC, sb[0,0:64], sem[3], acc[2])
    change:TARGET            after a step that changes TARGET's value
    saturate | tie | nan | inf   after a conversion step in which a lane saturates,
                             rounds an exact tie, or produces NaN / infinity
    race                     (a NeuronCore kernel) after a step in which the race detector
                             finds a race
    deadlock                 (a kernel) when no engine can run and some have not halted
                             (a deadlock always stops; this names it)
    wait                     (a kernel) after a step that leaves an engine blocked on a
                             semaphore wait it was not blocked on before

Any kind but `deadlock` may name the engine it is about with an `@ENGINE` suffix
(`op:CAST@dve`, `pc:0x80@pool`, `watch:sb[0, 0:64]@pool`: a write by POOL, `race@dve`:
a race with a DVE access, `wait@act`); without one it matches every engine.
Any spec may end with ` if EXPR` to make it conditional, e.g. `op:CAST if R5 > 2`.
Errors are ValueError("column N: expected ...") counted in the whole spec.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from neurondbg.machine import expr as ex
from neurondbg.machine.breakpoint_kinds import Kind
from neurondbg.machine.isa.opcodes import QUEUE_ENGINES

if TYPE_CHECKING:
    from neurondbg.machine.engines.record import StepRecord

KINDS: tuple[Kind, ...] = tuple(Kind)
STATIC_KINDS = (Kind.OP, Kind.PC, Kind.LABEL, Kind.INVALID)  # checked before an instruction
SEMANTIC_KINDS = (Kind.SATURATE, Kind.TIE, Kind.NAN, Kind.INF)
CORE_KINDS = (Kind.RACE, Kind.DEADLOCK, Kind.WAIT)  # only a NeuronCore (machine/core) meets
# The lane flag (StepRecord.lanes.flags) each semantic breakpoint tests.
SEMANTIC_FLAG = {Kind.SATURATE: "saturated", Kind.TIE: "tie", Kind.NAN: "nan", Kind.INF: "inf"}


@dataclass
class Breakpoint:
    """One parsed spec. `value` is the opcode / pc / label / Expr / Target by kind."""

    kind: Kind
    value: Any
    text: str
    cond: ex.Expr | None = None
    enabled: bool = True
    hits: int = 0
    id: int = 0
    watch_old: Any = field(default=None, repr=False)  # change: the value last seen
    engine: str | None = None  # the `@ENGINE` it is about; None: every engine

    def describe(self) -> str:
        return f"#{self.id} {self.text}" + ("" if self.enabled else " (disabled)")


def _shift(e: ValueError, offset: int) -> ValueError:
    msg = str(e)
    if msg.startswith("column "):
        n, _, rest = msg[7:].partition(":")
        if n.isdigit():
            return ValueError(f"column {int(n) + offset}:{rest}")
    return e


def _int(text: str, col: int, what: str) -> int:
    try:
        return int(text.strip().replace("_", ""), 0)
    except ValueError:
        raise ValueError(f"column {col}: expected {what}, found {text.strip()!r}") from None


def parse_opcode(text: str, col: int,
                 by_name: Callable[[str], int] | None = None) -> int:
    """An opcode by number (0x47) or mnemonic (CAST), via machine.isa's table."""
    t = text.strip()
    if t[:1].isdigit():
        v = _int(t, col, "an opcode number 0..255 or a mnemonic")
        if not 0 <= v <= 255:
            raise ValueError(f"column {col}: expected an opcode 0..255, found {v}")
        return v
    if by_name is None:
        from neurondbg.machine.isa.opcodes import opcode_by_name

        def by_name(name: str) -> int:
            return opcode_by_name(name).code
    try:
        return by_name(t.upper())
    except (KeyError, ValueError):
        raise ValueError(f"column {col}: expected an opcode mnemonic such as CAST or COPY, "
                         f"found {t!r}") from None


def parse_spec(spec: str) -> Breakpoint:
    """Parse one SPEC (see the module docstring)."""
    text = spec.strip()
    lead = len(spec) - len(spec.lstrip())
    if not text:
        raise ValueError("column 1: expected a breakpoint spec such as pc:0x80, op:CAST, "
                         "if:R5>3, watch:R5, saturate")
    cond = None
    head = text
    # A trailing " if EXPR" makes any spec conditional (not for if: itself).
    if not text.startswith("if:"):
        cut = text.find(" if ")
        if cut >= 0:
            head = text[:cut].rstrip()
            try:
                cond = ex.parse(text[cut + 4:])
            except ValueError as e:
                raise _shift(e, lead + cut + 4) from None
    engine, head = _engine_suffix(head, lead)
    word, colon, arg = head.partition(":")
    word = word.strip().lower()
    argcol = lead + len(word) + 2
    if word not in _BY_WORD:
        raise ValueError(f"column {lead + 1}: expected one of {', '.join(KINDS)}, found {word!r}")
    kind = _BY_WORD[word]
    has_arg = kind.takes_argument
    if has_arg and not (colon and arg.strip()):
        raise ValueError(f"column {argcol}: expected an argument after '{kind}:'")
    if not has_arg and colon:
        raise ValueError(f"column {argcol - 1}: '{kind}' takes no argument")
    if kind == "deadlock" and engine is not None:
        raise ValueError(f"column {lead + len(head) + 1}: 'deadlock' is about the whole core; "
                         "it takes no @ENGINE")
    value: Any = None
    try:
        if kind == "op":
            value = parse_opcode(arg, argcol)
        elif kind == "pc":
            value = _int(arg, argcol, "a byte address such as 0x80")
            if value % 64:  # records are 64 bytes: any other address is never reached
                raise ValueError(f"column {argcol}: expected a record address (a multiple "
                                 f"of 64 such as 0x80), found {arg.strip()!r}")
        elif kind in ("label", "dma"):
            value = arg.strip()
        elif kind == "if":
            value = ex.parse(arg)
        elif kind in ("watch", "change"):
            value = ex.parse_target(arg)
    except ValueError as e:
        raise _shift(e, argcol - 1) if kind in ("if", "watch", "change") else e from None
    return Breakpoint(kind, value, text, cond, engine=engine)


_BY_WORD = {str(k): k for k in Kind}


def _engine_suffix(head: str, lead: int) -> tuple[str | None, str]:
    """(engine, the spec without it) for a head ending in `@ENGINE`; (None, head) else."""
    if "@" not in head:
        return None, head
    rest, _, name = head.rpartition("@")
    col = lead + len(rest) + 2
    engine = name.strip().lower()
    if engine not in QUEUE_ENGINES:
        raise ValueError(f"column {col}: expected an engine ({', '.join(QUEUE_ENGINES)}) "
                         f"after '@', found {name.strip()!r}")
    return engine, rest.rstrip()


# -- what a step touched (watch:/change:) ----------------------------------------------
def undo_hits_any(targets: list[ex.Target], u: Any) -> bool:
    """Whether the journal entry `u` (a non-register Undo) touched any of `targets`."""
    return any(undo_hits(t, set(), [u]) for t in targets)


def undo_hits(t: ex.Target, regs: set[int], undos: list[Any]) -> bool:
    """Whether a journaled step (registers written, its Undo entries) touched `t`."""
    if t.kind == "reg":
        return t.index in regs
    for u in undos:
        if t.kind == "mem" and u.kind == "mem" and u.target == t.space:
            r = u.key
            if r.p0 < t.p1 and t.index < r.p1 and r.bounds[0] < t.b1 and t.b0 < r.bounds[1]:
                return True
        elif t.kind in ("sem", "shape") and u.target == t.kind and u.key == t.index:
            return True
        elif t.kind in ("acc", "idx") and u.target == t.kind and (
                u.key.start <= t.index < u.key.stop):
            return True
    return False


def shown(v: Any) -> str:
    """A watched value for a stop message: numbers as is, memory as (short) hex bytes."""
    if isinstance(v, bytes | bytearray):
        return v[:16].hex(" ") + (" ..." if len(v) > 16 else "")
    return str(v)


def written_by(t: ex.Target, rec: StepRecord) -> Any:
    """The step's Write that touched `t`, or None."""
    for w in rec.writes:
        if t.kind == "reg" and w.target == f"R{t.index}":
            return w
        if t.kind == "pc" and w.target == "PC":
            return w
        if t.kind in ("sem", "shape") and w.target == f"{t.kind}[{t.index}]":
            return w
        if t.kind in ("acc", "idx") and w.target == t.kind and w.index is not None and (
                w.index.start <= t.index < w.index.stop):
            return w
        if t.kind == "mem" and w.region is not None and w.region.space == t.space:
            r = w.region
            if r.p0 < t.p1 and t.index < r.p1:
                o = r.elem_offsets
                if bool(np.any((o < t.b1) & (o + r.size > t.b0))):
                    return w
    return None
