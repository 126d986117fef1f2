"""The core's history: the schedule taken, checkpoints of the whole core, the budget.

Each actor (machine/core/actor.py) journals its own steps (machine/journal.py); the
core journals which actor took each global step (`schedule`, one byte a step), so undoing the last
global step is "pop the engine, undo that engine's newest step" and undoing in exact
global order restores shared memory exactly. Steps the user forced on an engine
(`Core.step("dve")`) where the policy would have picked another are kept in `forced`
for the whole history; every other choice is the policy's, recomputed on replay.

Memory stays bounded as machine/history.py does it for one machine: past `budget`
bytes (engine journals + schedule + checkpoints) the oldest history is folded into
checkpoints of the whole core (every engine's registers, shared SBUF/PSUM as non-zero
tiles, semaphores), and reaching a step before the kept window restores the newest
checkpoint at or before it and replays forward with the journaled choices. Budget 0
(a headless run) keeps no history: the journals are emptied as the run goes.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from neurondbg.machine.core.actor import Actor, Snap
from neurondbg.machine.history import (
    CheckpointTotal,
    Tiles,
    capture_memory,
    kept_reached,
    newest_reached,
    restore_memory,
    tiles_nbytes,
)
from neurondbg.machine.state import MachineState

KEEP_NONE_STEPS = 4096  # without history, the schedule is emptied this often...
KEEP_NONE_BYTES = 4 << 20  # ... or once the journals hold this much (a CAST keeps 1 MiB)


@dataclass
class CoreCheckpoint:
    step: int  # global step count
    last: int  # engine of the step before (-1 at step 0)
    mark: int  # Timeline.written() when taken
    actors: list[Snap]  # each actor's own state, in the core's actor order
    sem: list[int]
    mem: Tiles

    @cached_property
    def nbytes(self) -> int:
        return (sum(a.nbytes for a in self.actors) + 8 * len(self.sem)
                + tiles_nbytes(self.mem))


def capture(actors: Sequence[Actor], step: int, last: int, mark: int) -> CoreCheckpoint:
    shared = actors[0].state
    return CoreCheckpoint(step, last, mark, [a.snap() for a in actors], list(shared.sem),
                          capture_memory(shared))


def restore(cp: CoreCheckpoint, actors: Sequence[Actor]) -> None:
    shared = actors[0].state
    shared.release_views()  # one shared list
    for snap, a in zip(cp.actors, actors, strict=True):
        snap.put(a.state)
    shared.sem[:] = cp.sem
    restore_memory(cp.mem, shared)


class Timeline(CheckpointTotal[CoreCheckpoint]):
    """Schedule, forced choices, checkpoints and the budget of one core."""

    def __init__(self, budget: int, engines: int) -> None:
        if budget < 0:
            raise ValueError(f"journal budget must be >= 0 bytes, found {budget}")
        super().__init__()
        self.budget = budget
        self.engines = engines
        self.schedule = bytearray()  # engine index of each kept global step
        self.origin = 0  # global step of schedule[0]
        self.origin_last = -1  # engine of step origin - 1 (-1: none)
        self.forced: dict[int, int] = {}  # global step -> engine, where not the policy's
        self.forced_steps: list[int] = []  # its keys, sorted
        self.dropped = 0  # journal bytes folded away

    @property
    def enabled(self) -> bool:
        return self.budget > 0


    @property
    def steps(self) -> int:
        return self.origin + len(self.schedule)

    @property
    def last(self) -> int:
        return self.schedule[-1] if self.schedule else self.origin_last

    def force(self, step: int, engine: int) -> None:
        self.forced[step] = engine
        insort(self.forced_steps, step)

    def next_forced(self, step: int) -> int | None:
        """The first forced step >= `step`, or None."""
        k = bisect_left(self.forced_steps, step)
        return self.forced_steps[k] if k < len(self.forced_steps) else None

    def counts(self, n: int) -> list[int]:
        """Steps each engine took among the oldest `n` kept steps."""
        head = np.frombuffer(bytes(self.schedule[:n]), np.uint8)
        counts: list[int] = np.bincount(head, minlength=self.engines).tolist()
        return counts

    # -- the budget -----------------------------------------------------------------------
    def written(self, states: list[MachineState]) -> int:
        return sum(s.journal.nbytes for s in states) + len(self.schedule) + self.dropped

    def nbytes(self, states: list[MachineState]) -> int:
        return (sum(s.journal.nbytes for s in states) + len(self.schedule)
                + self.checkpoint_bytes())

    def interval(self) -> int:
        last = self.checkpoints[-1].nbytes if self.checkpoints else 0
        return max(self.budget // 16, last, 1)

    def due(self, states: list[MachineState]) -> bool:
        """Whether a checkpoint should be taken now (the caller settles run-ahead first)."""
        if not self.enabled or not self.checkpoints:
            return False
        cp = self.checkpoints[-1]
        return self.steps > cp.step and self.written(states) - cp.mark >= self.interval()

    def take(self, actors: Sequence[Actor]) -> None:
        self._add(capture(actors, self.steps, self.last,
                          self.written([a.state for a in actors])))

    def fold(self, states: list[MachineState]) -> None:
        """Hold memory to the budget (call between steps)."""
        if not self.enabled:
            if len(self.schedule) >= KEEP_NONE_STEPS or \
                    sum(s.journal.other_bytes for s in states) > KEEP_NONE_BYTES:
                self._drop(len(self.schedule), states)
            return
        if self.nbytes(states) <= self.budget:
            return
        for c in list(self.checkpoints):
            if self.nbytes(states) <= self.budget:
                break
            if self.origin < c.step < self.steps:
                self._drop(c.step - self.origin, states)
        self._thin()

    def _drop(self, n: int, states: list[MachineState]) -> None:
        """Forget the oldest `n` kept steps of the schedule and of each engine's journal."""
        if n <= 0:
            return
        for st, k in zip(states, self.counts(n), strict=True):
            before = st.journal.nbytes
            st.journal.drop_oldest(k)
            self.dropped += before - st.journal.nbytes
        self.origin_last = self.schedule[n - 1]
        del self.schedule[:n]
        self.dropped += n
        self.origin += n

    def _thin(self) -> None:
        """Remove interior checkpoints before the window while they take > budget / 2."""
        cps = self._checkpoints
        while self.checkpoint_bytes() > self.budget // 2:
            inner = [k for k in range(1, len(cps) - 1) if cps[k].step < self.origin]
            if not inner:
                return
            self._remove(min(inner, key=lambda i: cps[i + 1].step - cps[i - 1].step))

    # -- moving back ----------------------------------------------------------------------
    def at_or_before(self, step: int) -> CoreCheckpoint:
        return newest_reached(self.checkpoints, lambda c: c.step <= step)

    def forget_after(self, step: int) -> None:
        """Drop checkpoints and forced choices of a future that reversing discarded."""
        self.checkpoints = kept_reached(self.checkpoints, lambda c: c.step <= step)
        k = bisect_left(self.forced_steps, step)
        for s in self.forced_steps[k:]:
            del self.forced[s]
        del self.forced_steps[k:]

    def restart(self, cp: CoreCheckpoint, actors: Sequence[Actor]) -> None:
        """Restore `cp`: the schedule window starts empty at its step."""
        restore(cp, actors)
        self.schedule.clear()
        self.origin, self.origin_last = cp.step, cp.last
        self.dropped = cp.mark
