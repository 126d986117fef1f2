"""The SB side of a DMA descriptor (neff-facts §6.4) and the bounds check built on it."""

from __future__ import annotations

from dataclasses import replace
from itertools import product

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.neff.checks import Level, check_subgraph
from neurondbg.machine.neff.footprint import MAX_RUNS, FootprintError, extent, sb_side
from neurondbg.machine.neff.model import SB, Descriptor, Engine
from neurondbg.machine.neff.triggers import resolve_triggers, trigger_record
from tests.neff.synth import stream, vector_add

P = 0x40000


def desc(src: str, dst: str, off: int, sizes: tuple[int, ...], steps: tuple[int, ...]
         ) -> Descriptor:
    return Descriptor(src, dst, "float32", "float32", off, off, sizes, sizes, steps, steps)


def brute(off: int, sizes: tuple[int, ...], steps: tuple[int, ...]) -> set[tuple[int, int]]:
    """Every (partition, byte) by the formula of neff-facts §6.4, one by one."""
    out = set()
    for idx in product(*(range(n) for n in sizes)):
        a = off + sum(i * s for i, s in zip(idx, steps, strict=True))
        out.add(divmod(a, P))
    return out


@given(st.integers(0, 3), st.integers(0, 4096), st.integers(1, 40), st.integers(1, 4),
       st.integers(1, 5), st.integers(-64, 300), st.sampled_from([1, 2]))
def test_sb_side_is_the_formula(p0: int, byte: int, run: int, rows: int, parts: int,
                                row_step: int, inner_step: int) -> None:
    off = p0 * P + byte + max(0, -row_step * (rows - 1))
    sizes, steps = (run, rows, parts), (inner_step, row_step, P)
    side = sb_side(desc("X", SB, off, sizes, steps))
    assert side is not None and side.access == "write"
    got = {(p, int(b) + k) for p in range(side.first_partition,
                                          side.first_partition + side.partitions)
           for b in side.starts for k in range(side.run)}
    assert got == brute(off, sizes, steps)
    lo, hi = extent(off % P, (run, rows), (inner_step, row_step))
    assert lo == min(b for _, b in got) and hi == max(b for _, b in got) + 1


def test_sides() -> None:
    read = sb_side(desc(SB, "out", 2 * P + 16, (64, 128), (1, P)))
    assert read is not None and (read.access, read.first_partition, read.partitions) == (
        "read", 2, 128)
    assert read.starts.tolist() == [16] and read.run == 64 and read.bytes_per_partition() == 64
    assert sb_side(desc("a", "b", 0, (4,), (1,))) is None
    with pytest.raises(FootprintError):
        sb_side(desc("X", SB, 0, (1, MAX_RUNS + 1), (1, 2)))


@pytest.mark.parametrize("tiles", [1, 2, 4])
def test_a_tiled_partition_dimension_counts_partitions(tiles: int) -> None:
    """A transposing descriptor may split the partitions in tiles: step k x 0x40000 moves
    k partitions (a byte offset that large cannot be inside one). The footprint, the
    one-line summary and the model's bytes agree: every partition, the same bytes."""
    per = 128 // tiles
    sizes, steps = (256, per, tiles), (1, P, per * P)
    side = sb_side(desc("X", SB, 0x300, sizes, steps))
    assert side is not None
    assert (side.first_partition, side.partitions, side.starts.tolist(), side.run) == (
        0, 128, [0x300], 256)
    assert {(p, b) for p in range(128) for b in range(0x300, 0x400)} == brute(0x300, sizes,
                                                                              steps)
    assert desc("X", SB, 0x300, sizes, steps).summary().endswith(
        "-> SB[p0..127 +0x300 256B/p] copy float32")


def findings(sub):
    return [f for f in check_subgraph(sub, resolve_triggers(sub, "k"), Gen.SUNDA)
            if f.check == "dma_in_bounds"]


