"""Vectorized ISS conversion primitives of reference 003 (whole numpy arrays, no per-lane loop).

Inputs are integer arrays: integer lanes are read from their low `width` bits (so both
signed values and two's-complement patterns work), float lanes are encodings (fp16 in
the low 16 bits, fp32 in the low 32). Outputs follow the DESIGN bit convention:
unsigned encodings in the format's container (fp32 -> uint32, int16 -> uint16, ...).

The per-lane explanation of the same rules is machine.convert._iss_trace; the two are
property-tested to agree bit for bit.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from neurondbg.machine.convert.formats import FORMATS, FloatFormat
from neurondbg.machine.convert.modes import Mode

FP16: FloatFormat = FORMATS["fp16"]  # type: ignore[assignment]
FP32: FloatFormat = FORMATS["fp32"]  # type: ignore[assignment]
FLOAT_FORMATS: dict[str, FloatFormat] = {"fp16": FP16, "fp32": FP32}

# Round-mode word, bits [1:0] (ref 003 §8.1): 0 = RNE is OBSERVED; the order
# RNE / RTZ / RPI / RMI for 0..3 is the document's MED reading (the Xtensa FCR order).
# the round-mode word's bits[1:0] (ref 003): 0 RNE, 1 RTZ, 2 RPI, 3 RMI
ROUND_MODES: tuple[Mode, ...] = (Mode.RINT, Mode.TRUNC, Mode.CEIL, Mode.FLOOR)

INT_WIDTHS: tuple[int, ...] = (8, 16, 32)  # float/ufloat sources, ref 003 §2 NOTE
TRUNC_WIDTHS: tuple[int, ...] = (16, 32)  # trunc/utrunc results, ref 003 §3.1-3.2
SATS_WIDTHS: tuple[int, ...] = (8, 16)  # sats_8_16, sats_16_32, ref 003 §6.2
# packvr*: result width -> accumulator width (ref 003 §7.2: 8_24, 16_48, 32_48 variants).
PACKVR_ACC: dict[int, int] = {8: 24, 16: 48, 32: 48}
PACKL_IN, PACKL_OUT = 48, 16  # packl_16_48 (ref 003 §7.1a)
PACK_IN, PACK_OUT = 32, 16  # pack: 32-bit load -> 16-bit lane (ref 003 §7.1b)
SHIFTS: tuple[int, ...] = tuple(range(32))  # %cl of a 32-bit shift / `and $0x1f`

_U1 = np.uint64(1)
CHUNK = 1 << 15  # lanes per pass: the temporaries stay in cache (about 2x whole-array speed)


def chunked(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """Run a lane-wise kernel over a large array in CHUNK-lane slices (same result)."""

    @functools.wraps(fn)
    def run(values: np.ndarray, *args: object, **kwargs: object) -> np.ndarray:
        a = np.asarray(values)
        if a.size <= CHUNK:
            return fn(a, *args, **kwargs)
        flat = a.reshape(-1)
        first = fn(flat[:CHUNK], *args, **kwargs)
        out = np.empty(flat.shape, first.dtype)
        out[:CHUNK] = first
        for i in range(CHUNK, flat.size, CHUNK):
            out[i:i + CHUNK] = fn(flat[i:i + CHUNK], *args, **kwargs)
        return out.reshape(a.shape)

    return run


def mode_of(round_mode: int) -> str:
    """The rounding of a round-mode word: only bits [1:0] are read (ref 003 §8.1)."""
    if not isinstance(round_mode, int | np.integer) or round_mode < 0:
        raise ValueError(f"round_mode must be a non-negative integer word, got {round_mode!r}")
    return ROUND_MODES[int(round_mode) & 3]


def check_choice(name: str, value: object, choices: tuple[object, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(str, choices))}; got {value!r}")


def pattern(values: np.ndarray, width: int) -> np.ndarray:
    """The low `width` bits of each lane, as uint64."""
    a = np.asarray(values)
    if a.dtype.kind not in "iu":
        raise ValueError(f"integer lanes expected, got dtype {a.dtype}")
    return a.astype(np.uint64) & np.uint64((1 << width) - 1)


def signed(values: np.ndarray, width: int) -> np.ndarray:
    """The low `width` bits read as two's complement, as int64."""
    p = pattern(values, width).astype(np.int64)
    return p - ((p >> (width - 1)) & 1) * (1 << width)


