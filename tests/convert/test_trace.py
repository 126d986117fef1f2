"""trace() agrees with convert() bit for bit; step structure; teaching cases."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.convert import convert, trace
from neurondbg.machine.convert._trace_model import ROLES
from neurondbg.machine.convert.formats import FORMATS

SRCS = [n for n in FORMATS if n != "fp32r"]
DSTS = list(FORMATS)
MODES = ("rint", "round", "floor", "ceil", "trunc", "odd")


@settings(deadline=None, max_examples=150)
@given(st.sampled_from(SRCS), st.sampled_from(DSTS), st.sampled_from(MODES), st.booleans(),
       st.sampled_from(("ieee", "ascend")), st.integers(0, 2**64 - 1))
def test_trace_equals_convert(src: str, dst: str, mode: str, sat: bool, profile: str,
                              raw: int) -> None:
    fmt = FORMATS[src]
    bits = raw & ((1 << fmt.bits) - 1)
    try:
        want = int(convert(np.array([bits], fmt.container), src, dst, mode, sat, profile)[0])
    except ValueError:  # a combination the profile rejects (options.resolve)
        return
    assert trace(bits, src, dst, mode, sat, profile).output_bits == want


@settings(deadline=None, max_examples=80)
@given(st.sampled_from(SRCS), st.sampled_from(DSTS), st.booleans(), st.integers(0, 2**64 - 1))
def test_trace_equals_convert_neuron(src: str, dst: str, sat: bool, raw: int) -> None:
    fmt = FORMATS[src]
    bits = raw & ((1 << fmt.bits) - 1)
    want = int(convert(np.array([bits], fmt.container), src, dst, "rint", sat, "neuron")[0])
    assert trace(bits, src, dst, "rint", sat, "neuron").output_bits == want


def _special_lanes(src: str, rng: np.random.Generator) -> np.ndarray:
    """Random lanes plus the edge encodings (zeros, ones, all-ones, top bits)."""
    fmt = FORMATS[src]
    width = fmt.bits
    edges = [0, 1, (1 << width) - 1, 1 << (width - 1), (1 << (width - 1)) - 1,
             (1 << (width - 1)) + 1]
    rand = rng.integers(0, 1 << min(width, 63), 10, dtype=np.uint64).tolist()
    return np.array(edges + rand, dtype=np.uint64).astype(fmt.container)


def test_trace_equals_convert_every_pair() -> None:
    """Every (src, dst) pair under each profile's default mode, on edge and random lanes."""
    rng = np.random.default_rng(11)
    for src in SRCS:
        lanes = _special_lanes(src, rng)
        for dst in DSTS:
            for profile, sat in (("ieee", False), ("ieee", True), ("ascend", False),
                                 ("neuron", False)):
                try:
                    out = convert(lanes, src, dst, "rint", sat, profile)
                except ValueError:  # a pair the profile rejects (options.resolve)
                    continue
                for b, o in zip(lanes.tolist(), out.tolist(), strict=True):
                    got = trace(b, src, dst, "rint", sat, profile).output_bits
                    assert got == o, (src, dst, profile, sat, hex(b), hex(got), hex(o))


def test_hybrid_hif8_matches_convert() -> None:
    rng = np.random.default_rng(3)
    for src in ("fp32", "fp16"):
        fmt = FORMATS[src]
        codes = rng.integers(0, 1 << fmt.bits, 300, dtype=np.uint64).astype(fmt.container)
        out = convert(codes, src, "hif8", "hybrid", False, "ascend")
        for c, o in zip(codes.tolist(), out.tolist(), strict=True):
            assert trace(c, src, "hif8", "hybrid", False, "ascend").output_bits == o, hex(c)


def test_same_dtype_cast_is_the_copy_bit_move() -> None:
    # Ref 000 §6.1: in_dtype == out_dtype degenerates to the pool_copy bit move.
    t = trace(2**24 + 1, "int32", "int32", profile="neuron")
    assert t.output_bits == 2**24 + 1 and t.error == 0 and not t.inexact
    assert t.step_names == ["decode", "encode", "error"]
    assert "bit move" in t.step("encode").text


def test_step_structure_and_marks() -> None:
    t = trace(0x3F9DD2F2, "fp32", "fp8_e4m3fn")  # ref 002: 1.233 -> 1.25
    assert t.step_names == ["decode", "rebias", "align", "grs", "round", "carry", "overflow",
                            "encode", "error"]
    for s in t.steps:
        for start, end, role in s.marks:
            assert role in ROLES and 0 <= start < end <= len(s.bits_after)
    dec = t.step("decode")
    assert [m[2] for m in dec.marks] == ["sign", "exponent", "mantissa"]
    covered = sorted((a, b) for a, b, _ in t.step("grs").marks)
    assert covered[0][0] == 0 and covered[-1][1] == len(t.step("grs").bits_after)
    assert t.step("rebias").values["target_bias"] == 7
    assert t.output_bits == 0x3A and t.output_value == 1.25 and t.inexact
    assert t.to_dict()["output_bits"] == "0x3a"


def test_tie_case() -> None:
    # bf16 from fp32 mantissa 0011000 1000...: an exact tie, lower candidate odd -> up
    t = trace(0x3F998000, "fp32", "bf16")
    g = t.step("grs").values
    assert (g["guard"], g["round"], g["sticky"]) == (1, 0, 0) and t.tie
    assert t.output_bits == 0x3F9A
    assert "tie" in t.step("round").text and "even" in t.step("round").text


def test_sticky_case() -> None:
    t = trace(0x3F908001, "fp32", "bf16")  # guard 1, sticky 1: above halfway
    g = t.step("grs").values
    assert g["guard"] == 1 and g["sticky"] == 1 and not t.tie
    assert t.output_bits == 0x3F91


def test_saturation_case() -> None:
    big = int(np.array([1000.0], np.float32).view(np.uint32)[0])
    assert trace(big, "fp32", "fp8_e4m3fn").output_bits == 0x7F  # NaN: no infinity
    t = trace(big, "fp32", "fp8_e4m3fn", sat=True)
    assert t.output_bits == 0x7E and t.saturated and t.overflow


def test_subnormal_alignment() -> None:
    # ref 002: bf16 2.90573e-06 (exp 108) -> fp16 subnormal 0b0000110001
    t = trace(0x3643, "bf16", "fp16")
    assert t.step("align").values["shift"] == 5
    assert t.output_bits == 0b0000110001


def test_int32_through_fp32_hub() -> None:
    t = trace(2**24 + 1, "int32", "uint32", profile="neuron")
    assert t.output_bits == 2**24 and t.error == -1
    stages = {s.stage for s in t.steps}
    assert {"to_fp32", "from_fp32"} <= stages
    assert t.step("widen_fp32").values["hub_bits"] == 0x4B800000
    assert t.step("round", "to_fp32").values["tie"]
