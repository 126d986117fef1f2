"""Strided access patterns read and written through one strided view (Region.strided)
give the bytes the byte-index gather and scatter give, and undo restores them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.state import MachineConfig, MachineState, Region

PARTS, BYTES = 4, 512


@st.composite
def regions(draw: st.DrawFn) -> Region:
    size = draw(st.sampled_from([1, 2, 3, 4, 8]))  # 3: no container (bytes last)
    nums = tuple(draw(st.integers(1, 4)) for _ in range(4))
    steps = tuple(draw(st.integers(-6, 6)) for _ in range(4))
    r = Region("sbuf", 0, 1, 0, size, steps, nums)
    lo, hi = r.bounds
    start = draw(st.integers(-lo, BYTES - hi))
    p0 = draw(st.integers(0, PARTS - 1))
    return Region("sbuf", p0, draw(st.integers(p0 + 1, PARTS)), start, size, steps, nums)


def _state(seed: int) -> MachineState:
    s = MachineState.create(MachineConfig(partitions=PARTS, sbuf_bytes=BYTES, psum_bytes=64))
    s.sbuf[...] = np.random.default_rng(seed).integers(0, 256, s.sbuf.shape, dtype=np.uint8)
    return s


@settings(deadline=None, max_examples=40)
@given(regions(), st.integers(0, 1000))
def test_strided_read_write_undo_match_the_byte_index(r: Region, seed: int) -> None:
    s = _state(seed)
    before = s.sbuf.copy()
    idx = r.byte_index
    gathered = s.sbuf[r.p0:r.p1, idx]
    assert np.array_equal(s.read_block(r), gathered)
    data = np.random.default_rng(seed + 1).integers(0, 256, gathered.shape, dtype=np.uint8)
    expect = s.sbuf.copy()
    expect[r.p0:r.p1, idx] = data  # the scatter (duplicates: the last one wins)
    s.begin_step()
    s.write_block(r, data)
    s.end_step()
    assert np.array_equal(s.sbuf, expect)
    s.undo_step()
    assert np.array_equal(s.sbuf, before)


def test_layout_says_which_patterns_overlap() -> None:
    assert Region("sbuf", 0, 1, 0, 4, (2, 1, 1, 1), (3, 1, 1, 1)).layout[2]
    assert not Region("sbuf", 0, 1, 0, 4, (1, 0, 1, 1), (3, 2, 1, 1)).layout[2]  # step 0
    assert Region("sbuf", 0, 1, 64, 2, (-1, 8, 1, 1), (4, 2, 1, 1)).layout == (
        (2, 4, 2), (16, -2, 1), True)
