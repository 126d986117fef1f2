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

Matching is here too, once for every debugger: `static_match` / `static_mask` (the
kinds checked before an instruction issues), and `Scene`, what a step did judged
against the after-step kinds, forward (`Scene.after_step_hits`) and in reverse
(`Scene.before_undo`, then `Scene.after_undo`), with conditions (`Scene.holds`). A
one-queue program and a NeuronCore kernel (machine/core/core.py) both judge through
it, so a new kind is its `Kind` member (machine/breakpoint_kinds.py) and its parse
and match here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from neurondbg.machine import expr as ex
from neurondbg.machine.breakpoint_kinds import Kind
from neurondbg.machine.isa.opcodes import QUEUE_ENGINES
from neurondbg.machine.state import Region

if TYPE_CHECKING:
    from neurondbg.machine.core.races import Race
    from neurondbg.machine.engines.record import StepRecord
    from neurondbg.machine.journal import Undo
    from neurondbg.machine.state import MachineConfig, MachineState, Write

KINDS: tuple[Kind, ...] = tuple(Kind)
STATIC_KINDS = (Kind.OP, Kind.PC, Kind.LABEL, Kind.INVALID)  # checked before an instruction
SEMANTIC_KINDS = (Kind.SATURATE, Kind.TIE, Kind.NAN, Kind.INF)
CORE_KINDS = (Kind.RACE, Kind.DEADLOCK, Kind.WAIT)  # only a NeuronCore (machine/core) meets
# The kinds that never fire on one queue (a program: a lone core), and why; adding one to
# a program is refused (check_program), so `run PROGRAM --break race` says so, exit 2.
NEVER_ON_ONE_QUEUE: dict[Kind, str] = {
    Kind.RACE: "a race needs two engines",
    Kind.DEADLOCK: "a deadlock needs engines waiting on each other",
    Kind.WAIT: "nothing else updates a semaphore, so an unmet wait is a fault (break on fault)",
    Kind.DMA: "a program has no DMA queue",
}
# The lane flag (StepRecord.lanes.flags) each semantic breakpoint tests.
SEMANTIC_FLAG = {Kind.SATURATE: "saturated", Kind.TIE: "tie", Kind.NAN: "nan", Kind.INF: "inf"}
WATCH_KINDS = (Kind.WATCH, Kind.CHANGE)  # after a step that wrote / changed a target
# kinds judged on every step's record (the fast path, which keeps none, is off then)
RECORD_KINDS = (Kind.IF, Kind.WATCH, Kind.CHANGE, Kind.WAIT, Kind.DMA, *SEMANTIC_KINDS)
# what reverse-continue judges (a fault or an invalid instruction ends a run; the
# semantic kinds need the step's lanes, which undoing does not give back)
REVERSE_KINDS = (*STATIC_KINDS, Kind.WATCH, Kind.CHANGE, Kind.IF, Kind.RACE, Kind.WAIT,
                 Kind.DMA)
OWN_TARGETS = ("reg", "pc", "shape", "acc", "idx")  # watch targets of one engine's own state
RECORD = 64  # bytes per record: a record's PC is base + 64 * its index
CONDITION_ERRORS = (ValueError, ArithmeticError, IndexError)  # what evaluating an expr raises