def _container(width: int) -> type:
    return {8: np.uint8, 16: np.uint16, 32: np.uint32}.get(width, np.uint64)


def _bit_length(mag: np.ndarray) -> np.ndarray:
    """Bit length of each uint64 lane (exact: every lane here is below 2**53)."""
    return np.frexp(mag.astype(np.float64))[1].astype(np.int64)


def round_to_float(neg: np.ndarray, mag: np.ndarray, exp2: np.ndarray, fmt: FloatFormat,
                   mode: str) -> np.ndarray:
    """Encode (-1)**neg * mag * 2**exp2 (mag uint64 < 2**53) in fmt under `mode`.

    IEEE-754 rounding with gradual underflow (ref 003 §9.3) and the IEEE overflow rule
    (ref 003 §1 claim 5): rint overflows to inf, trunc to the largest finite value,
    ceil / floor to inf on their side and the largest finite value on the other.
    """
    m_bits = fmt.man_bits
    etop = exp2 + _bit_length(mag) - 1
    q = np.maximum(etop, fmt.emin) - m_bits  # weight of the lowest kept bit
    shift = q - exp2
    right = np.clip(shift, 0, 63).astype(np.uint64)
    left = np.clip(-shift, 0, 63).astype(np.uint64)
    kept = np.where(shift >= 0, mag >> right, mag << left)
    g_sh = np.clip(shift - 1, 0, 63).astype(np.uint64)
    guard = (shift >= 1) & (((mag >> g_sh) & _U1) == 1)
    sticky = (shift >= 2) & ((mag & ((_U1 << g_sh) - _U1)) != 0)
    # Hidden-bit trick: the kept significand's leading one adds 1 to (biased exponent - 1),
    # and a carry out of the mantissa ripples into the exponent by itself.
    enc = ((q + m_bits + fmt.bias - 1) << m_bits) + kept.astype(np.int64)
    inexact = guard | sticky
    if mode == Mode.RINT:
        up = guard & (sticky | ((enc & 1) == 1))
    elif mode == Mode.TRUNC:
        up = np.zeros_like(guard)
    elif mode == Mode.CEIL:
        up = inexact & ~neg
    else:  # floor
        up = inexact & neg
    enc = np.where(mag == 0, 0, enc + up)
    inf_code = ((1 << fmt.exp_bits) - 1) << m_bits
    to_inf_of: dict[str, np.ndarray] = {
        Mode.RINT: np.ones_like(neg), Mode.TRUNC: np.zeros_like(neg), Mode.CEIL: ~neg,
        Mode.FLOOR: neg}
    to_inf = to_inf_of[mode]
    enc = np.where(enc >= inf_code, np.where(to_inf, inf_code, inf_code - 1), enc)
    return enc.astype(np.uint64) | (neg.astype(np.uint64) << np.uint64(fmt.bits - 1))


# -- int -> fp (ref 003 §2) ---------------------------------------------------------------

@chunked
def _int_to_float(values: np.ndarray, width: int, dst: str, round_mode: int,
                  is_signed: bool) -> np.ndarray:
    check_choice("width", width, INT_WIDTHS)
    check_choice("dst", dst, tuple(FLOAT_FORMATS))
    mode = mode_of(round_mode)
    fmt = FLOAT_FORMATS[dst]
    v = signed(values, width) if is_signed else pattern(values, width).astype(np.int64)
    neg = v < 0
    code = round_to_float(neg, np.abs(v).astype(np.uint64), np.zeros(v.shape, np.int64), fmt,
                          mode)
    return code.astype(fmt.container)


def float_(values: np.ndarray, width: int = 32, dst: str = "fp32",
           round_mode: int = 0) -> np.ndarray:
    """ivp_float: signed int`width` -> fp16/fp32 encodings, rounded per the mode word."""
    return _int_to_float(values, width, dst, round_mode, True)


def ufloat(values: np.ndarray, width: int = 32, dst: str = "fp32",
           round_mode: int = 0) -> np.ndarray:
    """ivp_ufloat: unsigned int`width` -> fp16/fp32 encodings, rounded per the mode word."""
    return _int_to_float(values, width, dst, round_mode, False)


