"""Bounded history: full-state checkpoints and the budget that folds the journal.

The journal (machine/journal.py) undoes steps one at a time. Past the budget its
oldest steps are dropped, and checkpoints (compact copies of the whole MachineState)
stand in for them. The core's timeline (machine/core/timeline.py) keeps a core's
history this way, with the memory capture and the checkpoint byte total here
(`capture_memory`, `restore_memory`, `CheckpointTotal`); `History` is the same policy
over one state's journal, for a Machine run alone (machine/debugger.py) and a NEFF run's
DMA queues (machine/neff/runner.py), which nothing reverses past their journal.

A position is (step, edits): the step count and how many edits the state includes.
Checkpoint 0 (the state before the first step and the first edit) is always kept, so
initial memory can be read back (session save). Policy: a checkpoint is taken once the
journal has grown by `interval` bytes since the last one, unless taking it would cost
more than ~1/10 of the run time (scanning a large SBUF takes ms; a CAST loop journals
1 MiB a step) while the budget still holds; when journal + checkpoints exceed the
budget, the window is folded to the oldest checkpoint inside it; when checkpoints alone
take more than half the budget, interior ones are thinned (the pair closest together
goes first), so they stay few and spaced out. The window only folds to a checkpoint
older than the current step (the last step must stay undoable), so between two
checkpoints history can run past the budget by up to one `interval` (1/16 of the
budget). Budget 0 keeps the last few steps only (a Machine run alone with budget 0 is
headless and keeps none: machine/debugger.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Generic, Protocol, TypeVar

import numpy as np

from neurondbg.machine.state import MachineState

JOURNAL_BUDGET = 256 << 20  # bytes of journal + checkpoints (DESIGN.md "Machine")
TILE = 1024  # memory is kept per (partition, 1 KiB tile); all-zero tiles are not stored
KEEP_LAST = 4096  # without history: at most this many steps kept (the last one is needed)...
KEEP_LAST_BYTES = 4 << 20  # ... and at most this many bytes (a CAST step keeps 1 MiB)
CAPTURE_SHARE = 10  # run time between captures >= this x the time a capture takes

Position = tuple[int, int]  # (step count, edits applied)
Tiles = dict[str, tuple[np.ndarray, np.ndarray]]  # space -> (tile mask, kept tiles)


@dataclass
class Checkpoint:
    """The whole architectural state at one position, memory kept as non-zero tiles."""

    step: int
    edits: int
    mark: int  # History.written() when taken: the journal growth since is measured from it
    R: list[int]
    pc: int
    shape: list[int]
    sem: list[int]
    acc: np.ndarray
    idx: np.ndarray
    fp8_exp4: str
    fp8_sat: bool
    halted: bool
    mem: Tiles

    @property
    def position(self) -> Position:
        return self.step, self.edits

    @cached_property
    def nbytes(self) -> int:
        small = 8 * (len(self.R) + len(self.shape) + len(self.sem)) + 256
        return small + self.acc.nbytes + self.idx.nbytes + tiles_nbytes(self.mem)

    def memory(self, space: str, shape: tuple[int, int]) -> np.ndarray:
        """SBUF or PSUM as it was at this checkpoint (a new array)."""
        out = np.zeros(shape, np.uint8)
        mask, tiles = self.mem[space]
        _tiled(out)[mask] = tiles
        return out


def _tiled(mem: np.ndarray) -> np.ndarray:
    """(partitions, tiles, tile bytes) view of a C-contiguous (partitions, bytes) array."""
    p, b = mem.shape
    t = TILE if b % TILE == 0 else b
    return mem.reshape(p, b // t, t)


def capture_memory(state: MachineState) -> Tiles:
    """SBUF and PSUM as non-zero tiles (what a checkpoint keeps of memory)."""
    mem: Tiles = {}
    for space in ("sbuf", "psum"):
        tiled = _tiled(state.memory(space))
        words = tiled.view(np.uint64) if tiled.shape[2] % 8 == 0 else tiled
        mask = words.any(axis=2)
        assert isinstance(mask, np.ndarray)  # (numpy's stubs allow a scalar for any axis)
        mem[space] = (mask, tiled[mask])  # boolean indexing copies
    return mem


def restore_memory(mem: Tiles, state: MachineState) -> None:
    """Put memory kept by `capture_memory` back into `state` in place."""
    for space, (mask, tiles) in mem.items():
        m = state.memory(space)
        m[...] = 0
        _tiled(m)[mask] = tiles


def tiles_nbytes(mem: Tiles) -> int:
    return sum(m.nbytes + t.nbytes for m, t in mem.values())


def capture(state: MachineState, step: int, edits: int, mark: int) -> Checkpoint:
    return Checkpoint(step, edits, mark, list(state.R), state.pc, list(state.shape),
                      list(state.sem), state.acc.copy(), state.idx.copy(), state.fp8_exp4,
                      state.fp8_sat, state.halted, capture_memory(state))


C = TypeVar("C")


class HoldsBytes(Protocol):
    """What CheckpointTotal needs of a checkpoint: the bytes it holds."""

    @property
    def nbytes(self) -> int: ...


CP = TypeVar("CP", bound=HoldsBytes)


def newest_reached(checkpoints: Sequence[C], reached: Callable[[C], bool]) -> C:
    """The newest checkpoint `reached` accepts (checkpoint 0 always qualifies)."""
    best = checkpoints[0]
    for c in checkpoints:
        if reached(c):
            best = c
    return best


def kept_reached(checkpoints: list[C], reached: Callable[[C], bool]) -> list[C]:
    """The checkpoints `reached` accepts, checkpoint 0 at least: reversing discarded the
    future of the others."""
    return [c for c in checkpoints if reached(c)] or checkpoints[:1]


class CheckpointTotal(Generic[CP]):
    """The checkpoint list of a History or a core's Timeline, with the bytes it holds kept
    as checkpoints come and go (the budget is checked every step): the total covers the
    first `_counted`; a list assigned or changed from outside (its length differs) is
    summed again at the next `checkpoint_bytes()`."""

    def __init__(self) -> None:
        self._checkpoints: list[CP] = []
        self._cp_bytes = 0
        self._counted = 0

    @property
    def checkpoints(self) -> list[CP]:
        """Oldest first; checkpoint 0 (when taken) is the state before any change."""
        return self._checkpoints

    @checkpoints.setter
    def checkpoints(self, cps: list[CP]) -> None:
        self._checkpoints = cps
        self._counted = -1  # summed at the next checkpoint_bytes()

    def checkpoint_bytes(self) -> int:
        """Bytes the checkpoints hold (a running total: cheap on every step)."""
        if self._counted != len(self._checkpoints):
            self._cp_bytes = sum(c.nbytes for c in self._checkpoints)
            self._counted = len(self._checkpoints)
        return self._cp_bytes

    def _add(self, cp: CP) -> None:
        self.checkpoint_bytes()  # the total is up to date before it grows
        self._checkpoints.append(cp)
        self._cp_bytes += cp.nbytes
        self._counted += 1

    def _remove(self, k: int) -> None:
        """Drop checkpoint k (thinning)."""
        self.checkpoint_bytes()
        self._cp_bytes -= self._checkpoints[k].nbytes
        self._counted -= 1
        del self._checkpoints[k]


class History(CheckpointTotal[Checkpoint]):
    """The checkpoints of one state and the budget policy over them and its journal."""

    def __init__(self, budget: int = JOURNAL_BUDGET) -> None:
        if budget < 0:
            raise ValueError(f"journal budget must be >= 0 bytes, found {budget}")
        super().__init__()
        self.budget = budget
        self.origin_edits = 0  # edits included at the window start (journal.origin)
        self.dropped = 0  # journal bytes folded away (so `written` only grows going forward)
        self._capture_cost = 0.0  # seconds the last capture took
        self._captured_at = 0.0  # perf_counter() when it ended

    @property
    def enabled(self) -> bool:
        """Whether it keeps history (budget 0 keeps the last few steps only)."""
        return self.budget > 0

    @property
    def interval(self) -> int:
        last = self.checkpoints[-1].nbytes if self.checkpoints else 0
        return max(self.budget // 16, last, 1)

    def written(self, state: MachineState) -> int:
        return state.journal.nbytes + self.dropped

    def nbytes(self, state: MachineState) -> int:
        """Memory held by history: journal and checkpoints."""
        return state.journal.nbytes + self.checkpoint_bytes()

    def window_start(self, state: MachineState) -> Position:
        return state.journal.origin, self.origin_edits

    def base(self, state: MachineState, edits: int) -> None:
        """Take checkpoint 0 if this is the first change (call before any step or edit)."""
        if not self.checkpoints and state.steps == 0 and edits == 0:
            self._add(capture(state, 0, 0, self.written(state)))

    def keep(self, state: MachineState, edits: int) -> None:
        """Hold history to the budget; call between steps (cheap when nothing is due)."""
        j = state.journal
        if not self.enabled:
            # Keep a few steps: `refresh_last` re-executes the last one, a fault undoes its own.
            if len(j.steps) > KEEP_LAST or (j.other_bytes > KEEP_LAST_BYTES
                                            and len(j.steps) > 1):
                before = j.nbytes
                j.drop_oldest(len(j.steps) - 1)
                self.dropped += before - j.nbytes
                self.origin_edits = edits
            return
        cps = self._checkpoints
        if not cps:
            return
        held = j.nbytes  # computed once: `nbytes` and `written` both start from it
        over = held + self.checkpoint_bytes() > self.budget
        last = cps[-1]
        if held + self.dropped - last.mark >= self.interval and \
                (state.steps, edits) > last.position and (over or self._affordable()):
            start = time.perf_counter()
            self._add(capture(state, state.steps, edits, held + self.dropped))
            self._captured_at = time.perf_counter()
            self._capture_cost = self._captured_at - start
        if over:
            self._fold(state)
            self._thin(state)

    def _affordable(self) -> bool:
        return time.perf_counter() - self._captured_at >= CAPTURE_SHARE * self._capture_cost

    def _fold(self, state: MachineState) -> None:
        """Move the window start to checkpoints inside it until the budget holds."""
        j = state.journal
        for c in self.checkpoints:
            if self.nbytes(state) <= self.budget:
                return
            if c.position <= self.window_start(state) or c.step >= state.steps:
                continue
            before = j.nbytes
            j.drop_oldest(c.step - j.origin)
            self.dropped += before - j.nbytes
            self.origin_edits = c.edits

    def _thin(self, state: MachineState) -> None:
        """Remove interior checkpoints before the window while they take > budget / 2."""
        start = self.window_start(state)
        while self.checkpoint_bytes() > self.budget // 2:
            inner = [k for k in range(1, len(self.checkpoints) - 1)
                     if self.checkpoints[k].position < start]
            if not inner:
                return
            cps = self.checkpoints
            self._remove(min(inner, key=lambda i: cps[i + 1].step - cps[i - 1].step))