@dataclass
class Breakpoint:
    """One parsed spec. `value` is the opcode / pc / label / Expr / Target by kind."""

    kind: Kind
    # int (op, pc), str (label, dma), ex.Expr (if), ex.Target (watch kinds) or None: a
    # union tagged by `kind`, which its readers (here, the debugger, the session) test
    value: Any
    text: str
    cond: ex.Expr | None = None
    enabled: bool = True
    hits: int = 0
    id: int = 0
    watch_old: object = field(default=None, repr=False)  # change: the value last seen
    engine: str | None = None  # the `@ENGINE` it is about; None: every engine
    ignore: int = 0  # stops still to pass (gdb's ignore count; `passes`)
    once: bool = False  # deleted after the first stop it makes (gdb's tbreak)

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
    if kind == Kind.DEADLOCK and engine is not None:
        raise ValueError(f"column {lead + len(head) + 1}: 'deadlock' is about the whole core; "
                         "it takes no @ENGINE")
    value: Any = None
    try:
        if kind == Kind.OP:
            value = parse_opcode(arg, argcol)
        elif kind == Kind.PC:
            value = _int(arg, argcol, "a byte address such as 0x80")
            if value % 64:  # records are 64 bytes: any other address is never reached
                raise ValueError(f"column {argcol}: expected a record address (a multiple "
                                 f"of 64 such as 0x80), found {arg.strip()!r}")
        elif kind in (Kind.LABEL, Kind.DMA):
            value = arg.strip()
        elif kind == Kind.IF:
            value = ex.parse(arg)
        elif kind in WATCH_KINDS:
            value = ex.parse_target(arg)
    except ValueError as e:
        raise _shift(e, argcol - 1) if kind == Kind.IF or kind in WATCH_KINDS else e from None
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
def undo_hits_any(targets: list[ex.Target], u: Undo) -> bool:
    """Whether the journal entry `u` (a non-register Undo) touched any of `targets`."""
    return any(undo_hits(t, set(), [u]) for t in targets)


def undo_hits(t: ex.Target, regs: set[int], undos: list[Undo]) -> bool:
    """Whether a journaled step (registers written, its Undo entries) touched `t`."""
    if t.kind == "reg":
        return t.index in regs
    for u in undos:
        if t.kind == "mem" and u.kind == "mem" and u.target == t.space:
            r = u.key  # a memory write's key is its Region
            if isinstance(r, Region) and r.p0 < t.p1 and t.index < r.p1 and \
                    r.bounds[0] < t.b1 and t.b0 < r.bounds[1]:
                return True
        elif t.kind in ("sem", "shape") and u.target == t.kind and u.key == t.index:
            return True
        elif t.kind in ("acc", "idx") and u.target == t.kind and isinstance(u.key, slice) and (
                u.key.start <= t.index < u.key.stop):
            return True
    return False


def shown(v: object) -> str:
    """A watched value for a stop message: numbers as is, memory as (short) hex bytes."""
    if isinstance(v, bytes | bytearray):
        return v[:16].hex(" ") + (" ..." if len(v) > 16 else "")
    return str(v)


def written_by(t: ex.Target, rec: StepRecord) -> Write | None:
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


# -- matching: before an instruction issues (op, pc, label, invalid) -----------------------
class Records(Protocol):
    """What static matching reads of a queue's records (machine.isa.codec.Program)."""

    @property
    def opcodes(self) -> np.ndarray: ...

    def opcode(self, i: int) -> int: ...


class Queue(Protocol):
    """What static matching reads of one engine queue (machine.debugger.Machine)."""

    labels: dict[str, int]  # name -> byte offset of the record
    count: int  # records
    config: MachineConfig  # its `base`: the byte address of record 0
    program: Records  # the records now

    def valid(self, index: int) -> bool: ...

    def invalid_records(self) -> np.ndarray: ...


class Program(Queue, Protocol):
    """A lone program's queue as `check_program` reads it: its bounds check too."""

    def check(self, what: Any) -> None:
        """ValueError saying what does not exist: a machine.expr Target or a PC (int)."""


def check_program(bp: Breakpoint, spec: str, q: Program) -> None:
    """ValueError (with column) when breakpoint `bp`, parsed from `spec`, is of a kind that
    never fires on one queue (NEVER_ON_ONE_QUEUE), names another engine, an unknown label,
    or a PC / watch target outside the program or the machine (`q.check`): a program's
    words (a one-queue core's, and a program session's as it loads)."""
    col = bp.text.find(":") + 2 + len(spec) - len(spec.lstrip())
    if bp.kind in NEVER_ON_ONE_QUEUE:
        raise ValueError(f"{bp.kind} never fires on one queue: "
                         f"{NEVER_ON_ONE_QUEUE[bp.kind]}; it is a kernel's breakpoint")
    if bp.engine is not None and bp.engine != q.config.engine:
        raise ValueError(f"column {bp.text.rfind('@') + 2}: no {bp.engine} queue here "
                         f"(this program runs on {q.config.engine})")
    if bp.kind == Kind.LABEL and bp.value not in q.labels:
        known = ", ".join(sorted(q.labels)) or "none"
        raise ValueError(f"column 7: unknown label {bp.value!r}; labels: {known}")
    if bp.kind == Kind.PC or bp.kind in WATCH_KINDS:
        try:
            q.check(bp.value)
        except ValueError as e:
            raise ValueError(f"column {col}: {e}") from None


