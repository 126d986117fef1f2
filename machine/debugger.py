"""One engine queue: `Machine` executes a program's records on a machine state — step,
legality cache, SEQ fast path and superblocks, its own history and undo, edits.

    m = Machine(program, MachineConfig(gen=Gen.CAYMAN), data=inits, labels={"loop": 0x40})
    rec = m.step()                   # StepRecord: writes, verdict, fault, lanes
    m.replay(1000); m.reverse_step(); m.reverse(10**7, progress=cb)
    m.edit("R5", "1")                # a journaled `set`: "R5 = 1 (0x00000001)"
    m.edit_record(3, raw64)          # record 3 of the program replaced, journaled the same way
    core = Core.of_program(m, path)  # the one debugger (machine/core): breakpoints, runs

The debugger is `Core` (machine/core/core.py): a program runs on a core with one queue,
whose breakpoints are matched by machine/breakpoints.py. The run commands still here
(`add_breakpoint`, `delete_breakpoint`, `set_enabled`, `cont`, `step_n`,
`reverse_continue`) serve the TUI's program session (views/session.py) alone, judging
through the same matching (`Machine.scene`); they go once that session runs on a core.

Stop reasons: halt | breakpoint | fault | invalid | max-steps (and `interrupt` when
`m.interrupt` is set from another thread; checked at step boundaries). A
refused (invalid) or faulting instruction changes nothing: the machine stays
before it. `continue` uses the SEQ fast closures when no breakpoint needs
per-step records, and re-executes the last fast step to produce `last`.

History (machine/history.py) is bounded by `journal_budget` bytes (0: none, for a
headless run); reversing past the kept window restores a checkpoint and replays.
Long commands (`cont`, `reverse`, `reverse_continue`, `replay`) check `interrupt`
every FAST_CHUNK steps and report `progress(done, total)`, so a UI can run them in a
worker thread. The interrupt contract: a run entry never clears `interrupt` when it
starts (an Esc landing between "the UI starts a worker" and "the run begins" would be
lost); one set before the run stops it at once (reason "interrupt", 0 steps). A run
that stops BECAUSE of the interrupt clears it (the run consumed it); a run that ends for
another reason (halt, breakpoint, max-steps...) leaves the flag as it is, so an Esc
arriving as one run of a multi-run command ends still stops the next. The caller that
starts a fresh user command (the App/Session, the DAP adapter) clears stale interrupts
on its own thread before starting the worker.
Decisions where the specification is silent (gdb-like):
- A stop lists every breakpoint that matched there (`Stop.breakpoints`), each with the
  instruction that caused it: the one about to run for pc/op/label/invalid, the one
  just run for watch/change/if/semantic kinds (with old -> new for watches).
- `if:EXPR` without a location stops when EXPR becomes true (edge), like a gdb
  watchpoint on a condition; any error evaluating a condition (division by zero, a
  read outside memory) makes it false.
- `reverse` undoes events newest first: a `set` edit is an event of its own (undone
  without moving the step count), so `reverse` right after a mistaken `set` undoes it.
- `edit_record` (the TUI's "apply fix") is an event like a `set`: `Edit(step,
  "record[N]", "0x" + the 64 bytes in hex)`, so `reverse` undoes it, history replay and a
  saved session re-apply it at the same position. Each record edit (or its undo) gives
  `program` a new Program (`Program.edited`: it shares the loaded records and keeps the
  edited ones aside, so an edit costs the same at 10**6 records as at 10; `loaded_program`
  keeps the file's, which a session names by sha256), so a holder can tell it changed and
  what (`program.changed_from(old)`). Only that record's caches are dropped: its decode,
  verdict and legality flag, its fast closure and the superblocks that cover it.
- A branch to a negative address, or one past the journal's 48-bit PC (which also
  bounds a session's `base`), faults on the branch: such a PC never enters the state.
  A branch to any other address outside the program faults at the next fetch, as before.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from neurondbg.machine import edits as ed
from neurondbg.machine import expr as ex
from neurondbg.machine import sigint
from neurondbg.machine.breakpoints import (
    CONDITION_ERRORS,
    STATIC_KINDS,
    WATCH_KINDS,
    Breakpoint,
    Kind,
    Scene,
    check_program,
    parse_spec,
    static_mask,
    static_match,
    undo_hits_any,
)
from neurondbg.machine.engines import Context, StepRecord, execute, handler_for
from neurondbg.machine.engines.record import Fault, LazyVerdict
from neurondbg.machine.engines.seq import (
    FAST_OPCODES,
    FastOp,
    Handler,
    Inline,
    fast_op,
    fits,
    fits_at,
)
from neurondbg.machine.engines.superblock import MAX_BLOCK, Block, superblock
from neurondbg.machine.history import JOURNAL_BUDGET, History, Position, restore
from neurondbg.machine.isa.codec import Instruction, Twins, decode, twins
from neurondbg.machine.journal import COUNT_SHIFT, PC_LIMIT, REG_SHIFT
from neurondbg.machine.legality.explain import explain, validate
from neurondbg.machine.legality.result import Verdict
from neurondbg.machine.spaces import SPACES, Space
from neurondbg.machine.state import RECORD_BYTES, MachineConfig, MachineState
from neurondbg.machine.stops import RUN_REASONS, Stop, StopReason

Progress = Callable[[int, int], None]  # (done, total), called every FAST_CHUNK steps
__all__ = ["CONDITION_ERRORS", "Machine", "Progress"]  # CONDITION_ERRORS: machine.breakpoints'

_MISSING = object()  # no Verdict cached yet
_FAST_LIST = sorted(FAST_OPCODES)
# per-record caches of the slow path (decoded instructions, handlers) hold at most this
# many records, then start afresh: memory bounded however long the program
CACHE_RECORDS = 1 << 16
FAST_CHUNK = 1 << 16  # fast steps between interrupt checks (~65 ms at 1e6 steps/s)
# `run` reports the first five; `interrupt` (UI) and `start` (reverse) are interactive only.
STOP_REASONS = (*RUN_REASONS, StopReason.INTERRUPT, StopReason.START)
RECORD_TARGET = re.compile(r"record\[(\d+)\]")  # an Edit target naming a program record


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
    """A program loaded on a machine state, with breakpoints and a journal."""

    def __init__(self, program: Any, config: MachineConfig | None = None,
                 data: Iterable[Any] = (), labels: dict[str, int] | None = None, *,
                 journal_budget: int = JOURNAL_BUDGET,
                 shared: MachineState | None = None) -> None:
        """`shared`: another engine's state whose SBUF, PSUM and semaphores this machine
        uses (one queue of a NeuronCore, machine/core; the core drives its history)."""
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
        # superblocks (machine/engines/superblock.py) by entry record, one table per stop
        # table (`_stop`, `_plain`); `_heat[i]`: fast runs entered at record i so far
        # (a block is compiled on the second: code run once is not worth compiling), 2
        # when none can start there; `_ends[i]`: record i is a branch (a block ends there)
        self._blocks: dict[int, tuple[Block, int]] = {}
        self._blocks_plain: dict[int, tuple[Block, int]] = {}
        self._heat = bytearray()
        self._ends = bytearray()
        # The last step that converted (its lanes): kept while `continue` runs past it, so
        # the UI can show the conversion a run went through; dropped once reversed past.
        self.last_conversion: StepRecord | None = None
        self.breakpoints: list[Breakpoint] = []
        self._next_bp = 1
        self._scene: Scene | None = None
        self.interrupt = threading.Event()
        self.last: StepRecord | None = None
        self.on_step: Callable[[StepRecord], None] | None = None  # e.g. `run --trace`
        self.history = History(journal_budget)
        self.edits: list[ed.Edit] = []  # the `set` and record edits leading to the state now
        self._edit_old: list[int] = []  # the bits each edit replaced (undo; a record's as
        # one big-endian int of its 64 bytes)
        for d in data:
            self.load_data(d)

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

    # -- breakpoints -----------------------------------------------------------------------
    def add_breakpoint(self, spec: str) -> Breakpoint:
        """Parse and add a breakpoint; ValueError (with column) on a bad spec, an unknown
        label, or a PC / watch target outside the program or the machine (`check`)."""
        bp = parse_spec(spec)
        check_program(bp, spec, self)
        self._resync([bp])
        bp.id = self._next_bp
        self._next_bp += 1
        self.breakpoints.append(bp)
        self._stop = None
        return bp

    def delete_breakpoint(self, bp_id: int) -> bool:
        before = len(self.breakpoints)
        self.breakpoints = [b for b in self.breakpoints if b.id != bp_id]
        self._stop = None
        return len(self.breakpoints) != before

    def set_enabled(self, bp_id: int, enabled: bool) -> None:
        for b in self.breakpoints:
            if b.id == bp_id:
                b.enabled = enabled
                self._resync([b])  # old values and edges count from when it was enabled
        self._stop = None

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

    @property
    def scene(self) -> Scene:
        """This queue as breakpoint matching sees it (machine.breakpoints.Scene): one
        actor, a lone program."""
        sc = self._scene
        if sc is None:
            sc = self._scene = Scene((self.config.engine,), [self.state])
        return sc

    def invalid_records(self) -> np.ndarray:
        """A bool array: True for each record that fails legality (judged at once)."""
        self.valid(0)  # computes the bulk legality array once
        assert self._valid is not None
        return ~self._valid

    def _static_hits(self, pc: int) -> list[Breakpoint]:
        """Every enabled static breakpoint at `pc` whose condition holds."""
        i = self.index_of(pc)
        if i is None:
            return []
        sc = self.scene
        return [bp for bp in self.breakpoints
                if bp.enabled and bp.kind in STATIC_KINDS and static_match(bp, self, i)
                and sc.holds(bp, 0)]

    def _truth(self, e: ex.Expr) -> bool:
        """An expression as a condition (an error evaluating it is false)."""
        return self.scene.truth(e, 0)

    def _dynamic_hits(self, rec: StepRecord) -> list[tuple[Breakpoint, str]]:
        """Every enabled after-step breakpoint the step `rec` triggered, with why."""
        return self.scene.after_step_hits(self.breakpoints, 0, rec)

    def _resync(self, bps: list[Breakpoint] | None = None) -> None:
        """After the state moved without stepping (reverse, edit): `watch:`, `change:` and
        `if:` compare against the state now current."""
        self.scene.resync(self.breakpoints if bps is None else bps)

    def where(self, pc: int) -> str:
        """"CAST at 0x80": the instruction at `pc` (or just the address)."""
        i = self.index_of(pc)
        return f"{self.instruction(i).mnemonic} at {pc:#x}" if i is not None else f"{pc:#x}"

    def _static_stop(self, hits: list[Breakpoint], steps: int, suffix: str = "") -> Stop:
        pc = self.state.pc
        for bp in hits:
            bp.hits += 1
        where = f"before {self.where(pc)}{suffix}"
        detail = "; ".join(f"{bp.describe()}: {where}" for bp in hits)
        return Stop(StopReason.BREAKPOINT, pc, detail, steps, breakpoints=hits)

    def _needs_records(self) -> bool:
        return self.on_step is not None or any(
            b.enabled and b.kind not in STATIC_KINDS for b in self.breakpoints)

    # -- one step ----------------------------------------------------------------------------
    @property
    def position(self) -> Position:
        """(step count, edits applied): where the machine is in its history."""
        return self.state.steps, len(self.edits)

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
            rec = self._execute(i, pc, step)
            if rec.executed:
                self.history.keep(st, len(self.edits))
        self.last = rec
        if rec.lanes is not None:
            self.last_conversion = rec
        if self.on_step is not None:
            self.on_step(rec)
        return rec

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
        self.history.base(st, len(self.edits))  # the state before the first change
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
            if self.position == (0, 0):  # nothing changed yet: the start is taken afresh
                self.history.checkpoints = []
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
            self._blocks_plain = {}
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

    def _fast_run(self, budget: int, plain: bool = False) -> int:
        """Run fast closures from the PC until a stop index or `budget` steps; steps done.

        `plain` ignores breakpoints (replaying history)."""
        st = self.state
        i = self.index_of(st.pc)
        if i is None or st.halted:
            return 0
        self._build_fast()
        fast, stop = self._fast, self._plain if plain else self._stop
        assert fast is not None and stop is not None
        blocks = self._blocks_plain if plain else self._blocks
        heat, ends = self._heat, self._ends
        self.history.base(st, len(self.edits))
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
                on_step, self.on_step = self.on_step, None
                self.step()
                self.on_step = on_step

    # -- run commands ------------------------------------------------------------------------
    def _consumed(self, stop: Stop) -> Stop:
        """A run entry's result: an interrupt stop consumes the interrupt (module
        docstring: the interrupt contract)."""
        if stop.reason == StopReason.INTERRUPT:
            self.interrupt.clear()
        return stop

    def cont(self, max_steps: int | None = None, until_pc: int | None = None,
             progress: Progress | None = None) -> Stop:
        """Continue until a stop reason; `until_pc` adds a temporary breakpoint.

        `progress(done, max_steps or 0)` is called every FAST_CHUNK fast steps. An
        `interrupt` set before the call stops it at once (0 steps)."""
        return self._consumed(self._cont(max_steps, until_pc, progress))

    def _cont(self, max_steps: int | None, until_pc: int | None,
              progress: Progress | None) -> Stop:
        done = 0
        first = True
        fast_last = False
        use_fast = not self._needs_records() and until_pc is None
        try:
            while True:
                st = self.state
                if max_steps is not None and done >= max_steps:
                    return Stop(StopReason.MAX_STEPS, st.pc, f"stopped after {done} steps", done)
                if self.interrupt.is_set():
                    return Stop(StopReason.INTERRUPT, st.pc, "interrupted", done)
                if not first:
                    if until_pc is not None and st.pc == until_pc:
                        return Stop(StopReason.BREAKPOINT, st.pc, f"reached {self.where(until_pc)}",
                                    done)
                    hits = self._static_hits(st.pc)
                    if hits:
                        return self._static_stop(hits, done)
                first = False
                if use_fast:
                    chunk = self.history.chunk(FAST_CHUNK)
                    budget = chunk if max_steps is None else min(chunk, max_steps - done)
                    k = self._fast_run(budget)
                    if k:
                        done += k
                        fast_last = True
                        self.history.keep(st, len(self.edits))
                        if progress is not None:
                            progress(done, max_steps or 0)
                        continue
                fast_last = False
                rec = self.step()
                stop = self._after(rec)
                if rec.executed:
                    done += 1
                if stop is not None:
                    stop.steps = done
                    return stop
        except KeyboardInterrupt:  # it may have cut a fast step short: redo none of it
            fast_last = False
            raise
        finally:
            if fast_last:
                self.refresh_last()

    def _after(self, rec: StepRecord) -> Stop | None:
        pc = self.state.pc
        if rec.fault:
            return Stop(StopReason.FAULT, rec.pc, rec.fault, record=rec)
        if rec.invalid:
            v = rec.verdict
            failed = ", ".join(v.failed) if v is not None else "legality"
            name = v.predicate if v is not None else "legality"
            return Stop(StopReason.INVALID, rec.pc, f"{rec.mnemonic} at {rec.pc:#x} fails {name}: "
                        f"{failed}", record=rec)
        hits = self._dynamic_hits(rec) if rec.executed else []
        if hits:
            by = self.where(rec.pc)
            static = [bp for bp in self._static_hits(pc) if bp not in (h[0] for h in hits)]
            for bp, _ in hits:
                bp.hits += 1
            for bp in static:  # also at the PC the step arrived at: report, count them too
                bp.hits += 1
            parts = [f"{bp.describe()}: before {self.where(pc)}" for bp in static]
            parts += [f"{bp.describe()}: {by}: {why}" for bp, why in hits]
            return Stop(StopReason.BREAKPOINT, pc, "; ".join(parts),
                        breakpoints=[bp for bp, _ in hits] + static, record=rec)
        if rec.halted:
            return Stop(StopReason.HALT, pc, "HALT" if rec.executed else "the machine is halted",
                        record=rec)
        return None

    def step_n(self, n: int = 1) -> Stop:
        """`n` steps, stopping early at breakpoints and the other stop reasons."""
        return self.cont(max_steps=n)

    # -- edits -------------------------------------------------------------------------------
    def edit(self, target: str, value: str) -> str:
        """`set TARGET = VALUE`: store, journal (reverse undoes it), return what was stored,
        e.g. "R5 = 1 (0x00000001)". ValueError (one line) for a bad target, an out-of-bounds
        one, a bad value or one the target cannot hold (decisions: machine/edits.py)."""
        t = ex.parse_target(target)
        bits, shown = self.edit_value(t, target, value)
        self._apply(ed.Edit(self.state.steps, ed.target_text(t), hex(bits)), t)
        return f"{ed.target_text(t)} = {shown}"

    def edit_value(self, t: ex.Target, target: str, value: str) -> tuple[int, str]:
        """The bits `set TARGET = VALUE` stores in this queue's target `t` (checked here)
        and how the value is shown; ValueError (one line) as `edit` says."""
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

    def edit_record(self, index: int, raw: bytes) -> str:
        """Replace record `index` of the program with the 64 bytes `raw`, journaled like a
        `set` (reverse undoes it, a saved session replays it), and judge it afresh; returns
        what changed ("record 3 at 0xc0: 4 bytes changed, now valid"). ValueError (one
        line) for a record the program lacks or bytes that are not one record."""
        index, new = self.check_record(index, raw)
        old = self.program.record(index)
        self._apply_record(ed.Edit(self.state.steps, record_target(index), record_bits(new)),
                           index, new)
        return self.record_change(index, old)

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

    def apply_edit(self, e: ed.Edit) -> None:
        """Replay a saved edit (its bits, exactly); ValueError if it does not fit."""
        index = record_index(e.target)
        if index is not None:
            if index >= self.count:
                raise ValueError(f"edit of {e.target}: the program has records "
                                 f"0..{self.count - 1}")
            self._apply_record(ed.Edit(self.state.steps, e.target, e.value), index,
                               bits_record(e.value))
            return
        t = ex.parse_target(e.target)
        bits = self.saved_bits(t, e)
        self._apply(ed.Edit(self.state.steps, e.target, e.value), t, bits)

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

    def _apply(self, e: ed.Edit, t: ex.Target, bits: int | None = None) -> None:
        self.history.base(self.state, len(self.edits))
        self._edit_old.append(ed.read_bits(t, self.state))
        ed.write_bits(t, self.state, int(e.value, 0) if bits is None else bits)
        self.edits.append(e)
        self.last = None
        self._resync()

    def _apply_record(self, e: ed.Edit, index: int, raw: bytes) -> None:
        self.history.base(self.state, len(self.edits))
        self._edit_old.append(int.from_bytes(self.program.record(index), "big"))
        self.write_record(index, raw)
        self.edits.append(e)
        self.last = None
        self._resync()

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
        for blocks in (self._blocks, self._blocks_plain):
            for j in range(max(0, index - MAX_BLOCK + 1), index + 1):
                b = blocks.get(j)
                if b is not None and j + b[1] > index:
                    del blocks[j]

    def _undo_edit(self) -> None:
        e = self.edits.pop()
        old = self._edit_old.pop()
        index = record_index(e.target)
        if index is not None:
            self.write_record(index, old.to_bytes(RECORD_BYTES, "big"))
            return
        ed.write_bits(ex.parse_target(e.target), self.state, old)

    def _unwind_records(self, start: int) -> None:
        """Put back the records edited by `edits[start:]`, newest first (a checkpoint
        restores the state, not the program)."""
        for k in range(len(self.edits) - 1, start - 1, -1):
            index = record_index(self.edits[k].target)
            if index is not None:
                self.write_record(index, self._edit_old[k].to_bytes(RECORD_BYTES, "big"))

    def journaled_edits(self) -> list[tuple[ed.Edit, int]]:
        """Each edit leading to the state now, with the bits it replaced (a record's as
        one big-endian int of its 64 bytes): what a core that takes this program's
        machine over journals as its own edits."""
        return list(zip(self.edits, self._edit_old, strict=True))

    def initial_memory(self) -> dict[Space, np.ndarray]:
        """SBUF and PSUM before the first step and the first edit (copies): from
        checkpoint 0, which every history keeps (session save writes its images)."""
        cps = self.history.checkpoints
        st = self.state
        if not cps:  # nothing has changed yet
            return {s: st.memory(s).copy() for s in SPACES}
        return {s: cps[0].memory(s, st.memory(s).shape) for s in SPACES}

    # -- reverse -------------------------------------------------------------------------------
    def reverse_step(self) -> bool:
        """Undo the last event (a step, or a `set` edit) exactly; False at the start, or
        when `interrupt` stopped the replay an event past the kept window needs (then
        nothing is undone and the interrupt is consumed, as by `reverse`)."""
        st, h = self.state, self.history
        if h.enabled and st.journal.steps and not (self.edits and self._edit_on_top()):
            # First: records of the undone step no longer held here let their lanes go, so
            # undo does not copy lanes' views of memory that nothing will read
            self._reversed(st.steps - 1)
            st.undo_step()  # the common case, kept cheap: a pop within the window
            if h.checkpoints and h.checkpoints[-1].step > st.steps:
                h.forget_after(self.position)
            if self.breakpoints:
                self._resync()
            return True
        return self.reverse(1).steps == 1

    def undo_step(self) -> None:
        """Undo the newest step exactly (the state's journal); its record, and the last
        conversion once undone, are dropped with it."""
        self._reversed(self.state.steps - 1)
        self.state.undo_step()

    def _reversed(self, steps: int | None = None) -> None:
        """Moving back to `steps` (default: the step count now): no last step, and no last
        conversion once reversed past (`last_conversion` is stale then: dropped here, its
        arrays are freed by the reverse rather than by the next step's bookkeeping)."""
        self.last = None
        c = self.last_conversion
        if c is not None and c.step >= (self.state.steps if steps is None else steps):
            self.last_conversion = None

    def _edit_on_top(self) -> bool:
        """Whether the newest event in the kept window is an edit (undone before a step)."""
        return bool(self.edits) and self.edits[-1].step == self.state.steps and \
            len(self.edits) > self.history.origin_edits

    def rewind(self) -> int:
        """Go back to the loaded state; returns how many events were undone."""
        return self.reverse(self.state.steps + len(self.edits)).steps

    def reverse(self, n: int, progress: Progress | None = None) -> Stop:
        """Undo the last `n` events (steps and edits), fast for any `n`: pops within the
        kept window, else (or when cheaper) a checkpoint restored and replayed forward.
        Interruptible (`interrupt`), with `progress(done, total)`. On interrupt the
        machine is at a consistent earlier position between the two."""
        return self._consumed(self._reverse(n, progress))

    def _reverse(self, n: int, progress: Progress | None) -> Stop:
        st = self.state
        if self.interrupt.is_set():  # set before the run: it stops at once (the contract)
            return Stop(StopReason.INTERRUPT, st.pc, "interrupted", 0)
        if not self.history.enabled:
            return Stop(StopReason.START, st.pc, "no history is kept (journal budget 0)")
        total = st.steps + len(self.edits)
        n = max(0, min(n, total))
        target = self._position_back(total - n)
        stop = self._goto(target, progress)
        if stop is not None:
            return stop
        self._reversed()
        self._resync()
        if self.position == (0, 0):
            return Stop(StopReason.START, st.pc, "start of history", n)
        return Stop(StopReason.MAX_STEPS, st.pc, f"{n} steps back", n)

    def _position_back(self, events: int) -> Position:
        """The position after the first `events` events (edit k came after
        `edits[k].step` steps and k edits)."""
        e = sum(1 for k, d in enumerate(self.edits) if d.step + k < events)
        return events - e, e

    def _goto(self, target: Position, progress: Progress | None) -> Stop | None:
        """Move back to `target` (<= position); a Stop only if interrupted."""
        st = self.state
        cur = self.position
        if target >= cur:
            return None
        pops = sum(cur) - sum(target)
        cp = self.history.at_or_before(target)
        if target < self.history.window_start(st) or target[0] - cp.step < pops // 2:
            return self._replay_from(cp.position, target, progress)
        done = 0
        while self.position > target:
            if self._edit_on_top():
                self._undo_edit()
            else:
                st.undo_step()
            done += 1
            if done % FAST_CHUNK == 0:
                if progress is not None:
                    progress(done, pops)
                if self.interrupt.is_set():
                    return Stop(StopReason.INTERRUPT, st.pc, "interrupted", done)
        self.history.forget_after(target)
        return None

    def _replay_from(self, start: Position, target: Position,
                     progress: Progress | None) -> Stop | None:
        """Restore the checkpoint at `start` and replay (edits too) up to `target`."""
        h, st = self.history, self.state
        cp = next(c for c in h.checkpoints if c.position == start)
        pending = self.edits[cp.edits:target[1]]
        self._unwind_records(cp.edits)
        del self.edits[cp.edits:]
        del self._edit_old[cp.edits:]
        restore(cp, st)
        h.origin_edits, h.dropped = cp.edits, cp.mark  # the journal is empty: written = mark
        h.forget_after(target)
        return self._replay(target[0], pending, progress)

    def replay(self, steps: int, edits: Iterable[ed.Edit] = (),
               progress: Progress | None = None) -> Stop | None:
        """Run forward to step count `steps` ignoring breakpoints, applying `edits` at
        their steps (sessions: load a saved position with its edits). None when there,
        else the Stop that ended it early (interrupt, fault, halt). Interruptible."""
        stop = self._replay(steps, edits, progress)
        self._resync()
        return None if stop is None else self._consumed(stop)

    def _replay(self, steps: int, edits: Iterable[ed.Edit],
                progress: Progress | None) -> Stop | None:
        st = self.state
        first, total = st.steps, steps - st.steps
        on_step, self.on_step = self.on_step, None
        try:
            for e in sorted(edits, key=lambda e: e.step):
                stop = self._run_exact(e.step, first, total, progress)
                if stop is not None:
                    return stop
                self.apply_edit(e)
            return self._run_exact(steps, first, total, progress)
        finally:
            self.on_step = on_step

    def _run_exact(self, steps: int, first: int, total: int,
                   progress: Progress | None) -> Stop | None:
        st = self.state
        while st.steps < steps:
            if self.interrupt.is_set():
                return Stop(StopReason.INTERRUPT, st.pc, "interrupted", st.steps - first)
            k = self._fast_run(min(self.history.chunk(FAST_CHUNK), steps - st.steps),
                               plain=True)
            if k:
                self.history.keep(st, len(self.edits))
                if progress is not None:
                    progress(st.steps - first, total)
                continue
            rec = self.step()
            if not rec.executed:
                stop = self._after(rec) or Stop(StopReason.HALT, st.pc, "the machine is halted")
                stop.steps = st.steps - first
                return stop
        return None

    def reverse_continue(self, max_steps: int | None = None,
                         progress: Progress | None = None) -> Stop:
        """Undo steps until one met a breakpoint as forward execution did (a static one at
        the PC it goes back to; a watched target it wrote, a `change:` value it changed,
        an `if:` it made true, each with its condition), or history starts; searches
        folded history by replaying it. Edits on the way are undone too (not stops).

        The kept window is searched from the journal at once (PCs and register writes as
        arrays), and the machine jumps to each candidate step, newest first, to judge it
        exactly (conditions need the state there)."""
        return self._consumed(self._reverse_continue(max_steps, progress))

    def _reverse_continue(self, max_steps: int | None, progress: Progress | None) -> Stop:
        st, h = self.state, self.history
        if not h.enabled:
            return Stop(StopReason.START, st.pc, "no history is kept (journal budget 0)")
        first = st.steps
        floor = 0 if max_steps is None else max(0, first - max_steps)
        cands: list[int] | None = None
        try:
            while st.steps > floor or (floor == 0 and self.edits):
                if self.interrupt.is_set():
                    return Stop(StopReason.INTERRUPT, st.pc, "interrupted", first - st.steps)
                start = h.window_start(st)
                if self.position == start:  # the window is used up: replay the one before
                    cp = max((c for c in h.checkpoints if c.position < start),
                             key=lambda c: c.position)
                    stop = self._replay_from(cp.position, start, None)
                    if stop is not None:
                        stop.steps = first - st.steps
                        return stop
                    cands = None
                    continue
                if self._edit_on_top():
                    if record_index(self.edits[-1].target) is not None:
                        cands = None  # steps before it fetched the records of that time
                    self._undo_edit()
                    continue
                if cands is None:
                    cands = self._candidates(max(floor, start[0]))
                while cands and cands[-1] >= st.steps:
                    cands.pop()
                s = cands[-1] if cands else max(floor, start[0]) - 1
                if s + 1 < st.steps:  # jump to just after the candidate (or the window start)
                    x = s + 1
                    stop = self._goto((x, bisect_right([e.step for e in self.edits], x)),
                                      None)
                    if stop is not None:
                        stop.steps = first - st.steps
                        return stop
                    if progress is not None:
                        progress(first - st.steps, first - floor)
                    continue
                if s < floor or s < start[0]:
                    continue  # at the floor (the loop ends) or the window start (replay)
                cands.pop()
                hits = self._undo_judged()  # judge step s exactly, as forward did
                if hits:
                    return self._static_stop(hits, first - st.steps, " (reverse)")
            n = first - st.steps
            if self.position > (0, 0):
                return Stop(StopReason.MAX_STEPS, st.pc, f"{n} steps back", n)
            return Stop(StopReason.START, st.pc, "start of history", n)
        finally:
            self._reversed()
            self._resync()

    def _candidates(self, lo: int) -> list[int]:
        """Steps in [lo, steps) of the kept window that may stop a reverse-continue
        (ascending): a static breakpoint's record fetched there, a watched target
        written by it, or the step just before a record edit. A superset: conditions
        are judged at the step itself."""
        j = self.state.journal
        n = len(j.steps)
        k0 = max(0, lo - j.origin)
        words = np.frombuffer(j.steps, dtype=np.uint64).copy()  # no export held while popping
        hit = np.zeros(n, dtype=bool)
        bps = [b for b in self.breakpoints if b.enabled]
        static = [b for b in bps if b.kind in STATIC_KINDS]
        if static and self.count:
            mask = np.zeros(self.count + 1, dtype=bool)
            for bp in static:
                mask[:self.count] |= self._static_mask(bp).astype(bool)
            rel = (words >> np.uint64(COUNT_SHIFT)).astype(np.int64) - self.config.base
            idx = np.where((rel % RECORD_BYTES == 0) & (rel >= 0)
                           & (rel < self.count * RECORD_BYTES), rel // RECORD_BYTES, self.count)
            hit |= mask[idx]
        if any(b.kind == Kind.IF for b in bps):  # any step may make an `if:` true
            hit[:] = True
        watches = [b.value for b in bps if b.kind in WATCH_KINDS]
        regs = [t.index for t in watches if t.kind == "reg"]
        if regs and len(j.regs):
            nr = ((words >> np.uint64(8)) & np.uint64(0xFF)).astype(np.int64)
            who = np.repeat(np.arange(n), nr)
            written = np.frombuffer(j.regs, dtype=np.uint64) >> np.uint64(REG_SHIFT)
            hit[who[np.isin(written, np.asarray(regs, dtype=np.uint64))]] = True
            del written
        others = [t for t in watches if t.kind != "reg"]
        if others:
            for u in j.others:
                if u.step >= lo and undo_hits_any(others, u):
                    hit[u.step - j.origin] = True
        found = (np.flatnonzero(hit[k0:]) + k0 + j.origin).tolist()
        # The records differ before a record edit: stop the jump there (its step is judged
        # exactly, like any candidate) and search what ran before with the records then.
        edges = [e.step - 1 for e in self.edits if e.step - 1 >= lo
                 and record_index(e.target) is not None]
        return sorted(set(found) | set(edges)) if edges else found

    def _undo_judged(self) -> list[Breakpoint]:
        """Undo the last kept step and return the breakpoints forward execution met
        there (machine.breakpoints.Scene: watches it wrote, `change:` targets whose value
        it changed, `if:` expressions it made true, each with its condition), then the
        static breakpoints at the PC it goes back to."""
        sc = self.scene
        pending = sc.before_undo([b for b in self.breakpoints if b.enabled], 0)
        self.state.undo_step()
        hits = [bp for bp, _ in sc.after_undo(pending, 0)]
        return hits + [b for b in self._static_hits(self.state.pc) if b not in hits]
