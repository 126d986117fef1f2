"""Machine state: SEQ registers and PC, shape registers, semaphores, SBUF, PSUM,
DVE accumulators and index registers, the FP8 conversion configuration.

Every write goes through a method here, which puts the old value in the
journal (machine/journal.py) and, while a step is being recorded, appends a
`Write` (old and new) to the step's list. Reads are plain attribute access; while
`reads` is a list (the NeuronCore's race detector records a step), every memory
read of an engine goes through `read_block` / `note_read`, which append its Region.

A NeuronCore (machine/core) has one state per engine: `MachineState.create(config,
shared=other)` gives a state with its own registers, PC, shape registers, DVE
accumulators and journal but the SBUF, PSUM, semaphore file, view list and `peers`
(engine name -> state, for `dve.R3` in expressions) of `other`.

At its first large disjoint cast (machine.engines.tensor.MOVE_MIN_BYTES) a state's SBUF
and PSUM move into one memfd mapped twice (machine.memfd, Linux): `sbuf`/`psum` stay
ordinary arrays, over the first mapping; the second is only ever the write target of
such a cast (machine.engines.tensor.cast_into), so numpy's bounds-only overlap guard
does not route it through a temporary.
"""

from __future__ import annotations

import hashlib
import struct
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Protocol, TypeVar, overload

import numpy as np

from neurondbg.machine.dtypes import DEFAULT_GEN, Gen, fp8_exp4_format
from neurondbg.machine.isa.addr import geometry
from neurondbg.machine.isa.opcodes import DEFAULT_ENGINE
from neurondbg.machine.journal import (
    COUNT_SHIFT,
    REG_SHIFT,
    Journal,
    ScalarKey,
    ScalarValue,
    Undo,
    UndoOld,
)
from neurondbg.machine.memfd import MemoryAlias, alias_memory, available

NUM_REGS = 64
NUM_SEMS = 256  # isa-facts §1.2: 256 32-bit semaphores/events per engine
NUM_SHAPE_REGS = 256  # CTRL_MS names shape registers by a u8 (isa-facts §4.3); count not given
NUM_INDEX_REGS = 8  # isa-facts §6.2: 8 index registers per lane
PC_LO, PC_HI = 128, 129  # register specifiers that read the PC halves (ref 001, isa-facts §4.2)
RECORD_BYTES = 64

# MAVERICK's header says PSUM_BUF_SZ = 0 (isa-facts §9); the model keeps a 16 KiB PSUM so
# DVE programs still run there (a DESIGN gap, LOW).
MAVERICK_PSUM_BYTES = 16 * 1024


def _geometry(gen: Gen) -> tuple[int, int, int]:
    """(partitions, SBUF bytes, PSUM bytes) per partition: machine.isa.addr (isa-facts §2.4)."""
    g = geometry(gen)
    return g.partitions, g.sbuf_bytes, g.psum_bytes or MAVERICK_PSUM_BYTES


@dataclass(frozen=True)
class MachineConfig:
    """What a machine is built from; sessions save it, `run --gen/--engine` set it."""

    gen: Gen = DEFAULT_GEN
    engine: str = DEFAULT_ENGINE  # the queue the program runs on: pool, dve, act, pe, sp
    partitions: int = 128
    sbuf_bytes: int = 0  # per partition; 0 = the generation's active size
    psum_bytes: int = 0
    fp8_exp4: str = ""  # convert format for FP8_EXP4; "" = the generation's default
    fp8_sat: bool = False  # saturating FP8 narrowing (the kbin fp8 conv cfg, isa-facts §8.2)
    base: int = 0  # PC of record 0
    execute_invalid: bool = False  # run instructions that fail legality anyway

    def resolved(self) -> MachineConfig:
        parts, sb, ps = _geometry(self.gen)
        return replace(self, partitions=self.partitions or parts,
                       sbuf_bytes=self.sbuf_bytes or sb, psum_bytes=self.psum_bytes or ps,
                       fp8_exp4=self.fp8_exp4 or fp8_exp4_format(self.gen))


T = TypeVar("T")
_ELEMENT = {n: np.dtype(f"<u{n}") for n in (1, 2, 4, 8)}  # Region.strided's element views