def static_match(bp: Breakpoint, q: Queue, index: int) -> bool:
    """Whether static breakpoint `bp` (op/pc/label/invalid) matches record `index` of
    queue `q` (its condition aside)."""
    if bp.kind == Kind.PC:
        return bool(bp.value == q.config.base + index * RECORD)
    if bp.kind == Kind.LABEL:
        return q.labels.get(bp.value) == index * RECORD
    if bp.kind == Kind.OP:
        return bool(q.program.opcode(index) == bp.value)
    return bp.kind == Kind.INVALID and not q.valid(index)


def static_mask(bp: Breakpoint, q: Queue) -> np.ndarray:
    """The records of `q` static breakpoint `bp` matches, as uint8 0/1 (its condition is
    judged when one is reached)."""
    mask = np.zeros(q.count, dtype=np.uint8)
    if bp.kind == Kind.OP:
        mask[np.asarray(q.program.opcodes) == bp.value] = 1
    elif bp.kind in (Kind.PC, Kind.LABEL):
        base = q.config.base
        pc = bp.value if bp.kind == Kind.PC else base + q.labels[bp.value]
        i, rem = divmod(pc - base, RECORD)
        if rem == 0 and 0 <= i < q.count:
            mask[i] = 1
    elif bp.kind == Kind.INVALID and q.count:
        mask[q.invalid_records()] = 1
    return mask


def passes(met: Sequence[Breakpoint]) -> bool:
    """Whether a stop where the breakpoints `met` matched is one to pass on: every one of
    them still has stops to ignore (gdb: an ignored breakpoint does not stop). Each then
    counts one down, and counts the hit."""
    if not met or not all(bp.ignore > 0 for bp in met):
        return False
    for bp in met:
        bp.ignore -= 1
        bp.hits += 1
    return True


# -- matching: after a step, and a step undone ---------------------------------------------
def _no_wait(j: int) -> str:
    return ""


def _race_words(r: Race) -> str:
    return f"{r.a.engine} and {r.b.engine} {r.space}: {r.missing}"


Pending = list[tuple[Breakpoint, Any]]  # Scene.before_undo: what after_undo confirms


