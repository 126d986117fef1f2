"""What a DMA descriptor touches: its SB side as partitions and byte runs, and the
extent of its DRAM side (neff-facts §2.5, §6.4).

A descriptor side is an offset, sizes and steps, innermost first, all in bytes (the
innermost size counts bytes). On the SB side the offset is `partition * 0x40000 +
byte`, and the dimension whose step is 0x40000 counts partitions; it is taken out, and
the others give byte offsets within each partition:

    {(p, byte + sum(i_d * step_d)) : p in [p0, p0 + parts), i_d < size_d}

`sb_side(desc)` gives that set as `SbSide` (partitions, the start of each contiguous
run, the run length), computed with numpy and refused past MAX_RUNS runs;
`extent(sizes, steps, off)` the lowest and one-past-highest byte of any side, without
enumerating it; validate uses the extents to check that every side stays inside its
buffer. `Footprints.sides(entry)` gives the SB Regions a DMA entry's completion reads
and writes, descriptor by descriptor, exactly as the DMA model names them
(machine.neff.dma: partitions p_lo..p_hi, the byte pattern within each), for the
headless run's race check (machine.neff.racecheck); Regions of the same side are shared
objects (a NEFF's entries reuse a few SB tiles).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from neurondbg.machine.neff.model import (
    SB,
    SB_PARTITION_STEP,
    Descriptor,
    DescriptorRange,
    DmaEntry,
    sb_dims,
)
from neurondbg.machine.state import Region

MAX_RUNS = 1 << 20  # contiguous runs one side may have before it is refused


class FootprintError(ValueError):
    """A side too large to enumerate."""


Access = Literal["read", "write"]


@dataclass(frozen=True)
class SbSide:
    """The SB bytes one descriptor reads (`access` "read": SB is its source) or writes."""

    access: Access
    first_partition: int
    partitions: int
    starts: np.ndarray  # int64: byte offset in each partition where a run begins
    run: int  # bytes per run

    def bytes_per_partition(self) -> int:
        return len(self.starts) * self.run


def extent(off: int, sizes: tuple[int, ...], steps: tuple[int, ...]) -> tuple[int, int]:
    """(lowest byte, one past the highest byte) a side touches; (off, off) when empty.
    The innermost dimension counts bytes: its last byte is size-1 steps on."""
    if not sizes or 0 in sizes:
        return off, off
    lo = hi = off
    for size, step in zip(sizes, steps, strict=True):
        reach = (size - 1) * step
        if reach >= 0:
            hi += reach
        else:
            lo += reach
    return lo, hi + 1


def _split(desc: Descriptor) -> tuple[Access, int, tuple[int, ...], tuple[int, ...]] | None:
    if desc.dst == SB:
        return "write", desc.dst_off, desc.dst_sizes, desc.dst_steps
    if desc.src == SB:
        return "read", desc.src_off, desc.src_sizes, desc.src_steps
    return None


def sb_partitions(off: int, sizes: tuple[int, ...], steps: tuple[int, ...]
                  ) -> tuple[int, int, int, list[tuple[int, int]]]:
    """(first partition, partition count, byte offset in the partition, the other
    dimensions as (size, step)) of an SB side. Partition dimensions are those whose
    step is a multiple of 0x40000 (model.sb_dims); the count spans their reach."""
    p0, byte = divmod(off, SB_PARTITION_STEP)
    (lo, hi), rest = sb_dims(sizes, steps)
    return p0 + lo, hi - lo + 1, byte, rest


def sb_side(desc: Descriptor) -> SbSide | None:
    """The SB side of `desc`, None when neither side is SB (DRAM to DRAM)."""
    split = _split(desc)
    if split is None:
        return None
    access, off, sizes, steps = split
    p0, parts, byte, rest = sb_partitions(off, sizes, steps)
    if not rest:
        return SbSide(access, p0, parts, np.array([byte], dtype=np.int64), 1)
    (n0, s0), outer = rest[0], rest[1:]
    run = n0 if s0 == 1 else 1  # contiguous innermost bytes are one run
    count = int(np.prod([n for n, _ in outer], dtype=np.int64)) * (1 if s0 == 1 else n0)
    if count > MAX_RUNS:
        raise FootprintError(f"an SB side of {count:,} runs (more than {MAX_RUNS:,})")
    starts = np.array([byte], dtype=np.int64)
    dims = outer if s0 == 1 else [(n0, s0), *outer]
    for n, s in dims:
        starts = (starts[None, :] + (np.arange(n, dtype=np.int64) * s)[:, None]).reshape(-1)
    return SbSide(access, p0, parts, np.sort(starts), run)


REGIONS_KEPT = 1 << 14  # distinct SB sides a Footprints keeps the Region of


def sb_region(off: int, sizes: tuple[int, ...], steps: tuple[int, ...]) -> Region:
    """The Region of an SB side as the DMA model gives it: partitions [p_lo, p_hi] (the
    reach of the dimensions whose step is a non-zero multiple of 0x40000), and within
    each the other dimensions (size-1 ones dropped) from the side's byte, in bytes."""
    p0, byte = divmod(off, SB_PARTITION_STEP)
    plo = phi = 0
    inner_steps: list[int] = []
    inner_nums: list[int] = []
    for n, s in zip(sizes, steps, strict=True):
        if n == 1:
            continue
        if s and s % SB_PARTITION_STEP == 0:
            r = (n - 1) * (s // SB_PARTITION_STEP)
            if r < 0:
                plo += r
            else:
                phi += r
        else:
            inner_steps.append(s)
            inner_nums.append(n)
    return Region("sbuf", p0 + plo, p0 + phi + 1, byte, 1, tuple(inner_steps) or (1,),
                  tuple(inner_nums) or (1,))


class Footprints:
    """The SB sides of DMA entries as Regions (module docstring), kept by side."""

    def __init__(self) -> None:
        self._regions: dict[tuple[int, tuple[int, ...], tuple[int, ...]], Region] = {}

    def region(self, off: int, sizes: tuple[int, ...], steps: tuple[int, ...]) -> Region:
        key = (off, sizes, steps)
        got = self._regions.get(key)
        if got is None:
            if len(self._regions) >= REGIONS_KEPT:
                self._regions.clear()
            got = self._regions[key] = sb_region(off, sizes, steps)
        return got

    def sides(self, entry: DmaEntry) -> tuple[tuple[Region, ...], tuple[Region, ...]]:
        """(the SB Regions `entry` reads, those it writes), in descriptor order."""
        reads: list[Region] = []
        writes: list[Region] = []
        region = self.region
        descs = entry.descriptors
        if isinstance(descs, DescriptorRange):  # the reader's: rows of a table's columns
            t, a, z = descs.table, descs.start, descs.stop
            kinds = t.kinds
            for k, so, do in zip(t.kind[a:z].tolist(), t.src_off[a:z].tolist(),
                                 t.dst_off[a:z].tolist(), strict=True):
                d = kinds[k]
                if d.src == SB:
                    reads.append(region(so, d.src_sizes, d.src_steps))
                if d.dst == SB:
                    writes.append(region(do, d.dst_sizes, d.dst_steps))
            return tuple(reads), tuple(writes)
        for d in descs:
            if d.src == SB:
                reads.append(region(d.src_off, d.src_sizes, d.src_steps))
            if d.dst == SB:
                writes.append(region(d.dst_off, d.dst_sizes, d.dst_steps))
        return tuple(reads), tuple(writes)
