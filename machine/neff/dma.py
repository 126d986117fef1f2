"""The DMA queues of a NEFF subgraph as machine state: one FIFO per queue, DRAM, and the
bytes each completed entry moves (neff-facts §2.5, §5.3, §5.4, §6.4).

    dma = DmaModel(sub, partitions, sbuf_bytes)  # queues, entries, DRAM laid out
    dma.attach(state)                      # every state of the core shares it
    dma.trigger(state, Engine.SP, "qSPIO0", 3)   # a PSEUDO_DMATRIGGER: enqueue
    dma.complete(state, dma.index["qSPIO0"])     # the queue's actor: pop, move, +16

The rule (neff-facts §5.3): a trigger puts its entry at the back of its queue's FIFO;
the queue completes its entries in trigger order (queues are independent); completing
one moves its descriptors' bytes and adds DMA_INCREMENT (16) to the entry's semaphore,
once per entry however many descriptors it has.

State, journaled through MachineState.write_scalar so reverse undoes it: `dma_order`
((queue, k) -> the entry of the queue's k-th trigger), `dma_tail` (triggers per queue)
and `dma_head` (completions per queue); a FIFO is `order[q, head:tail]`. DRAM is one
flat uint8 array (`state.dram`) holding every `def.json` var but the SB itself, each at
`base[name]`. Memory writes are journaled with their Pattern as the key, restored
through `state.dma_mem` (so undoing a completion puts SBUF and DRAM bytes back).

Bytes (neff-facts §2.5, §6.4): a side is an offset, sizes and steps in bytes, innermost
first. Its byte addresses in ordinal order (innermost fastest) are `off + sum(i_d *
step_d)`; on the SB side an address is `partition * 0x40000 + byte`. The n-th source
byte goes to the n-th destination byte ("copy"); "cast" converts element n of the
source dtype to element n of the destination dtype (numpy's IEEE round-to-nearest-even:
the hardware's rounding for a DMA cast is not given). Transposes are not modelled
(their layout is not known): the entry completes, and its destination is marked stale
(machine.neff.stale). Anything outside SBUF or its variable is a Fault.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Literal

import ml_dtypes
import numpy as np

from neurondbg.machine.engines.record import Fault
from neurondbg.machine.neff.model import (
    DMA_INCREMENT,
    SB,
    SB_PARTITION_STEP,
    Descriptor,
    DescriptorRange,
    DescriptorTable,
    DmaEntry,
    Engine,
    Subgraph,
)
from neurondbg.machine.neff.stale import mark, marks
from neurondbg.machine.state import MachineState, Region, Write

M32 = 0xFFFFFFFF
MAX_DRAM_BYTES = 1 << 30  # every DRAM variable together (zero pages cost nothing until written)
MAX_MOVE_BYTES = 64 * 1024 * 1024  # one descriptor side (a hostile size is refused)
DRAM_TYPES = ("input", "output", "file", "virtual")  # var types that live in DRAM
KEEP_ENTRIES = 4096  # entries whose merged operations are kept (DmaModel._kept)...
KEEP_OPS = 64  # ... each of at most this many operations (a few KB)

# descriptor dtype names (neff-facts §2.5 sees float32, float16, int8)
DTYPES: dict[str, np.dtype] = {
    "float32": np.dtype(np.float32), "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16), "int8": np.dtype(np.int8),
    "uint8": np.dtype(np.uint8), "int16": np.dtype(np.int16), "uint16": np.dtype(np.uint16),
    "int32": np.dtype(np.int32), "uint32": np.dtype(np.uint32),
}


class DmaError(ValueError):
    """A subgraph whose DMA state cannot be laid out (one line)."""


class Moved:
    """What one completed entry did: the entry, and the SB bytes it read and wrote (as
    Regions, for the race detector and watches; worked out when first asked for)."""

    def __init__(self, entry: DmaEntry, plan: _Plan) -> None:
        self.entry = entry
        self._plan = plan

    @property
    def reads(self) -> tuple[Region, ...]:
        return self._plan.detail.reads

    @property
    def writes(self) -> tuple[Region, ...]:
        return self._plan.detail.writes


Space = Literal["sbuf", "dram"]


@dataclass(frozen=True)
class Pattern:
    """One descriptor side as a strided view of flat memory (SBUF's rows back to back, or
    DRAM): bytes from `offset`, `shape` and `strides` outermost first."""

    space: Space
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    nbytes: int
    region: Region | None  # the SB bytes' bounding box (None for DRAM)

    def view(self, flat: np.ndarray) -> np.ndarray:
        """The side's bytes in `flat` (bounds were checked when the pattern was made, and
        numpy checks them again: a view cannot reach outside its buffer)."""
        return np.ndarray(self.shape, np.uint8, buffer=flat, offset=self.offset,
                          strides=self.strides)


class _Restorer:
    """What the journal writes old bytes back through (`state.dma_mem[pattern] = old`)."""

    def __init__(self, model: DmaModel, state: MachineState) -> None:
        self.model = model
        self.state = state

    def __setitem__(self, pattern: Pattern, old: np.ndarray) -> None:
        pattern.view(self.model.flat(self.state, pattern.space))[...] = old


def _dims(sizes: tuple[int, ...], steps: tuple[int, ...]) -> list[tuple[int, int]]:
    """(size, step) innermost first, size-1 dimensions dropped."""
    return [(n, s) for n, s in zip(sizes, steps, strict=True) if n != 1]


def _reach(dims: list[tuple[int, int]]) -> tuple[int, int]:
    """(lowest, highest) of sum(i_d * step_d) over the dimensions."""
    lo = hi = 0
    for n, s in dims:
        r = (n - 1) * s
        lo, hi = (lo + r, hi) if r < 0 else (lo, hi + r)
    return lo, hi


@dataclass(frozen=True)
class _Geometry:
    """What one side's shape (sizes, steps) gives, whatever its offset: the numpy view's
    shape and strides (outermost first; on the SB side a partition step becomes `row`
    bytes of the flat SBUF), the byte count, the reach of the partition and byte
    dimensions, and the Region's per-partition pattern."""

    nbytes: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    parts: tuple[int, int]
    bytes: tuple[int, int]
    inner_steps: tuple[int, ...]
    inner_nums: tuple[int, ...]
    mixed_step: bool  # a byte step as large as a partition step (refused on the SB side)
    row: int


