"""The NeuronCore: actors (machine/core/actor.py: one per engine queue, each run by its
Machine; DMA queues through `extra_actors`) on shared SBUF / PSUM / semaphores, a
scheduler, deadlock detection, race detection, breakpoints and `set` edits (DESIGN.md
"NeuronCore: several engine queues").

    core = Core(load_kernel("k.toml"), schedule="rr")
    core.add_breakpoint("op:CAST@dve")
    stop = core.cont()            # Stop: halt | breakpoint | deadlock | race | ...
    core.step("dve"); core.step() # one instruction of DVE; one scheduler step
    core.reverse_step(); core.reverse(10); core.reverse_continue(); core.run_to(0x80, "dve")
    core.edit("dve.R3", "5")      # journaled at this global step: reverse undoes it
    core.edit_record(3, raw64, "act")  # act's record 3 replaced, journaled the same way

Each step: the scheduler's policy (machine/core/schedule.py) picks a runnable engine
(not halted, and its instruction's waits hold: checked without side effects before it
issues); that engine's Machine executes one instruction (header wait, the handler, the
header update: machine.engines.execute) on its own registers and the shared memory.
An unmet wait is not a fault here: the engine is `waiting` with its PC on that
instruction. The schedule taken is journaled (machine/core/timeline.py).

Decisions where the specification is silent (gdb-like):
- `step(None)` with nothing runnable changes nothing and returns a CoreStep of the
  focused engine with its Wait (None when it halted); `step(engine)` of a blocked
  engine does the same for that engine. Stepping a chosen engine where the policy
  would have picked another is recorded, so replay takes the same path.
- A fault stops the core; the faulting engine reads `faulted` until the core moves
  (continuing re-issues the instruction, as gdb re-delivers a fault). An instruction
  that fails legality stops with `invalid` and leaves the engine `running`.
- `Wait.can_be_updated`: some instruction of a queue whose engine has not halted (the
  waiting engines included) names the semaphore as an update target (header update,
  EVENT_SEMAPHORE's own, TEST_EVENT_SEM UPDATE_*). True in a deadlock means a cycle of
  waits; False means nothing left could ever signal it (a missing signal or index).
- Breakpoint conditions (` if EXPR`) read the engine the breakpoint is about (the one
  at the location, that stepped, that raced or blocked); `if:EXPR` reads the focused
  engine; `dve.R3` always DVE's. `watch:R5` without an engine watches the focused
  engine's R5; `watch:R5@dve` (or `watch:dve.R5`) DVE's.
- `race` stops after the step that found a race (reason "race"); `wait` after a step
  that left an engine newly blocked (reason "wait"), and before the first step for an
  engine blocked at its first instruction (it became blocked as the kernel loaded); a
  deadlock always stops.
- The schedule policy is fixed for the life of a Core (replay recomputes its choices).
- `interrupt` (set from another thread; checked at step boundaries and every FAST_CHUNK
  fast steps): no run entry clears it when it starts (an Esc landing between "the UI
  starts a worker" and "the run begins" would be lost), so one set before stops the run
  at once, 0 steps; a run that stops because of it clears it (the run consumed it); a
  run ending otherwise leaves it as it is, so an Esc arriving as one run of a multi-run
  command ends still stops the next. The caller starting a fresh user command clears
  stale interrupts on its own thread first.
- A step on which several breakpoints match reports every one. A stop after a step
  also reports the static breakpoints of the engine the schedule runs next. `cont`
  steps over the static breakpoints of the engine its last stop (or `step`) was about
  and no other's: another engine at a breakpoint still stops before it issues. With
  no stop to resume from (the loaded state, after `reverse`), it steps over those of
  the first engine picked (gdb's `continue`). `run_to` is `cont` with a temporary
  `pc:` breakpoint.
- `reverse_continue` judges each undone step as forward execution did (the same
  matching, conditions read where forward reads them) and stops BEFORE the step: at
  a static breakpoint of the engine stepped back, or where the step wrote a watched
  target, changed a `change:` one, made an `if:` true, found a race or left an engine
  newly blocked; at step 0 last, the engines blocked from the start (`wait`). So the
  hits `cont` meets from step 0 are the ones `reverse_continue` meets from the end
  (tests/core/test_core_symmetry.py). `last` is the CoreStep of the last `step()`.

A plain PROGRAM is a core with one queue (`Core.of_program(machine, path)`, `lone`):
its stops speak as one machine always did (no engine named, "HALT" on its HALT and
"the machine is halted" past it, a semantic stop's first lane), and an unmet wait is
the fault it is on a lone queue (nothing else could signal it), not a deadlock.

Speed: SEQ fast steps (machine.engines.seq.FAST) touch only their engine's registers,
so `cont` runs each engine ahead through them in batches (its credit) and journals the
policy's interleaving of those steps; the run-ahead not yet scheduled is undone when the
command ends (`_settle`). Breakpoints that need every step's record (watch, change,
if, semantic kinds, wait, conditions, `on_step`) turn batching off.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neurondbg.machine import edits as ed
from neurondbg.machine import expr as ex
from neurondbg.machine.breakpoints import (
    OWN_TARGETS,
    RECORD_KINDS,
    REVERSE_KINDS,
    STATIC_KINDS,
    WATCH_KINDS,
    Breakpoint,
    Kind,
    Scene,
    check_program,
    parse_spec,
    passes,
)
from neurondbg.machine.core.actor import Actor, ActorKind, EngineQueue
from neurondbg.machine.core.events import WaitSpec
from neurondbg.machine.core.feed import Feeder
from neurondbg.machine.core.intent import Intent
from neurondbg.machine.core.kernel import Kernel
from neurondbg.machine.core.races import UNDO_BUDGET, Access, Race, RaceDetector, RaceRow
from neurondbg.machine.core.schedule import Policy, parse_policy
from neurondbg.machine.core.timeline import CoreCheckpoint, Timeline
from neurondbg.machine.debugger import (
    FAST_CHUNK,
    Machine,
    bits_record,
    record_bits,
    record_index,
    record_target,
)
from neurondbg.machine.engines.record import StepRecord
from neurondbg.machine.history import JOURNAL_BUDGET
from neurondbg.machine.state import RECORD_BYTES, MachineConfig, MachineState
from neurondbg.machine.stops import EngineStatus, Stop, StopReason

if TYPE_CHECKING:
    from neurondbg.machine.asm.loader import ProgramFile

RUN_AHEAD = 4096  # fast steps an engine runs ahead of the schedule at most
RUN_CACHE_RECORDS = 4096  # an engine's per-record caches without history (Core.__init__)
_REASON_OF = {Kind.RACE: StopReason.RACE, Kind.WAIT: StopReason.WAIT}  # else "breakpoint"
NO_HISTORY = "no history is kept (journal budget 0)"
_FIRST = -2  # Core._stepped_over: no stop to resume from; the first engine picked


@dataclass(frozen=True)
class Resume:
    """Where the last stop (or explicit step) left the core: at global step `step`,
    `engine` (an index) is the one whose static breakpoints were reported there or that
    just stepped (None: no engine's); `start_waits`: the engines blocked from the start
    were reported. A run from that same step steps over only that engine's breakpoints."""

    step: int
    engine: int | None
    start_waits: bool = False


@dataclass(frozen=True)
class CoreEdit:
    """One edit on a core: made at global step `step` (after the steps before it, before
    step `step`), `bits` stored over `old`. Either a `set` on `engine`'s state (registers,
    PC, acc, idx, shape are its own; memory and semaphores are shared), or, when `target`
    is an int, a record edit: record `target` of `engine`'s queue replaced (its 64 bytes
    as a big-endian int, as Machine journals them)."""

    step: int
    engine: str
    # without an engine: the state it is written on is `engine`'s; an int: a record index
    target: ex.Target | int
    bits: int
    old: int

    @property
    def text(self) -> str:
        """The target as a user names it on a kernel: `dve.R3`, `sem[2]`, `act.record[3]`."""
        if isinstance(self.target, int):
            return f"{self.engine}.record[{self.target}]"
        own = self.target.kind in OWN_TARGETS or self.target.kind == "pc"
        return f"{self.engine}.{ed.target_text(self.target)}" if own else \
            ed.target_text(self.target)


@dataclass(frozen=True)
class Wait:
    """Why an engine is blocked: the instruction at `pc` waits for `condition`."""

    engine: str
    pc: int
    semaphore: int
    value: int  # the semaphore's value now
    condition: str  # e.g. "sem[3] >= 1"
    can_be_updated: bool  # does any instruction left in any queue update it (module doc)

    def to_dict(self) -> dict[str, Any]:
        return {"engine": self.engine, "pc": self.pc, "semaphore": self.semaphore,
                "value": self.value, "condition": self.condition,
                "can_be_updated": self.can_be_updated}

    def describe(self) -> str:
        never = "" if self.can_be_updated else "; nothing left updates it"
        return (f"{self.engine} waits at {self.pc:#x} for {self.condition} "
                f"(sem[{self.semaphore}] = {self.value}{never})")


@dataclass
class CoreStep:
    """One instruction of one engine (record None: it did not issue; `waited` says why)."""

    engine: str
    record: StepRecord | None
    waited: Wait | None
    races: list[Race] = field(default_factory=list)


class Core:
    """A kernel (machine.core.kernel.Kernel) loaded on a NeuronCore."""

    def __init__(self, kernel: Kernel, config: MachineConfig | None = None, *,
                 schedule: str = "rr", races: bool = True,
                 journal_budget: int = JOURNAL_BUDGET,
                 extra_actors: Callable[[MachineState], Sequence[Actor]] | None = None,
                 program: Machine | None = None) -> None:
        """`config`: the machine settings as the caller resolved them (engine is set per
        queue); None: the kernel's generation and [machine] settings. ValueError for a bad
        `schedule` or an actor name used twice. `journal_budget` bounds history (0: none,
        for a headless run). `extra_actors(shared)` makes the actors beside the engine
        queues (DMA queues: machine/core/actor.py), their states made with `shared=`.
        `program`: a plain PROGRAM's Machine, already loaded, as the one queue of a
        one-queue `kernel` (`Core.of_program` makes both): the core is `lone`."""
        self.kernel = kernel
        # A plain PROGRAM (DESIGN.md: a kernel with one queue) keeps a program's words and
        # rules: stops name no engine, HALT and faults read as one machine's, and an unmet
        # wait faults (nothing else can signal it) instead of leaving the queue waiting.
        self.lone = program is not None
        self.engines: tuple[str, ...] = tuple(kernel.engines)
        self._policy: Policy = parse_policy(schedule)
        base = config if config is not None else MachineConfig(gen=kernel.gen, **{
            k: v for k, v in _mapping(kernel.machine).items() if k not in ("gen", "engine")})
        self.machines: dict[str, Machine] = {}
        actors: list[Actor] = []
        first: MachineState | None = None
        for e in self.engines:
            q = kernel.queue(e)
            m = program or Machine(q.program.program, replace(base, engine=e),
                                   labels=q.program.labels, journal_budget=0, shared=first)
            if not journal_budget and program is None:
                # no history: nothing steps back, and compiler output runs each record
                # about once, so per-record caches are kept small (memory, not speed)
                m.cache_records = m.program.decoded_kept = RUN_CACHE_RECORDS
            self.machines[e] = m
            actors.append(EngineQueue(e, m, keep_start=program is not None))
            first = first or m.state
        assert first is not None  # a Kernel has at least one queue
        for d in kernel.data:
            self.machines[self.engines[0]].load_data(d)
        if extra_actors is not None:
            actors += extra_actors(first)
        # every actor the scheduler picks from, engine queues first (index = position)
        self.actors: tuple[Actor, ...] = tuple(actors)
        self.names: tuple[str, ...] = tuple(a.name for a in actors)
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"actor names must be unique: {', '.join(self.names)}")
        if max(self._policy.picks, default=0) >= len(self.actors):
            raise ValueError(f"schedule {self._policy.text}: engine {max(self._policy.picks)} "
                             f"is not an index of this kernel's queues (0..{len(self.actors) - 1}"
                             f": {', '.join(self.names)})")
        self._states = [a.state for a in actors]
        self.focus: str = self.engines[0]
        self.interrupt = threading.Event()
        # the detector's undo log and snapshots are history too: a quarter of the budget
        # (none without history: nothing rewinds it), the rest the timeline's
        share = journal_budget // 4 if races else 0
        self.detector: RaceDetector | None = RaceDetector(
            self.names, undo_budget=UNDO_BUDGET if journal_budget else 0,
            history_budget=share,
            suggest=Intent(self.machines, list(first.sem),
                           len(self.actors) > len(self.engines)).suggest) \
            if races else None
        self._feeder = Feeder(self.names, self.detector, list(first.sem)) \
            if self.detector is not None else None
        self.breakpoints: list[Breakpoint] = []
        self._next_bp = 1
        self.on_step: Callable[[CoreStep], None] | None = None  # e.g. `run --trace`
        self.last: CoreStep | None = None
        self._timeline = Timeline(journal_budget - share, len(self.actors))
        self._credit = [0] * len(self.actors)
        self._fault: tuple[int, int] | None = None  # (engine, global step) of the last fault
        self.edits: list[CoreEdit] = []  # in step order; `set` edits of the path taken
        self._applied = 0  # edits[:_applied] are in the state (replay catches up)
        self._resume: Resume | None = None
        self._scene: Scene | None = None
        if self._timeline.enabled:
            self._timeline.take(self.actors)  # checkpoint 0: the loaded state

    @classmethod
    def of_program(cls, machine: Machine, path: Path, *, source: ProgramFile | None = None,
                   journal_budget: int = JOURNAL_BUDGET) -> Core:
        """A plain PROGRAM's `machine` (loaded from `path`: its data, `--sbuf`, anything
        placed before the first step) as a core with one queue on its engine, which runs
        and stops as the program does (`lone`); a session's steps and edits are then
        made on the core (sessions/store.py `restore_on_core`). `source`: the file it
        was read from (the queue's source lines); None: its records alone. ValueError
        for a machine that has stepped: the core's history starts where it loads."""
        from neurondbg.machine.asm.loader import ProgramFile
        from neurondbg.machine.core.kernel import make_kernel, make_queue

        if machine.state.steps:
            raise ValueError(f"{path}: a program joins a core before its first step "
                             f"(this one took {machine.state.steps})")
        if source is None:
            source = ProgramFile(path, machine.program, [], dict(machine.labels))
        kernel = make_kernel(machine.config.gen, [make_queue(machine.config.engine, source,
                                                             path)], [], {}, path)
        return cls(kernel, machine.config, races=False, journal_budget=journal_budget,
                   program=machine)

    # -- reading ------------------------------------------------------------------------
    @property
    def schedule(self) -> str:
        """The policy: "rr", "in-order" or "random:SEED"."""
        return self._policy.text

    @property
    def steps(self) -> int:
        """Global scheduler steps taken (all engines)."""
        return self._timeline.steps

    @property
    def forced(self) -> dict[int, str]:
        """Steps taken by `step(engine)` where the policy would have chosen another
        (global step -> engine): with the policy, they make the schedule (sessions)."""
        return {s: self.names[e] for s, e in self._timeline.forced.items()}

    @property
    def history_nbytes(self) -> int:
        """Memory held by history: every engine's journal, the schedule, checkpoints, and
        the race detector's undo log and snapshots."""
        held = self._timeline.nbytes(self._states)
        return held + self.detector.history_nbytes if self.detector is not None else held

    def taken(self) -> tuple[int, list[str]]:
        """(first step, the engine of each kept global step from it): the schedule taken
        within the kept history window."""
        tl = self._timeline
        return tl.origin, [self.names[i] for i in tl.schedule]

    def _index(self, engine: str) -> int:
        try:
            return self.names.index(engine)
        except ValueError:
            raise ValueError(f"no {engine} queue in this kernel (engines: "
                             f"{', '.join(self.names)})") from None

    def state(self, engine: str | None = None) -> MachineState:
        """An engine's state (the focused one by default)."""
        return self._states[self._index(engine or self.focus)]

    def status(self, engine: str) -> EngineStatus:
        """What `engine` is doing now."""
        i = self._index(engine)
        if self._fault == (i, self.steps):
            return EngineStatus.FAULTED
        rest = self.actors[i].rest()
        if rest is not None:
            return rest
        return EngineStatus.WAITING if self._blocked(i) is not None else EngineStatus.RUNNING

    def waiting(self, engine: str) -> Wait | None:
        """Why `engine` is blocked, or None when it is not."""
        i = self._index(engine)
        if self.actors[i].rest() is not None:
            return None
        w = self._blocked(i)
        return None if w is None else self._wait(i, w)

    def engine_steps(self, engine: str) -> int:
        """Instructions `engine` has executed."""
        i = self._index(engine)
        return len(self._states[i].journal) - self._credit[i]

    def digest(self) -> str:
        """sha256 over every engine's state, shared memory and the semaphores."""
        h = hashlib.sha256()
        for a in self.actors:
            h.update(a.name.encode())
            a.hash_into(h)
        self._states[0].hash_shared(h)
        return h.hexdigest()

    def to_json(self) -> dict[str, Any]:
        """The `run --json` keys of a kernel: engines, semaphores (non-zero), races."""
        sem = self._states[0].sem
        return {
            "engines": {e: {"pc": st.pc, "registers": list(st.R),
                            "steps": self.engine_steps(e), "status": self.status(e)}
                        for e, st in ((e, self.state(e)) for e in self.engines)},
            "semaphores": {str(i): v for i, v in enumerate(sem) if v},
            "races": [r.to_dict() for r in self.races],
        }

    @property
    def races(self) -> list[Race]:
        """Every race found so far (none without race detection)."""
        return list(self.detector.races) if self.detector is not None else []

    def race_rows(self) -> tuple[list[RaceRow], int]:
        """The races found so far, as rows for a list (engine, PC, bytes, missing edge,
        the step to jump to), and how many more were found beyond the kept ones."""
        if self.detector is None:
            return [], 0
        return ([RaceRow.of(n, r) for n, r in enumerate(self.detector.races, 1)],
                self.detector.dropped)

    # -- semaphores and runnability -----------------------------------------------------
    def _blocked(self, i: int) -> WaitSpec | None:
        """The wait actor i's next step cannot pass now (None: it may issue)."""
        if self._credit[i] or self.lone:
            return None  # running ahead through fast steps, which never wait; a lone
            # program issues its wait, which faults when unmet (machine.engines.seq)
        return self.actors[i].blocked()

    def runnable(self) -> list[int]:
        """Indices (into `actors`) of the actors that may take the next step, ascending."""
        return self._runnable()

    def _runnable(self) -> list[int]:
        out = []
        for i, a in enumerate(self.actors):
            if self._credit[i] or (a.rest() is None and (self.lone or a.blocked() is None)):
                out.append(i)
        return out

    def _updatable(self, sem: int) -> bool:
        return any(a.rest() is None and sem in a.updates() for a in self.actors)

    def _wait(self, i: int, w: WaitSpec) -> Wait:
        st = self._states[i]
        return Wait(self.names[i], st.pc, w.idx, st.sem[w.idx], w.condition(st),
                    self._updatable(w.idx))

    def _waits(self) -> list[Wait]:
        out = []
        for i, a in enumerate(self.actors):
            w = None if a.rest() is not None else self._blocked(i)
            if w is not None:
                out.append(self._wait(i, w))
        return out

    # -- breakpoints --------------------------------------------------------------------
    def add_breakpoint(self, spec: str, once: bool = False) -> Breakpoint:
        """Parse and add a breakpoint (machine.breakpoints, with `@ENGINE`); ValueError
        (one line, with the column) for a bad spec, an engine without a queue, a label
        no queue has, or a PC / watch target outside the program or the machine. `once`:
        deleted after the first stop it makes (gdb's tbreak)."""
        bp = parse_spec(spec)
        bp.once = once
        if self.lone:
            check_program(bp, spec, self.machines[self.engines[0]])  # a program's words
        else:
            self._check_spec(bp, spec)
        ms = [m for e, m in self.machines.items() if bp.engine in (None, e)]
        if bp.kind == Kind.LABEL:
            ms = [m for m in ms if bp.value in m.labels]
        if bp.kind in STATIC_KINDS:
            for a in self.actors:  # their runs ahead stop before it
                if self.machines.get(a.name) in ms:
                    a.arm(bp)
        bp.id = self._next_bp
        self._next_bp += 1
        self.breakpoints.append(bp)
        self._resync([bp])
        return bp

    def _check_spec(self, bp: Breakpoint, spec: str) -> None:
        """ValueError (one line, with the column) for a breakpoint of a kernel that names
        an engine without a queue, a label no queue has, or a PC / watch target outside
        the program or the machine."""
        lead = len(spec) - len(spec.lstrip())
        if bp.engine is not None and bp.engine not in self.names:
            raise ValueError(f"column {lead + bp.text.rfind('@') + 2}: no {bp.engine} queue "
                             f"in this kernel (engines: {', '.join(self.names)})")
        self._check_engines(bp, spec)
        ms = [m for e, m in self.machines.items() if bp.engine in (None, e)]
        col = lead + bp.text.find(":") + 2
        if bp.kind == Kind.LABEL:
            ms = [m for m in ms if bp.value in m.labels]
            if not ms:
                known = "; ".join(f"{e}: {', '.join(sorted(m.labels)) or 'none'}"
                                  for e, m in self.machines.items())
                raise ValueError(f"column {col}: unknown label {bp.value!r}; labels: {known}")
        elif bp.kind == Kind.PC:
            errors = []
            for m in ms:
                try:
                    m.check(bp.value)
                except ValueError as e:
                    errors.append(str(e))
            if len(errors) == len(ms):
                raise ValueError(f"column {col}: {errors[0]}")
        elif bp.kind == Kind.DMA:
            queues = [a.name for a in self.actors if a.kind == ActorKind.DMA]
            if bp.value not in queues:
                raise ValueError(f"column {col}: no DMA queue {bp.value!r} here (queues: "
                                 f"{', '.join(queues) or 'none'})")
        elif bp.kind in WATCH_KINDS:
            owner = self.machines.get(self.names[self.scene.owner(bp)],
                                      self.machines[self.focus])
            try:
                owner.check(replace(bp.value, engine=""))
            except ValueError as e:
                raise ValueError(f"column {col}: {e}") from None

    def _check_engines(self, bp: Breakpoint, spec: str) -> None:
        """Every `ENGINE.` an expression or target of `bp` names has a queue here."""
        targets = list(bp.cond.targets) if bp.cond is not None else []
        if bp.kind == Kind.IF:
            targets += bp.value.targets
        elif bp.kind in WATCH_KINDS:
            targets.append(bp.value)
        for t in targets:
            if t.engine and t.engine not in self.names:
                col = spec.lower().find(f"{t.engine}.") + 1
                raise ValueError(f"column {col}: no {t.engine} queue in this kernel "
                                 f"(engines: {', '.join(self.names)})")

    def delete_breakpoint(self, bp_id: int) -> bool:
        before = len(self.breakpoints)
        self.breakpoints = [b for b in self.breakpoints if b.id != bp_id]
        for a in self.actors:
            a.disarm(bp_id)
        return len(self.breakpoints) != before

    def set_enabled(self, bp_id: int, enabled: bool) -> None:
        for b in self.breakpoints:
            if b.id == bp_id:
                b.enabled = enabled
                self._resync([b])
        for a in self.actors:
            a.refresh()

    @property
    def scene(self) -> Scene:
        """The core as breakpoint matching sees it (machine.breakpoints.Scene): its
        actors' names and states, the focused engine, a lone program's words, why an
        actor is blocked and a race in words."""
        sc = self._scene
        if sc is None:
            sc = self._scene = Scene(self.names, self._states, lone=self.lone,
                                     waits=self._wait_words, race_words=race_text)
        sc.focus = self._index(self.focus)
        return sc

    def _wait_words(self, j: int) -> str:
        w = self._blocked(j)
        return "" if w is None else self._wait(j, w).describe()

    def _cond(self, bp: Breakpoint, i: int) -> bool:
        return self.scene.holds(bp, i)

    def _resync(self, bps: list[Breakpoint] | None = None) -> None:
        """After the state moved without stepping: watch/change/if compare from now."""
        self.scene.resync(self.breakpoints if bps is None else bps)

    def _static_hits(self, i: int) -> list[Breakpoint]:
        sc = self.scene
        return [bp for bp in self.actors[i].static_hits() if sc.holds(bp, i)]

    def needs_records(self) -> bool:
        """Whether something reads each step's full record: `on_step` or an enabled
        breakpoint of a kind matched on records (or with a condition or ignore count)."""
        return self.on_step is not None or any(
            b.enabled and (b.kind in RECORD_KINDS or b.cond is not None or b.ignore)
            for b in self.breakpoints)

    # -- one step -----------------------------------------------------------------------
    def step(self, engine: str | None = None) -> CoreStep:
        """One instruction: of `engine`, or (None) of the engine the policy picks."""
        tl = self._timeline
        run = self._runnable()
        if engine is None:
            if not run:
                return CoreStep(self.focus, None, self.waiting(self.focus))
            i = self._policy.choose(run, tl.last, tl.steps)
        else:
            i = self._index(engine)
            if i not in run:
                a = self.actors[i]
                rec = a.issue(tl.steps, None).record if a.rest() is not None else None
                return CoreStep(engine, rec, self.waiting(engine))
        pick = self._policy.choose(run, tl.last, tl.steps)
        step = tl.steps
        cs = self._slow_step(i, feed=True)
        if cs.record is not None and cs.record.executed:
            if i != pick:
                tl.force(step, i)
            self._keep()
            self._resume = Resume(tl.steps, i)  # `continue` steps over its breakpoints
        self.last = cs
        return cs

    def _slow_step(self, i: int, feed: bool) -> CoreStep:
        """Actor i takes its next step with a full record; scheduled if it executed."""
        step = self._timeline.steps
        out = self.actors[i].issue(step, self._feeder if feed else None)
        rec = out.record
        if rec.executed:
            self._timeline.schedule.append(i)
        elif rec.fault:
            self._fault = (i, step)
        cs = CoreStep(self.names[i], rec, None, out.races)
        if self.on_step is not None:
            self.on_step(cs)
        return cs

    # -- running ------------------------------------------------------------------------
    def cont(self, max_steps: int | None = None) -> Stop:
        """Run the core until a stop reason (module docstring); `max_steps` counts the
        steps of all engines. Interruptible (`interrupt`, checked every chunk)."""
        try:
            stop = self._advance(max_steps, stops=True, feed=True)
        finally:
            self._settle()
        return self._consumed(stop)

    def _consumed(self, stop: Stop) -> Stop:
        """A run entry's result: an interrupt stop consumes the interrupt; a `once`
        breakpoint that made it is deleted."""
        if stop.reason == StopReason.INTERRUPT:
            self.interrupt.clear()
        for bp in stop.breakpoints:
            if bp.once:
                self.delete_breakpoint(bp.id)
        return stop

    def ignore(self, bp_id: int, n: int) -> Breakpoint:
        """Pass the next `n` stops breakpoint #`bp_id` would make (gdb's `ignore`; a stop
        where several matched is passed when each has stops left to ignore); ValueError
        for no such breakpoint or a negative count."""
        if n < 0:
            raise ValueError(f"ignore: expected a count of 0 or more, found {n}")
        for bp in self.breakpoints:
            if bp.id == bp_id:
                bp.ignore = n
                return bp
        raise ValueError(f"no breakpoint #{bp_id}")

    def _advance(self, limit: int | None, stops: bool, feed: bool) -> Stop:
        """Run up to `limit` global steps; `stops`: breakpoints count (else a replay,
        which reports no steps to `on_step`); `feed`: the race detector sees them."""
        if stops:
            return self._run(limit, True, feed)
        on_step, self.on_step = self.on_step, None
        try:
            return self._run(limit, False, feed)
        finally:
            self.on_step = on_step

    def _run(self, limit: int | None, stops: bool, feed: bool) -> Stop:
        tl = self._timeline
        start = tl.steps
        fast = not (stops and self.needs_records())
        waits = stops and any(b.enabled and b.kind == Kind.WAIT for b in self.breakpoints)
        over, over_at = self._stepped_over()
        if waits and tl.steps == 0 and not self._resumed(start_waits=True):
            stop = self._start_waits()
            if stop is not None:
                return stop
        blocked = self._blocked_set() if waits else []
        found: list[Race] = []
        while True:
            if self._applied < len(self.edits):
                self._catch_up()
            done = tl.steps - start
            if limit is not None and done >= limit:
                self._settle()
                return self._plain_stop(StopReason.MAX_STEPS, f"stopped after {done} steps", done,
                                        found)
            if self.interrupt.is_set():
                self._settle()
                return self._plain_stop(StopReason.INTERRUPT, "interrupted", done, found)
            run = self._runnable()
            if not run:
                return self._end(done, found, feed)
            step = tl.steps
            forced = tl.forced.get(step)
            i = forced if forced is not None else self._policy.choose(run, tl.last, step)
            if over == _FIRST:  # no stop here to resume from: the first pick is stepped over
                over, over_at = i, self._done(i)
            if stops and not self._credit[i] and not (i == over and self._done(i) == over_at):
                hits = self._static_hits(i)
                if hits and not passes(hits):
                    return self._static_stop(i, hits, done, found)
            if fast and forced is None:
                room = FAST_CHUNK if limit is None else min(FAST_CHUNK, limit - done)
                nf = tl.next_forced(step)
                if nf is not None:
                    room = min(room, nf - step)
                if self._applied < len(self.edits):  # a replay stops where an edit was made
                    room = min(room, self.edits[self._applied].step - step)
                if self._batch(run, room):
                    self._keep()
                    continue
            cs = self._slow_step(i, feed)
            found += cs.races
            rec = cs.record
            assert rec is not None
            if not rec.executed:
                return self._refused(i, rec, done, found)
            self._keep()
            if stops:
                newly = []
                if waits:
                    now = self._blocked_set()
                    newly = [j for j in now if j not in blocked]
                    blocked = now
                met = self.scene.after_step_hits(self.breakpoints, i, rec, cs.races, newly)
                if met and not passes([bp for bp, _ in met]):
                    return self._dynamic_stop(i, cs, met, tl.steps - start, found)
            if rec.halted and self.lone:  # a program stops on its HALT (one machine's word)
                return Stop(StopReason.HALT, self._states[i].pc, "HALT", tl.steps - start,
                            record=rec, races=found)

    def _done(self, i: int) -> int:
        """Instructions engine i has executed (its run-ahead credit aside)."""
        return self._states[i].steps - self._credit[i]

    def _resumed(self, start_waits: bool = False) -> bool:
        """Whether the core is still where its last stop (or explicit step) left it;
        `start_waits`: and that stop reported the engines blocked from the start."""
        r = self._resume
        return r is not None and r.step == self.steps and (r.start_waits or not start_waits)

    def _stepped_over(self) -> tuple[int, int]:
        """(engine, its executed count) whose static breakpoints the next run steps over
        before that engine issues again: the engine of the stop being continued from;
        _FIRST: the first engine picked (no stop here, gdb's `continue`); -1: none."""
        r = self._resume
        if not self._resumed() or r is None:
            return _FIRST, 0
        if r.engine is None:
            return -1, 0
        return r.engine, self._done(r.engine)

    def _start_waits(self) -> Stop | None:
        """At step 0 every engine blocked at its first instruction has just become
        blocked: a `wait` breakpoint about it stops before the first step (and
        reverse-continue stops there last, after judging step 0)."""
        hits = self._wait_hits(self._blocked_set())
        if not hits:
            return None
        for bp, _, _ in hits:
            bp.hits += 1
        j = hits[0][1]
        detail = "; ".join(f"{bp.describe()}: {why}" for bp, _, why in hits)
        self._resume = Resume(0, None, True)
        return Stop(StopReason.WAIT, self._states[j].pc, detail, 0, engine=self._engine(j),
                    breakpoint=hits[0][0], breakpoints=[bp for bp, _, _ in hits])

    def _wait_hits(self, newly: list[int]) -> list[tuple[Breakpoint, int, str]]:
        """The enabled `wait` breakpoints the newly blocked engines meet: (breakpoint, the
        engine it is about, why), one per breakpoint (the first engine it matches)."""
        out = []
        for bp in self.breakpoints:
            if not bp.enabled or bp.kind != Kind.WAIT:
                continue
            for j in newly:
                if bp.engine in (None, self.names[j]) and self._cond(bp, j):
                    w = self._blocked(j)
                    assert w is not None
                    out.append((bp, j, self._wait(j, w).describe()))
                    break
        return out

    def _batch(self, run: list[int], room: int) -> int:
        """Schedule fast steps (running engines ahead as needed); steps scheduled."""
        credit = self._credit
        # a lone runnable actor's steps interleave with nothing: it runs ahead the room;
        # never further than the batch can schedule (the rest would be undone)
        ahead = min(RUN_AHEAD, room) if len(run) > 1 else room
        for i in run:
            if not credit[i]:
                credit[i] = self.actors[i].run_ahead(ahead)
        tl = self._timeline
        seq = self._policy.batch(run, credit, tl.last, tl.steps, room)
        if seq:
            tl.schedule.extend(seq)
            for i in run:
                credit[i] -= seq.count(i)
        return len(seq)

    def _settle(self) -> None:
        """Undo run-ahead that the schedule has not reached (the state is then exact)."""
        for i, n in enumerate(self._credit):
            if n:
                a = self.actors[i]
                for _ in range(n):
                    a.undo()
                self._credit[i] = 0

    def _keep(self) -> None:
        tl = self._timeline
        if tl.due(self._states):
            self._settle()
            tl.take(self.actors)
        tl.fold(self._states)

    def _blocked_set(self) -> list[int]:
        return [i for i, a in enumerate(self.actors)
                if a.rest() is None and self._blocked(i) is not None]

    # -- stops ----------------------------------------------------------------------------
    def _at(self, i: int) -> str:
        """Actor i's next step in words: "dve CAST at 0x40"; a lone program's names no
        engine ("CAST at 0x40")."""
        if self.lone:
            return self.machines[self.names[i]].where(self._states[i].pc)
        return self.actors[i].where()

    def _by(self, i: int, rec: StepRecord) -> str:
        """The step actor i just took, in words ("dve CAST at 0x40"; lone: "CAST at 0x40")."""
        if self.lone:
            return self.machines[self.names[i]].where(rec.pc)
        return f"{self.names[i]} {rec.mnemonic} at {rec.pc:#x}"

    def _engine(self, i: int) -> str | None:
        """The engine a stop about actor i names (None: a lone program names none)."""
        return None if self.lone else self.names[i]

    def _plain_stop(self, reason: StopReason, detail: str, done: int, found: list[Race]) -> Stop:
        last = self._timeline.last
        i = last if last >= 0 else 0
        return Stop(reason, self._states[i].pc, detail, done, engine=self._engine(i),
                    races=found)

    def _end(self, done: int, found: list[Race], feed: bool) -> Stop:
        """Nothing can run: every engine halted, or a deadlock. A lone program (never
        waiting) is halted: it tries the step, as one machine does (`on_step` sees it)."""
        if self.lone:
            cs = self._slow_step(0, feed)
            assert cs.record is not None
            return self._refused(0, cs.record, done, found)
        waits = self._waits()
        if not waits:
            return self._plain_stop(StopReason.HALT, "every engine halted", done, found)
        first = waits[0]
        at = self._index(first.engine)
        bps = [b for b in self.breakpoints
               if b.enabled and b.kind == Kind.DEADLOCK and self._cond(b, at)]
        for b in bps:
            b.hits += 1
        detail = "deadlock: " + "; ".join(w.describe() for w in waits)
        return Stop(StopReason.DEADLOCK, first.pc, detail, done, engine=first.engine,
                    waiting=waits, races=found, breakpoints=bps)

    def _static_stop(self, i: int, hits: list[Breakpoint], done: int,
                     found: list[Race]) -> Stop:
        for bp in hits:
            bp.hits += 1
        # at step 0 after the start's `wait` stop, that stop stays reported: continuing
        # from here must not report the engines blocked from the start again
        self._resume = Resume(self.steps, i, self._resumed(start_waits=True))
        where = f"before {self._at(i)}"
        detail = "; ".join(f"{bp.describe()}: {where}" for bp in hits)
        return Stop(StopReason.BREAKPOINT, self._states[i].pc, detail, done,
                    engine=self._engine(i), races=found, breakpoints=hits)

    def _dynamic_stop(self, i: int, cs: CoreStep, hits: list[tuple[Breakpoint, str]],
                      done: int, found: list[Race]) -> Stop:
        rec = cs.record
        assert rec is not None
        by = self._by(i, rec)
        # The engine the schedule runs next may be at a static breakpoint too: reported
        # (and counted) here, as a program's one queue always reported it, and stepped
        # over by the next run; any other engine's are still checked when it issues.
        nxt = self._next_pick()
        static = [] if nxt is None else [b for b in self._static_hits(nxt)
                                         if b not in (h[0] for h in hits)]
        for bp, _ in hits:
            bp.hits += 1
        for bp in static:
            bp.hits += 1
        self._resume = Resume(self.steps, nxt if static else None)
        kind = hits[0][0].kind
        reason = _REASON_OF.get(kind, StopReason.BREAKPOINT)
        parts = [] if nxt is None else [f"{bp.describe()}: before {self._at(nxt)}"
                                        for bp in static]
        parts += [f"{bp.describe()}: {by}: {why}" for bp, why in hits]
        return Stop(reason, self._states[i].pc, "; ".join(parts), done,
                    engine=self._engine(i), races=found,
                    breakpoints=[bp for bp, _ in hits] + static, record=rec)

    def _next_pick(self) -> int | None:
        """The engine the schedule takes the next global step with (None: none can run,
        or it is running ahead through fast steps, where no static breakpoint is)."""
        run = self._runnable()
        if not run:
            return None
        tl = self._timeline
        forced = tl.forced.get(tl.steps)
        i = forced if forced is not None else self._policy.choose(run, tl.last, tl.steps)
        return None if self._credit[i] else i

    def _refused(self, i: int, rec: StepRecord, done: int, found: list[Race]) -> Stop:
        e, about = self.names[i], self._engine(i)
        who = "" if about is None else f"{e}: "  # a lone program's words name no engine
        if rec.fault:
            bps = [b for b in self.breakpoints
                   if b.enabled and b.kind == Kind.FAULT and b.engine in (None, e)]
            for b in bps:
                b.hits += 1
            return Stop(StopReason.FAULT, rec.pc, f"{who}{rec.fault}", done, engine=about,
                        races=found, breakpoints=bps, record=rec)
        if rec.invalid:
            v = rec.verdict
            failed = ", ".join(v.failed) if v is not None else "legality"
            name = v.predicate if v is not None else "legality"
            return Stop(StopReason.INVALID, rec.pc,
                        f"{who}{rec.mnemonic} at {rec.pc:#x} fails {name}: {failed}",
                        done, engine=about, races=found, record=rec)
        halted = "the machine is halted" if about is None else f"{e} is halted"
        return Stop(StopReason.HALT, rec.pc, halted, done, engine=about, races=found,
                    record=rec)

    # -- edits ------------------------------------------------------------------------------
    def edit(self, target: str, value: str) -> str:
        """`set TARGET = VALUE` on the kernel: `dve.R3 = 5` (an engine's own register, PC,
        acc, idx or shape; without `ENGINE.` the focused engine's), `sem[2] = 1`,
        `sb[0, 0x100]:fp32 = 1.5` (shared). Stored now, journaled at this global step:
        reverse undoes it, a replay from a checkpoint makes it again at the same step.
        Returns what was stored; ValueError (one line) as machine.edits decides it."""
        engine, m, own = self._queue_of(ex.parse_target(target))
        bits, shown = m.edit_value(own, target, value)
        self._settle()
        e = CoreEdit(self.steps, engine, own, bits, ed.read_bits(own, m.state))
        self._journal(e)
        return f"{ed.target_text(own) if self.lone else e.text} = {shown}"

    def _queue_of(self, t: ex.Target) -> tuple[str, Machine, ex.Target]:
        """The engine a target names (without `ENGINE.`: the focused one), its queue's
        machine and the target in that queue's own words; ValueError (one line) for an
        engine without a queue here."""
        engine = t.engine or self.focus
        if engine not in self.machines:  # a lone program's words: it has one engine
            where = "engine here" if self.lone else "queue in this kernel"
            raise ValueError(f"{t.name}: no {engine} {where} (engines: "
                             f"{', '.join(self.engines)})")
        return engine, self.machines[engine], replace(t, engine="")

    def edit_record(self, index: int, raw: bytes, engine: str | None = None) -> str:
        """Replace record `index` of `engine`'s queue (default: the focused engine's)
        with the 64 bytes `raw` and judge it afresh (Machine.edit_record's checks and
        reply), journaled at this global step like `edit`: reverse undoes it, a replay
        from a checkpoint makes it again at the same step. ValueError (one line) for an
        engine without a queue, a record the queue lacks or bytes that are not one."""
        engine = engine or self.focus
        if engine not in self.machines:
            raise ValueError(f"record {index}: no {engine} queue in this kernel (engines: "
                             f"{', '.join(self.engines)})")
        m = self.machines[engine]
        index, new = m.check_record(index, raw)
        self._settle()
        old = m.program.record(index)
        self._journal(CoreEdit(self.steps, engine, index, int.from_bytes(new, "big"),
                               int.from_bytes(old, "big")))
        return m.record_change(index, old)

    def apply_edit(self, e: ed.Edit) -> str:
        """Make a saved edit again now, its bits exactly (a session's `[[edits]]`, as
        `saved_edits` words them: `dve.R3`, `sem[2]`, `act.record[3]`; a lone program's
        `R3`, `record[3]`), journaled at this global step as `edit` and `edit_record`
        journal theirs. Returns what was stored; ValueError (one line) when the target
        is not this kernel's or the bits do not fit it."""
        engine, _, rest = e.target.strip().rpartition(".")
        index = record_index(rest)
        if index is not None:
            count = self.machines[self.engines[0]].count
            if self.lone and index >= count:  # a program's words, as its session saved it
                raise ValueError(f"edit of {e.target}: the program has records "
                                 f"0..{count - 1}")
            return self.edit_record(index, bits_record(e.value), engine or None)
        engine, m, own = self._queue_of(ex.parse_target(e.target))
        bits = m.saved_bits(own, e)
        self._settle()
        made = CoreEdit(self.steps, engine, own, bits, ed.read_bits(own, m.state))
        self._journal(made)
        return f"{ed.target_text(own) if self.lone else made.text} = {bits:#x}"

    def saved_edits(self) -> list[ed.Edit]:
        """The edits leading to the state now as a session keeps them (machine.edits.Edit:
        the global step, the target as `apply_edit` reads it, the bits stored in hex; a
        record's as its 64 bytes): a lone program's in its own words (`R3`, `record[3]`)."""
        out = []
        for e in self.edits[:self._applied]:
            if isinstance(e.target, int):
                target = record_target(e.target) if self.lone else e.text
                value = record_bits(e.bits.to_bytes(RECORD_BYTES, "big"))
            else:
                target = ed.target_text(e.target) if self.lone else e.text
                value = hex(e.bits)
            out.append(ed.Edit(e.step, target, value))
        return out

    def _journal(self, e: CoreEdit) -> None:
        """Make edit `e` now and keep it (in step order: it is the newest event). A lone
        program's queue keeps the state it loaded with (its session's images) from
        before its first edit, as from before its first step."""
        if self.lone:
            m = self.machines[self.engines[0]]
            m.history.base(m.state, 0)
        self._write(e, e.bits)
        self.edits.append(e)
        self._applied = len(self.edits)
        self.last = None
        self._resync()

    def _write(self, e: CoreEdit, bits: int) -> None:
        """Store `bits` where edit `e` writes (its new bits, or its old ones to undo it)."""
        if isinstance(e.target, int):
            q = self.actors[self._index(e.engine)]
            assert isinstance(q, EngineQueue)  # record edits are made on engine queues only
            q.write_record(e.target, bits.to_bytes(RECORD_BYTES, "big"))
        else:
            ed.write_bits(e.target, self.state(e.engine), bits)

    def _catch_up(self) -> None:
        """A replay reached the step of edits made there: make them again."""
        self._settle()
        edits, now = self.edits, self.steps
        while self._applied < len(edits) and edits[self._applied].step <= now:
            self._write(edits[self._applied], edits[self._applied].bits)
            self._applied += 1

    def _unapply(self, at: int, most: int | None = None) -> None:
        """Undo the applied edits made at global step `at` or later, newest first (at most
        `most`); they stay listed until the reverse command that undid them ends."""
        edits = self.edits
        n = 0
        while self._applied and edits[self._applied - 1].step >= at and (
                most is None or n < most):
            e = edits[self._applied - 1]
            self._write(e, e.old)
            self._applied -= 1
            n += 1

    def _restart(self, cp: CoreCheckpoint) -> None:
        """Restore checkpoint `cp`: it holds every edit made before its step (those made
        at its step came after it was taken). A checkpoint holds the state, not the
        queues' records: the record edits it does not hold are put back, newest first."""
        self._timeline.restart(cp, self.actors)
        keep = sum(1 for e in self.edits if e.step < cp.step)
        for k in range(self._applied - 1, keep - 1, -1):
            e = self.edits[k]
            if isinstance(e.target, int):
                self._write(e, e.old)
        self._applied = keep

    # -- reverse and replay -------------------------------------------------------------
    def reverse_step(self) -> bool:
        """Undo the last global step exactly; False at the start (or without history)."""
        tl = self._timeline
        if not tl.enabled:
            return False
        if self._applied and self.edits[self._applied - 1].step == tl.steps:
            self._unapply(tl.steps, 1)  # the newest event is an edit: undo it alone
            del self.edits[self._applied:]
            self.last = None
            self._resync()
            return True
        if tl.steps == 0:
            return False
        if tl.schedule:
            self._unapply(tl.steps)
            self.actors[tl.schedule.pop()].undo()
            del self.edits[self._applied:]
            tl.forget_after(tl.steps)
            self._moved(tl.steps)
            return True
        return self.reverse(1).steps == 1

    def reverse(self, n: int) -> Stop:
        """Undo the last `n` global steps: pops within the kept window, else a checkpoint
        restored and replayed. Interruptible; "start" when it reached step 0."""
        return self._consumed(self._reverse(n))

    def _reverse(self, n: int) -> Stop:
        tl = self._timeline
        if not tl.enabled:
            return self._plain_stop(StopReason.START, NO_HISTORY, 0, [])
        if self.interrupt.is_set():  # set before the run: it stops at once (the contract)
            return self._plain_stop(StopReason.INTERRUPT, "interrupted", 0, [])
        first = tl.steps
        target = max(0, first - max(0, n))
        stop = self._goto(target)
        tl.forget_after(tl.steps)
        del self.edits[self._applied:]
        self._moved(tl.steps)
        done = first - tl.steps
        if stop is not None:
            stop.steps = done
            return stop
        if tl.steps == 0:
            return self._plain_stop(StopReason.START, "start of history", done, [])
        return self._plain_stop(StopReason.MAX_STEPS, f"{done} steps back", done, [])

    def _goto(self, target: int) -> Stop | None:
        """Move back to global step `target`; a Stop only if interrupted."""
        tl = self._timeline
        pops = tl.steps - target
        cp = tl.at_or_before(target)
        if target < tl.origin or target - cp.step < pops // 2:
            self._restart(cp)
            stop = self._advance(target - cp.step, stops=False, feed=False)
            self._settle()
            return stop if stop.reason == StopReason.INTERRUPT else None
        done = 0
        actors, sched = self.actors, tl.schedule
        while tl.steps > target:
            self._unapply(tl.steps)
            actors[sched.pop()].undo()
            done += 1
            if done % FAST_CHUNK == 0 and self.interrupt.is_set():
                return self._plain_stop(StopReason.INTERRUPT, "interrupted", done, [])
        return None

    def run_to(self, pc: int, engine: str | None = None) -> Stop:
        """Continue until `engine` (any engine: None) is about to execute the
        instruction at `pc` (a temporary `pc:` breakpoint), or another stop."""
        spec = f"pc:{pc:#x}" + (f"@{engine}" if engine else "")
        bp = self.add_breakpoint(spec)
        try:
            stop = self.cont()
        finally:
            self.delete_breakpoint(bp.id)
            self._next_bp -= 1  # a temporary: its id is not used up
        if stop.breakpoint is bp:
            stop.breakpoints.remove(bp)
            stop.breakpoint = stop.breakpoints[0] if stop.breakpoints else None
            stop.detail = f"reached {self._at(self._index(stop.engine or self.focus))}"
        return stop

    def reverse_continue(self, max_steps: int | None = None) -> Stop:
        """Undo global steps, newest first, until one meets a breakpoint as forward
        execution would have (module docstring), else to the start (or `max_steps`
        back). Past the kept window the window before it is rebuilt from a checkpoint.
        Interruptible."""
        return self._consumed(self._reverse_continue(max_steps))

    def _reverse_continue(self, max_steps: int | None) -> Stop:
        tl = self._timeline
        if not tl.enabled:
            return self._plain_stop(StopReason.START, NO_HISTORY, 0, [])
        first = tl.steps
        floor = 0 if max_steps is None else max(0, first - max_steps)
        bps = [b for b in self.breakpoints if b.enabled and b.kind in REVERSE_KINDS]
        raced: dict[int, list[Race]] = {}
        if any(b.kind == Kind.RACE for b in bps):
            for r in self.races:
                raced.setdefault(r.b.step, []).append(r)
        try:
            while tl.steps > floor:
                if self.interrupt.is_set():
                    return self._plain_stop(StopReason.INTERRUPT, "interrupted",
                                            first - tl.steps, [])
                if not tl.schedule and not self._rebuild_window():
                    return self._plain_stop(StopReason.INTERRUPT, "interrupted",
                                            first - tl.steps, [])
                stop = self._undo_judged(bps, raced, first)
                if stop is not None:
                    return stop
            done = first - tl.steps
            if tl.steps == 0 and not self._resumed(start_waits=True) and any(
                    b.kind == Kind.WAIT for b in bps):
                stop = self._start_waits()
                if stop is not None:
                    stop.steps = done
                    stop.detail += " (reverse)"
                    return stop
            if tl.steps:
                return self._plain_stop(StopReason.MAX_STEPS, f"{done} steps back", done, [])
            return self._plain_stop(StopReason.START, "start of history", done, [])
        finally:
            tl.forget_after(tl.steps)
            del self.edits[self._applied:]
            self._moved(tl.steps)

    def _undo_judged(self, bps: list[Breakpoint], raced: dict[int, list[Race]],
                     first: int) -> Stop | None:
        """Undo the newest global step and judge it as forward execution did: a stop
        when that step met an after-step breakpoint (race, wait, watch, change, if) or
        its engine is now at a static one; at step 0 also when an engine blocked from the
        start meets a `wait`. Each condition reads the state it reads going forward (the
        after-step kinds: the state after the step). The stop is before the step, as a
        reverse watch stops before the write (gdb)."""
        tl = self._timeline
        self._unapply(tl.steps)  # edits made after the step: forward judged it before them
        i = tl.schedule[-1]
        sc = self.scene
        waits = any(b.kind == Kind.WAIT for b in bps)
        pending = sc.before_undo(bps, i, raced.get(tl.steps - 1, ()),
                                 self._blocked_set() if waits else ())
        tl.schedule.pop()
        self.actors[i].undo()
        before = self._blocked_set() if waits else []
        name = getattr(self.actors[i], "mnemonic", None)
        hits = sc.after_undo(pending, i, before, name)
        known = {id(bp) for bp, _ in hits}
        static = [b for b in self._static_hits(i) if id(b) not in known]
        if not (hits or static):
            return None
        found = [bp for bp, _ in hits] + static
        if passes(found):
            return None
        for bp in found:
            bp.hits += 1
        self._resume = Resume(tl.steps, i)
        kind = hits[0][0].kind if hits else Kind.OP
        reason = _REASON_OF.get(kind, StopReason.BREAKPOINT)
        by = self._at(i)
        parts = [f"{bp.describe()}: before {by}" for bp in static]
        parts += [f"{bp.describe()}: {by}: {why}" for bp, why in hits]
        return Stop(reason, self._states[i].pc, "; ".join(parts) + " (reverse)",
                    first - tl.steps, engine=self._engine(i), breakpoints=found)

    def _rebuild_window(self) -> bool:
        """The kept window is used up: restore the checkpoint before it and replay up to
        here, so the steps before the current one can be popped again. False when
        interrupted (the core is then at a consistent earlier step)."""
        tl = self._timeline
        cur = tl.steps
        cp = tl.at_or_before(cur - 1)
        self._restart(cp)
        stop = self._advance(cur - cp.step, stops=False, feed=False)
        self._settle()
        return stop.reason != StopReason.INTERRUPT

    def replay(self, steps: int) -> Stop | None:
        """Run forward to global step `steps` ignoring breakpoints, with the policy and
        the recorded forced choices (sessions load a saved position). None when there,
        else the stop that ended it early (halt, deadlock, fault, interrupt)."""
        try:
            stop = self._advance(max(0, steps - self.steps), stops=False, feed=True)
        finally:
            self._settle()
        self._resync()
        return None if stop.reason == StopReason.MAX_STEPS else self._consumed(stop)

    def _moved(self, step: int) -> None:
        """After reversing to `step`: faults, race findings and watches start from here."""
        self._fault = None
        self.last = None
        if self.detector is not None:
            at = self.detector.rewind(step)
            if at < step:  # it went back to a snapshot: feed it the steps from there again
                # (not interruptible: the detector and the core must meet at `step`; the
                # work is bounded by the detector's undo log)
                pending = self.interrupt.is_set()
                self.interrupt.clear()
                self._goto(at)
                self._advance(step - self.steps, stops=False, feed=True)
                self._settle()
                if pending:
                    self.interrupt.set()
        self._resync()


def _mapping(m: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return m or {}


def race_text(r: Race, at: Callable[[str, int], str] | None = None) -> str:
    """One line for a race: both accesses, the overlapping bytes and the missing edge.

    `at(engine, pc)` words where an instruction is (the CLI adds file:line:column);
    every report of a race (a stop's detail, `run KERNEL`'s text) goes through here."""
    where = at or (lambda engine, pc: f"pc {pc:#x}")

    def access(x: Access) -> str:
        verb = "writes" if x.kind == "write" else "reads"
        return f"{x.engine} {x.opcode} at {where(x.engine, x.pc)} {verb}"

    (p0, p1), (b0, b1) = r.partitions, r.bytes
    return (f"{access(r.a)} and {access(r.b)} {r.space} partitions [{p0}, {p1}) bytes "
            f"[{b0:#x}, {b1:#x}) with nothing ordering them: {r.missing}")
