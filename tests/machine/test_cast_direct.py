"""CAST converting straight into destination memory: convert(out=...), exact undo,
and records (lanes, writes) that stay what the step wrote after that memory changes."""

from __future__ import annotations

import numpy as np
import pytest

from neurondbg.machine.convert import convert
from neurondbg.machine.convert.formats import FORMATS
from tests.machine.helpers import (
    core_of,
    get,
    machine,
    put,
    queue,
)

PAIRS = [(s, d) for s in FORMATS for d in FORMATS]


def _lanes(fmt: str, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    f = FORMATS[fmt]
    return rng.integers(0, 1 << f.bits, shape, dtype=np.uint64).astype(f.container)


@pytest.mark.parametrize("profile", ["neuron", "ieee", "ascend"])
def test_convert_out_equals_convert_for_every_pair(profile: str) -> None:
    rng = np.random.default_rng(5)
    checked = 0
    for s, d in PAIRS:
        # 3 x 40 lanes (direct paths) and 2 x 3000 (16-bit sources use the table)
        for shape in ((3, 40), (2, 3000)):
            b = _lanes(s, rng, shape)
            try:
                want = convert(b, s, d, "rint", False, profile)
            except ValueError:
                continue  # a pair the profile refuses (fp32r as a source)
            c = FORMATS[d].container
            mem = np.full((shape[0], shape[1] + 9), 0xA5, c)  # rows of a larger buffer
            out = mem[:, 5:5 + shape[1]]
            got = convert(b, s, d, "rint", False, profile, out=out)
            assert got is out and np.array_equal(out, want), (s, d, profile)
            assert (mem[:, :5] == c.type(0xA5)).all() and (mem[:, 5 + shape[1]:] ==
                                                            c.type(0xA5)).all()
            checked += 1
    assert checked > len(PAIRS)


@pytest.mark.parametrize(("s", "d"), [("fp32", "bf16"), ("fp32", "fp32"), ("bf16", "fp8_e4m3fn"),
                                      ("fp32", "int8"), ("fp16", "fp16")])
def test_convert_out_in_one_buffer_and_in_place(s: str, d: str) -> None:
    """`out` and `bits` views of one buffer (disjoint or the very same bytes)."""
    rng = np.random.default_rng(11)
    mem = rng.integers(0, 256, (4, 4096), dtype=np.uint8)
    fs, fd = FORMATS[s], FORMATS[d]
    n = 512
    bits = mem[:, :n * fs.container.itemsize].view(fs.container)
    want = convert(bits, s, d, "rint", False, "neuron")
    out = mem[:, 2048:2048 + n * fd.container.itemsize].view(fd.container)
    convert(bits, s, d, "rint", False, "neuron", out=out)
    assert np.array_equal(out, want)
    if fs.container == fd.container:  # in place: out IS the input
        convert(bits, s, d, "rint", False, "neuron", out=bits)
        assert np.array_equal(bits, want)


def test_convert_out_rejects_wrong_dtype_shape_and_read_only() -> None:
    b = np.zeros(4, np.uint32)
    for bad in (np.zeros(4, np.uint32), np.zeros(5, np.uint16), [0, 0, 0, 0]):
        with pytest.raises(ValueError, match="out must be"):
            convert(b, "fp32", "bf16", out=bad)  # type: ignore[arg-type]
    ro = np.zeros(4, np.uint16)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        convert(b, "fp32", "bf16", out=ro)


CAST = ("CAST in_dtype={i} out_dtype={o} nac=8 src=sb[0, {s:#x}] step=[1,0,0,0] num=[64,1,1,1] "
        "dst=sb[0, {d:#x}] step=[1,0,0,0] num=[64,1,1,1]\n")


def _machine(lines: list[tuple[str, str, int, int]], seed: int = 3):
    m = machine("".join(CAST.format(i=i, o=o, s=s, d=d) for i, o, s, d in lines) + "HALT",
                partitions=8)
    rng = np.random.default_rng(seed)
    put(m, slice(0, 8), 0, rng.standard_normal((8, 512)).astype(np.float32))  # bytes 0..2047
    put(m, slice(0, 8), 0x800, rng.integers(0, 256, (8, 1024), dtype=np.uint8))
    return m


def _step_reverse_step(m) -> None:
    """Every step: step, reverse, step again gives identical digests; then all undone."""
    digests = [m.state.digest()]
    while True:
        rec = m.step()
        assert rec.fault is None and not rec.invalid
        if rec.halted:
            digests.append(m.state.digest())  # HALT is a journaled step too
            break
        after = m.state.digest()
        m.state.undo_step()
        assert m.state.digest() == digests[-1]
        rec = m.step()
        assert rec.executed and m.state.digest() == after
        digests.append(after)
    while m.state.journal.steps:
        m.state.undo_step()
        digests.pop()
        assert m.state.digest() == digests[-1]


@pytest.mark.parametrize("lines", [
    [("FP32", "BF16", 0, 0x800)],  # disjoint: the direct path
    [("FP32", "FP32", 0, 0)],  # in place, same dtype (the Copy bit move)
    [("FP32", "BF16", 0, 0)],  # in place, narrowing: dst is the first half of src
    [("BF16", "FP32", 0x100, 0x80)],  # widening onto overlapping bytes
    [("FP32", "BF16", 0, 0x800), ("BF16", "FP32", 0x800, 0x800 + 64),  # a chain over
     ("FP32", "BF16", 0x800 + 64, 0x800), ("FP32", "BF16", 0, 0x800)],  # its own outputs
])
def test_undo_is_exact_for_direct_in_place_and_overlapping_casts(lines) -> None:
    _step_reverse_step(_machine(lines))


def test_direct_cast_writes_into_memory_and_journals_the_old_bytes() -> None:
    m = _machine([("FP32", "BF16", 0, 0x800)])
    old = m.state.sbuf[:, 0x800:0x880].copy()
    src = m.state.sbuf[:, :256].view(np.uint32)
    want = convert(src, "fp32", "bf16", "rint", False, "neuron")
    rec = m.step()
    assert rec.lanes is not None and rec.lanes.dest is not None  # took the direct path
    assert np.array_equal(m.state.sbuf[:, 0x800:0x880].view(np.uint16), want)
    (w,) = [w for w in rec.writes if w.target == "sbuf"]
    assert np.array_equal(w.old, old) and np.array_equal(w.new, want.view(np.uint8))


def test_recorded_output_survives_later_writes_and_undo() -> None:
    # Step 2 overwrites step 1's destination with different values; step 3 its source.
    m = _machine([("FP32", "BF16", 0, 0x800), ("FP32", "BF16", 0x400, 0x800),
                  ("BF16", "FP32", 0x800, 0)])
    src = m.state.sbuf[:, :256].view(np.uint32).copy()
    want = convert(src, "fp32", "bf16", "rint", False, "neuron")
    r1 = m.step()
    w1 = next(w for w in r1.writes if w.target == "sbuf")
    r2 = m.step()
    assert not np.array_equal(get(m, 0, 0x800, np.uint16, 64), want[0])  # really overwritten
    r3 = m.step()  # overwrites r1's source bytes
    for _ in range(3):
        assert np.array_equal(r1.lanes.out_bits, want) and np.array_equal(r1.lanes.in_bits, src)
        assert np.array_equal(w1.new, want.view(np.uint8))
        assert r1.lanes.counts() == r1.lanes.counts()  # flags computed from the kept lanes
        m.state.undo_step()  # undo rewrites those bytes again
    assert r2.lanes.out_bits.shape == r3.lanes.out_bits.shape == (8, 64)
    assert np.array_equal(m.state.sbuf[:, :256].view(np.uint32), src)


def test_outputs_and_flags_stay_after_the_next_step_overwrites_them() -> None:
    """The next step writes the same bytes: the record keeps its outputs and flags."""
    m = _machine([("FP32", "BF16", 0, 0x800), ("FP32", "FP32", 0x400, 0x800)])
    r1 = m.step()
    flags = {k: v.copy() for k, v in r1.lanes.flags.items()}
    out = r1.lanes.out_bits.copy()
    m.step()
    assert np.array_equal(r1.lanes.out_bits, out)
    assert all(np.array_equal(r1.lanes.flags[k], v) for k, v in flags.items())


def test_verdicts_are_computed_only_when_read_or_a_stop_needs_them() -> None:
    c = core_of("CAST in_dtype=FP32 out_dtype=BF16 nac=1 src=sb[0, 0] step=[1,0,0,0] "
                "num=[4,1,1,1] dst=sb[0, 0x40] step=[1,0,0,0] num=[4,1,1,1]\n"
                "CAST in_dtype=FP32R out_dtype=BF16 nac=1 src=sb[0, 0] step=[1,0,0,0] "
                "num=[4,1,1,1] dst=sb[0, 0x40] step=[1,0,0,0] num=[4,1,1,1]\nHALT",
                partitions=1)
    m = queue(c)
    rec = c.step().record
    assert rec is not None and rec.executed and m._verdicts == {}  # not explained yet
    assert rec.verdict is not None and rec.verdict.valid and list(m._verdicts) == [0]
    assert c.reverse_step()
    again = c.step().record
    assert again is not None and again.verdict is rec.verdict  # explained once, shared
    # record 1 fails legality (FP32R is output-only): the stop explains it
    stop = c.cont()
    assert stop.reason == "invalid" and 1 in m._verdicts
    assert "FP32R" in stop.detail or "dtype" in stop.detail
    assert stop.record.to_dict()["verdict"] == "failed"


def test_each_side_is_copied_only_when_its_own_bytes_change() -> None:
    # Step 2 writes only step 1's destination; step 3 only step 1's source.
    m = _machine([("FP32", "BF16", 0, 0x800), ("FP32", "BF16", 0x400, 0x800),
                  ("FP32", "FP32", 0x400, 0)])
    r1 = m.step()
    assert r1.lanes.source is not None and r1.lanes.dest is not None  # both view memory
    m.step()
    assert r1.lanes.source is not None and r1.lanes.dest is None  # outputs copied
    m.step()
    assert r1.lanes.source is None  # now the inputs too