@lru_cache(maxsize=4096)
def _geometry(sizes: tuple[int, ...], steps: tuple[int, ...], row: int, sb: bool) -> _Geometry:
    nbytes = math.prod(sizes) if sizes else 0
    dims = _dims(sizes, steps)
    shape = tuple(n for n, _ in reversed(dims))
    if not sb:
        return _Geometry(nbytes, shape, tuple(s for _, s in reversed(dims)), (0, 0),
                         _reach(dims), (1,), (1,), False, row)

    def is_part(s: int) -> bool:
        return bool(s) and s % SB_PARTITION_STEP == 0

    parts = [(n, s // SB_PARTITION_STEP) for n, s in dims if is_part(s)]
    inner = [(n, s) for n, s in dims if not is_part(s)]
    strides = tuple(s // SB_PARTITION_STEP * row if is_part(s) else s
                    for _, s in reversed(dims))
    return _Geometry(nbytes, shape, strides, _reach(parts), _reach(inner),
                     tuple(s for _, s in inner) or (1,), tuple(n for n, _ in inner) or (1,),
                     any(abs(s) >= SB_PARTITION_STEP for _, s in inner), row)


def dram_layout(sub: Subgraph) -> tuple[dict[str, int], dict[str, int], int]:
    """Each DRAM variable's offset and size in the model's one DRAM array, and the
    array's size; DmaError when they hold more than MAX_DRAM_BYTES (checked before
    anything is allocated: `tui` refuses such a NEFF as `run` does)."""
    base: dict[str, int] = {}
    size: dict[str, int] = {}
    total = 0
    for name, v in sub.vars.items():
        if v.type in DRAM_TYPES and v.size:
            base[name], size[name] = total, v.size
            total += v.size
    if total > MAX_DRAM_BYTES:
        raise DmaError(f"{sub.name}: the DRAM variables hold {total:,} bytes; the model "
                       f"holds at most {MAX_DRAM_BYTES:,}")
    return base, size, total


class DmaModel:
    """The DMA queues, entries and DRAM of one subgraph (module docstring)."""

    def __init__(self, sub: Subgraph, partitions: int, sbuf_bytes: int,
                 journaled: bool = True) -> None:
        """`journaled` False: steps write without journaling (a headless run that keeps
        no history; a fault part-way through an entry leaves what it wrote)."""
        self.sub = sub
        self.journaled = journaled
        self.partitions = partitions
        self.sbuf_bytes = sbuf_bytes
        self.names: tuple[str, ...] = tuple(sub.queues)
        self.index: dict[str, int] = {q: i for i, q in enumerate(self.names)}
        # every entry once, by (issuing engine, queue, id): a trigger looks in its own
        # engine's list (neff-facts §5.3)
        self.entries: list[DmaEntry] = []
        self.engine_of: list[Engine] = []
        self.lookup: dict[tuple[Engine, str, int], int] = {}
        for e, es in sub.entries.items():
            for x in es:
                self.lookup[(e, x.queue, x.id)] = len(self.entries)
                self.entries.append(x)
                self.engine_of.append(e)
        self.base, self.size, total = dram_layout(sub)
        self.dram = np.zeros(total, dtype=np.uint8)
        self.order: dict[tuple[int, int], int | None] = {}
        self.tail = [0] * len(self.names)
        self.head = [0] * len(self.names)
        # race detection: each triggered entry's clock, handed out at its trigger
        # (machine.neff.actor.TriggerFeeder), joined by its queue at completion
        self.clocks: dict[int, tuple[int, ...]] = {}
        # `_merged_rows`: per (table, kind), what a kind's rows share (None: not a plain
        # copy between SB and DRAM)
        self._kinds: dict[tuple[DescriptorTable, int, int], _Kind | None] = {}
        self._tables: dict[tuple[DescriptorTable, int], _Rows] = {}
        # an entry's merged operations by (entry, SBUF row bytes), kept for an entry
        # completed again (a loop's): at most KEEP_ENTRIES entries of KEEP_OPS operations
        self._kept: dict[tuple[int, int], tuple[tuple[_Op, ...], Exception | None]] = {}

    # -- state ------------------------------------------------------------------------
    def attach(self, state: MachineState) -> None:
        """Give `state` (an engine's or a queue's, of this core) the shared DMA state."""
        state.dma = self  # type: ignore[attr-defined]
        state.dram = self.dram  # type: ignore[attr-defined]
        state.dma_order = self.order  # type: ignore[attr-defined]
        state.dma_tail = self.tail  # type: ignore[attr-defined]
        state.dma_head = self.head  # type: ignore[attr-defined]
        state.dma_mem = _Restorer(self, state)  # type: ignore[attr-defined]
        m = marks(state)
        for name in self.base:
            m.setdefault(name, None)

    def pending(self, q: int) -> int:
        """Entries triggered on queue `q` and not completed."""
        return self.tail[q] - self.head[q]

    def queued(self, q: int) -> list[DmaEntry]:
        """Queue `q`'s FIFO, head first."""
        return [self.entries[self.order[(q, k)] or 0] for k in range(self.head[q],
                                                                     self.tail[q])]

    def var_bytes(self, name: str) -> np.ndarray:
        """A DRAM variable's bytes (a view)."""
        b = self.base[name]
        return self.dram[b:b + self.size[name]]

    def load(self, name: str, data: bytes | np.ndarray) -> None:
        """Set a DRAM variable's bytes before the run (an input, a constant); ValueError
        when the size differs."""
        raw = np.frombuffer(bytes(data), dtype=np.uint8) if isinstance(data, bytes) else (
            np.ascontiguousarray(data).view(np.uint8).reshape(-1))
        if name not in self.base:
            raise ValueError(f"no DRAM variable {name!r} in {self.sub.name}")
        if raw.size != self.size[name]:
            raise ValueError(f"{name}: {raw.size:,} bytes given; the variable holds "
                             f"{self.size[name]:,}")
        self.var_bytes(name)[:] = raw

    # -- steps ------------------------------------------------------------------------
    def trigger(self, state: MachineState, engine: Engine, queue: str, entry_id: int) -> None:
        """A PSEUDO_DMATRIGGER of `engine`: put its entry at the back of its queue's FIFO.
        Fault when the engine's dma list has no such entry."""
        k = self.lookup.get((engine, queue, entry_id))
        if k is None:
            raise Fault(f"PSEUDO_DMATRIGGER: {engine.value}'s dma list has no entry "
                        f"{queue}#{entry_id}")
        q = self.index.get(queue)
        if q is None:
            raise Fault(f"PSEUDO_DMATRIGGER: no DMA queue {queue!r} in def.json")
        tail = self.tail[q]
        if self.journaled:
            self.order.setdefault((q, tail), None)  # write_scalar journals the old value
            state.write_scalar("dma_order", (q, tail), k)
            state.write_scalar("dma_tail", q, tail + 1)
        else:
            self.order[(q, tail)] = k
            self.tail[q] = tail + 1

    def complete(self, state: MachineState, q: int) -> Moved:
        """Queue `q`'s actor takes one step: the head entry moves its bytes, leaves the
        FIFO, and its semaphore rises by 16. Fault when the FIFO is empty or a descriptor
        cannot be moved (the caller undoes the step's writes)."""
        head = self.head[q]
        if head >= self.tail[q]:
            raise Fault(f"DMA queue {self.names[q]} is empty")
        k = self.order[(q, head)]
        assert k is not None
        entry = self.entries[k]
        # worked out at each completion, not kept: an entry is mostly completed once, and
        # 10^5 descriptors' patterns held would cost more memory than they save time
        plan = _Plan(self, state, entry)
        if state.writes is None:  # nobody records the step's writes: the merged copies
            key = (k, state.sbuf.strides[0])
            got = self._kept.get(key)
            if got is None:
                got = plan.merged
                if got[1] is None and len(got[0]) <= KEEP_OPS:
                    if len(self._kept) >= KEEP_ENTRIES:
                        self._kept.clear()
                    self._kept[key] = got
            ops, error = got
        else:
            ops, error = plan.detail.ops, plan.detail.error
        for op in ops:
            self._apply(state, op)
        if error is not None:
            raise error
        s = entry.semaphore
        if self.journaled:
            state.write_scalar("dma_head", q, head + 1)
            state.write_scalar("sem", s, (state.sem[s] + DMA_INCREMENT) & M32)
        else:
            self.head[q] = head + 1
            state.sem[s] = (state.sem[s] + DMA_INCREMENT) & M32
        return Moved(entry, plan)

    # -- bytes ------------------------------------------------------------------------
    def flat(self, state: MachineState, space: Space) -> np.ndarray:
        """SBUF (partition rows back to back) or DRAM as one flat uint8 array."""
        if space == "dram":
            return self.dram
        sbuf = state.sbuf
        assert sbuf.flags.c_contiguous
        return sbuf.reshape(-1)

    def pattern(self, state: MachineState, name: str, off: int, sizes: tuple[int, ...],
                steps: tuple[int, ...], what: str) -> Pattern:
        """A descriptor side as a Pattern, its bounds checked (Fault otherwise). What
        depends on the shape alone (sizes, steps) is computed once per shape: a NEFF's
        descriptors share a few shapes at many offsets."""
        sb = name == SB
        g = _geometry(sizes, steps, state.sbuf.strides[0] if sb else 0, sb)
        nbytes = g.nbytes
        if nbytes > MAX_MOVE_BYTES:
            raise Fault(f"the {what} side covers {nbytes:,} bytes; the model moves at most "
                        f"{MAX_MOVE_BYTES:,} per descriptor")
        if sb:
            return self._sb_pattern(off, g, what)
        base = self.base.get(name)
        if base is None:
            raise Fault(f"the {what} side names {name!r}, not SB nor a DRAM variable")
        lo, hi = g.bytes
        size = self.size[name]
        if nbytes and (off + lo < 0 or off + hi >= size):
            raise Fault(f"{name}[{off + lo:#x}..{off + hi + 1:#x}) is outside the variable "
                        f"({size:,} bytes)")
        return Pattern("dram", base + off, g.shape, g.strides, nbytes, None)

    def _sb_pattern(self, off: int, g: _Geometry, what: str) -> Pattern:
        if g.mixed_step:
            raise Fault(f"the {what} SB side has a step that is neither a byte step within a "
                        f"partition nor a multiple of {SB_PARTITION_STEP:#x} (partitions)")
        p0, byte = divmod(off, SB_PARTITION_STEP)
        (plo, phi), (blo, bhi) = g.parts, g.bytes
        p_lo, p_hi, b_lo, b_hi = p0 + plo, p0 + phi, byte + blo, byte + bhi
        if g.nbytes and (p_lo < 0 or p_hi >= self.partitions or b_lo < 0
                         or b_hi >= self.sbuf_bytes):
            raise Fault(f"SB partitions {p_lo}..{p_hi}, bytes {b_lo:#x}..{b_hi:#x}: outside "
                        f"SBUF ({self.partitions} partitions of {self.sbuf_bytes:,} bytes)")
        # The exact byte pattern within each partition (not its bounding box): a strided
        # spill and a transfer into its gaps do not overlap (neff-facts §7: 0 races).
        region = Region("sbuf", p_lo, p_hi + 1, byte, 1, g.inner_steps, g.inner_nums)
        return Pattern("sbuf", p0 * g.row + byte, g.shape, g.strides, g.nbytes, region)

    def _write(self, state: MachineState, side: Pattern, data: np.ndarray) -> None:
        if side.space == "sbuf" and state.views:
            state.release_views()  # conversion lanes viewing SBUF take their own bytes
        view = side.view(self.flat(state, side.space))
        if (side.space == "dram" and state.writes is None and not data.any()
                and not view.any()):
            # zeros over zeros changes nothing: DRAM pages never written stay unmapped
            # (a run without inputs moves mostly zeros through a DRAM of up to 1 GiB)
            return
        if self.journaled:
            old = np.array(view)
            state.journal.other("array", "dma_mem", side, old)
        else:
            old = None
        view[...] = data.reshape(side.shape)
        if state.writes is not None:
            state.writes.append(Write(side.space, old, data, region=side.region)
                                if side.region is not None else
                                Write("dram", None, int(data.size)))

    def _detail(self, state: MachineState, entry: DmaEntry) -> _Detail:
        """What completing `entry` does, descriptor by descriptor (patterns and bounds,
        casts, stale marks), the SB Regions it reads and writes, and the fault that stops
        it part-way (after the operations of the descriptors before the faulty one)."""
        ops: list[_Op] = []
        reads: list[Region] = []
        writes: list[Region] = []
        error: Exception | None = None
        for n, d in enumerate(entry.descriptors):
            try:
                ops.extend(self._describe(state, entry, d, reads, writes))
            except Fault as e:
                error = Fault(f"DMA {entry.label} descriptor {n}: {e}")
                break
            except Exception as e:  # raised where the step would have met it
                error = e
                break
        return _Detail(tuple(ops), error, tuple(reads), tuple(writes))

    def _side_at(self, name: str, off: int, g: _Geometry) -> int | None:
        """The flat offset of a descriptor side of geometry `g` at `off`, or None when
        `pattern` would refuse it (or make it with nothing to move)."""
        if not g.nbytes or g.nbytes > MAX_MOVE_BYTES:
            return None
        if name == SB:
            if g.mixed_step:
                return None
            p0, byte = divmod(off, SB_PARTITION_STEP)
            (plo, phi), (blo, bhi) = g.parts, g.bytes
            if (p0 + plo < 0 or p0 + phi >= self.partitions or byte + blo < 0
                    or byte + bhi >= self.sbuf_bytes):
                return None
            return p0 * g.row + byte
        base = self.base.get(name)
        lo, hi = g.bytes
        if base is None or off + lo < 0 or off + hi >= self.size[name]:
            return None
        return base + off

    def _kind(self, table: DescriptorTable, k: int, row: int) -> _Kind | None:
        """What every row of kind k of `table` shares when it is a plain copy between
        SB and DRAM (`_merged`'s conditions that do not depend on the offsets)."""
        key = (table, k, row)
        if key in self._kinds:
            return self._kinds[key]
        d = table.kinds[k]
        got: _Kind | None = None
        if (d.transpose_op is None and (d.op in (None, "copy") or (
                d.op == "cast" and d.src_dtype == d.dst_dtype))
                and (d.src == SB) != (d.dst == SB)):
            gs = _geometry(d.src_sizes, d.src_steps, row if d.src == SB else 0, d.src == SB)
            gd = _geometry(d.dst_sizes, d.dst_steps, row if d.dst == SB else 0, d.dst == SB)
            sb, db = self._bounds(d.src, gs), self._bounds(d.dst, gd)
            if (gs.nbytes == gd.nbytes and gs.shape == gd.shape
                    and _disjoint(gd.shape, gd.strides) and sb is not None
                    and db is not None):
                got = _Kind(gs, gd, sb, db)
        if len(self._kinds) >= 4096:
            self._kinds.clear()
        self._kinds[key] = got
        return got

    def _bounds(self, name: str, g: _Geometry) -> _Bounds | None:
        """`_side_at` for one geometry over many offsets: the bounds its offsets must
        keep (None when `_side_at` refuses every offset)."""
        if not g.nbytes or g.nbytes > MAX_MOVE_BYTES:
            return None
        if name == SB:
            if g.mixed_step:
                return None
            (plo, phi), (blo, bhi) = g.parts, g.bytes
            return _Bounds(True, 0, -plo, self.partitions - 1 - phi, -blo,
                           self.sbuf_bytes - 1 - bhi, g.row)
        base = self.base.get(name)
        if base is None:
            return None
        lo, hi = g.bytes
        return _Bounds(False, base, -lo, self.size[name] - 1 - hi, 0, 0, 0)

    def _rows(self, table: DescriptorTable, row: int) -> _Rows:
        """Every row of `table` checked and made flat at once (`_Rows`)."""
        key = (table, row)
        got = self._tables.get(key)
        if got is not None:
            return got
        kinds = [self._kind(table, k, row) for k in range(len(table.kinds))]
        kind = table.kind.astype(np.int64)

        def column(pick: Callable[[_Kind], int]) -> np.ndarray:
            return np.array([pick(x) if x is not None else 0 for x in kinds],
                            dtype=np.int64)[kind]

        ok = np.array([x is not None for x in kinds], dtype=bool)[kind]
        flats = []
        for side, offs in (("src", table.src_off), ("dst", table.dst_off)):
            def b(x: _Kind, side: str = side) -> _Bounds:
                return x.src if side == "src" else x.dst
            off = offs.astype(np.int64)
            sb = column(lambda x: b(x).sb).astype(bool)
            lo, hi = column(lambda x: b(x).plo), column(lambda x: b(x).phi)
            p, byte = np.divmod(off, SB_PARTITION_STEP)
            inside = np.where(sb, (p >= lo) & (p <= hi)
                              & (byte >= column(lambda x: b(x).blo))
                              & (byte <= column(lambda x: b(x).bhi)),
                              (off >= lo) & (off <= hi))
            ok &= inside
            flats.append(np.where(sb, p * column(lambda x: b(x).row) + byte,
                                  off + column(lambda x: b(x).base)))
        so, do = flats
        bad = ~ok
        bad[1:] |= kind[1:] != kind[:-1]
        irregular = np.zeros(len(kind), dtype=bool)
        for f in (so, do):
            d = np.diff(f)
            irregular[2:] |= d[1:] != d[:-1]
        got = _Rows(ok, so, do, np.concatenate(([0], np.cumsum(bad))),
                    np.concatenate(([0], np.cumsum(irregular))))
        if len(self._tables) >= 64:
            self._tables.clear()
        self._tables[key] = got
        return got

    def _merged_rows(self, state: MachineState, descs: DescriptorRange
                     ) -> tuple[_Op, ...] | None:
        """`_merged` for an entry whose descriptors are rows of one kind of a reader's
        DescriptorTable, every row checked and made flat once per table (`_rows`);
        None where `_merged` must look descriptor by descriptor."""
        t, a, z = descs.table, descs.start, descs.stop
        rows = self._rows(t, state.sbuf.strides[0])
        if not rows.ok[a] or rows.bad[z] != rows.bad[a + 1]:
            return None  # some row is not a plain in-bounds copy, or kinds differ
        got = self._kind(t, int(t.kind[a]), state.sbuf.strides[0])
        assert got is not None
        sspace: Space = "sbuf" if got.src.sb else "dram"
        dspace: Space = "dram" if sspace == "sbuf" else "sbuf"
        if z - a < 3 or rows.irregular[z] == rows.irregular[a + 2]:  # evenly spaced
            first = (int(rows.so[a]), int(rows.do[a]))
            two = [first, (int(rows.so[a + 1]), int(rows.do[a + 1]))] if z - a > 1 else [first]
            if z - a < 3 or _disjoint((z - a, *got.gd.shape),
                                      (two[1][1] - first[1], *got.gd.strides)):
                return tuple(_stacked(sspace, dspace, got.gs, got.gd, two, z - a))
        pairs = list(zip(rows.so[a:z].tolist(), rows.do[a:z].tolist(), strict=True))
        if z - a < 3 or rows.irregular[z] == rows.irregular[a + 2]:
            return tuple(_stacked(sspace, dspace, got.gs, got.gd, pairs))
        out: list[_Op] = []
        run: list[tuple[int, int]] = []
        for so, do in pairs:  # `_merged`'s runs: split where the spacing changes
            if len(run) > 1 and (so - run[-1][0] != run[1][0] - run[0][0]
                                 or do - run[-1][1] != run[1][1] - run[0][1]):
                out.extend(_stacked(sspace, dspace, got.gs, got.gd, run))
                run = []
            run.append((so, do))
        out.extend(_stacked(sspace, dspace, got.gs, got.gd, run))
        return tuple(out)

    def _merged(self, state: MachineState, entry: DmaEntry) -> tuple[_Op, ...] | None:
        """The common entry's operations merged (`_merge`) without working out each
        descriptor's Pattern: every descriptor a plain in-bounds copy between SB and
        DRAM. None for any other entry (it takes `_detail`)."""
        descs = entry.descriptors
        if isinstance(descs, DescriptorRange) and len(descs) > 1:
            fast = self._merged_rows(state, descs)
            if fast is not None:
                return fast
        row = state.sbuf.strides[0]
        out: list[_Op] = []
        key: tuple[object, ...] | None = None
        gs: _Geometry | None = None
        gd: _Geometry | None = None
        run: list[tuple[int, int]] = []

        def flush() -> None:
            assert gs is not None and gd is not None
            sspace: Space = "sbuf" if key and key[0] == SB else "dram"
            dspace: Space = "dram" if sspace == "sbuf" else "sbuf"
            out.extend(_stacked(sspace, dspace, gs, gd, run))
            run.clear()

        for d in entry.descriptors:
            if d.transpose_op is not None or not (
                    d.op in (None, "copy") or (d.op == "cast" and d.src_dtype == d.dst_dtype)):
                return None
            k = (d.src, d.dst, d.src_sizes, d.src_steps, d.dst_sizes, d.dst_steps)
            if k != key:
                if run:
                    flush()
                if (d.src == SB) == (d.dst == SB):
                    return None
                key = k
                gs = _geometry(d.src_sizes, d.src_steps, row if d.src == SB else 0, d.src == SB)
                gd = _geometry(d.dst_sizes, d.dst_steps, row if d.dst == SB else 0, d.dst == SB)
                if (gs.nbytes != gd.nbytes or gs.shape != gd.shape
                        or not _disjoint(gd.shape, gd.strides)):
                    return None
            assert gs is not None and gd is not None
            so, do = self._side_at(d.src, d.src_off, gs), self._side_at(d.dst, d.dst_off, gd)
            if so is None or do is None:
                return None
            if len(run) > 1 and (so - run[-1][0] != run[1][0] - run[0][0]
                                 or do - run[-1][1] != run[1][1] - run[0][1]):
                flush()
            run.append((so, do))
        if run:
            flush()
        return tuple(out)

    def _describe(self, state: MachineState, entry: DmaEntry, d: Descriptor,
                  reads: list[Region], writes: list[Region]) -> list[_Op]:
        """One descriptor's operations (Fault when it cannot be moved)."""
        src = self.pattern(state, d.src, d.src_off, d.src_sizes, d.src_steps, "source")
        dst = self.pattern(state, d.dst, d.dst_off, d.dst_sizes, d.dst_steps, "destination")
        if src.region is not None:
            reads.append(src.region)
        if dst.region is not None:
            writes.append(dst.region)
        if d.transpose_op is not None or (d.op not in (None, "copy", "cast")):
            what = d.op or f"transpose {d.transpose_op}"
            return [_Op("mark", src, dst, mark=("sbuf" if d.dst == SB else d.dst,
                                                f"DMA {entry.label} ({what})"))]
        if d.op == "cast" and d.src_dtype != d.dst_dtype:
            a, b = DTYPES.get(d.src_dtype), DTYPES.get(d.dst_dtype)
            if a is None or b is None:
                bad = d.src_dtype if a is None else d.dst_dtype
                raise Fault(f"cast dtype {bad!r} is not modelled (" + ", ".join(DTYPES) + ")")
            if src.nbytes % a.itemsize or dst.nbytes != src.nbytes // a.itemsize * b.itemsize:
                raise Fault(f"a cast of {src.nbytes:,} bytes of {d.src_dtype} to "
                            f"{dst.nbytes:,} bytes of {d.dst_dtype}: the element counts differ")
            return [_Op("cast", src, dst, cast=(a, b))]
        if src.nbytes != dst.nbytes:
            raise Fault(f"copies {src.nbytes:,} bytes into {dst.nbytes:,}")
        return [_Op("copy", src, dst)]

    def _apply(self, state: MachineState, op: _Op) -> None:
        if op.kind == "mark":
            assert op.mark is not None
            mark(state, *op.mark)
            return
        src, dst = op.src, op.dst
        view = src.view(self.flat(state, src.space))
        if op.kind == "copy" and state.writes is None and src.shape == dst.shape:
            # a plain copy nobody records: straight from view to view (numpy copies
            # through a buffer when the two overlap), without the intermediate array
            self._write(state, dst, view)
            return
        data = np.array(view).reshape(-1)
        if op.cast is not None:
            a, b = op.cast
            with np.errstate(all="ignore"):
                data = data.view(a).astype(b).view(np.uint8)
        self._write(state, dst, data)


@dataclass(frozen=True)
class _Op:
    """One step of completing an entry: copy or cast `src` to `dst`, or make a stale
    mark (space, who) for a descriptor the model does not move."""

    kind: Literal["copy", "cast", "mark"]
    src: Pattern
    dst: Pattern
    cast: tuple[np.dtype, np.dtype] | None = None
    mark: tuple[str, str] | None = None


@dataclass(frozen=True)
class _Bounds:
    """`DmaModel._side_at` for the offsets of one geometry: an SB side's partition (off
    // SB_PARTITION_STEP) in [plo, phi] and byte in [blo, bhi], its flat offset
    partition * row + byte; a DRAM side's offset in [plo, phi], flat base + off."""

    sb: bool
    base: int
    plo: int
    phi: int
    blo: int
    bhi: int
    row: int


@dataclass(frozen=True)
class _Kind:
    """A descriptor kind that is a plain copy between SB and DRAM: its two geometries
    and the bounds of its two sides."""

    gs: _Geometry
    gd: _Geometry
    src: _Bounds
    dst: _Bounds


@dataclass(frozen=True)
class _Rows:
    """A DescriptorTable's rows for `DmaModel._merged_rows`: `ok` (a plain in-bounds copy
    between SB and DRAM), the flat source and destination offsets, and prefix counts
    (entry k of each counts rows before row k) of rows that are not ok or not of the
    previous row's kind (`bad`) and of rows whose spacing from the previous row differs
    from the previous row's (`irregular`)."""

    ok: np.ndarray
    so: np.ndarray
    do: np.ndarray
    bad: np.ndarray
    irregular: np.ndarray


@dataclass(frozen=True)
class _Detail:
    """An entry's completion descriptor by descriptor (DmaModel._detail)."""

    ops: tuple[_Op, ...]
    error: Exception | None
    reads: tuple[Region, ...]
    writes: tuple[Region, ...]


class _Plan:
    """What completing one entry does, worked out when asked: `merged`, the operations
    with runs of copies merged (and the fault that ends them), for a step nobody
    records; `detail`, descriptor by descriptor with its Regions."""

    def __init__(self, model: DmaModel, state: MachineState, entry: DmaEntry) -> None:
        self._model = model
        self._state = state
        self._entry = entry

    @cached_property
    def merged(self) -> tuple[tuple[_Op, ...], Exception | None]:
        fast = self._model._merged(self._state, self._entry)
        if fast is not None:
            return fast, None
        return _merge(self.detail.ops), self.detail.error

    @cached_property
    def detail(self) -> _Detail:
        return self._model._detail(self._state, self._entry)


def _stacked(sspace: Space, dspace: Space, gs: _Geometry, gd: _Geometry,
             run: list[tuple[int, int]], count: int | None = None) -> list[_Op]:
    """Copies of one geometry at the flat (source, destination) offsets of `run`, evenly
    spaced: one copy with an outer dimension when no destination byte is written twice,
    else one copy each. `count`: the run has this many copies, of which `run` gives the
    first two (the rest follow at the same spacing)."""
    def op(so: int, do: int, n: int, ds: int, dd: int) -> _Op:
        shape = (n, *gs.shape) if n > 1 else gs.shape
        return _Op("copy", Pattern(sspace, so, shape, (ds, *gs.strides) if n > 1 else
                                   gs.strides, n * gs.nbytes, None),
                   Pattern(dspace, do, shape, (dd, *gd.strides) if n > 1 else gd.strides,
                           n * gd.nbytes, None))

    n = len(run) if count is None else count
    ds = run[1][0] - run[0][0] if n > 1 else 0
    dd = run[1][1] - run[0][1] if n > 1 else 0
    if n > 1 and _disjoint((n, *gd.shape), (dd, *gd.strides)):
        return [op(*run[0], n, ds, dd)]
    if count is not None and count != len(run):
        run = [(run[0][0] + k * ds, run[0][1] + k * dd) for k in range(count)]
    return [op(so, do, 1, 0, 0) for so, do in run]


@lru_cache(maxsize=4096)
def _disjoint(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """True when no two elements of the strided view (shape, strides) share a byte (a
    sufficient test: each stride, smallest first, steps past everything inside it)."""
    reach = 0
    for n, s in sorted(((n, abs(s)) for n, s in zip(shape, strides, strict=True) if n > 1),
                       key=lambda x: x[1]):
        if s <= reach:
            return False
        reach += (n - 1) * s
    return True


def _stack(run: list[_Op]) -> _Op:
    """Copies of one shape at evenly spaced offsets, as one copy with an outer dimension."""
    first, src, dst = run[0], run[0].src, run[0].dst
    n = len(run)
    ds = run[1].src.offset - src.offset if n > 1 else 0
    dd = run[1].dst.offset - dst.offset if n > 1 else 0
    return _Op("copy", replace(src, shape=(n, *src.shape), strides=(ds, *src.strides),
                               nbytes=n * src.nbytes, region=None),
               replace(dst, shape=(n, *dst.shape), strides=(dd, *dst.strides),
                       nbytes=n * dst.nbytes, region=None), first.cast, first.mark)


def _merge(ops: Sequence[_Op]) -> tuple[_Op, ...]:
    """`ops` with each run of plain copies that can go as one merged into one copy.

    A run: copies from one space to the other (a source is never a destination), of one
    source shape and strides and one destination shape and strides, the same as each
    other, at offsets that advance by the same amount each time; and no byte of the
    destinations is written twice. Such copies give the same bytes in any order, so one
    numpy copy of the stacked views does what they do one after another."""
    out: list[_Op] = []
    run: list[_Op] = []

    def fits(op: _Op) -> bool:
        if not run:
            return True
        a, b = run[0], run[-1]
        if (op.src.shape != a.src.shape or op.src.strides != a.src.strides
                or op.dst.shape != a.dst.shape or op.dst.strides != a.dst.strides
                or op.src.space != a.src.space or op.dst.space != a.dst.space):
            return False
        ds, dd = op.src.offset - b.src.offset, op.dst.offset - b.dst.offset
        if len(run) > 1 and (ds != b.src.offset - run[-2].src.offset
                             or dd != b.dst.offset - run[-2].dst.offset):
            return False
        return _disjoint((len(run) + 1, *a.dst.shape), (dd, *a.dst.strides))

    def flush() -> None:
        if len(run) == 1:
            out.append(run[0])
        elif run:
            out.append(_stack(run))
        run.clear()

    for op in ops:
        if (op.kind == "copy" and op.src.space != op.dst.space
                and op.src.shape == op.dst.shape and _disjoint(op.dst.shape, op.dst.strides)):
            if not fits(op):
                flush()
            run.append(op)
        else:
            flush()
            out.append(op)
    flush()
    return tuple(out)