def test_bounds() -> None:
    sub = vector_add()
    assert findings(sub) == []
    x = sub.entries[Engine.SP][0]
    d = x.descriptors[0]
    bad = [d._replace(dst_off=200 * 1024),  # sunda has 192 KiB per partition
           d._replace(src="nowhere"),
           d._replace(src_off=4000),  # X holds 4096 bytes
           d._replace(dst_sizes=(512, 129), dst_steps=(1, P)),
           d._replace(dst_off=200 * 1024, transpose_op="WZXY")]
    sub.entries[Engine.SP] = tuple(replace(x, id=i, semaphore=8 + i, descriptors=(b,))
                                   for i, b in enumerate(bad))
    sub.streams[Engine.SP] = stream(*(trigger_record("qSPIO0", i) for i in range(5)))
    got = [(f.level, f.message) for f in findings(sub)]
    assert got == [
        (Level.WARN, "SP.json entry qSPIO0#0 descriptor 0 reaches SB bytes 0x32000..0x32200 "
                     "of a partition (the modelled SBUF has 0x30000)"),
        (Level.WARN, "SP.json entry qSPIO0#1 descriptor 0 reaches 'nowhere', which is not "
                     "a def.json var"),
        (Level.WARN, "SP.json entry qSPIO0#2 descriptor 0 reaches X bytes 4,000..4,512 (the "
                     "var holds 4,096)"),
        (Level.WARN, "SP.json entry qSPIO0#3 descriptor 0 reaches SB partitions 0..128 "
                     "(there are 128)"),
        (Level.NOTE, "1 transpose descriptor: not checked (transpose semantics are not "
                     "known)"),
    ]


def test_an_entrys_regions_are_the_dma_models() -> None:
    """Footprints.sides names the SB Regions the DMA model moves (Moved.reads/writes,
    what the core's race feed reads), descriptor by descriptor: partition dimensions
    (also negative, and split as 2 x 64), strided bytes, both sides SB, a DRAM-only one."""
    from neurondbg.machine.neff.dma import DmaModel
    from neurondbg.machine.neff.footprint import Footprints
    from neurondbg.machine.neff.model import (
        DescriptorRange,
        DescriptorTable,
        DmaEntry,
        DmaQueue,
        Subgraph,
        Var,
    )
    from neurondbg.machine.state import MachineConfig, MachineState

    def d(src: str, dst: str, so: int, do: int, sizes: tuple[int, ...],
          ss: tuple[int, ...], ds: tuple[int, ...]) -> Descriptor:
        return Descriptor(src, dst, "float32", "float32", so, do, sizes, sizes, ss, ds)

    descs = (d("x", SB, 0, 3 * P + 0x40, (64, 4), (1, 64), (1, P)),
             d("x", SB, 0, 5 * P, (64, 4), (1, 64), (1, -P)),
             d(SB, "x", 0x100, 0, (64, 64, 2), (1, P, 64 * P), (1, 64, 4096)),
             d(SB, "x", 0x200, 0, (4, 8, 3), (1, 16, P), (1, 4, 32)),
             d(SB, SB, 0x300, 0x800, (32, 2), (1, P), (1, P)),
             d("x", "y", 0, 0, (256,), (1,), (1,)),
             d("x", SB, 0, 0x900, (16, 1, 4), (1, 7, 64), (1, 99, P)))
    entry = DmaEntry("q", 0, 8, descs)
    sub = Subgraph("sg", {}, {"q": DmaQueue("q", Engine.SP, tuple(range(8, 24)))},
                   {Engine.SP: (entry,)},
                   {"SB": Var("SB", "state-buffer", 0), "x": Var("x", "input", 1, 1 << 16),
                    "y": Var("y", "input", 2, 1 << 16)}, {})
    st = MachineState.create(MachineConfig(gen=Gen.CAYMAN))
    dma = DmaModel(sub, st.config.partitions, st.config.sbuf_bytes)
    dma.attach(st)
    dma.trigger(st, Engine.SP, "q", 0)
    moved = dma.complete(st, 0)
    assert Footprints().sides(entry) == (moved.reads, moved.writes)
    assert len(moved.reads) == 3 and len(moved.writes) == 4
    # the reader's form: the same descriptors as rows of a table's columns
    table = DescriptorTable(descs, np.arange(len(descs)),
                            np.array([x.src_off for x in descs]),
                            np.array([x.dst_off for x in descs]))
    rows = replace(entry, descriptors=DescriptorRange(table, 0, len(descs)))
    assert Footprints().sides(rows) == (moved.reads, moved.writes)
