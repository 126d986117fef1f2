"""The undo journal: old values of every write, packed, one entry group per step.

Layout (memory proportional to what was written, never to SBUF size):
- `steps`: one u64 per step: old PC << 16 | register writes << 8 | other writes.
- `regs`: one u64 per register write: register << 32 | old value.
- `others`: one `Undo` per write to anything else (memory blocks keep only the
  access-pattern descriptor and the old bytes; semaphores, shape registers,
  accumulators keep the old values).

The SEQ fast path appends to `steps` / `regs` directly (see engines/seq.py), so
the packing above is part of this module's contract, and the three containers are
never replaced, only changed in place (the fast closures hold their `append`).

History may be folded (machine/history.py): `origin` is the step number of the oldest
entry kept, so `steps[k]` is step `origin + k`; `Undo.step` is absolute.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Literal, NamedTuple, TypeAlias

import numpy as np

from neurondbg.machine import sigint

if TYPE_CHECKING:  # machine.state (and through it machine.neff) imports this module
    from neurondbg.machine.neff.dma import Pattern
    from neurondbg.machine.state import Region

REG_SHIFT = 32
COUNT_SHIFT = 16
MAX_PER_STEP = 255
PC_LIMIT = 1 << (64 - COUNT_SHIFT)  # a step word holds PCs 0 .. 2**48 - 1
# Bytes an `Undo` holds beyond its old memory bytes, as measured with tracemalloc: the
# named tuple, its step and old-value ints and its list slot (a scalar: ~160) and, for a
# memory block, the ndarray's header and the Region descriptor (~420). Counting the
# objects, not the values, is what keeps a semaphore-heavy history within its budget.
SCALAR_UNDO_BYTES = 160
MEM_UNDO_BYTES = 416


UndoKind = Literal["mem", "array", "scalar"]
# What an Undo's key names: a memory block (its Region); rows of an array (a slice, or a
# DMA queue's access pattern over flat memory: machine.neff.dma); a slot of a scalar
# container (sem[3]; machine.neff's keyed tables: a (queue, tail) pair, a variable name),
# or None for a named attribute (halted, fp8_exp4).
ScalarKey: TypeAlias = "int | str | tuple[int, int] | None"
UndoKey: TypeAlias = "Region | slice | Pattern | ScalarKey"
# The old value: memory or array bytes, or a scalar (a slot's int, `halted`, an fp8
# setting, a stale mark's text or None).
ScalarValue: TypeAlias = "int | bool | str | None"
UndoOld: TypeAlias = "np.ndarray | ScalarValue"


class Undo(NamedTuple):
    """One non-register write: enough to put the old value back. A named tuple: made
    once per memory write of every step (a frozen dataclass costs ~3x as much to make),
    compared and hashed by its fields as the frozen dataclass it was."""

    step: int
    kind: UndoKind
    target: str  # "sbuf"/"psum" (mem), "acc"/"idx" (array), "sem"/"shape"/"halted"/... (scalar)
    key: UndoKey
    old: UndoOld  # mem: (P, n) uint8 (read-only broadcast 0 if all zero); array; scalar

    @property
    def slot(self) -> tuple[int, int]:
        """(slot, old value) of a write to a numbered slot of integers (sem[3], shape[0])."""
        if not (isinstance(self.key, int) and isinstance(self.old, int)):
            raise TypeError(f"not a write to a numbered slot: {self.target} {self.key!r}")
        return self.key, self.old

    @property
    def nbytes(self) -> int:
        """What keeping it costs in Python objects (tests/machine/test_undo_bytes.py
        measures it): the old bytes, and the objects around them."""
        if isinstance(self.old, np.ndarray):
            return int(self.old.nbytes) + MEM_UNDO_BYTES
        return SCALAR_UNDO_BYTES


class Journal:
    """Append-only per step; `pop_step` hands back what undoing the last step needs."""

    __slots__ = ("_pc", "_reg_mark", "_undo_mark", "origin", "other_bytes", "others", "regs",
                 "steps")

    def __init__(self) -> None:
        self.steps = array("Q")
        self.regs = array("Q")
        self.others: list[Undo] = []
        self.origin = 0  # step number of steps[0] (history before it was folded away)
        self.other_bytes = 0  # sum of `others[k].nbytes`, kept up to date (a budget check)
        self._pc = 0
        self._reg_mark = 0
        self._undo_mark = 0

    def __len__(self) -> int:
        """The step count: steps folded away plus steps kept."""
        return self.origin + len(self.steps)

    # -- recording (slow path) ---------------------------------------------
    def begin(self, pc: int) -> None:
        self._pc = pc
        self._reg_mark = len(self.regs)
        self._undo_mark = len(self.others)

    def reg(self, r: int, old: int) -> None:
        self.regs.append(r << REG_SHIFT | old)

    def other(self, kind: UndoKind, target: str, key: UndoKey, old: UndoOld) -> None:
        u = Undo(self.origin + len(self.steps), kind, target, key, old)
        self.others.append(u)
        self.other_bytes += u.nbytes

    def set_old(self, k: int, old: UndoOld) -> None:
        """Give entry `k` other old bytes of the same shape: a write that journals them as
        it goes (MachineState.open_write) first records a zero block, then the real one.
        The byte count stays: it is the nominal size either way."""
        u = self.others[k]
        self.others[k] = Undo(u.step, u.kind, u.target, u.key, old)

    def pop_other(self) -> Undo:
        u = self.others.pop()
        self.other_bytes -= u.nbytes
        return u

    def end(self) -> None:
        nr = len(self.regs) - self._reg_mark
        no = len(self.others) - self._undo_mark
        if nr > MAX_PER_STEP or no > MAX_PER_STEP:  # never happens with 64-byte records
            raise OverflowError("too many writes in one step for the journal")
        self.steps.append(self._pc << COUNT_SHIFT | nr << 8 | no)

    # -- undo --------------------------------------------------------------
    def pop_step(self) -> tuple[int, list[tuple[int, int]], list[Undo]]:
        """Remove the last step: (old pc, [(reg, old)] newest first, [Undo] newest first)."""
        word = self.steps.pop()
        nr = (word >> 8) & 0xFF
        no = word & 0xFF
        regs = [(w >> REG_SHIFT, w & 0xFFFFFFFF) for w in reversed(self.regs[len(self.regs) - nr:])]
        del self.regs[len(self.regs) - nr:]
        undos = [self.pop_other() for _ in range(no)]
        return word >> COUNT_SHIFT, regs, undos

    def pc_of(self, step: int) -> int | None:
        """The PC the instruction of `step` (0-based) was fetched from; None if folded."""
        k = step - self.origin
        return self.steps[k] >> COUNT_SHIFT if 0 <= k < len(self.steps) else None

    # -- folding -------------------------------------------------------------
    def drop_oldest(self, n: int) -> None:
        """Forget the oldest `n` kept steps (their state lives on in a checkpoint)."""
        n = min(n, len(self.steps))
        if n <= 0:
            return
        # a copy: a view of `steps` would block resizing it for as long as it lives, and
        # a traceback through this frame would keep it alive
        words = np.frombuffer(self.steps[:n], dtype=np.uint64)
        nr = int(((words >> np.uint64(8)) & np.uint64(0xFF)).sum())
        no = int((words & np.uint64(0xFF)).sum())
        with sigint.deferred():  # all four containers move together, or none
            del self.steps[:n]
            del self.regs[:nr]
            self.other_bytes -= sum(u.nbytes for u in self.others[:no])
            del self.others[:no]
            self.origin += n

    def clear(self, origin: int) -> None:
        """Forget every kept step; the next one recorded is step `origin`."""
        del self.steps[:]
        del self.regs[:]
        self.others.clear()
        self.other_bytes = 0
        self.origin = origin

    # -- queries -----------------------------------------------------------
    @property
    def nbytes(self) -> int:
        """Bytes held (packed arrays plus the old values of other writes); an upper bound:
        a memory block whose old bytes were all zero counts its nominal size, though it
        is kept as a broadcast zero (see MachineState.write_block)."""
        return (self.steps.itemsize * len(self.steps) + self.regs.itemsize * len(self.regs)
                + self.other_bytes)

    def who_wrote_reg(self, r: int) -> int | None:
        """The step (0-based) that last wrote register `r` within the kept history, or None."""
        if not self.regs:
            return None
        regs = np.frombuffer(self.regs, dtype=np.uint64) >> np.uint64(REG_SHIFT)
        hits = np.flatnonzero(regs == r)
        if hits.size == 0:
            return None
        counts = (np.frombuffer(self.steps, dtype=np.uint64) >> np.uint64(8)) & np.uint64(0xFF)
        ends = np.cumsum(counts)  # ends[k] = number of register writes up to and including step k
        return self.origin + int(np.searchsorted(ends, hits[-1], side="right"))

    def who_wrote_mem(self, space: str, partition: int, byte: int) -> int | None:
        """The step that last wrote byte `byte` of `partition` in `space`, or None."""
        from neurondbg.machine.state import Region  # loaded: it imports this module

        u: Undo
        for u in reversed(self.others):
            if u.kind == "mem" and u.target == space and isinstance(u.key, Region) and \
                    u.key.covers(partition, byte):
                return u.step
        return None

    def who_wrote(self, target: str, key: int | None = None) -> int | None:
        """Last step writing a scalar/array target ("sem", 3), ("acc", partition), ..."""
        u: Undo
        for u in reversed(self.others):
            if u.target != target:
                continue
            if u.kind == "scalar" and (key is None or u.key == key):
                return u.step
            if u.kind == "array" and (key is None or _index_hits(u.key, key)):
                return u.step
        return None


def _index_hits(rows: UndoKey, partition: int) -> bool:
    """Whether an array write's rows (a slice of partitions) include `partition`."""
    return isinstance(rows, slice) and rows.start is not None and \
        int(rows.start) <= partition < int(rows.stop)
