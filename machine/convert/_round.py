"""Generic rounding of exact lanes to a float grid or to integers (all modes, vectorized).

Shared rule for every float-like destination: find the quantum q of the value's
binade on the destination grid, keep floor(|x| / 2^q), look at the first
discarded bit (guard, "half") and the rest (sticky), and add one quantum if the
mode says so. Ties-to-even and round-to-odd look at the parity of the
*encoding*, not of the kept significand: for formats with mantissa bits the two
agree, and for e8m0 (no mantissa) this is DESIGN's "tie toward the even code".
Modes: rint (ties even), round (ties away), floor, ceil, trunc, odd (jamming:
inexact results get an odd encoding), hybrid (HiFloat8 only, see _hif8).
"""

from __future__ import annotations

import numpy as np

from neurondbg.machine.convert._exact import U64, Lanes, bit_length
from neurondbg.machine.convert.modes import Mode

_ONE = U64(1)


def split(mag: np.ndarray, shift: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """kept = mag >> shift (mag << -shift if shift < 0), plus guard bit and sticky flag."""
    right = np.clip(shift, 0, 64)
    r63 = np.minimum(right, 63).astype(U64)
    kept = np.where(right >= 64, U64(0), mag >> r63)
    left = np.clip(-shift, 0, 63).astype(U64)
    kept = np.where(shift < 0, mag << left, kept)
    g_sh = np.clip(right - 1, 0, 63).astype(U64)
    guard = (right >= 1) & (right <= 64) & (((mag >> g_sh) & _ONE) == 1)
    below = np.where(right >= 65, mag, mag & ((_ONE << g_sh) - _ONE))
    sticky = (right >= 2) & (below != 0)
    return kept, guard, sticky


def increment(mode: str, lsb: np.ndarray, guard: np.ndarray, sticky: np.ndarray,
              neg: np.ndarray) -> np.ndarray:
    """Whether to add one quantum (bool array). `odd` increments an even truncation."""
    inexact: np.ndarray = guard | sticky
    up: np.ndarray
    if mode == Mode.RINT:
        up = guard & (sticky | lsb)
    elif mode == Mode.ROUND:
        up = guard
    elif mode == Mode.FLOOR:
        up = inexact & neg
    elif mode == Mode.CEIL:
        up = inexact & ~neg
    elif mode == Mode.TRUNC:
        up = np.zeros(guard.shape, dtype=bool)
    elif mode == Mode.ODD:
        up = inexact & ~lsb
    else:
        raise ValueError(f"mode {mode!r} has no generic rounding rule")
    return up


def round_float(lanes: Lanes, man_bits: int, bias: int, emin: int,
                mode: str) -> tuple[np.ndarray, np.ndarray]:
    """Magnitude encodings (int64, hidden-bit trick: carries ripple into the exponent).

    Returns (enc, inexact). enc may exceed the format's largest code (overflow,
    judged by the caller) and is negative only when a no-subnormal format
    (e8m0) underflows below its smallest value.
    """
    mag, exp = lanes.mag, lanes.exp
    etop = exp + bit_length(mag) - 1
    q = np.maximum(etop - man_bits, emin - man_bits)
    kept, guard, sticky = split(mag, q - exp)
    base = q + man_bits + bias - 1  # biased exponent minus one: adding kept's hidden bit fixes it
    enc = (base << man_bits) + kept.astype(np.int64)
    enc = np.where(mag == 0, 0, enc)
    lsb = (enc & 1) == 1
    inc = increment(mode, lsb, guard, sticky, lanes.neg)
    return enc + inc, guard | sticky


def round_int(lanes: Lanes, mode: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Round to an integer: (magnitude uint64, huge: |result| >= 2^64, low64: result mod 2^64).

    `low64` is the magnitude's low 64 bits (exact when not huge), for wrapping.
    """
    mag, exp = lanes.mag, lanes.exp
    kept, guard, sticky = split(mag, -exp)
    lsb = (kept & _ONE) == 1
    inc = increment(mode, lsb, guard, sticky, lanes.neg)
    res = kept + inc.astype(U64)
    huge = (exp > 0) & (bit_length(mag) + exp > 64)
    low = np.where(exp >= 64, U64(0), res)
    return res, huge, low
