"""One engine queue's executor: `Machine` executes a program's records on a machine
state — one step at a time or SEQ fast runs (closures shared by identical records,
superblocks), with the legality and verdict caches — and writes records.

    m = Machine(program, MachineConfig(gen=Gen.CAYMAN), data=inits, labels={"loop": 0x40})
    rec = m.step()                   # StepRecord: writes, verdict, fault, lanes
    m.undo_step()                    # that step undone exactly (the state's journal)
    n = m.fast_run(4096)             # SEQ steps up to a non-SEQ record or a breakpoint's
    core = Core.of_program(m, path)  # the debugger (machine/core): runs, breakpoints,
                                     # reverse, `set` and record edits

Run control is the core's (machine/core/core.py): a program runs on a core with one
queue whose actor (machine/core/actor.py `EngineQueue`) is this machine. The core
arms its static breakpoints here (`breakpoints`, `invalidate_stops`), so a fast run
stops before their records; it journals `set` and record edits itself, through the
checks and writes here (`edit_value`, `saved_bits`, `check_record`, `write_record`).

A refused (invalid) or faulting instruction changes nothing: the machine stays
before it (a fault is machine state, never an exception out of `step`). Run alone
(a NEFF's engines, machine/neff/runner.py), the machine bounds its journal itself
(`history`: machine/history.py, `journal_budget` bytes; 0 keeps the last steps only);
in a core its history is the core's, and it keeps only the state it loaded with (a
program's session images, `initial_memory`). Run alone with budget 0 it is `headless`:
its steps keep no journal (nothing to undo or refresh), make no Write list (but for a
race feed) and share one decode per record body (`_headless`).

Decisions where the specification is silent:
- A record write (`write_record`, what the TUI's "apply fix" makes through the core)
  gives `program` a new Program (`Program.edited`: it shares the loaded records and
  keeps the edited ones aside, so a write costs the same at 10**6 records as at 10;
  `loaded_program` keeps the file's, which a session names by sha256), so a holder can
  tell it changed and what (`program.changed_from(old)`). Only that record's caches are
  dropped: its decode, verdict and legality flag, its fast closure and the superblocks
  that cover it.
- A branch to a negative address, or one past the journal's 48-bit PC (which also
  bounds a session's `base`), faults on the branch: such a PC never enters the state.
  A branch to any other address outside the program faults at the next fetch.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from neurondbg.machine import edits as ed
from neurondbg.machine import expr as ex
from neurondbg.machine import sigint
from neurondbg.machine.breakpoints import (
    CONDITION_ERRORS,
    STATIC_KINDS,
    Breakpoint,
    static_mask,
    static_match,
)
from neurondbg.machine.engines import (
    Context,
    StepRecord,
    direct_for,
    execute,
    handler_for,
    writes_last,
)
from neurondbg.machine.engines.record import Fault, LazyVerdict
from neurondbg.machine.engines.seq import (
    FAST_OPCODES,
    FastOp,
    Handler,
    Inline,
    fast_op,
    fits,
    fits_at,
    immediate_update,
    update_events,
    wait_events,
)
from neurondbg.machine.engines.superblock import MAX_BLOCK, Block, superblock
from neurondbg.machine.history import JOURNAL_BUDGET, History
from neurondbg.machine.isa.codec import Instruction, Twins, decode, struct_for, twins
from neurondbg.machine.isa.enums import WaitMode
from neurondbg.machine.journal import PC_LIMIT
from neurondbg.machine.legality.explain import explain, validate
from neurondbg.machine.legality.result import Verdict
from neurondbg.machine.spaces import SPACES, Space
from neurondbg.machine.state import RECORD_BYTES, MachineConfig, MachineState, Write

__all__ = ["CONDITION_ERRORS", "FAST_CHUNK", "Machine"]  # CONDITION_ERRORS: machine.breakpoints'

_MISSING = object()  # no Verdict cached yet
_FAST_LIST = sorted(FAST_OPCODES)
# per-record caches of the slow path (decoded instructions, handlers) hold at most this
# many records, then start afresh: memory bounded however long the program
CACHE_RECORDS = 1 << 16
FAST_CHUNK = 1 << 16  # fast steps a run takes between interrupt checks (machine/core)
RECORD_TARGET = re.compile(r"record\[(\d+)\]")  # an Edit target naming a program record


class _Body(NamedTuple):
    """What a headless step runs for one record body (Machine._headless)."""

    inst: Instruction
    handler: Handler
    direct: Callable[[MachineState], None] | None
    last: bool  # its handler's one change is its last act (engines.writes_last)


_NO_WAIT = frozenset({WaitMode.NONE, WaitMode.UNORDERED})
# per opcode: whether its struct has the header events at bytes 4..11 (isa-facts §1.2)
_EVENTS_AT_4 = tuple(any(f.name == "events.wait_mode" and f.offset == 4
                         for f in struct_for(op).fields) for op in range(256))


def _body_key(raw: bytes) -> bytes:
    """A record's bytes without its header events (the record itself when its struct
    has none): records with one key run the same handler on the same operands."""
    return raw[:4] + raw[12:] if _EVENTS_AT_4[raw[0]] else raw


def record_target(index: int) -> str:
    """The Edit target of a record edit: `record[3]` (sessions save it as any edit)."""
    return f"record[{index}]"


def record_index(target: str) -> int | None:
    """The record a `record[N]` Edit target names, or None for a `set` target."""
    m = RECORD_TARGET.fullmatch(target.strip())
    return int(m.group(1)) if m else None


def record_bits(raw: bytes) -> str:
    """A record's 64 bytes as an Edit value: "0x" + the bytes in file order, in hex."""
    return "0x" + bytes(raw).hex()


