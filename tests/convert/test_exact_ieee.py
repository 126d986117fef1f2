"""ieee profile: convert() == the independent Fraction reference, every mode.

Inputs: every representable value of each small format (as fp32), every midpoint
between neighbours and its fp32 neighbours (nextafter up/down); random fp32.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.convert import convert
from tests.convert import exact_reference as ref

MODES = ("rint", "round", "floor", "ceil", "trunc", "odd")
SMALL = ("fp8_e3m4", "fp8_e4m3", "fp8_e4m3fn", "fp8_e5m2", "fp8_e8m0", "hif8", "fp4_e2m1",
         "fp4_e1m2")
ALL_DST = (*SMALL, "fp16", "bf16", "fp32r", "int8", "uint8", "int4", "uint16", "int32")


def _f32(values: np.ndarray) -> np.ndarray:
    return values.astype(np.float32).view(np.uint32)


def _probe_inputs(fmt: str, limit: int | None = None) -> np.ndarray:
    vals, _ = ref._table(fmt)
    v = np.array([float(x) for x in vals], dtype=np.float64)
    if limit is not None and len(v) > limit:
        v = np.sort(np.random.default_rng(7).choice(v, limit, replace=False))
    mids = (v[:-1] + v[1:]) / 2  # exact in float64 and in fp32 for these formats
    f32 = np.concatenate([v, mids, -v, -mids]).astype(np.float32)
    up = np.nextafter(f32, np.float32(np.inf))
    down = np.nextafter(f32, np.float32(-np.inf))
    big = np.array([1e30, -1e30, np.inf, -np.inf, np.nan, 1e-30, -1e-30], np.float32)
    return np.concatenate([f32, up, down, big]).view(np.uint32)


def _check(bits: np.ndarray, src: str, dst: str, mode: str, sat: bool) -> None:
    out = convert(bits, src, dst, mode, sat, "ieee")
    for b, o in zip(bits.tolist(), out.tolist(), strict=True):
        want = ref.convert_ieee(b, src, dst, mode, sat)
        assert o == want, (hex(b), src, dst, mode, sat, hex(o), hex(want))


@pytest.mark.parametrize("dst", SMALL)
@pytest.mark.parametrize("mode", MODES)
def test_fp32_to_small_values_midpoints_neighbours(dst: str, mode: str) -> None:
    bits = _probe_inputs(dst)  # every value, every midpoint, their fp32 neighbours
    for sat in (False, True):
        _check(bits, "fp32", dst, mode, sat)


@pytest.mark.parametrize("dst", ("fp16", "bf16"))
@pytest.mark.parametrize("mode", MODES)
def test_fp32_to_16bit_sampled_midpoints(dst: str, mode: str) -> None:
    _check(_probe_inputs(dst, limit=1500), "fp32", dst, mode, False)


@pytest.mark.parametrize("src", SMALL)
def test_every_small_encoding_to_every_target(src: str) -> None:
    from neurondbg.machine.convert.formats import FORMATS

    codes = np.arange(1 << FORMATS[src].bits, dtype=FORMATS[src].container)
    for dst in ALL_DST:
        for mode in MODES:
            _check(codes, src, dst, mode, dst.startswith("fp8"))


@settings(deadline=None, max_examples=300)
@given(st.integers(0, 2**32 - 1), st.sampled_from((*ALL_DST, "fp32")), st.sampled_from(MODES),
       st.booleans())
def test_random_fp32(bits: int, dst: str, mode: str, sat: bool) -> None:
    _check(np.array([bits], np.uint32), "fp32", dst, mode, sat)


@settings(deadline=None, max_examples=200)
@given(st.integers(-2**31, 2**31 - 1), st.sampled_from(("fp32", "fp16", "bf16", "fp8_e4m3fn",
                                                       "hif8", "int8")),
       st.sampled_from(MODES))
def test_random_int32(v: int, dst: str, mode: str) -> None:
    _check(np.array([v & 0xFFFFFFFF], np.uint32), "int32", dst, mode, False)


def test_reference_self_checks() -> None:
    # worked facts the reference must get right on its own
    assert ref.value(0x6E, "hif8") == 32768 and ref.value(0x6F, "hif8") == float("inf")
    assert ref.value(0x01, "hif8") == ref.Fraction(1, 2**22)
    assert ref.value(0x7E, "fp8_e4m3fn") == 448 and ref.value(0x7F, "fp8_e4m3fn") == "nan"
    assert ref.convert_ieee(0x43E80000, "fp32", "fp8_e4m3fn") == 0x7E  # 464: tie -> even 448
    assert ref.convert_ieee(0x40400000, "fp32", "fp8_e8m0") == 0x80  # 3 = tie 2|4 -> even code
    assert ref.convert_ieee(0x40E00000, "fp32", "fp4_e2m1") == 0x7  # 7: overflow -> max 6


def test_ascend_special_rules() -> None:
    nan, inf = 0x7FC00000, 0x7F800000
    assert convert(np.array([nan], np.uint32), "fp32", "fp8_e5m2", profile="ascend")[0] == 0
    assert convert(np.array([nan], np.uint32), "fp32", "fp16", profile="ascend")[0] == 0x7E00
    assert convert(np.array([nan], np.uint32), "fp32", "fp16", sat=True, profile="ascend")[0] == 0
    assert convert(np.array([inf], np.uint32), "fp32", "fp8_e4m3fn", profile="ascend")[0] == 0x7F
    assert convert(np.array([inf], np.uint32), "fp32", "fp4_e2m1",
                   profile="ascend")[0] == 0x7
    # half 257 -> uint8: 1 without saturation (low bits), 255 with (ref 002 Constraints)
    h257 = np.array([257.0], np.float16).view(np.uint16)
    assert convert(h257, "fp16", "uint8", profile="ascend")[0] == 1
    assert convert(h257, "fp16", "uint8", sat=True, profile="ascend")[0] == 255
    ninf = np.array([-np.inf], np.float16).view(np.uint16)
    assert convert(ninf, "fp16", "uint8", sat=True, profile="ascend")[0] == 0
    bnan, binf = np.array([0x7FC0], np.uint16), np.array([0x7F80], np.uint16)
    assert convert(binf, "bf16", "fp8_e8m0", profile="ascend")[0] == 0xFE
    assert convert(bnan, "bf16", "fp8_e8m0", profile="ascend")[0] == 0xFF
    # int32 256 -> uint8: 0 without saturation, 255 with
    assert convert(np.array([256], np.uint32), "int32", "uint8", profile="ascend")[0] == 0
    assert convert(np.array([256], np.uint32), "int32", "uint8", sat=True,
                   profile="ascend")[0] == 255


def test_neuron_spot_checks() -> None:
    # int32 2^24 + 1 -> fp32 rounds to even: 2^24 (the hub loses the low bit)
    assert convert(np.array([2**24 + 1], np.uint32), "int32", "fp32", profile="neuron")[0] == \
        0x4B800000
    assert convert(np.array([2**24 + 1], np.uint32), "int32", "uint32", profile="neuron")[0] == \
        2**24
    # fp32 -> int truncates toward zero, saturates, NaN -> 0
    f = np.array([-2.9, 2.9, 1e10, np.nan], np.float32).view(np.uint32)
    assert convert(f, "fp32", "int8", profile="neuron").tolist() == [0xFE, 2, 127, 0]
    # fp32 -> fp8 rounds to nearest even like the exact reference
    for b in _probe_inputs("fp8_e5m2", limit=30)[:60].tolist():
        got = convert(np.array([b], np.uint32), "fp32", "fp8_e5m2", profile="neuron")[0]
        if ref.value(b, "fp32") != "nan":
            assert got == ref.convert_ieee(b, "fp32", "fp8_e5m2"), hex(b)
