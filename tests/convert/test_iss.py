"""ISS conversion primitives of reference 003: vector == trace, ref 003 examples, edges."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.convert import convert, iss
from neurondbg.machine.convert._trace_model import ROLES, STEP_NAMES

ALL16 = np.arange(1 << 16, dtype=np.uint16)
F16 = ALL16.view(np.float16)
FINITE16 = ~np.isnan(F16)

# Lane strategies: random patterns, plus the edges every primitive turns on.
EDGES = [0, 1, 2, 3, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0x10000, 0x7FFFFFFF,
         0x80000000, 0xFFFFFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0x7C00, 0x7E00,
         0xFC00, 0x7BFF, 0x0400, 0x03FF, 0x477FF000, 0x477FE000, 0x33000000, 0x7FFFFFFFFFFF,
         0x800000000000, 0xFFFFFFFFFFFF, 1 << 24, (1 << 24) + 1, (1 << 24) + 3]
LANES = st.one_of(st.sampled_from(EDGES), st.integers(0, 2**64 - 1),
                  st.integers(-(2**47), 2**47), st.integers(0, 2**32 - 1))


def _vec1(name: str, lane: int, params: dict) -> int:
    arr = np.array([lane & (2**64 - 1)], dtype=np.uint64)
    return int(iss.ISS_PRIMITIVES[name].vector(arr, **params)[0])


@settings(deadline=None, max_examples=400)
@given(st.sampled_from(sorted(iss.ISS_PRIMITIVES)), st.data())
def test_vector_equals_trace(name: str, data: st.DataObject) -> None:
    prim = iss.ISS_PRIMITIVES[name]
    params = {p.name: data.draw(st.sampled_from(p.choices), label=p.name) for p in prim.params}
    lanes = data.draw(st.lists(LANES, min_size=1, max_size=8), label="lanes")
    arr = np.array([v & (2**64 - 1) for v in lanes], dtype=np.uint64)
    got = prim.vector(arr, **params)
    for i, lane in enumerate(lanes):
        t = prim.trace(lane, **params)
        assert t.output_bits == int(got[i]), (name, params, hex(lane))
        assert (t.src, t.dst) == prim.formats(**params)


def _check_steps(t) -> None:
    assert t.steps[0].name == "decode" and t.steps[-1].name == "error"
    for s in t.steps:
        assert s.name in STEP_NAMES and s.text
        for marks, bits in ((s.marks, s.bits_after), (s.marks_before, s.bits_before)):
            for a, b, role in marks:
                assert role in ROLES and 0 <= a < b <= len(bits)
        assert set(s.bits_before + s.bits_after) <= {"0", "1"}


@pytest.mark.parametrize("name", sorted(iss.ISS_PRIMITIVES))
def test_trace_form(name: str) -> None:
    prim = iss.ISS_PRIMITIVES[name]
    params = prim.bind()
    for lane in EDGES:
        _check_steps(prim.trace(lane, **params))
    t = prim.trace(0x3FC00000 if name in ("narrow", "trunc", "utrunc") else 5, **params)
    assert t.profile == "iss" and t.to_dict()["output_bits"] == hex(t.output_bits)


# -- fp16 <-> fp32 (ref 003 §4, §13.1) -----------------------------------------------------

def test_ref003_13_1_widen_examples() -> None:
    vals = [1.0, -2.5, 65504.0, float("inf"), float("nan"), 2.0**-24]
    h = np.array(vals, np.float16).view(np.uint16)
    want = [0x3F800000, 0xC0200000, 0x477FE000, 0x7F800000, 0x7FC00000, 0x33800000]
    assert iss.widen(h).tolist() == want
    assert [iss.trace_widen(int(b)).output_bits for b in h] == want


def test_widen_every_fp16_exact() -> None:
    w = iss.widen(ALL16)
    assert np.array_equal(w[FINITE16], F16[FINITE16].astype(np.float32).view(np.uint32))
    # NaN: exponent 0xff, payload << 13, the quiet bit (signaling too) kept (ref 003 §4.2).
    nan = ALL16[~FINITE16].astype(np.uint32)
    assert np.array_equal(w[~FINITE16], ((nan & 0x8000) << 16) | 0x7F800000 | ((nan & 0x3FF) << 13))


def test_widen_then_narrow_is_identity_for_every_fp16() -> None:
    for rm in range(4):
        assert np.array_equal(iss.narrow(iss.widen(ALL16), rm), ALL16)


def test_trace_widen_sampled_fp16() -> None:
    sample = np.concatenate([ALL16[::61], ALL16[:1100:7], ALL16[0x7BF0:0x7C10]])
    want = iss.widen(sample)
    assert [iss.trace_widen(int(b)).output_bits for b in sample] == want.tolist()


def _narrow_probe() -> np.ndarray:
    """Every finite fp16 value, its fp32 neighbours, the midpoints and their neighbours."""
    f = F16[FINITE16].astype(np.float32)
    f = np.unique(np.sort(f))
    mid = ((f[:-1].astype(np.float64) + f[1:]) / 2).astype(np.float32)  # exact in fp32
    pts = np.concatenate([f, mid, np.array([65520.0, -65520.0, 1e30, -1e30], np.float32)])
    up = np.nextafter(pts, np.float32(np.inf))
    down = np.nextafter(pts, np.float32(-np.inf))
    return np.concatenate([pts, up, down]).view(np.uint32)


def test_narrow_rne_matches_numpy_on_neighbours_and_midpoints() -> None:
    bits = _narrow_probe()
    with np.errstate(over="ignore"):
        want = bits.view(np.float32).astype(np.float16).view(np.uint16)
    assert np.array_equal(iss.narrow(bits), want)
    assert np.array_equal(iss.narrow(bits, 4), want)  # only bits [1:0] of the word count


@pytest.mark.parametrize(("rm", "mode"), [(1, "trunc"), (2, "ceil"), (3, "floor")])
def test_narrow_directed_modes_match_ieee_convert(rm: int, mode: str) -> None:
    bits = _narrow_probe()
    assert np.array_equal(iss.narrow(bits, rm), convert(bits, "fp32", "fp16", mode=mode))


def test_narrow_overflow_underflow_ref003_4_3() -> None:
    f = np.array([65520.0, -65520.0, 65519.996, 2.0**-25, 2.0**-24 * 1.5, 2.0**-26, 1e-40],
                 np.float32).view(np.uint32)
    # RNE: overflow -> inf 0x7c00; gradual underflow keeps fp16 denormals (ref 003 §9.2-9.3)
    assert iss.narrow(f).tolist() == [0x7C00, 0xFC00, 0x7BFF, 0x0000, 0x0002, 0x0000, 0x0000]
    assert iss.narrow(f[:2], 1).tolist() == [0x7BFF, 0xFBFF]  # RTZ: largest finite
    assert iss.narrow(f[:2], 2).tolist() == [0x7C00, 0xFBFF]  # toward +inf
    assert iss.narrow(f[:2], 3).tolist() == [0x7BFF, 0xFC00]  # toward -inf
    t = iss.trace_narrow(int(f[0]))
    assert t.overflow and t.inf and not t.saturated
    big = int(np.float32(1e6).view(np.uint32))
    assert iss.trace_narrow(big, 1).saturated and iss.trace_narrow(big, 1).output_bits == 0x7BFF
    assert not iss.trace_narrow(int(f[0]), 1).overflow  # RTZ: 65520 is 65504 before range


def test_narrow_nan_keeps_sign_and_payload() -> None:
    f = np.array([0x7FC00000, 0xFFC00000, 0x7F802000, 0x7F800001], np.uint32)
    assert iss.narrow(f).tolist() == [0x7E00, 0xFE00, 0x7C01, 0x7C01]


# -- int -> fp (ref 003 §2, §8) ------------------------------------------------------------

def test_float_ufloat_16_bit_exhaustive_against_numpy() -> None:
    i16 = ALL16.view(np.int16)
    for dst, np_t in (("fp16", np.float16), ("fp32", np.float32)):
        assert np.array_equal(iss.float_(ALL16, 16, dst).view(np_t), i16.astype(np_t))
        with np.errstate(over="ignore"):
            want = ALL16.astype(np_t)
        assert np.array_equal(iss.ufloat(ALL16, 16, dst).view(np_t), want)
    i8 = np.arange(-128, 128)
    assert np.array_equal(iss.float_(i8, 8, "fp16").view(np.float16), i8.astype(np.float16))
    assert np.array_equal(iss.ufloat(i8, 8).view(np.float32),
                          (i8 & 0xFF).astype(np.float32))


@settings(deadline=None, max_examples=30)
@given(st.lists(st.integers(-(2**31), 2**31 - 1), min_size=1, max_size=200))
def test_float32_rne_matches_numpy(vals: list[int]) -> None:
    a = np.array(vals, np.int64)
    assert np.array_equal(iss.float_(a).view(np.float32), a.astype(np.float32))
    assert np.array_equal(iss.ufloat(a).view(np.float32), (a & 0xFFFFFFFF).astype(np.float32))


@pytest.mark.parametrize(("rm", "mode"), [(1, "trunc"), (2, "ceil"), (3, "floor")])
def test_float_directed_modes_match_ieee_convert(rm: int, mode: str) -> None:
    rng = np.random.default_rng(rm)
    a = np.concatenate([rng.integers(-(2**31), 2**31, 5000), np.arange(-70000, 70000, 13),
                        [2**31 - 1, -(2**31), 2**24 + 1, -(2**24) - 1]])
    bits = (a & 0xFFFFFFFF).astype(np.uint32)
    for dst in ("fp32", "fp16"):
        assert np.array_equal(iss.float_(a, 32, dst, rm), convert(bits, "int32", dst, mode))
        assert np.array_equal(iss.ufloat(a, 32, dst, rm), convert(bits, "uint32", dst, mode))


def test_float_rne_tie_break_ref003_8_1() -> None:
    # 2^24 + 1 is a tie between 2^24 and 2^24 + 2: RNE keeps the even one.
    ties = [2**24 + 1, 2**24 + 3, -(2**24) - 1]
    assert iss.float_(np.array(ties)).view(np.float32).tolist() == [2**24, 2**24 + 4, -(2**24)]
    t = iss.trace_float(2**24 + 1)
    assert t.tie and t.inexact and t.error == -1 and t.step("round").values["increment"] == 0
    assert iss.trace_float(2**24 + 1, round_mode=2).output_bits == 0x4B800001  # toward +inf
    # uint16 65535 -> fp16: 65536 is past the largest finite 65504; RNE gives inf.
    assert int(iss.ufloat(np.array([65535]), 16, "fp16")[0]) == 0x7C00
    assert int(iss.ufloat(np.array([65535]), 16, "fp16", 1)[0]) == 0x7BFF


# -- fp -> int (ref 003 §3) ---------------------------------------------------------------

def _np_trunc(f: np.ndarray, lo: int, hi: int) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        x = np.trunc(f.astype(np.float64))
    x = np.where(np.isnan(x), 0, np.clip(np.nan_to_num(x, posinf=hi, neginf=lo), lo, hi))
    return x.astype(np.int64)


@pytest.mark.parametrize("width", [16, 32])
def test_trunc_every_fp16(width: int) -> None:
    lo, hi = -(2 ** (width - 1)), 2 ** (width - 1) - 1
    mask = 2**width - 1
    want = _np_trunc(F16, lo, hi)
    assert np.array_equal(iss.trunc(ALL16, "fp16", width).astype(np.int64), want & mask)
    uwant = _np_trunc(F16, 0, mask)
    assert np.array_equal(iss.utrunc(ALL16, "fp16", width).astype(np.int64), uwant)


@settings(deadline=None, max_examples=30)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=200))
def test_trunc_fp32_random(bits: list[int]) -> None:
    b = np.array(bits, np.uint32)
    f = b.view(np.float32)
    for width in (16, 32):
        mask = 2**width - 1
        want = _np_trunc(f, -(2 ** (width - 1)), 2 ** (width - 1) - 1) & mask
        assert np.array_equal(iss.trunc(b, "fp32", width).astype(np.int64), want)
        assert np.array_equal(iss.utrunc(b, "fp32", width).astype(np.int64),
                              _np_trunc(f, 0, mask))


def test_trunc_is_toward_zero_and_saturates() -> None:
    f = np.array([2.7, -2.7, 0.5, -0.5, -0.0, 2147483520.0, 2.0**31, -(2.0**31), -(2.0**32),
                  np.inf, -np.inf, np.nan], np.float32).view(np.uint32)
    assert iss.trunc(f).view(np.int32).tolist() == [
        2, -2, 0, 0, 0, 2147483520, 2**31 - 1, -(2**31), -(2**31), 2**31 - 1, -(2**31), 0]
    assert iss.utrunc(f).tolist() == [2, 0, 0, 0, 0, 2147483520, 2**31, 0, 0, 2**32 - 1, 0, 0]
    t = iss.trace_trunc(int(f[1]))
    assert t.mode == "trunc" and t.inexact and t.output_bits == 0xFFFFFFFE
    assert iss.trace_utrunc(int(f[1])).saturated  # a negative value clamps to 0


# -- sats, packl, pack, packvr, sext (ref 003 §6, §7, §13) ----------------------------------

def test_sats_8_16_exhaustive_and_16_32_edges() -> None:
    v = ALL16.view(np.int16).astype(np.int64)
    assert np.array_equal(iss.sats(ALL16, 8), (np.clip(v, -128, 127) & 0xFF).astype(np.uint8))
    ins = np.array([32767, 32768, -32768, -32769, 0x7FFFFFFF, -(2**31), 0x1234, -1])
    assert iss.sats(ins, 16).tolist() == [0x7FFF, 0x7FFF, 0x8000, 0x8000, 0x7FFF, 0x8000,
                                          0x1234, 0xFFFF]
    assert iss.sats(np.array([127, 128, -128, -129]), 8).tolist() == [0x7F, 0x7F, 0x80, 0x80]


def test_packl_wraps_ref003_13_2() -> None:
    ins = np.array([0x8001, 0x10000, 0x7FFF, 0xFFFFFFFFFFFF, 0x123456789ABC], np.uint64)
    assert iss.packl(ins).tolist() == [0x8001, 0x0000, 0x7FFF, 0xFFFF, 0x9ABC]
    t = iss.trace_packl(0x10000)
    assert t.output_bits == 0 and not t.saturated and t.overflow


def test_pack_rounds_half_up_ref003_7_1b() -> None:
    # ((load + (1 << (sh-1))) & 0x7fffffff) >> sh, low 16 bits
    ins = np.array([0x18, 0x17, 0x08, 0x07, 0xFFFFFFFD, 0x7FFF8], np.uint64)
    assert iss.pack(ins, 4).tolist() == [2, 1, 1, 0, 0x0000, 0x8000]
    assert iss.pack(np.array([3, 0xFFFFFFFD]), 1).tolist() == [2, 0xFFFF]  # -1.5 -> -1
    # read literally: shift 0 adds 1 << ((0 - 1) & 0xf) = 0x8000
    assert iss.pack(np.array([1, 0x8000]), 0).tolist() == [0x8001, 0x0000]
    assert iss.pack(np.array([0x12345678]), 16).tolist() == [0x1234]


def test_packvr_round_saturate_ref003_7_2() -> None:
    acc = np.array([3, -3, 5, -5, 32767 * 4 + 1, 32767 * 4 + 2, -32768 * 4 - 2, -32768 * 4 - 3,
                    2**47 - 1, -(2**47)])
    assert iss.packvr(acc, 1).view(np.int16).tolist()[:4] == [2, -1, 3, -2]
    assert iss.packvr(acc, 2).view(np.int16).tolist()[4:] == [32767, 32767, -32768, -32768,
                                                              32767, -32768]
    assert iss.packvrnr(acc, 1).view(np.int16).tolist()[:4] == [1, -2, 2, -3]
    assert iss.packvru(acc, 1).tolist()[:4] == [2, 0, 3, 0]
    assert iss.packvr(np.array([2**23 - 1, -(2**23)]), 0, 8).view(np.int8).tolist() == [127, -128]
    assert iss.packvr(np.array([2**47 - 1]), 31, 32).tolist() == [0x10000]  # 2^16 - 2^-31, rounded
    t = iss.trace_packvr(32767 * 4 + 2, 2)
    assert t.saturated and t.output_bits == 0x7FFF


def test_sext_zeroext_ref003_13_3() -> None:
    ins = np.array([0x7FFF, 0x8000, 0xFFFF, 0x0001])
    assert iss.sext(ins).view(np.int32).tolist() == [32767, -32768, -1, 1]
    assert iss.zeroext(np.array([-1, 5])).tolist() == [0xFFFFFFFF, 5]


# -- registry and errors -------------------------------------------------------------------

def test_registry() -> None:
    assert {"float", "ufloat", "trunc", "utrunc", "widen", "narrow", "sats", "packl", "pack",
            "packvr"} <= set(iss.ISS_PRIMITIVES)
    for name, prim in iss.ISS_PRIMITIVES.items():
        assert prim.name == name and prim.section.startswith("ref 003 §") and prim.description
        for p in prim.params:
            assert p.default in p.choices and p.doc
    p = iss.ISS_PRIMITIVES["float"]
    assert p.bind(dst="fp16") == {"width": 32, "dst": "fp16", "round_mode": 0}
    with pytest.raises(ValueError, match="width must be one of 8, 16, 32"):
        p.bind(width=12)
    with pytest.raises(ValueError, match="no parameter shift"):
        p.bind(shift=1)
    with pytest.raises(ValueError, match=r"shift must be one of 0\.\.31"):
        iss.ISS_PRIMITIVES["packvr"].bind(shift=40)


def test_bad_arguments_raise_value_error() -> None:
    with pytest.raises(ValueError):
        iss.float_(np.array([1.5]))
    with pytest.raises(ValueError):
        iss.trunc(np.array([1]), "bf16")
    with pytest.raises(ValueError):
        iss.pack(np.array([1]), 32)
    with pytest.raises(ValueError):
        iss.trace_narrow(0, -1)
    with pytest.raises(ValueError):
        iss.trace_sats(0, 32)


@pytest.mark.parametrize("name", ["float", "trunc", "narrow", "widen", "packvr", "pack"])
def test_large_arrays_keep_shape_and_match_small_slices(name: str) -> None:
    prim = iss.ISS_PRIMITIVES[name]
    params = prim.bind(**({"shift": 5} if name.startswith("pack") else {}))
    a = np.random.default_rng(7).integers(0, 2**63, (3, 40_000), dtype=np.int64)
    out = prim.vector(a, **params)
    assert out.shape == a.shape
    pieces = [prim.vector(x, **params) for x in np.array_split(a.reshape(-1), 97)]
    assert np.array_equal(out.reshape(-1), np.concatenate(pieces))


def test_trace_mode_names_the_rounding() -> None:
    assert [iss.trace_float(7, round_mode=rm).mode for rm in range(4)] == list(iss.ROUND_MODES)
    assert iss.trace_narrow(0x3F800001, 6).mode == "ceil"  # word 6: bits [1:0] = 2
    assert iss.trace_trunc(0).mode == "trunc" and iss.trace_widen(0).mode == "none"
    assert iss.trace_pack(0, 3).mode == "half_up" and iss.trace_packvrnr(0, 3).mode == "floor"
    # a carry out of the kept bits shows the extra bit in the round step
    r = iss.trace_narrow(0x477FF000).step("round")
    # one width inside the step: the carry pads the kept bits (DESIGN "Traces in plain text")
    assert (r.bits_before, r.bits_after) == ("0" + "1" * 11, "1" + "0" * 11)