class cached(Generic[T]):
    """functools.cached_property without the lock Python 3.11 takes on every first read
    (~1 us each; a step makes fresh Regions and reads several of these). The value goes
    in the instance __dict__ (as with cached_property), which then shadows this
    non-data descriptor; Regions are immutable, so a race can only compute it twice."""

    def __init__(self, fn: Callable[[Any], T]) -> None:
        self.fn, self.name, self.__doc__ = fn, fn.__name__, fn.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> cached[T]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...

    def __get__(self, obj: object, owner: type | None = None) -> T | cached[T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


@dataclass(frozen=True)
class Region:
    """A 4-D access pattern over `partitions [p0, p1)` of one memory space.

    Dimension 0 is the innermost (fastest) one; steps are in elements
    (isa-facts §2.1). The journal keeps this descriptor, not the index array.
    """

    space: str  # "sbuf" or "psum"
    p0: int
    p1: int
    start: int  # byte offset in each partition
    size: int  # element bytes
    steps: tuple[int, ...]
    nums: tuple[int, ...]

    @cached
    def count(self) -> int:
        n = 1
        for k in self.nums:
            n *= k
        return n

    @cached
    def elem_offsets(self) -> np.ndarray:
        """Byte offset of each element (ordinal order: dimension 0 fastest)."""
        return self._offsets()

    def _offsets(self) -> np.ndarray:
        offs = np.zeros(1, dtype=np.int64)
        for s, n in zip(self.steps, self.nums, strict=True):
            offs = (np.arange(n, dtype=np.int64)[:, None] * (s * self.size) + offs[None, :]).ravel()
        return (offs + self.start).astype(np.int32)  # partitions are < 2 GiB

    def bare(self) -> Region:
        """The same pattern without cached index arrays (what the journal keeps).

        A contiguous pattern caches only small values (a slice), so it is kept as is.
        """
        d = self.__dict__
        if "elem_offsets" not in d and not isinstance(d.get("byte_index"), np.ndarray):
            return self
        return Region(self.space, self.p0, self.p1, self.start, self.size, self.steps, self.nums)

    @cached
    def contiguous(self) -> bool:
        """Elements packed back to back in ordinal order (a slice will do).

        Offsets are linear in the indices, so this holds exactly when every dimension
        with more than one element steps by the element count of the dimensions inside
        it (decided from the descriptor, without index arrays).
        """
        inner = 1
        for s, n in zip(self.steps, self.nums, strict=True):
            if n > 1 and s != inner:
                return False
            inner *= n
        return True

    @cached
    def byte_index(self) -> np.ndarray | slice:
        if self.contiguous:
            return slice(self.start, self.start + self.count * self.size)
        o = self.elem_offsets
        return (o[:, None] + np.arange(self.size, dtype=np.int32)[None, :]).ravel()

    @cached
    def layout(self) -> tuple[tuple[int, ...], tuple[int, ...], bool]:
        """The elements of one partition as a strided view: (shape, byte strides),
        outermost first, the element's own bytes last (dimensions of one element
        dropped), and whether no two elements share a byte (a write through the view
        then does what the byte-index scatter does). Decided from the descriptor alone."""
        dims = [(n, s * self.size) for s, n in zip(self.steps, self.nums, strict=True)
                if n != 1]
        reach = self.size - 1  # the element's own bytes: [0, size)
        disjoint = True
        for n, s in sorted(((n, abs(s)) for n, s in dims), key=lambda d: d[1]):
            if s <= reach:
                disjoint = False
                break
            reach += (n - 1) * s
        return ((*(n for n, _ in reversed(dims)), self.size),
                (*(s for _, s in reversed(dims)), 1), disjoint)

    def strided(self, mem: np.ndarray) -> np.ndarray | None:
        """This pattern's elements in `mem` (C-contiguous, partitions by bytes) as one
        strided view: (partitions, *layout shape but the last) of the element's unsigned
        container (uint8..uint64: numpy then moves whole elements, not bytes), or for
        another size bytes with the element's bytes last; None when numpy refuses it
        (out of bounds: the byte-index path then raises as it always did)."""
        shape, strides, _ = self.layout
        dt = _ELEMENT.get(self.size)
        if dt is None:
            dt = _ELEMENT[1]
        else:
            shape, strides = shape[:-1], strides[:-1]
        row = mem.strides[0]
        try:
            return np.ndarray((self.p1 - self.p0, *shape), dt, buffer=mem,
                              offset=self.p0 * row + self.start, strides=(row, *strides))
        except (ValueError, TypeError):
            return None

    def gather(self, mem: np.ndarray) -> np.ndarray | None:
        """(partitions, count * size) uint8: a copy of this pattern's bytes in `mem`, in
        element order (what indexing with `byte_index` gives), through `strided`."""
        view = self.strided(mem)
        if view is None:
            return None
        return view.copy().view(np.uint8).reshape(view.shape[0], -1)

    @staticmethod
    def elements(data: np.ndarray, view: np.ndarray) -> np.ndarray:
        """(partitions, count * size) uint8 `data` shaped as `view` (a `strided` view),
        ready to assign to it."""
        return np.ascontiguousarray(data).view(view.dtype).reshape(view.shape)

    @cached
    def bounds(self) -> tuple[int, int]:
        """Lowest byte and one past the highest byte touched (no index arrays needed)."""
        lo = hi = self.start
        for s, n in zip(self.steps, self.nums, strict=True):
            reach = s * (n - 1) * self.size
            if reach < 0:
                lo += reach
            else:
                hi += reach
        return lo, hi + self.size

    def overlaps(self, other: Region) -> bool:
        """Conservative: same space, shared partitions and overlapping byte bounds."""
        return (self.space == other.space and self.p0 < other.p1 and other.p0 < self.p1
                and self.bounds[0] < other.bounds[1] and other.bounds[0] < self.bounds[1])

    def covers(self, partition: int, byte: int) -> bool:
        lo, hi = self.bounds
        if not (self.p0 <= partition < self.p1 and lo <= byte < hi):
            return False
        o = self.__dict__.get("elem_offsets")
        if o is None:
            o = self._offsets()  # not cached: journal entries stay bare
        return bool(np.any((o <= byte) & (byte < o + self.size)))


class Hasher(Protocol):
    """What a state feeds its digest to (hashlib's objects)."""

    def update(self, data: bytes, /) -> None: ...


class MemoryViewer(Protocol):
    """What holds a view of SBUF/PSUM (conversion lanes): told to take its own copy
    before the bytes under it change."""

    def overlaps(self, region: Region) -> bool: ...

    def materialize(self) -> None: ...


# A write's old or new value: a register's or scalar's value (journal.ScalarValue), the
# bytes or rows of an array write, None where there is none (a DMA's "dram" side's old).
WriteValue = UndoOld


@dataclass(frozen=True, init=False)
class Write:
    """One write of a step: what changed (old and new)."""

    target: str  # "R5", "PC", "sbuf", "psum", "sem[3]", "shape[0]", "acc", "idx", ...
    old: WriteValue
    new: WriteValue
    region: Region | None = None
    index: slice | None = None  # partitions for acc/idx writes

    def __init__(self, target: str, old: WriteValue, new: WriteValue,
                 region: Region | None = None, index: slice | None = None) -> None:
        # Made for every write of a recorded step: one dict update is ~2x cheaper than
        # the frozen dataclass's five object.__setattr__ calls (the instance is as frozen)
        self.__dict__.update(target=target, old=old, new=new, region=region, index=index)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"target": self.target}
        if self.region is not None:
            r = self.region
            d.update(space=r.space, partitions=[r.p0, r.p1], start=r.start, size=r.size,
                     steps=list(r.steps), nums=list(r.nums), bytes=int(np.asarray(self.new).size))
        elif isinstance(self.new, np.ndarray) and self.index is not None:
            d.update(partitions=[self.index.start, self.index.stop], count=int(self.new.size))
        else:
            d.update(old=_jsonable(self.old), new=_jsonable(self.new))
        return d