@dataclass
class Scene:
    """What breakpoint matching reads of the debugger it judges: the actors' names and
    states (one for a program's queue; a core's engines and DMA queues), the focused one
    (`if:` reads it; `watch:R5` without an engine watches its R5), whether it is a lone
    program (its words: a semantic stop's first lane), why an actor is blocked
    (`waits(j)`, a core's) and a race in words (`race_words`)."""

    names: tuple[str, ...]
    states: Sequence[MachineState]
    focus: int = 0
    lone: bool = True
    waits: Callable[[int], str] = _no_wait
    race_words: Callable[[Race], str] = _race_words

    # conditions ---------------------------------------------------------------------------
    def truth(self, e: ex.Expr, j: int) -> bool:
        """An expression as a condition on actor j's state: an error evaluating it (x / 0,
        a read outside memory) is false, never a crash and never a stop."""
        try:
            return bool(e(self.states[j]))
        except CONDITION_ERRORS:
            return False

    def holds(self, bp: Breakpoint, j: int) -> bool:
        """Whether `bp`'s ` if EXPR` holds on actor j (the one it is about)."""
        return bp.cond is None or self.truth(bp.cond, j)

    def index(self, engine: str) -> int:
        try:
            return self.names.index(engine)
        except ValueError:
            raise ValueError(f"no {engine} queue in this kernel (engines: "
                             f"{', '.join(self.names)})") from None

    def owner(self, bp: Breakpoint) -> int:
        """The actor whose state a watch/change target lives on: an engine's own
        registers, PC, acc, idx, shape are the one it names (else the focused one's);
        shared memory is read through the engine the breakpoint is about."""
        t = bp.value
        if t.kind in OWN_TARGETS:
            return self.index(t.engine or bp.engine or self.names[self.focus])
        return self.index(bp.engine or self.names[self.focus])

    def resync(self, bps: Sequence[Breakpoint]) -> None:
        """After the state moved without stepping (reverse, edit, enable): `watch:`,
        `change:` and `if:` compare against the state now current."""
        for bp in bps:
            if bp.kind in WATCH_KINDS:
                bp.watch_old = ex.snapshot(bp.value, self.states[self.owner(bp)])
            elif bp.kind == Kind.IF:
                bp.watch_old = self.truth(bp.value, self.focus)

    # forward --------------------------------------------------------------------------------
    def after_step_hits(self, bps: Sequence[Breakpoint], i: int, rec: StepRecord,
                        races: Sequence[Race] = (), newly: Sequence[int] = ()
                        ) -> list[tuple[Breakpoint, str]]:
        """Every enabled after-step breakpoint that actor i's step `rec` met, with why:
        `races` the step found, `newly` the actors it left blocked."""
        hits = []
        for bp in bps:
            if not bp.enabled or bp.kind in STATIC_KINDS or bp.kind == Kind.DEADLOCK:
                continue
            why, about = self.after_step(bp, i, rec, races, newly)
            if why and self.holds(bp, about):
                hits.append((bp, why))
        return hits

    def after_step(self, bp: Breakpoint, i: int, rec: StepRecord, races: Sequence[Race],
                   newly: Sequence[int]) -> tuple[str | None, int]:
        """Why after-step breakpoint `bp` stops after actor i's step `rec` (None: it does
        not), and the actor it is about (whose state its condition reads). `if:`,
        `watch:` and `change:` move their remembered value on."""
        k = bp.kind
        mine = bp.engine in (None, self.names[i])
        if k == Kind.RACE:
            rs = [r for r in races if bp.engine in (None, r.a.engine, r.b.engine)]
            return (f"race: {self.race_words(rs[0])}" if rs else None), i
        if k == Kind.WAIT:
            for j in newly:
                if bp.engine in (None, self.names[j]) and self.holds(bp, j):
                    return self.waits(j), j
            return None, i
        if k == Kind.IF:
            now = self.truth(bp.value, self.focus)
            was, bp.watch_old = bp.watch_old, now
            return (f"{bp.value.text} became true" if now and not was else None), i
        if k in WATCH_KINDS:
            owner = self.owner(bp)
            own = bp.value.kind in OWN_TARGETS
            applies = not ((own and owner != i) or (not own and not mine))
            if k == Kind.WATCH and (not applies or written_by(bp.value, rec) is None):
                return None, i
            value = ex.snapshot(bp.value, self.states[owner])
            if k == Kind.CHANGE and value == bp.watch_old:
                return None, i
            # a change by another engine's step is followed (the next one compares
            # with it) but is not this breakpoint's: `change:sem[0]@dve` is DVE's
            old, bp.watch_old = bp.watch_old, value
            if not applies:
                return None, i
            verb = "written" if k == Kind.WATCH else "changed"
            return f"{bp.value.name} {verb}: {shown(old)} -> {shown(value)}", i
        if k == Kind.DMA:  # the queue named completed an entry
            return (f"dma: {rec.mnemonic} completed" if self.names[i] == bp.value
                    and rec.executed else None), i
        if not mine:
            return None, i
        if k == Kind.FAULT:
            return (f"fault: {rec.fault}" if rec.fault else None), i
        if k in SEMANTIC_FLAG and rec.lanes is not None:  # saturate / tie / nan / inf
            flags = rec.lanes.flags[SEMANTIC_FLAG[k]]
            n = int(flags.sum())
            if n and self.lone:  # a program's words say where the first lane is
                p, el = (int(v) for v in np.argwhere(flags)[0])
                return (f"{k}: {n} lane(s) of {rec.mnemonic}; first: partition "
                        f"{p + rec.lanes.p0}, element {el}"), i
            if n:
                return f"{k}: {n} lane(s) of {rec.mnemonic}", i
        return None, i

    # reverse --------------------------------------------------------------------------------
    def touched(self, bp: Breakpoint, i: int) -> bool:
        """Whether actor i's newest journaled step wrote the target of watch `bp` (as the
        forward match would count it: an own target is its owner's; shared memory is
        the engine's the breakpoint is about)."""
        t = bp.value
        if t.kind in OWN_TARGETS:
            if self.owner(bp) != i:
                return False
        elif bp.engine not in (None, self.names[i]):
            return False
        j = self.states[i].journal
        word = j.steps[-1]
        nr, no = (word >> 8) & 0xFF, word & 0xFF
        regs = {w >> 32 for w in j.regs[len(j.regs) - nr:]} if nr else set()
        undos = j.others[len(j.others) - no:] if no else []
        return undo_hits(t, regs, undos)

    def before_undo(self, bps: Sequence[Breakpoint], i: int, races: Sequence[Race] = (),
                    blocked: Sequence[int] = ()) -> Pending:
        """Before actor i's newest step is undone: the breakpoints it may have met, read
        where forward execution read them (after the step), with what `after_undo`
        compares: `races` that step found, `blocked` the actors blocked after it."""
        pending: Pending = []
        for bp in bps:
            if not bp.enabled:
                continue
            k = bp.kind
            if k in WATCH_KINDS:
                if self.touched(bp, i) and self.holds(bp, i):
                    pending.append((bp, ex.snapshot(bp.value, self.states[self.owner(bp)])))
            elif k == Kind.RACE:
                rs = [r for r in races if bp.engine in (None, r.a.engine, r.b.engine)]
                if rs and self.holds(bp, i):
                    pending.append((bp, f"race: {self.race_words(rs[0])}"))
            elif k == Kind.IF:
                if self.truth(bp.value, self.focus) and self.holds(bp, i):
                    pending.append((bp, None))
            elif k == Kind.WAIT:
                js = [(j, self.waits(j)) for j in blocked
                      if bp.engine in (None, self.names[j]) and self.holds(bp, j)]
                if js:
                    pending.append((bp, js))
            elif k == Kind.DMA:  # the step undone is a completion of the queue named
                if self.names[i] == bp.value and self.holds(bp, i):
                    pending.append((bp, None))
        return pending

    def after_undo(self, pending: Pending, i: int, blocked: Sequence[int] = (),
                   completed: Callable[[], str] | None = None) -> list[tuple[Breakpoint, str]]:
        """After the step is undone: the breakpoints of `pending` it did meet, with why
        (the words forward execution gives): a change that changed the value, an `if:`
        it made true, an actor newly blocked (not in `blocked` now); `completed()`
        names the DMA entry it completed."""
        hits: list[tuple[Breakpoint, str]] = []
        for bp, seen in pending:
            k = bp.kind
            if k in WATCH_KINDS:
                old = ex.snapshot(bp.value, self.states[self.owner(bp)])
                if k == Kind.CHANGE and old == seen:
                    continue
                verb = "written" if k == Kind.WATCH else "changed"
                hits.append((bp, f"{bp.value.name} {verb}: {shown(old)} -> {shown(seen)}"))
            elif k == Kind.IF:
                if not self.truth(bp.value, self.focus):
                    hits.append((bp, f"{bp.value.text} became true"))
            elif k == Kind.WAIT:
                told = next((why for j, why in seen if j not in blocked), None)
                if told is not None:
                    hits.append((bp, told))
            elif k == Kind.DMA:  # undone: the queue's head is the entry it completed
                name = completed() if completed is not None else self.names[i]
                hits.append((bp, f"dma: {name} completed"))
            else:
                hits.append((bp, seen))
        return hits