# -- fp -> int (ref 003 §3) ---------------------------------------------------------------

@chunked
def _fp_to_int(bits: np.ndarray, src: str, width: int, is_signed: bool) -> np.ndarray:
    check_choice("src", src, tuple(FLOAT_FORMATS))
    check_choice("width", width, TRUNC_WIDTHS)
    fmt = FLOAT_FORMATS[src]
    b = pattern(bits, fmt.bits)
    m_bits, top = fmt.man_bits, (1 << fmt.exp_bits) - 1
    neg = ((b >> np.uint64(fmt.bits - 1)) & _U1) == 1
    e = ((b >> np.uint64(m_bits)) & np.uint64(top)).astype(np.int64)
    m = b & np.uint64((1 << m_bits) - 1)
    sig = np.where(e == 0, m, m | (_U1 << np.uint64(m_bits)))
    exp2 = np.maximum(e - fmt.bias, fmt.emin) - m_bits
    # Every |value| >= 2**40 overflows any result width here, so the shift is capped there.
    mag = np.where(exp2 >= 0, sig << np.clip(exp2, 0, 40).astype(np.uint64),
                   sig >> np.clip(-exp2, 0, 63).astype(np.uint64))  # drop the fraction: RTZ
    mag = np.minimum(mag, np.uint64(1 << 40)).astype(np.int64)
    if is_signed:
        lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
        v = np.clip(np.where(neg, -mag, mag), lo, hi)
    else:
        lo, hi = 0, (1 << width) - 1
        v = np.where(neg, 0, np.minimum(mag, hi))  # ref 003 §3.2: negative clamps to 0
    v = np.where(e == top, np.where(m != 0, 0, np.where(neg, lo, hi)), v)  # NaN -> 0, inf
    return (v & ((1 << width) - 1)).astype(_container(width))


def trunc(bits: np.ndarray, src: str = "fp32", width: int = 32) -> np.ndarray:
    """ivp_trunc: fp16/fp32 -> signed int`width`, toward zero, saturating; NaN -> 0."""
    return _fp_to_int(bits, src, width, True)


def utrunc(bits: np.ndarray, src: str = "fp32", width: int = 32) -> np.ndarray:
    """ivp_utrunc: fp16/fp32 -> unsigned int`width`, toward zero, negatives -> 0; NaN -> 0."""
    return _fp_to_int(bits, src, width, False)


# -- fp16 <-> fp32 (ref 003 §4) -----------------------------------------------------------

@chunked
def widen(bits: np.ndarray) -> np.ndarray:
    """CVTF32F16: fp16 -> fp32, exact; NaN payload and quiet bit kept; subnormals normalised."""
    h = pattern(bits, 16).astype(np.int64)
    sign = (h >> 15) << 31
    e5, m10 = (h >> 10) & 0x1F, h & 0x3FF
    shift = FP32.man_bits - FP16.man_bits  # 13: the 10-bit mantissa goes to the top of 23
    bias_delta = FP32.bias - FP16.bias  # 112
    normal = ((e5 + bias_delta) << 23) | (m10 << shift)
    special = (0xFF << 23) | (m10 << shift)
    p = _bit_length(m10.astype(np.uint64)) - 1  # subnormal: leading one at bit p (bsr)
    sub = ((p + FP16.emin - FP16.man_bits + FP32.bias) << 23) | \
        ((m10 << np.clip(23 - p, 0, 23)) & 0x7FFFFF)
    out = np.where(e5 == 0x1F, special, np.where(e5 == 0, np.where(m10 == 0, 0, sub), normal))
    fp32: np.ndarray = (out | sign).astype(np.uint32)
    return fp32