def bits_record(value: str) -> bytes:
    """The 64 bytes of a record Edit value; ValueError (one line) if it holds no record."""
    text = value.strip().lower().removeprefix("0x")
    if len(text) != 2 * RECORD_BYTES or text.strip("0123456789abcdef"):
        raise ValueError(f"expected a record's {RECORD_BYTES} bytes as 0x and "
                         f"{2 * RECORD_BYTES} hex digits, found {value[:40]!r}"
                         + ("…" if len(value) > 40 else ""))
    return bytes.fromhex(text)


class Machine:
    """A program loaded on a machine state: one engine queue's executor."""

    def __init__(self, program: Any, config: MachineConfig | None = None,
                 data: Iterable[Any] = (), labels: dict[str, int] | None = None, *,
                 journal_budget: int = JOURNAL_BUDGET,
                 shared: MachineState | None = None) -> None:
        """`shared`: another engine's state whose SBUF, PSUM and semaphores this machine
        uses (one queue of a NeuronCore, machine/core; the core drives its history).
        `journal_budget`: the bytes of journal and checkpoints kept when it runs alone."""
        self.program = program
        self.loaded_program = program  # as loaded: record edits make new ones (`program`)
        self.config = (config or MachineConfig()).resolved()
        self.state = MachineState.create(self.config, shared)
        self.labels: dict[str, int] = dict(labels or {})  # name -> byte offset of the record
        self.count = len(program)
        # Nothing here is per record but a few bytes: records are decoded when reached or
        # asked for, and what is built from a record's bytes (decode, verdict, fast
        # closure) is shared by every record with those bytes.
        self.cache_records = CACHE_RECORDS  # per-record caches hold at most this many
        self._insts: dict[int, Instruction] = {}  # decoded (at most cache_records)
        # record i's (instruction, handler, why none, verdict or LazyVerdict) as judged for
        # that instruction object: an edited record is a new one (`_insts`), judged again
        self._handlers: dict[int, tuple[Instruction, Handler | None, str, Any]] = {}
        self._verdicts: dict[int, Verdict] = {}  # by record, those explained
        self._explained: dict[bytes, Verdict] = {}  # by record bytes
        self._valid: np.ndarray | None = None
        # the fast closure of each record (None: not built, or none), one per distinct
        # record bytes (`_ops`); `_twins` groups the loaded records by their bytes
        self._fast: list[FastOp | None] | None = None
        self._ops: dict[bytes, FastOp | None] = {}
        self._twins: Twins | None = None
        self._stop: bytearray | None = None
        self._plain = bytearray()
        # superblocks (machine/engines/superblock.py) by entry record, built against the
        # stop table `_stop`; `_heat[i]`: fast runs entered at record i so far
        # (a block is compiled on the second: code run once is not worth compiling), 2
        # when none can start there; `_ends[i]`: record i is a branch (a block ends there)
        self._blocks: dict[int, tuple[Block, int]] = {}
        self._heat = bytearray()
        self._ends = bytearray()
        # The last step that converted (its lanes): kept while `continue` runs past it, so
        # the UI can show the conversion a run went through; dropped once reversed past.
        self.last_conversion: StepRecord | None = None
        # the static breakpoints of this queue (a core arms and disarms them): the fast
        # path stops before their records
        self.breakpoints: list[Breakpoint] = []
        self.last: StepRecord | None = None
        # a headless machine's per-body cache (`_headless`): by the record's bytes without
        # its header events, what running it needs (None: the record takes `_execute`)
        self._bodies: dict[bytes, _Body | None] = {}
        self.headless = False  # set with `history` (its setter)
        self.history = History(journal_budget)
        for d in data:
            self.load_data(d)

    @property
    def history(self) -> History:
        """The machine's own history (a core replaces it with its Passive one)."""
        return self._history

    @history.setter
    def history(self, h: History) -> None:
        self._history = h
        # headless: run alone with journal budget 0 (a NEFF's engines, machine/neff/
        # runner.py), never a core's machine (the core replaces this History)
        self.headless = type(h) is History and not h.enabled

    # -- program and legality ----------------------------------------------------------
    def instruction(self, i: int) -> Any:  # an Instruction; callers read fields as ints
        """Record i decoded (records with the same bytes share the decode)."""
        inst = self._insts.get(i)
        if inst is None:
            if len(self._insts) >= self.cache_records:
                self._insts.clear()
            inst = self._insts[i] = self.program.instruction(i)
        return inst

    def valid(self, i: int) -> bool:
        """Whether record i passes legality (judged for the whole program at once).

        The legality engine ships with the machine, so a bug in it raises here rather
        than passing every record: an opcode with no documented predicate is judged by
        the header-and-events clauses (machine.legality.wire.registry.HEADER_ONLY)."""
        if self._valid is None:
            self._valid = np.asarray(validate(self.program, self.config.gen,
                                              self.config.engine).valid, dtype=bool)
        return bool(self._valid[i])

    def verdict(self, i: int) -> Verdict:
        """The wire-level Verdict of record i (a legality bug raises; see `valid`)."""
        v = self._verdicts.get(i)
        if v is None:
            v = self._verdicts[i] = self._explain(self.instruction(i))
        return v

    def _explain(self, inst: Instruction) -> Verdict:
        """The Verdict of `inst`, explained once per distinct record bytes."""
        v = self._explained.get(inst.raw)
        if v is None:
            if len(self._explained) >= self.cache_records:
                self._explained.clear()
            v = self._explained[inst.raw] = explain(inst, self.config.gen, self.config.engine)
        return v

    def _lazy_verdict(self, i: int, inst: Any) -> Any:
        """Record i's Verdict if already explained, else a LazyVerdict (DESIGN: the bulk
        validity flag decides the step; the explanation waits until someone reads it).
        It judges `inst`, the instruction the step ran: a record edited since (a fix)
        is another instruction, whose verdict is not this step's."""
        v = self._verdicts.get(i, _MISSING)
        if v is not _MISSING:
            return v

        def compute() -> Verdict:
            if self.program.record(i) == inst.raw:
                return self.verdict(i)  # judged once, kept for the record's later steps
            return self._explain(inst)

        return LazyVerdict(compute)

    def index_of(self, pc: int) -> int | None:
        i, rem = divmod(pc - self.config.base, RECORD_BYTES)
        return i if rem == 0 and 0 <= i < self.count else None

    # -- initial data ----------------------------------------------------------------------
    def load_data(self, init: Any) -> None:
        """Apply a machine.asm DataInit (not journaled: it is the initial state)."""
        mem = self.state.memory(init.space)
        p0, p1 = init.partitions
        end = init.offset + init.data.shape[1]
        if p1 > mem.shape[0] or end > mem.shape[1]:
            raise ValueError(f"data for {init.space}[{p0}:{p1}, {init.offset}] ({init.nbytes} "
                             f"bytes) does not fit {mem.shape[0]} x {mem.shape[1]} bytes")
        mem[p0:p1, init.offset:end] = init.data

    def load_sbuf(self, array: np.ndarray) -> None:
        """Place a uint8 (partitions, bytes) array at SBUF partition 0, byte 0."""
        a = np.asarray(array)
        sb = self.state.sbuf
        if a.dtype != np.uint8 or a.ndim != 2:
            raise ValueError(f"expected a uint8 array of shape (partitions, bytes), got "
                             f"{a.dtype} {a.shape}")
        if a.shape[0] > sb.shape[0] or a.shape[1] > sb.shape[1]:
            raise ValueError(f"array {a.shape} does not fit SBUF {sb.shape}")
        sb[:a.shape[0], :a.shape[1]] = a

    # -- bounds and places -----------------------------------------------------------------
    def check(self, what: Any) -> None:
        """The bounds check of every console command: a machine.expr Target or a PC
        (int); ValueError saying what does not exist (machine/edits.py), or naming
        an engine (`dve.R3`) that neither this machine nor its core (`state.peers`) has."""
        engine = getattr(what, "engine", "")
        if engine:
            try:
                self.state.peer(engine)
            except KeyError as e:
                raise ValueError(f"{what.name}: {e.args[0]}") from None
        ed.check(what, self.state, self.count)

    def invalid_records(self) -> np.ndarray:
        """A bool array: True for each record that fails legality (judged at once)."""
        self.valid(0)  # computes the bulk legality array once
        assert self._valid is not None
        return ~self._valid

    def where(self, pc: int) -> str:
        """"CAST at 0x80": the instruction at `pc` (or just the address)."""
        i = self.index_of(pc)
        return f"{self.instruction(i).mnemonic} at {pc:#x}" if i is not None else f"{pc:#x}"

    # -- one step ----------------------------------------------------------------------------
    def step(self) -> StepRecord:
        """Execute one instruction with a full record (no breakpoint checks)."""
        st = self.state
        pc, step = st.pc, st.steps
        i, rem = divmod(pc - self.config.base, RECORD_BYTES)
        if st.halted:
            rec = StepRecord(step, pc, i, halted=True, next_pc=pc)
        elif rem or not 0 <= i < self.count:
            rec = StepRecord(step, pc, i, next_pc=pc, fault=(
                f"PC {pc:#x} is outside the program ({self.count} records from "
                f"{self.config.base:#x}{', not on a record boundary' if rem else ''})"))
        else:
            got = self._headless(i, pc, step) if self.headless else None
            if got is not None:
                self.last = got
                return got
            rec = self._execute(i, pc, step)
            if rec.executed:
                self.history.keep(st, 0)
        self.last = rec
        if rec.lanes is not None:
            self.last_conversion = rec
        return rec

    def _headless(self, i: int, pc: int, step: int) -> StepRecord | None:
        """Record i run on a headless machine, or None when `_execute` must run it (a
        record refused, faulting, or that no handler runs: `_execute` then does exactly
        what it always did, the state being as before this call).

        What running a record needs is kept per record body (its bytes without the
        header events, `_body_key`), decoded once: records that differ only in their
        waits and updates (a compiler's stream) share it, and the header events are
        read from the record's own bytes. A body with a direct write (MEMSET:
        machine.engines.pool.DIRECT) whose header wait is none or SEM_GE_IMM (holding)
        and whose update reads no register costs that one numpy assignment and the
        semaphore update; any other runs its handler with the journal recording only
        so that a fault can be undone (then dropped: nothing is kept). An update that
        reads a register, or one `update_events` refuses, takes `_execute`. No Write list is
        made, unless the step's memory reads are being recorded (`state.reads` a list: a
        race feed, machine.neff.racecheck): then the reads are, and the record carries
        the Writes `_execute` would give it, in its order, without the old bytes of
        memory (None: a headless step keeps none). The StepRecord's `instruction` is
        the body's decode (its events may be another record's; `index`, `pc` and
        `verdict` are record i's)."""
        st = self.state
        if not (self.config.execute_invalid or self.valid(i)):
            return None
        raw = self.program.record(i)
        key = _body_key(raw)
        bodies = self._bodies
        body = bodies.get(key, _MISSING)
        if body is _MISSING:
            if len(bodies) >= self.cache_records:
                bodies.clear()
            body = bodies[key] = self._body(raw)
        if body is None:
            return None
        assert isinstance(body, _Body)
        inst = body.inst
        wm = um = wi = ui = val = 0
        if key is not raw:  # the struct has header events
            wm, wi, um, ui = raw[4], raw[5], raw[6], raw[7]
            val = int.from_bytes(raw[8:12], "little")
        update = immediate_update(um) if um else None
        if um and update is None:
            # a register or refused update: `_execute` (a fault after the handler would
            # have it run twice, and a trigger on an unjournaled DMA model is not undone)
            return None
        sem = st.sem
        direct = body.direct
        reads = st.reads
        writes: list[Write] | None = None
        if reads is not None:  # recorded (docstring): the Writes too, as `_execute` does
            st.writes = writes = []
        if direct is not None and (wm in _NO_WAIT or (wm == WaitMode.SEM_GE_IMM
                                                       and sem[wi] >= val)):
            direct(st)  # (its Write too, when `writes` is a list)
            if update is not None:
                old = sem[ui]
                sem[ui] = new = update(old, val) & 0xFFFFFFFF
                if writes is not None:
                    writes.append(Write(f"sem[{ui}]", old, new))
            st.pc = pc + RECORD_BYTES
            st.journal.origin += 1  # the step count goes on (no step is kept)
        else:
            n_reads = 0 if reads is None else len(reads)
            j = st.journal
            st.begin_step()
            st.journal_memory = not body.last
            try:
                if wm:
                    wait_events(st, wm, wi, val, "events")
                nxt = body.handler(Context(st, self.config.engine, pc), inst)
                if update is not None:
                    update_events(st, um, ui, val, "events")
                if nxt is not None and not 0 <= nxt < PC_LIMIT:
                    raise Fault("branch out of range")  # `_execute` says it properly
                st.set_pc(pc + RECORD_BYTES if nxt is None else nxt)
            except Exception:  # undone: `_execute` runs it again and reports the fault
                st.journal_memory = True
                st.end_step()
                st.undo_step()
                st.writes = None
                if reads is not None:
                    del reads[n_reads:]  # read again by `_execute`
                return None
            st.journal_memory = True
            st.end_step()
            j.clear(len(j))  # headless: no step is kept
        st.writes = None
        return StepRecord(step, pc, i, inst, LazyVerdict(partial(self.verdict, i)),
                          writes if writes is not None else [], halted=st.halted,
                          next_pc=st.pc)

    def _body(self, raw: bytes) -> _Body | None:
        """What `_headless` runs for records with `raw`'s body (None: `_execute` runs them)."""
        handler, _ = handler_for(raw[0], self.config.engine, self.config.gen)
        if handler is None:
            return None
        inst = decode(raw)
        engine = self.config.engine
        return _Body(inst, handler, direct_for(raw[0], self.state, inst, engine),
                     writes_last(raw[0]))

    def _execute(self, i: int, pc: int, step: int) -> StepRecord:
        st = self.state
        inst = self.instruction(i)
        known = self._handlers.get(i)
        if known is None or known[0] is not inst:
            if len(self._handlers) >= self.cache_records:
                self._handlers.clear()
            known = self._handlers[i] = (inst, *handler_for(inst.opcode, self.config.engine,
                                                            self.config.gen),
                                         self._lazy_verdict(i, inst))
        _, handler, why, verdict = known
        if type(verdict) is LazyVerdict:  # explained since: the Verdict itself
            verdict = self._verdicts.get(i, verdict)
        if not self.valid(i) and not self.config.execute_invalid:
            return StepRecord(step, pc, i, inst, verdict, invalid=True, next_pc=pc)
        if handler is None:
            return StepRecord(step, pc, i, inst, verdict, fault=why, next_pc=pc)
        ctx = Context(st, self.config.engine, pc)
        h = self.history
        fresh = not h.checkpoints
        h.base(st, 0)  # the state before the first change
        st.writes = []
        st.begin_step()
        fault = None
        try:
            nxt = execute(ctx, inst, handler)
            if nxt is not None and not 0 <= nxt < PC_LIMIT:  # never in state nor journal
                raise Fault(f"{inst.mnemonic} at {pc:#x} branches to {nxt:#x}: not a byte "
                            f"address (0..{PC_LIMIT - 1:#x})")
            st.set_pc(pc + RECORD_BYTES if nxt is None else nxt)
        except Exception as e:  # containment boundary: the model never raises out of a
            # step (house rule); a handler bug becomes an "internal error" fault naming it
            fault = str(e) if isinstance(e, Fault) else (
                f"internal error in {inst.mnemonic}: {type(e).__name__}: {e}")
        st.end_step()
        writes, st.writes = st.writes, None
        if fault is not None:
            st.undo_step()
            if fresh:  # nothing changed yet: the start is taken afresh
                h.checkpoints = []
            return StepRecord(step, pc, i, inst, verdict, fault=fault, next_pc=pc)
        return StepRecord(step, pc, i, inst, verdict, writes or [], halted=st.halted,
                          next_pc=st.pc, lanes=ctx.lanes)

    # -- fast path ---------------------------------------------------------------------------
    def _build_fast(self) -> None:
        """The fast tables, in bulk (numpy over the opcodes: nothing is decoded here)."""
        if self._fast is None:
            self._fast = [None] * self.count
            ops = np.asarray(self.program.opcodes)
            plain = np.ones(self.count + 1, dtype=np.uint8)
            plain[:self.count] = np.where(np.isin(ops, _FAST_LIST), 2, 1)
            self._plain = bytearray(plain.tobytes())  # 2: a SEQ record not built yet
            self._heat = bytearray(self.count + 1)
            self._ends = bytearray(self.count + 1)
        if self._stop is None:
            stop = np.frombuffer(self._plain, dtype=np.uint8).copy()
            for bp in self.breakpoints:
                if bp.enabled and bp.kind in STATIC_KINDS:
                    stop[:self.count] |= self._static_mask(bp)
            self._stop = bytearray(stop.tobytes())
            self._blocks = {}  # built against the old stops

    def _block_at(self, i: int, stop: bytearray) -> tuple[Block, int] | None:
        """The superblock entered at record i under `stop` (records i.. up to a branch,
        none with a stop bit), with its length; None when record i itself has a stop bit.
        Compiling costs about a hundred fast steps per record: built for entries
        reached twice (a loop pays it once)."""
        assert self._fast is not None
        records: list[tuple[int, Inline]] = []
        j = i
        while j < self.count and len(records) < MAX_BLOCK:
            if stop[j] & 2:
                self._build_one(j)
            if stop[j]:
                break
            op = self._fast[j]
            assert op is not None  # no stop bit: built
            records.append((j, op.form.at(j)))
            if op.form.branch:  # a branch ends the block
                break
            j += 1
        if not records:
            return None
        return superblock(i, records, self.state), len(records)

    def _build_one(self, i: int) -> None:
        """The fast closure of record i, built the first time the PC reaches it: once per
        distinct record bytes, and given at once to every loaded record with the same
        bytes not built yet (its twins: a NOP stream builds one closure, in one pass)."""
        assert self._fast is not None and self._stop is not None
        raw = self.program.record(i)
        if raw in self._ops:
            op = self._ops[raw]
        else:
            h, _ = handler_for(raw[0], self.config.engine, self.config.gen)
            # decoded for the closure alone (kept by no cache: fewer objects for the
            # garbage collector to walk while a long program's closures are built)
            op = None if h is None else fast_op(self.state, decode(raw), self.count)
            if len(self._ops) >= self.cache_records:
                self._ops.clear()
            self._ops[raw] = op
        if self._twins is None:
            self._twins = self._group_twins()
        tw = self._twins
        k = int(tw.key[i])
        if k < 0 or tw.bounds[k + 1] - tw.bounds[k] == 1:  # one record: no numpy
            tw.key[i] = -1
            ok = op is not None and (self.config.execute_invalid or self.valid(i)) \
                and fits_at(op, i, self.count)
            self._fast[i] = op if ok else None
            self._ends[i] = ok and op is not None and op.form.branch
            self._plain[i] = 0 if ok else 1
            self._stop[i] = (self._stop[i] & 1) | (0 if ok else 1)
            return
        where = tw.of(i)
        tw.key[where] = -1  # built: each record now on its own
        if op is None:
            good = np.zeros(len(where), dtype=bool)
        else:
            good = fits(op, where, self.count)
            if not self.config.execute_invalid:
                self.valid(0)  # the bulk legality array
                assert self._valid is not None
                good &= self._valid[where]
        fast = self._fast
        for j in where[good].tolist():
            fast[j] = op
        bad = (~good).astype(np.uint8)
        plain = np.frombuffer(self._plain, dtype=np.uint8)
        stop = np.frombuffer(self._stop, dtype=np.uint8)
        plain[where] = bad
        stop[where] = (stop[where] & 1) | bad
        if op is not None and op.form.branch:
            np.frombuffer(self._ends, dtype=np.uint8)[where[good]] = 1

    def _group_twins(self) -> Twins:
        """The SEQ records still as loaded, grouped by their bytes (an edited record is
        on its own)."""
        loaded = self.loaded_program
        changed = self.program.changed_from(loaded)
        program = loaded if changed is not None else self.program
        rows = np.flatnonzero(np.isin(np.asarray(program.opcodes), _FAST_LIST))
        found = twins(program.raw, rows)
        if changed:
            found.key[changed] = -1
        return found

    def _static_mask(self, bp: Breakpoint) -> np.ndarray:
        """Records a static breakpoint matches (its condition is checked when it is hit)."""
        return static_mask(bp, self)

    def fast_run(self, budget: int) -> int:
        """Run SEQ fast closures from the PC for at most `budget` steps, stopping before
        any other instruction and before static breakpoints; the steps done (a
        NeuronCore runs an engine ahead through them, machine/core)."""
        return self._fast_run(budget)

    def invalidate_stops(self) -> None:
        """The breakpoint list changed from outside (a core shares its breakpoints)."""
        self._stop = None

    def _fast_run(self, budget: int) -> int:
        """Run fast closures from the PC until a stop index or `budget` steps; steps done."""
        st = self.state
        i = self.index_of(st.pc)
        if i is None or st.halted:
            return 0
        self._build_fast()
        fast, stop = self._fast, self._stop
        assert fast is not None and stop is not None
        blocks = self._blocks
        heat, ends = self._heat, self._ends
        self.history.base(st, 0)
        n = 0
        while n < budget:
            if stop[i] & 2:
                self._build_one(i)
            if stop[i]:
                break
            b = blocks.get(i)
            if b is not None:
                run, length = b
                most = (budget - n) // length
                if most:  # whole passes only: max-steps stays exact
                    i, passes = run(most)
                    n += passes * length
                    continue
            elif heat[i] == 1:  # entered here before: compile the block
                b = self._block_at(i, stop)
                if b is not None:
                    blocks[i] = b
                    continue
                heat[i] = 2
            elif heat[i] == 0:
                heat[i] = 1
            # one by one to the end of a block (a branch), a stop, or the budget
            k = 0  # a for loop over range counts the steps cheaper than n += 1; n < budget
            for k in range(1, budget - n + 1):  # noqa: B007 (k is the count run)
                end = ends[i]
                i = fast[i](i)  # type: ignore[misc]
                if end or stop[i]:
                    break
            n += k
        st.pc = self.config.base + i * RECORD_BYTES
        return n

    def refresh_last(self) -> None:
        """Re-execute the last (fast) step through the slow path to get its record (`last`);
        a Ctrl+C waits until it is redone (machine.sigint), never leaving it half undone."""
        if self.state.journal.steps:
            with sigint.deferred():
                self.state.undo_step()
                self.step()

    # -- the checks of edits, and record writes (a core journals the edits) -----------------
    def edit_value(self, t: ex.Target, target: str, value: str) -> tuple[int, str]:
        """The bits `set TARGET = VALUE` stores in this queue's target `t` (checked here)
        and how the value is shown; ValueError (one line) for a bad target, an
        out-of-bounds one, a bad value or one the target cannot hold (machine/edits.py)."""
        self.check(t)
        if t.kind == "mem" and (t.p1 != t.index + 1 or t.b1 - t.b0 != ed.width(t)):
            raise ValueError(f"set writes one element; {target.strip()} is a range (write "
                             f"e.g. sb[P, BYTE]:fp32)")
        try:
            v = ex.parse(value)(self.state)
        except CONDITION_ERRORS as e:
            raise ValueError(f"{value.strip()}: {e}") from None
        if t.kind != "pc":
            return ed.encode(t, v)
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if not isinstance(v, int):
            raise ValueError(f"PC takes a record address; {v!r} is not an integer")
        self.check(v)
        return v, f"{v:#x}"

    def check_record(self, index: int, raw: bytes) -> tuple[int, bytes]:
        """(index, the 64 bytes) of a record edit this program can take; ValueError (one
        line) for a record the program lacks or bytes that are not one record."""
        if isinstance(index, bool) or not isinstance(index, int | np.integer):
            raise ValueError(f"record: expected a record number, found {index!r}")
        index = int(index)
        if not 0 <= index < self.count:
            raise ValueError(f"record {index} does not exist (the program has records "
                             f"0..{self.count - 1})" if self.count else
                             f"record {index} does not exist (the program is empty)")
        if not isinstance(raw, bytes | bytearray | memoryview):
            raise ValueError(f"record {index}: expected {RECORD_BYTES} bytes, found "
                             f"{type(raw).__name__}")
        new = bytes(raw)
        if len(new) != RECORD_BYTES:
            raise ValueError(f"record {index}: expected {RECORD_BYTES} bytes, found "
                             f"{len(new)}")
        return index, new

    def record_change(self, index: int, old: bytes) -> str:
        """What a record edit changed against the record's `old` bytes, and its verdict
        now: "record 3 at 0xc0: 4 bytes changed, now valid"."""
        new = self.program.record(index)
        changed = sum(a != b for a, b in zip(old, new, strict=True))
        pc = self.config.base + index * RECORD_BYTES
        return (f"record {index} at {pc:#x}: {changed} byte{'s' * (changed != 1)} changed, "
                f"now {'valid' if self.valid(index) else 'invalid'}")

    def saved_bits(self, t: ex.Target, e: ed.Edit) -> int:
        """The bits a saved edit `e` stores in this queue's target `t`, checked: the
        target exists here, the value is a bit pattern that fits it (a PC: a record's)."""
        self.check(t)
        try:
            bits = int(e.value, 0)
        except ValueError:
            raise ValueError(f"edit of {e.target}: expected a bit pattern such as 0x3f80, "
                             f"found {e.value!r}") from None
        if t.kind == "pc":
            self.check(bits)
        elif not 0 <= bits < 1 << 8 * ed.width(t):
            raise ValueError(f"edit of {e.target}: {e.value} does not fit its "
                             f"{8 * ed.width(t)} bits")
        return bits

    def write_record(self, index: int, raw: bytes) -> None:
        """Put `raw` in as record `index`, not journaled (a `Core` journals its record
        edits itself): a new Program (`Program.edited`, O(1) in the
        program's length; no Program's records ever change: a holder compares old and
        new), and that record's caches dropped: it is decoded, judged and compiled afresh."""
        self.program = self.program.edited(index, raw)
        self._insts.pop(index, None)
        self._handlers.pop(index, None)
        self._verdicts.pop(index, None)
        if self._valid is not None:  # records are judged one by one: only this one changed
            if not self._valid.flags.writeable:
                self._valid = self._valid.copy()
            one = np.frombuffer(raw, dtype=np.uint8).reshape(1, RECORD_BYTES)
            self._valid[index] = bool(validate(one, self.config.gen,
                                               self.config.engine).valid[0])
        self._refresh_fast(index)

    def _refresh_fast(self, index: int) -> None:
        """Record `index` changed: its entries in the fast tables (built for the records
        before) as if never built, its stop bit judged again, and every superblock that
        covers it (entered at most MAX_BLOCK - 1 records before it) dropped."""
        if self._fast is None:
            return  # built later from the records as they are then
        self._fast[index] = None
        if self._twins is not None:
            self._twins.key[index] = -1  # no longer its old twins' (nor built with them)
        plain = 2 if self.program.opcode(index) in FAST_OPCODES else 1
        self._plain[index] = plain
        self._ends[index] = 0
        self._heat[index] = 0
        if self._stop is not None:
            hit = any(bp.enabled and bp.kind in STATIC_KINDS and static_match(bp, self, index)
                      for bp in self.breakpoints)
            self._stop[index] = plain | hit
        blocks = self._blocks
        for j in range(max(0, index - MAX_BLOCK + 1), index + 1):
            b = blocks.get(j)
            if b is not None and j + b[1] > index:
                del blocks[j]

    def initial_memory(self) -> dict[Space, np.ndarray]:
        """SBUF and PSUM before the first step and the first edit (copies): from
        checkpoint 0, which its history keeps (session save writes its images; a core
        has this taken before a program's first edit too)."""
        cps = self.history.checkpoints
        st = self.state
        if not cps:  # nothing has changed yet
            return {s: st.memory(s).copy() for s in SPACES}
        return {s: cps[0].memory(s, st.memory(s).shape) for s in SPACES}

    # -- undo of one step ------------------------------------------------------------------
    def undo_step(self) -> None:
        """Undo the newest step exactly (the state's journal); its record, and the last
        conversion once undone, are dropped with it (`last_conversion` is stale then: its
        arrays are freed by the undo rather than by the next step's bookkeeping)."""
        st = self.state
        self.last = None
        c = self.last_conversion
        if c is not None and c.step >= st.steps - 1:
            self.last_conversion = None
        st.undo_step()
