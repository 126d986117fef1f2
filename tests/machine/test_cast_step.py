"""The bulk CAST/COPY step path: contiguous patterns decided from the descriptor,
slice writes, exact undo, and lanes that survive later writes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.convert import convert
from neurondbg.machine.state import MachineConfig, MachineState, Region
from tests.machine.helpers import get, machine, put


def _offsets_contiguous(r: Region) -> bool:
    """The definition: byte offsets in ordinal order advance by one element each."""
    o = r._offsets()
    return o.size == 1 or bool(np.all(np.diff(o) == r.size))


@settings(deadline=None, max_examples=300)
@given(st.lists(st.integers(-3, 9), min_size=4, max_size=4),
       st.lists(st.integers(1, 4), min_size=4, max_size=4), st.sampled_from([1, 2, 4, 8]),
       st.integers(0, 64))
def test_contiguous_from_descriptor_matches_offsets(steps, nums, size, start) -> None:
    r = Region("sbuf", 0, 2, start, size, tuple(steps), tuple(nums))
    assert r.contiguous == _offsets_contiguous(r)
    assert "elem_offsets" not in vars(r)  # decided without index arrays
    bi = r.byte_index
    bytes_of = (r._offsets()[:, None] + np.arange(size)[None, :]).ravel()
    got = np.arange(bi.start, bi.stop) if isinstance(bi, slice) else bi
    assert np.array_equal(got, bytes_of)


def test_packed_multi_dim_pattern_is_a_slice_and_journal_keeps_it_small() -> None:
    r = Region("sbuf", 0, 4, 16, 2, (1, 8, 0, 40), (8, 5, 1, 1))  # dims 0, 1 packed; 2, 3 single
    assert r.contiguous and r.byte_index == slice(16, 16 + 2 * 40)
    s = MachineState.create(MachineConfig(partitions=4, sbuf_bytes=256, psum_bytes=64))
    data = np.arange(4 * 80, dtype=np.uint8).reshape(4, 80)
    s.begin_step()
    s.write_block(r, data)
    s.end_step()
    assert np.array_equal(s.sbuf[:, 16:96], data)
    kept = s.journal.others[-1].key
    assert kept == r and "elem_offsets" not in vars(kept)
    s.undo_step()
    assert not s.sbuf.any()


CAST = ("CAST in_dtype=FP32 out_dtype=BF16 nac=8 src=sb[0, 0] step=[{s},0,0,0] num=[64,1,1,1] "
        "dst=sb[0, 0x400] step=[{d},0,0,0] num=[64,1,1,1]\nHALT")


def _cast_machine(src_step: int, dst_step: int):
    m = machine(CAST.format(s=src_step, d=dst_step), partitions=8)
    rng = np.random.default_rng(src_step * 10 + dst_step)
    put(m, slice(0, 8), 0, rng.standard_normal((8, 256)).astype(np.float32))
    put(m, slice(0, 8), 0x400, rng.integers(0, 256, (8, 1024), dtype=np.uint8))  # old bytes
    return m


def test_cast_step_reverse_step_is_bit_identical_contiguous_and_strided() -> None:
    for src_step, dst_step in ((1, 1), (2, 1), (1, 3), (3, 2)):
        m = _cast_machine(src_step, dst_step)
        before = m.state.digest()
        src = m.state.sbuf[:, :4 * 64 * src_step].view(np.uint32)[:, ::src_step]
        want = convert(src, "fp32", "bf16", "rint", False, "neuron")
        rec = m.step()
        assert rec.executed, rec.fault
        after = m.state.digest()
        out = m.state.sbuf[:, 0x400:0x400 + 2 * 64 * dst_step].view(np.uint16)[:, ::dst_step]
        assert np.array_equal(out, want)
        assert np.array_equal(rec.lanes.out_bits, want)
        m.state.undo_step()
        assert m.state.digest() == before
        m.step()
        assert m.state.digest() == after


def test_write_record_new_and_old_stay_stable_after_undo_and_redo() -> None:
    m = _cast_machine(1, 1)
    old_dst = m.state.sbuf[:, 0x400:0x480].copy()
    rec = m.step()
    w = next(w for w in rec.writes if w.target == "sbuf")
    new = np.array(w.new, copy=True)
    m.state.undo_step()
    m.state.sbuf[:, 0x400:0x480] ^= 0xFF  # later writes do not reach the record
    assert np.array_equal(w.old, old_dst) and np.array_equal(w.new, new)


def test_cast_into_its_own_source_keeps_lane_inputs() -> None:
    m = machine("CAST in_dtype=FP32 out_dtype=FP32 nac=2 src=sb[0, 0] step=[1,0,0,0] "
                "num=[4,1,1,1] dst=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1]\n"
                "CAST in_dtype=FP32 out_dtype=BF16 nac=2 src=sb[0, 0] step=[1,0,0,0] "
                "num=[4,1,1,1] dst=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1]\nHALT", partitions=2)
    vals = np.array([[1.0, 1.00390625, -2.5, 3e38]] * 2, np.float32)
    put(m, slice(0, 2), 0, vals)
    m.step()
    rec = m.step()  # overwrites its own source: the lanes must keep the fp32 inputs
    assert np.array_equal(rec.lanes.in_bits, vals.view(np.uint32))
    assert get(m, 0, 0, np.uint16, 4).tolist() == [0x3F80, 0x3F80, 0xC020, 0x7F62]
    m.state.undo_step()
    assert np.array_equal(get(m, 1, 0, np.float32, 4), vals[1])


def test_zero_destination_journals_no_copy_and_undoes_exactly() -> None:
    n = 64 * 64  # 16 KiB per partition pair: large enough for the zero check
    s = MachineState.create(MachineConfig(partitions=4, sbuf_bytes=64 * 1024, psum_bytes=64))
    r = Region("sbuf", 0, 4, 1024, 4, (1, 0, 0, 0), (n, 1, 1, 1))
    for poke in (None, (3, 1024 + 4 * n - 1), (0, 1024)):  # all zero; last byte; first byte
        if poke is not None:
            s.sbuf[poke] = 0x5A
        before = s.sbuf.copy()
        s.writes = []
        s.begin_step()
        s.write_block(r, np.full((4, 4 * n), 0xC3, np.uint8))
        s.end_step()
        old = s.writes[0].old
        assert np.array_equal(old, before[:, 1024:1024 + 4 * n])
        assert (old.strides == (0, 0)) == (poke is None)  # only an all-zero block is shared
        s.writes = None
        s.undo_step()
        assert np.array_equal(s.sbuf, before)