def _jsonable(v: object) -> int | float | str | None:
    return v if isinstance(v, int | float | bool | str) or v is None else repr(v)


ZERO_MIN_BYTES = 16 * 1024  # blocks this large are checked for zeros before copying
# Scanned this many bytes at a time (non-zero data stops early): a block of convert_into's
# rows (machine.convert.kernels.SCRATCH_BYTES) is then one call.
ZERO_SCAN_BYTES = 256 * 1024


def _is_zero(block: np.ndarray) -> bool:
    """Whether every byte of a 2-D uint8 block (rows contiguous) is 0. The first row is
    looked at alone: memory in use is rarely zero there, and then the scan stops early."""
    words = block.view(np.uint64) if block.shape[1] % 8 == 0 else block
    if np.count_nonzero(words[:1]):
        return False
    rows = max(1, ZERO_SCAN_BYTES // block.shape[1])
    for p in range(1, block.shape[0], rows):
        if np.count_nonzero(words[p:p + rows]):
            return False
    return True


_ZERO = np.zeros(1, np.uint8)
_ZERO.setflags(write=False)


_ZEROS: dict[tuple[int, ...], np.ndarray] = {}


def zeros(shape: tuple[int, ...]) -> np.ndarray:
    """A read-only all-zero uint8 array of `shape` that holds one byte (strides 0): what
    the journal keeps for untouched memory (np.broadcast_to's result, ~5x cheaper). One
    per shape, shared (read-only, so no entry can change another's); a few shapes at a
    time are kept (a program's bulk writes have a few)."""
    z = _ZEROS.get(shape)
    if z is None:
        if len(_ZEROS) >= 64:
            _ZEROS.clear()
        z = _ZEROS[shape] = np.ndarray(shape, np.uint8, _ZERO, 0, (0,) * len(shape))
    return z


class OldBytes:
    """The journaled old bytes of a write made in place into `view`, a slice of memory
    (MachineState.open_write). Call it as before(lo, hi) just before rows lo..hi-1 of
    the view are overwritten, rows in increasing order (machine.convert.convert_into),
    and `settle()` once the write is over, finished or not.

    A block of ZERO_MIN_BYTES or more that is all zero is journaled as a broadcast zero
    (untouched memory needs no copy, as in write_block). The zero check runs one block
    at a time as the write reaches it, so it reads bytes the write is about to touch
    anyway (they are then in cache for it); at the first non-zero block the rest of the
    view is copied, the rows already passed being zero, and the journal entry takes that
    copy before any byte of it is overwritten. Undo rewrites the whole region, so a write
    that stops early must still have the rows it never reached checked: `settle`.
    """

    __slots__ = ("_journal", "_k", "_pending", "_seen", "_view", "old")

    def __init__(self, journal: Journal, region: Region, view: np.ndarray) -> None:
        self._view = view
        self._pending = view.size >= ZERO_MIN_BYTES
        self._seen = 0  # rows before this one are journaled (checked zero, or copied)
        self.old = zeros(view.shape) if self._pending else view.copy()
        self._journal = journal
        self._k = len(journal.others)
        # The journal keeps the bare descriptor: index arrays are rebuilt on undo.
        journal.other("mem", region.space, region.bare(), self.old)

    def __call__(self, lo: int, hi: int) -> None:
        view = self._view
        if self._pending and not _is_zero(view if lo == 0 and hi == view.shape[0]
                                          else view[lo:hi]):
            if lo:
                old = np.empty(self._view.shape, np.uint8)
                old[:lo] = 0
                old[lo:] = self._view[lo:]
            else:  # the first block: one copy (a bulk write's usual case)
                old = self._view.copy()
            self._journal.set_old(self._k, old)
            self.old, self._pending = old, False
        self._seen = hi

    def settle(self) -> None:
        """Journal the rows the write never reached (a step stopped part way: its undo
        must give them back as they are), if they are still only assumed zero."""
        n = self._view.shape[0]
        if self._pending and self._seen < n:
            self(self._seen, n)


@dataclass
class MachineState:
    """Everything a program can read or write. Build with `MachineState.create(config)`."""

    config: MachineConfig
    R: list[int]
    pc: int
    shape: list[int]
    sem: list[int]
    sbuf: np.ndarray
    psum: np.ndarray
    acc: np.ndarray  # float32 per partition (isa-facts §6.2)
    idx: np.ndarray  # uint32 (partitions, 8)
    fp8_exp4: str
    fp8_sat: bool
    halted: bool = False
    journal: Journal = field(default_factory=Journal)
    writes: list[Write] | None = None  # set while a step is being recorded
    reads: list[Region] | None = None  # set while a step's memory reads are recorded
    # Objects holding views of SBUF/PSUM (conversion lanes), as weak references: copied
    # before the memory under them is overwritten, so a bulk step need not copy its
    # source up front. A plain list: iterating a WeakSet costs more than the check.
    # Changed in place only (states of one core share the list).
    views: list[weakref.ref[MemoryViewer]] = field(default_factory=list, repr=False)
    # The states of a core by engine name (shared by all of them); a lone state: None.
    peers: dict[str, MachineState] | None = field(default=None, repr=False, compare=False)
    # Plans of instructions resolved once under this state's configuration, by the engine
    # module that makes them (machine.engines.pool: a CAST's operands and conversion),
    # keyed by the record's bytes and what of the state they read: an edited record is a
    # new key. A cache, not state: copies and pickles start empty.
    plans: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    # False while a headless step (machine.debugger) runs a handler whose one memory
    # write is its last change: `write_block` then keeps no old bytes (nothing after it
    # can fault, and a headless machine never undoes a step that completed)
    journal_memory: bool = field(default=True, repr=False, compare=False)
    # SBUF/PSUM in a memfd with a second mapping (machine.memfd); None: plain memory.
    _alias: MemoryAlias | None = field(default=None, init=False, repr=False, compare=False)
    # The plain arrays `create` made (weakly), while they may still move into a memfd
    # (write_alias); None: they never will (memfd missing or refused, a copy of a state).
    _movable: tuple[weakref.ref[np.ndarray], weakref.ref[np.ndarray]] | None = field(
        default=None, init=False, repr=False, compare=False)

    @classmethod
    def create(cls, config: MachineConfig | None = None,
               shared: MachineState | None = None) -> MachineState:
        """A fresh state; with `shared`, one using its SBUF, PSUM, semaphores and views
        (its memory geometry wins: one core has one SBUF)."""
        c = (config or MachineConfig()).resolved()
        p = c.partitions
        if shared is None:
            sem, views = [0] * NUM_SEMS, []
            sbuf, psum = np.zeros((p, c.sbuf_bytes), np.uint8), np.zeros((p, c.psum_bytes),
                                                                          np.uint8)
            alias = None
            movable = (weakref.ref(sbuf), weakref.ref(psum)) if available() else None
        else:
            sem, views, sbuf, psum = shared.sem, shared.views, shared.sbuf, shared.psum
            alias, movable = shared._alias, shared._movable
        st = cls(config=c, R=[0] * NUM_REGS, pc=c.base, shape=[0] * NUM_SHAPE_REGS,
                 sem=sem, sbuf=sbuf, psum=psum, acc=np.zeros(p, np.float32),
                 idx=np.zeros((p, NUM_INDEX_REGS), np.uint32), fp8_exp4=c.fp8_exp4,
                 fp8_sat=c.fp8_sat, views=views)
        st._alias, st._movable = alias, movable
        if shared is not None:
            if shared.peers is None:
                shared.peers = {shared.config.engine: shared}
            st.peers = shared.peers
            st.peers[c.engine] = st
        return st

    def __getstate__(self) -> dict[str, Any]:
        """Pickled and copied without the memory alias: a copy's memory is its own (or, for
        copy.copy, shared with the original, which must then not move under it)."""
        d = self.__dict__.copy()
        d["_alias"] = d["_movable"] = None
        d["plans"] = {}
        return d

    # -- reads -------------------------------------------------------------
    @property
    def steps(self) -> int:
        return len(self.journal)

    @property
    def pc_index(self) -> int:
        return (self.pc - self.config.base) // RECORD_BYTES

    def read_reg(self, spec: int) -> int:
        """Register specifier read: 0..63 GP, 128/129 PC low/high (ref 001)."""
        if spec < NUM_REGS:
            return self.R[spec]
        if spec == PC_LO:
            return self.pc & 0xFFFFFFFF
        if spec == PC_HI:
            return (self.pc >> 32) & 0xFFFFFFFF
        raise IndexError(f"register specifier {spec} is not readable (0..63, 128, 129)")

    def memory(self, space: str) -> np.ndarray:
        return self.sbuf if space == "sbuf" else self.psum

    def read_block(self, region: Region) -> np.ndarray:
        """(partitions, count * size) uint8, element ordinal order."""
        if self.reads is not None:
            self.reads.append(region)
        mem = self.memory(region.space)
        if not region.contiguous:
            # a strided view copied: what the byte-index gather gives, without an index
            # array per byte (a gather costs ~10x the copy)
            got = region.gather(mem)
            if got is not None:
                return got
        return mem[region.p0:region.p1, region.byte_index]

    def note_read(self, region: Region) -> None:
        """Record a memory read made without `read_block` (a scalar operand's pointer)."""
        if self.reads is not None:
            self.reads.append(region)

    def peer(self, engine: str) -> MachineState:
        """The state of `engine` in this core (this state for its own engine);
        KeyError naming the engines there are."""
        if engine == self.config.engine:
            return self
        if self.peers is None or engine not in self.peers:
            have = ", ".join(self.peers or [self.config.engine])
            raise KeyError(f"no {engine} engine here (engines: {have})")
        return self.peers[engine]

    # -- writes (journaled) ------------------------------------------------
    def begin_step(self) -> None:
        self.journal.begin(self.pc)

    def end_step(self) -> None:
        self.journal.end()

    def write_reg(self, spec: int, value: int) -> None:
        """Writes to 128/129 (PC halves) are ignored (ref 001); others must be 0..63."""
        if spec >= NUM_REGS:
            return
        value &= 0xFFFFFFFF
        old = self.R[spec]
        self.journal.reg(spec, old)
        self.R[spec] = value
        if self.writes is not None:
            self.writes.append(Write(f"R{spec}", old, value))

    def set_pc(self, pc: int) -> None:
        """The PC is journaled once per step (the step word), not here."""
        if self.writes is not None and pc != self.pc + RECORD_BYTES:
            self.writes.append(Write("PC", self.pc, pc))
        self.pc = pc

    def write_block(self, region: Region, data: np.ndarray) -> None:
        """Write (partitions, count * size) uint8 `data` at `region`."""
        mem = self.memory(region.space)
        if self.views:
            self._protect(region)
        rows = slice(region.p0, region.p1)
        # A contiguous pattern is a 2-D slice: the old bytes are one slice copy and the
        # new ones one slice assignment; a strided one whose elements are disjoint is one
        # strided view (copied for the old bytes, assigned); any other gathers (a copy
        # already) and scatters through its byte index.
        view = strided = None
        if not self.journal_memory:  # a headless step's last write (see the field)
            if region.contiguous:
                view = mem[rows, region.byte_index]
            else:
                strided = region.strided(mem) if region.layout[2] else None
            old = None
        elif region.contiguous:
            view = mem[rows, region.byte_index]
            journaled = OldBytes(self.journal, region, view)
            journaled(0, view.shape[0])  # every row at once: written in one assignment
            old = journaled.old
        else:
            strided = region.strided(mem) if region.layout[2] else None
            old = (strided.copy().view(np.uint8).reshape(strided.shape[0], -1)
                   if strided is not None else mem[rows, region.byte_index])
            # The journal keeps the bare descriptor: index arrays are rebuilt on undo, so
            # its memory stays proportional to the bytes written.
            self.journal.other("mem", region.space, region.bare(), old)
        if np.may_share_memory(data, mem):
            data = data.copy()  # a COPY's source view: keep the record's `new` stable
        if view is not None:
            view[...] = data
        elif strided is not None:
            strided[...] = Region.elements(data, strided)
        else:
            mem[rows, region.byte_index] = data
        if self.writes is not None:
            self.writes.append(Write(region.space, old, data, region=region))

    def open_write(self, region: Region, view: np.ndarray | None = None
                   ) -> tuple[np.ndarray, OldBytes]:
        """Begin a journaled write that the caller makes in place: (the slice view of
        `region`'s memory, its OldBytes). Views watching the region copy first (as in
        write_block). The caller calls the OldBytes before each block of rows it writes,
        then its `settle()` (in a `finally`), and appends the step's Write (whose old
        bytes are OldBytes.old after the write).
        `region` must be contiguous (its byte_index a slice); `view`, when given, is
        that slice of `memory(region.space)` as it is now (a caller that kept one)."""
        idx = region.byte_index
        assert isinstance(idx, slice), "open_write takes a contiguous region"
        if self.views:
            self._protect(region)
        if view is None:
            view = self.memory(region.space)[region.p0:region.p1, idx]
        return view, OldBytes(self.journal, region, view)

    def write_alias(self, region: Region, move: bool = True) -> np.ndarray | None:
        """`region`'s bytes (contiguous) through the second mapping of memory, or None
        (plain memory, or `sbuf`/`psum` is no longer the array the alias was made with).

        Only for a write whose sources are known disjoint from `region` (Region.overlaps):
        numpy sees different addresses, so nothing stops it reading what it has written.
        Records, watchers and the journal keep seeing `memory()`. With `move`, the first
        call moves plain memory into a memfd (machine.memfd: `sbuf`/`psum` of this state
        and of every engine sharing them become new arrays with the same bytes; live
        views copy first), so call it before taking views of memory for the write."""
        a = self._alias
        if a is None:
            a = self._move_to_memfd() if move else None
            if a is None:
                return None
        mine, alias = (a.sbuf, a.sbuf_alias) if region.space == "sbuf" else (a.psum,
                                                                             a.psum_alias)
        if self.memory(region.space) is not mine:
            return None
        return alias[region.p0:region.p1, region.byte_index]

    def _move_to_memfd(self) -> MemoryAlias | None:
        """Move memory into a memfd, once: only while every state sharing it still has the
        arrays `create` made (others may have been assigned; they are left alone)."""
        if self._movable is None:
            return None
        sbuf, psum = (r() for r in self._movable)
        group = list(self.peers.values()) if self.peers else [self]
        for st in group:
            st._movable = None  # one attempt: moved, or refused for good
        if sbuf is None or psum is None or any(st.sbuf is not sbuf or st.psum is not psum
                                               for st in group):
            return None  # another array was assigned (a dead weak reference gives None)
        a = alias_memory(sbuf, psum)
        if a is not None:
            self.release_views()  # they view the arrays being replaced
            for st in group:
                st.sbuf, st.psum, st._alias = a.sbuf, a.psum, a
                st.plans.clear()  # plans may hold views of the arrays replaced
        return a

    def watch(self, view: MemoryViewer) -> None:
        """Register an object that views memory (see `views`)."""
        self.views.append(weakref.ref(view))

    def release_views(self) -> None:
        """Let every live view take its own copy (before all of memory is replaced)."""
        for ref in self.views:
            v = ref()
            if v is not None:
                v.materialize()
        self.views.clear()  # in place: other states of the core hold the same list

    def protect(self, region: Region) -> None:
        """Before a write made outside these methods (a headless step's direct write,
        machine.engines.pool.DIRECT): views over `region` take their own copy."""
        if self.views:
            self._protect(region)

    def _protect(self, region: Region) -> None:
        """Let every live view over `region` take its own copy before it changes."""
        keep = []
        for ref in self.views:
            v = ref()
            if v is None:
                continue  # its owner is gone
            if v.overlaps(region):
                v.materialize()
            else:
                keep.append(ref)
        self.views[:] = keep

    def write_scalar(self, target: str, key: ScalarKey, value: ScalarValue) -> None:
        """sem[key], shape[key], or a named attribute (halted, fp8_exp4, fp8_sat)."""
        if key is None:
            old = getattr(self, target)
            setattr(self, target, value)
        else:
            seq = getattr(self, target)
            old = seq[key]
            seq[key] = value
        self.journal.other("scalar", target, key, old)
        if self.writes is not None:
            self.writes.append(Write(target if key is None else f"{target}[{key}]", old, value))

    def write_array(self, target: str, rows: slice, value: np.ndarray) -> None:
        """acc[rows] or idx[rows] = value."""
        arr = getattr(self, target)
        old = arr[rows].copy()
        self.journal.other("array", target, rows, old)
        arr[rows] = value
        if self.writes is not None:
            self.writes.append(Write(target, old, np.array(arr[rows]), index=rows))

    # -- undo ----------------------------------------------------------------
    def undo_step(self) -> int:
        """Undo the last step exactly; returns the PC it was fetched from."""
        j = self.journal
        word = j.steps.pop()
        R, regs = self.R, j.regs
        for _ in range((word >> 8) & 0xFF):  # newest first (journal.py packing)
            w = regs.pop()
            R[w >> REG_SHIFT] = w & 0xFFFFFFFF
        for _ in range(word & 0xFF):
            self._restore(j.pop_other())
        self.pc = word >> COUNT_SHIFT
        return self.pc

    def _restore(self, u: Undo) -> None:
        r = u.key
        if isinstance(r, Region):  # kind "mem": a memory block
            if self.views:
                self._protect(r)
            mem = self.memory(r.space)
            strided = None if r.contiguous or not r.layout[2] else r.strided(mem)
            if strided is not None:
                assert isinstance(u.old, np.ndarray)  # a memory block's old bytes
                strided[...] = Region.elements(u.old, strided)
            else:
                mem[r.p0:r.p1, r.byte_index] = u.old
        elif u.kind == "array":
            getattr(self, u.target)[u.key] = u.old
        elif u.key is None:
            setattr(self, u.target, u.old)
        else:
            getattr(self, u.target)[u.key] = u.old

    # -- who wrote / digest ----------------------------------------------------
    def who_wrote(self, what: str, partition: int = 0, byte: int = 0) -> tuple[int, int] | None:
        """(step, pc) of the last write to "R5", "PC", "sbuf"/"psum" (partition, byte),
        "sem[3]", within the kept history (DESIGN: older history is folded into checkpoints)."""
        j = self.journal
        if what.upper() == "PC":  # every step sets the PC: the last one did (if kept)
            step = self.steps - 1 if j.steps else None
        elif what.upper().startswith("R") and what[1:].isdigit():
            step = j.who_wrote_reg(int(what[1:]))
        elif what in ("sbuf", "psum"):
            step = j.who_wrote_mem(what, partition, byte)
        elif what in ("acc", "idx"):
            step = j.who_wrote(what, partition)
        elif "[" in what:
            name, _, rest = what.partition("[")
            step = j.who_wrote(name, int(rest.rstrip("]"), 0))
        else:
            step = j.who_wrote(what)
        pc = None if step is None else j.pc_of(step)
        return None if step is None or pc is None else (step, pc)

    def digest(self) -> str:
        """sha256 over all architectural state (not the journal)."""
        h = hashlib.sha256()
        self.hash_into(h)
        return h.hexdigest()

    def hash_into(self, h: Hasher, shared: bool = True) -> None:
        """Feed this state to hash `h`; `shared=False` leaves out SBUF, PSUM and the
        semaphores (a core hashes them once for all its engines)."""
        h.update(struct.pack("<64I", *self.R))
        h.update(_pc_bytes(self.pc))
        h.update(struct.pack(f"<{NUM_SHAPE_REGS}I", *self.shape))
        if shared:
            h.update(struct.pack(f"<{NUM_SEMS}I", *self.sem))
        for a in ((self.sbuf, self.psum, self.acc, self.idx) if shared else (self.acc, self.idx)):
            h.update(np.ascontiguousarray(a).tobytes())
        h.update(f"{self.fp8_exp4}|{int(self.fp8_sat)}|{int(self.halted)}".encode())

    def hash_shared(self, h: Hasher) -> None:
        """Feed the shared part (semaphores, SBUF, PSUM) to hash `h`."""
        h.update(struct.pack(f"<{NUM_SEMS}I", *self.sem))
        for a in (self.sbuf, self.psum):
            h.update(np.ascontiguousarray(a).tobytes())


def _pc_bytes(pc: int) -> bytes:
    """The PC for `digest`: u64 as always; any other int (the model never makes one, but a
    hand-edited state might) gets a longer signed form instead of a struct.error."""
    if 0 <= pc < 1 << 64:
        return pc.to_bytes(8, "little")
    return b"\xff" + pc.to_bytes((pc.bit_length() + 8) // 8 + 1, "little", signed=True)