@chunked
def narrow(bits: np.ndarray, round_mode: int = 0) -> np.ndarray:
    """CVTF16F32: fp32 -> fp16, rounded per the mode word; overflow per mode, gradual underflow.

    NaN keeps its sign and the top 10 payload bits; a payload that lives only in the low
    13 bits becomes 0x7C01 (numpy's choice; ref 003 says only "0x7c00 + mantissa": LOW).
    """
    mode = mode_of(round_mode)
    f = pattern(bits, 32).astype(np.int64)
    neg = (f >> 31) == 1
    e8, m23 = (f >> 23) & 0xFF, f & 0x7FFFFF
    sig = np.where(e8 == 0, m23, m23 | (1 << 23)).astype(np.uint64)
    exp2 = np.maximum(e8 - FP32.bias, FP32.emin) - FP32.man_bits
    code = round_to_float(neg, sig, exp2, FP16, mode).astype(np.int64)
    payload = m23 >> (FP32.man_bits - FP16.man_bits)
    nan = (neg.astype(np.int64) << 15) | 0x7C00 | np.where(payload == 0, 1, payload)
    inf = (neg.astype(np.int64) << 15) | 0x7C00  # an infinite input stays infinite in every mode
    code = np.where(e8 == 0xFF, np.where(m23 != 0, nan, inf), code)
    return code.astype(np.uint16)


# -- integer narrows and packs (ref 003 §6, §7) --------------------------------------------

@chunked
def sats(values: np.ndarray, width: int = 16) -> np.ndarray:
    """sats_`width`_`2*width`: signed narrow that clamps to the signed `width` range."""
    check_choice("width", width, SATS_WIDTHS)
    v = signed(values, 2 * width)
    v = np.clip(v, -(1 << (width - 1)), (1 << (width - 1)) - 1)
    narrowed: np.ndarray = (v & ((1 << width) - 1)).astype(_container(width))
    return narrowed


def packl(values: np.ndarray) -> np.ndarray:
    """packl_16_48: the low 16 bits of the 48-bit lane, no clamp (wrap)."""
    return pattern(values, PACKL_OUT).astype(np.uint16)


def pack_bias(shift: int) -> int:
    """pack's rounding addend 1 << ((shift - 1) & 0xf) (lea -1 ; and $0xf ; shl)."""
    return 1 << ((shift - 1) & 0xF)


@chunked
def pack(values: np.ndarray, shift: int) -> np.ndarray:
    """pack: ((load + bias) & 0x7fffffff) >> shift, low 16 bits (ref 003 §7.1b)."""
    check_choice("shift", shift, SHIFTS)
    load = pattern(values, PACK_IN)
    val = ((load + np.uint64(pack_bias(shift))) & np.uint64(0x7FFFFFFF)) >> np.uint64(shift)
    return (val & np.uint64(0xFFFF)).astype(np.uint16)


@chunked
def _packvr(values: np.ndarray, shift: int, width: int, rounding: bool,
            is_signed: bool) -> np.ndarray:
    check_choice("shift", shift, SHIFTS)
    check_choice("width", width, tuple(PACKVR_ACC))
    acc = signed(values, PACKVR_ACC[width])
    bias = 1 << (shift - 1) if rounding and shift else 0
    v = (acc + bias) >> shift  # arithmetic shift of the (sign-extended) accumulator
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if is_signed else (0, (1 << width) - 1)
    packed: np.ndarray = (np.clip(v, lo, hi) & ((1 << width) - 1)).astype(_container(width))
    return packed


def packvr(values: np.ndarray, shift: int, width: int = 16) -> np.ndarray:
    """packvr: accumulator >> shift rounding half up, saturated to signed `width`."""
    return _packvr(values, shift, width, True, True)


def packvrnr(values: np.ndarray, shift: int, width: int = 16) -> np.ndarray:
    """packvrnr: accumulator >> shift without the round bias (floor), saturated signed."""
    return _packvr(values, shift, width, False, True)


def packvru(values: np.ndarray, shift: int, width: int = 16) -> np.ndarray:
    """packvru: accumulator >> shift rounding half up, saturated to unsigned `width`."""
    return _packvr(values, shift, width, True, False)


@chunked
def sext(values: np.ndarray) -> np.ndarray:
    """sext_32_16: sign-extend 16 -> 32 bits (ref 003 §6.1, §13.3)."""
    return (signed(values, 16) & 0xFFFFFFFF).astype(np.uint32)


def zeroext(values: np.ndarray) -> np.ndarray:
    """zeroext_48_32: zero-extend 32 -> 48 bits (uint64 container)."""
    return pattern(values, 32)
