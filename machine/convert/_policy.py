"""Special-value and overflow rules per profile (DESIGN "Conversion API", ref 002 Constraints).

Each rule returns, per lane, the *signed* destination encoding for one case;
kernels compute the finite rounding and then select with these. Cases:
NaN input, infinite input, finite overflow, integer out of range.

ieee    overflow: inf if the format has one (nearest modes), the largest finite value when
        the mode rounds toward zero (trunc; floor > 0; ceil < 0) and for `odd`; a format
        without inf gives NaN, one without NaN the largest finite. sat: overflow and inf
        clamp to +-max; NaN -> NaN, or 0 where there is no NaN. Integers: round by mode,
        clamp, NaN -> 0, +-inf -> max/min (sat or not).
        e8m0 (unsigned, no zero): zero and negative finite inputs -> NaN 0xFF (as ml_dtypes),
        before any overflow rule; a positive value below 2^-127 -> 0x00 (= 2^-127), any mode.
        An infinite input stays infinite where the format has infinity, whatever the mode;
        elsewhere it follows the overflow rule of the mode.
ascend  as ieee, with ref 002's rules: NaN -> 0 for fp8 (e3m4/e4m3/e4m3fn/e5m2), fp4 and int
        targets, and for every float target under sat; e8m0: |x| is converted ("the
        absolute value"), overflow and +-inf -> 0xFE, NaN -> 0xFF, zero -> 0x00;
        fp4: inf and overflow -> +-max;
        e4m3fn: inf -> NaN; float -> int without sat keeps the low bits of the rounded integer
        (half 257 -> uint8 1), inf -> max/min; int -> int without sat wraps.
neuron  ieee rules on the fp32 hub value (see kernels).
"""

from __future__ import annotations

import numpy as np

from neurondbg.machine.convert.formats import FloatFormat, HiF8Format
from neurondbg.machine.convert.modes import Mode

# mode -> (toward zero for x > 0, for x < 0)
_TOWARD_ZERO: dict[str, tuple[bool, bool]] = {
    Mode.TRUNC: (True, True), Mode.ODD: (True, True), Mode.FLOOR: (True, False),
    Mode.CEIL: (False, True)}

FloatLike = FloatFormat | HiF8Format


def sign_bit(fmt: FloatLike) -> int:
    return 1 << (fmt.bits - 1) if fmt.signed else 0


def with_sign(code: int | np.ndarray, neg: np.ndarray, fmt: FloatLike) -> np.ndarray:
    return np.where(neg, code | sign_bit(fmt), code) if fmt.signed else np.broadcast_to(
        np.asarray(code), neg.shape)


def max_code(fmt: FloatLike) -> int:
    return 0x6E if fmt.is_hif8 else fmt.max_code


def inf_code(fmt: FloatLike) -> int | None:
    if fmt.is_hif8:
        return fmt.inf_code
    if not fmt.inf:
        return None
    return ((1 << fmt.exp_bits) - 1) << (fmt.man_bits + fmt.pad_bits)


def nan_code(fmt: FloatLike) -> int | None:
    """Canonical NaN magnitude code: quiet bit set, no payload (sign added by the caller)."""
    if fmt.is_hif8:
        return fmt.nan_code
    if fmt.nan == "ieee":
        e = (1 << fmt.exp_bits) - 1
        return ((e << fmt.man_bits) | (1 << (fmt.man_bits - 1))) << fmt.pad_bits
    if fmt.nan == "allones":
        return (1 << (fmt.bits - 1)) - 1
    if fmt.nan == "code":
        return fmt.nan_code
    return None


def signed_nan(fmt: FloatLike, neg: np.ndarray) -> np.ndarray:
    """NaN encoding keeping the sign where the format's NaN has one."""
    code = nan_code(fmt)
    assert code is not None
    if fmt.is_hif8 or fmt.nan == "code":
        return np.full(neg.shape, code)
    return with_sign(code, neg, fmt)


def nan_result(fmt: FloatLike, neg: np.ndarray, sat: bool, profile: str) -> np.ndarray:
    if fmt.is_scale:
        return np.full(neg.shape, 0xFF)
    if profile == "ascend" and (sat or fmt.is_minifloat):
        return np.zeros(neg.shape, dtype=np.int64)
    if nan_code(fmt) is None:
        return np.zeros(neg.shape, dtype=np.int64)
    return signed_nan(fmt, neg)


def inf_result(fmt: FloatLike, neg: np.ndarray, mode: str, sat: bool,
               profile: str) -> np.ndarray:
    """Encoding of an infinite input: infinity where the format has one (any mode), else
    the overflow rule of the mode (toward zero / odd -> max, otherwise NaN, else max)."""
    code = inf_code(fmt)
    if code is None or sat or (profile == "ascend" and fmt.is_scale):
        return overflow_result(fmt, neg, mode, sat, profile)
    return with_sign(code, neg, fmt)


def overflow_result(fmt: FloatLike, neg: np.ndarray, mode: str, sat: bool,
                    profile: str) -> np.ndarray:
    """Encoding of a finite value whose rounding exceeds the largest finite value."""
    big = with_sign(max_code(fmt), neg, fmt)
    if sat or (profile == "ascend" and fmt.is_scale):
        return big
    pos_tz, neg_tz = _TOWARD_ZERO.get(mode, (False, False))
    toward_zero = np.where(neg, neg_tz, pos_tz)
    code = inf_code(fmt)
    if code is not None:
        other = with_sign(code, neg, fmt)
    elif nan_code(fmt) is not None:
        other = signed_nan(fmt, neg)
    else:
        other = big
    return np.where(toward_zero, big, other)
