"""ieee / ascend kernels: against ml_dtypes where the semantics coincide, against an
independent neighbour-table reference for every mode, and the special-value rules.

The neighbour reference knows nothing of bits: it sorts the decoded values of the
target format and picks floor / ceil / nearest among them.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.convert import convert
from neurondbg.machine.convert._exact import decode
from neurondbg.machine.convert._fast32 import fast32_applies
from neurondbg.machine.convert._trace_codec import HIF8_VALUES
from neurondbg.machine.convert.formats import FORMATS
from neurondbg.machine.convert.kernels import (
    _convert_wide,
    decode_value,
    encode_lanes,
    encode_value,
)
from neurondbg.machine.convert.options import resolve

ML_TARGETS = ["fp16", "bf16", "fp8_e3m4", "fp8_e4m3", "fp8_e4m3fn", "fp8_e5m2", "fp4_e2m1"]
ROUNDING = ["rint", "round", "floor", "ceil", "trunc", "odd"]


def f32bits(*vals: float) -> np.ndarray:
    return np.array(vals, dtype=np.float32).view(np.uint32)


def target_table(dst: str) -> tuple[np.ndarray, np.ndarray]:
    """(sorted finite values, their codes) of dst; -0 left out (0 maps to +0 first)."""
    fmt = FORMATS[dst]
    codes = np.arange(1 << fmt.bits)
    if dst == "hif8":
        vals = HIF8_VALUES.copy()
    elif dst == "fp4_e1m2":
        mag = np.array([0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75])
        vals = np.concatenate([mag, -mag])
    else:
        with np.errstate(invalid="ignore"):
            vals = codes.astype(fmt.container).view(fmt.ml_dtype).astype(np.float64)
    keep = np.isfinite(vals) & ~((vals == 0) & np.signbit(vals))
    order = np.argsort(vals[keep], kind="stable")
    return vals[keep][order], codes[keep][order]


def reference(x: np.ndarray, dst: str, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """Expected codes for finite float64 x by neighbour search, and which lanes it covers
    (inside the finite range: no overflow, so the special-value rules do not apply)."""
    vals, codes = target_table(dst)
    i = np.clip(np.searchsorted(vals, x, side="right") - 1, 0, len(vals) - 1)
    lo_i = i
    hi_i = np.where(vals[i] == x, i, np.minimum(i + 1, len(vals) - 1))
    lo, hi = vals[lo_i], vals[hi_i]
    inside = (x >= vals[0]) & (x <= vals[-1])
    exact = lo == x
    lo_code = codes[lo_i]
    d_lo, d_hi = x - lo, hi - x
    toward_zero = np.where(x >= 0, lo_i, hi_i)
    away = np.where(x >= 0, hi_i, lo_i)
    if mode == "floor":
        pick = lo_i
    elif mode == "ceil":
        pick = hi_i
    elif mode == "trunc":
        pick = toward_zero
    elif mode == "round":
        pick = np.where(d_lo < d_hi, lo_i, np.where(d_hi < d_lo, hi_i, away))
    elif mode == "rint":
        even = np.where(lo_code % 2 == 0, lo_i, hi_i)
        pick = np.where(d_lo < d_hi, lo_i, np.where(d_hi < d_lo, hi_i, even))
    else:  # odd
        pick = np.where(lo_code % 2 == 1, lo_i, hi_i)
    pick = np.where(exact, lo_i, pick)
    want = codes[pick]
    # A negative value that rounds to zero keeps its sign (-0) where the format has one.
    fmt = FORMATS[dst]
    if fmt.signed and dst != "hif8":
        want = np.where((vals[pick] == 0) & np.signbit(x), 1 << (fmt.bits - 1), want)
    return want, inside


def sample_fp32(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    random = rng.integers(0, 2**32, n, dtype=np.uint32)
    ties = (rng.integers(0, 2**32, n, dtype=np.uint32) & np.uint32(0xFFFF_0000)) | np.uint32(
        0x8000)  # many exact midpoints for 16-bit targets
    small = rng.integers(0x3000_0000, 0x4800_0000, n, dtype=np.uint32)  # the fp8 range
    return np.concatenate([random, ties, small])


@pytest.mark.parametrize("dst", [*ML_TARGETS, "fp4_e1m2", "hif8"])
@pytest.mark.parametrize("mode", ROUNDING)
def test_every_mode_matches_the_neighbour_reference(dst: str, mode: str) -> None:
    srcs = [("fp16", np.arange(1 << 16, dtype=np.uint16)),
            ("bf16", np.arange(1 << 16, dtype=np.uint16)),
            ("fp32", sample_fp32(20000, hash((dst, mode)) & 0xFFFF))]
    for src, codes in srcs:
        x = decode_value(codes, src)
        fin = np.isfinite(x)
        got = convert(codes, src, dst, mode=mode)
        want, inside = reference(np.where(fin, x, 0.0), dst, mode)
        sel = fin & inside
        bad = np.flatnonzero(sel & (got != want))
        assert bad.size == 0, (src, [hex(int(codes[i])) for i in bad[:5]],
                               [hex(int(got[i])) for i in bad[:5]],
                               [hex(int(want[i])) for i in bad[:5]])


@pytest.mark.parametrize("dst", ML_TARGETS)
def test_ieee_rint_equals_ml_dtypes_astype(dst: str) -> None:
    fmt = FORMATS[dst]
    for src, codes in (("fp16", np.arange(1 << 16, dtype=np.uint16)),
                       ("fp32", sample_fp32(30000, 7))):
        got = convert(codes, src, dst)
        with np.errstate(over="ignore", invalid="ignore"):
            f32 = codes.view(FORMATS[src].ml_dtype).astype(np.float32)
            want = f32.astype(fmt.ml_dtype).view(fmt.container)
        nan_in = np.isnan(f32)
        np.testing.assert_array_equal(got[~nan_in], want[~nan_in])
        if dst != "fp4_e2m1":  # ieee NaN: canonical quiet NaN, sign kept (payload dropped)
            assert np.all(np.isnan(decode_value(got[nan_in], dst)))


def test_e8m0_ties_go_to_the_even_code_and_has_no_zero() -> None:
    b = f32bits(1.5, 3.0, 6.0, 0.75, 1.4, 0.0, -0.0, -2.0, 2.0**-130, 2.0**127, np.nan)
    assert convert(b, "fp32", "fp8_e8m0").tolist() == \
        [0x80, 0x80, 0x82, 0x7E, 0x7F, 0xFF, 0xFF, 0xFF, 0x00, 0xFE, 0xFF]
    big = f32bits(3.0e38)  # rounds to 2^128: beyond 2^127
    assert convert(big, "fp32", "fp8_e8m0").tolist() == [0xFF]  # no inf: NaN
    assert convert(big, "fp32", "fp8_e8m0", sat=True).tolist() == [0xFE]
    assert convert(big, "fp32", "fp8_e8m0", mode="trunc").tolist() == [0xFE]
    assert convert(f32bits(3.0e38, np.inf, np.nan), "fp32", "fp8_e8m0", sat=True).tolist() == \
        [0xFE, 0xFE, 0xFF]
    bf = np.array([0x7F80, 0xFF80, 0x7FC0, 0x4040, 0xC040], dtype=np.uint16)
    # ref 002: +-inf -> 0xFE, NaN -> 0xFF, "the absolute value" converts (|-3| is the
    # tie between 2 = 0x80 and 4 = 0x81: the even code, 0x80)
    assert convert(bf, "bf16", "fp8_e8m0", profile="ascend").tolist() == \
        [0xFE, 0xFE, 0xFF, 0x80, 0x80]
    assert convert(bf, "bf16", "fp8_e8m0").tolist() == [0xFF, 0xFF, 0xFF, 0x80, 0xFF]
    neg_big = f32bits(-3.0e38)
    assert convert(neg_big, "fp32", "fp8_e8m0", sat=True).tolist() == [0xFF]  # sign first
    assert convert(np.array([0], np.uint16), "bf16", "fp8_e8m0", profile="ascend").tolist() \
        == [0x00]


@pytest.mark.parametrize("mode,want", [
    ("rint", [0x7C, 0xFC]), ("round", [0x7C, 0xFC]), ("trunc", [0x7B, 0xFB]),
    ("floor", [0x7B, 0xFC]), ("ceil", [0x7C, 0xFB]), ("odd", [0x7B, 0xFB])])
def test_ieee_overflow_by_mode(mode: str, want: list[int]) -> None:
    b = f32bits(1e9, -1e9)
    assert convert(b, "fp32", "fp8_e5m2", mode=mode).tolist() == want
    assert convert(b, "fp32", "fp8_e5m2", mode=mode, sat=True).tolist() == [0x7B, 0xFB]


def test_ieee_special_values_per_format() -> None:
    b = f32bits(np.inf, -np.inf, np.nan, 1e9)
    assert convert(b, "fp32", "fp8_e4m3fn").tolist() == [0x7F, 0xFF, 0x7F, 0x7F]
    assert convert(b, "fp32", "fp8_e4m3fn", mode="trunc").tolist() == [0x7E, 0xFE, 0x7F, 0x7E]
    assert convert(b, "fp32", "fp8_e4m3fn", sat=True).tolist() == [0x7E, 0xFE, 0x7F, 0x7E]
    assert convert(b, "fp32", "fp8_e5m2", mode="trunc").tolist() == [0x7C, 0xFC, 0x7E, 0x7B]
    assert convert(b, "fp32", "fp4_e2m1").tolist() == [0x7, 0xF, 0x0, 0x7]
    assert convert(b, "fp32", "hif8").tolist() == [0x6F, 0xEF, 0x80, 0x6F]
    assert convert(b, "fp32", "hif8", sat=True).tolist() == [0x6E, 0xEE, 0x80, 0x6E]
    assert convert(b, "fp32", "fp32r").tolist() == [0x7F800000, 0xFF800000, 0x7FC00000,
                                                   0x4E6E6C00]
    assert convert(b, "fp32", "int16").view(np.int16).tolist() == [32767, -32768, 0, 32767]


def test_fp32r_is_output_only_and_rounds_to_13_bits() -> None:
    b = np.array([0x3F800200, 0x3F800600, 0x3F8003FF, 0x3F800201], dtype=np.uint32)
    assert convert(b, "fp32", "fp32r").tolist() == [0x3F800000, 0x3F800800, 0x3F800400,
                                                   0x3F800400]
    assert convert(b, "fp32", "fp32r", mode="ceil").tolist() == [0x3F800400, 0x3F800800,
                                                                0x3F800400, 0x3F800400]
    with pytest.raises(ValueError, match="output-only"):
        convert(b, "fp32r", "fp32")


# ref 002 Table 7 (float -> integer), value for value ("-2.4 -> 2" there is a typo: -2).
@pytest.mark.parametrize("mode,pairs", [
    ("rint", [(3.3, 3), (5.9, 6), (5.5, 6), (4.5, 4), (-2.4, -2), (-3.6, -4)]),
    ("round", [(3.3, 3), (5.9, 6), (5.5, 6), (-2.4, -2), (-3.6, -4), (-6.5, -7)]),
    ("floor", [(3.2, 3), (7.9, 7), (-4.6, -5), (-3.1, -4)]),
    ("ceil", [(3.2, 4), (7.9, 8), (-4.6, -4), (-3.1, -3)]),
    ("trunc", [(3.2, 3), (7.9, 7), (-4.6, -4), (-3.1, -3)])])
def test_ref002_table7_float_to_int(mode: str, pairs: list[tuple[float, int]]) -> None:
    x = np.array([p[0] for p in pairs], dtype=np.float16).view(np.uint16)
    for profile in ("ieee", "ascend"):
        got = convert(x, "fp16", "int32", mode=mode, profile=profile).view(np.int32)
        assert got.tolist() == [p[1] for p in pairs]


def test_ascend_integer_rules() -> None:
    h = np.array([257.0, -1.0, np.inf, -np.inf, np.nan], dtype=np.float16).view(np.uint16)
    assert convert(h, "fp16", "uint8", profile="ascend").tolist() == [1, 255, 255, 0, 0]
    assert convert(h, "fp16", "uint8", profile="ascend", sat=True).tolist() == \
        [255, 0, 255, 0, 0]
    f = f32bits(1e10, -1e10, 2.5)
    assert convert(f, "fp32", "int32", profile="ascend").view(np.int32).tolist() == \
        [1410065408, -1410065408, 2]  # low 32 bits of the rounded integer
    assert convert(f, "fp32", "int32", profile="ascend", sat=True).view(np.int32).tolist() \
        == [2**31 - 1, -(2**31), 2]
    i = np.array([256, -1, 70000], dtype=np.int32).view(np.uint32)
    assert convert(i, "int32", "uint8", profile="ascend").tolist() == [0, 255, 112]
    assert convert(i, "int32", "uint8", profile="ascend", sat=True).tolist() == [255, 0, 255]
    assert convert(i, "int32", "uint8").tolist() == [255, 0, 255]  # ieee clamps
    w = np.array([0xFFFF, 0x7FFF], dtype=np.uint16)  # int16 -1, 32767
    assert convert(w, "int16", "uint32", profile="ascend").tolist() == [0, 32767]  # sat only


def test_ascend_float_rules_and_modes() -> None:
    b = f32bits(np.nan, np.inf, 1e9, 1.0)
    assert convert(b, "fp32", "fp8_e5m2", profile="ascend").tolist() == [0, 0x7C, 0x7C, 0x3C]
    assert convert(b, "fp32", "fp8_e5m2", profile="ascend", sat=True).tolist() == \
        [0, 0x7B, 0x7B, 0x3C]
    assert convert(b, "fp32", "fp8_e4m3fn", profile="ascend").tolist() == [0, 0x7F, 0x7F, 0x38]
    assert convert(b, "fp32", "hif8", mode="round", profile="ascend").tolist() == \
        [0x80, 0x6F, 0x6F, 0x08]
    assert convert(b, "fp32", "hif8", mode="round", profile="ascend", sat=True).tolist() == \
        [0, 0x6E, 0x6E, 0x08]
    bf = np.array([0x7F80, 0x7FC0, 0x4700], dtype=np.uint16)  # inf, nan, 32768
    assert convert(bf, "bf16", "fp4_e2m1", profile="ascend").tolist() == [0x7, 0x0, 0x7]
    h = np.array([0x7E00], dtype=np.uint16)
    assert convert(h, "fp16", "fp32", profile="ascend", sat=True).tolist() == [0x7FC00000]
    with pytest.raises(ValueError, match="ascend"):
        convert(b, "fp32", "fp8_e4m3fn", mode="floor", profile="ascend")
    with pytest.raises(ValueError, match="ascend"):
        convert(b, "fp32", "hif8", mode="rint", profile="ascend")
    assert convert(b, "fp32", "fp16", mode="odd", profile="ascend").tolist()[3] == 0x3C00
    assert convert(b, "fp32", "int8", mode="floor", profile="ascend").tolist()[3] == 1


def test_hif8_table_and_rounding() -> None:
    assert HIF8_VALUES[0x6E] == 32768 and HIF8_VALUES[0x01] == 2.0**-22
    assert HIF8_VALUES[0x08] == 1.0 and np.isinf(HIF8_VALUES[0x6F]) and np.isnan(HIF8_VALUES[0x80])
    pos = HIF8_VALUES[:0x80]
    assert len(np.unique(pos[np.isfinite(pos)])) == 127
    b = f32bits(1.0625, 1.1875, 16.0, 18.0, 2.0**-23, 2.0**-24, -(2.0**-24), 40000.0, 45000.0)
    # round = ties away: 1.0625 -> 1.125 (0|0001|001), 1.1875 -> 1.25, 16 = 0|10|000|00,
    # 18 -> 20 (0|10|000|01), 2^-23 -> 2^-22 (denormal M=1), tiny -> 0 (no -0: 0x80 is NaN),
    # 40000 -> 32768 (0x6E), 45000 -> 49152: beyond the largest finite -> inf
    assert convert(b, "fp32", "hif8", mode="round").tolist() == \
        [0x09, 0x0A, 0x40, 0x41, 0x01, 0x00, 0x00, 0x6E, 0x6F]
    # hybrid, Table 9 read as rounding inexact values only (machine.convert._hif8): an exact
    # 16.0 (frac = thr = 0) stays 16, an inexact 17 (frac > thr = 0) goes up to 20.
    assert decode_value(convert(f32bits(16.0), "fp32", "hif8", mode="hybrid"), "hif8") == 16.0
    assert decode_value(convert(f32bits(17.0), "fp32", "hif8", mode="hybrid"), "hif8") == 20.0
    assert decode_value(convert(f32bits(16.0), "fp32", "hif8", mode="round"), "hif8") == 16.0
    # |Ev| <= 3: hybrid is half-away
    assert decode_value(convert(f32bits(1.0625), "fp32", "hif8", mode="hybrid"), "hif8") == 1.125
    # Table 10 (fp16): thr = {bit0, 1} >= 1, so an exact fp16 value is never rounded away.
    h = np.array([16.0], dtype=np.float16).view(np.uint16)
    assert decode_value(convert(h, "fp16", "hif8", mode="hybrid"), "hif8") == 16.0


settings_fast = settings(deadline=None, max_examples=40)


@settings_fast
@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=40),
       st.sampled_from([*ML_TARGETS, "fp4_e1m2", "fp32r"]), st.sampled_from(ROUNDING),
       st.booleans(), st.sampled_from(["ieee", "ascend"]))
def test_fp32_fast_path_equals_generic(xs: list[int], dst: str, mode: str, sat: bool,
                                       profile: str) -> None:
    try:
        opt = resolve("fp32", dst, mode, sat, profile)
    except ValueError:
        return
    assert fast32_applies(opt.dst, mode)
    b = np.array(xs, dtype=np.uint32)
    generic = encode_lanes(decode(b, FORMATS["fp32"]), opt, b)
    np.testing.assert_array_equal(_convert_wide(b, opt), generic)


@settings_fast
@given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=20),
       st.sampled_from(["fp32", "fp16", "bf16", "fp8_e4m3fn"]), st.sampled_from(ROUNDING))
def test_int64_sources_match_the_neighbour_reference(xs: list[int], dst: str,
                                                     mode: str) -> None:
    if dst == "fp32":  # no table: compare with the float64 path, exact for |x| < 2^53
        xs = [x >> 11 for x in xs]
        got = convert(np.array(xs, np.int64).view(np.uint64), "int64", dst, mode=mode)
        want = encode_value(np.array(xs, np.float64), dst, mode)
        np.testing.assert_array_equal(got, want)
        return
    small = [x >> 50 for x in xs]  # within the targets' range
    got = convert(np.array(small, np.int64).view(np.uint64), "int64", dst, mode=mode)
    want, inside = reference(np.array(small, np.float64), dst, mode)
    np.testing.assert_array_equal(got[inside], want[inside])


def test_value_helpers() -> None:
    assert decode_value([0x3C00, 0xFC00, 0x7E00], "fp16")[:2].tolist() == [1.0, -np.inf]
    assert decode_value([0xFF], "int8").tolist() == [-1.0]
    assert encode_value([1.233, -0.0, 1e9], "fp8_e4m3fn").tolist() == [0x3A, 0x80, 0x7F]
    assert encode_value([1e9], "fp8_e4m3fn", sat=True).tolist() == [0x7E]
    assert convert(np.uint64(2**64 - 1), "uint64", "fp16").tolist() == 0x7C00
    assert convert(np.uint64(2**64 - 1), "uint64", "fp16", mode="trunc").tolist() == 0x7BFF
    assert convert(np.int64(2**63 - 1), "int64", "fp32", mode="trunc").tolist() == 0x5EFFFFFF
