"""Rounding exact lanes to HiFloat8 (reference 002 Table 9 / 10), vectorized.

HiF8's precision depends on the binade (Table 9): 3 mantissa bits for
|Ev| <= 3, 2 for 4..7, 1 for 8..15, none for the denormals 2^-22..2^-16; the
grid below 2^-22 is {0, 2^-22}. Rounding is the generic guard/sticky rule of
_round on that per-lane grid; the result value is mapped back to its code.

`hybrid` (Table 9 for fp32 sources, Table 10 for fp16): for |Ev| <= 3 round
half away; for |Ev| in 4..15, the denormal binades and Ev = -23, round up iff
frac >= thr, where frac is the 14 (fp32) / 2 (fp16) bits starting at the first
discarded bit and thr is the source encoding's low 14 bits (fp32) or
{bit 0, 1} (fp16). Only inexact values are rounded (decision): read literally,
an exactly representable fp32 has frac = thr = 0, "frac >= thr" holds, and 16.0
would become 20.0 (140 of the 255 finite codes would not survive hif8 -> fp32 ->
hif8). A rounding rule that moves a value it can hold contradicts the table's
own heading ("rounding"), so the increment needs a nonzero discarded part; for
fp16 (thr >= 1) the two readings agree. Ev is the exponent of the true value:
fp16 subnormal inputs are normalized first (Table 10 reads the raw exponent
field, which would misplace them; decision here).
"""

from __future__ import annotations

import numpy as np

from neurondbg.machine.convert._exact import U64, Lanes, bit_length
from neurondbg.machine.convert._round import increment, split
from neurondbg.machine.convert._trace_codec import HIF8_VALUES
from neurondbg.machine.convert.modes import Mode

_POS = HIF8_VALUES[:0x80]
_FINITE = np.isfinite(_POS)
_ORDER = np.argsort(np.where(_FINITE, _POS, np.inf), kind="stable")[: int(_FINITE.sum())]
SORTED_VALUES: np.ndarray = _POS[_ORDER]  # positive finite values ascending, 0 first
SORTED_CODES: np.ndarray = _ORDER.astype(np.uint8)
MAX_VALUE = float(SORTED_VALUES[-1])  # 32768 = code 0x6E
MIN_Q = -22  # quantum of the lowest binades (denormal 2^-22)


def precision(etop: np.ndarray) -> np.ndarray:
    """Mantissa bits of the HiF8 binade with leading exponent etop (Table 9)."""
    a = np.abs(etop)
    p = np.where(a <= 3, 3, np.where(a <= 7, 2, 1))
    return np.where(etop <= -16, 0, p)


def code_of(values: np.ndarray) -> np.ndarray:
    """Code of exact positive HiF8 values (values must be on the grid, <= 32768)."""
    idx = np.searchsorted(SORTED_VALUES, values)
    return SORTED_CODES[np.minimum(idx, len(SORTED_CODES) - 1)]


def round_hif8(lanes: Lanes, mode: str, thr: np.ndarray | None = None,
               frac_bits: int = 14) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(magnitude code uint8, overflow bool, inexact bool) for finite lanes.

    thr: hybrid thresholds per lane (required for mode "hybrid").
    """
    mag, exp = lanes.mag, lanes.exp
    etop = exp + bit_length(mag) - 1
    q = np.maximum(etop - precision(etop), MIN_Q)
    shift = q - exp
    kept, guard, sticky = split(mag, shift)
    # Inputs far above the grid (huge parsed decimals) overflow float64 to inf here,
    # which the np.minimum / `> MAX_VALUE` below turn into the overflow they are.
    with np.errstate(over="ignore"):
        kept_val = np.ldexp(kept.astype(np.float64), q.astype(np.int32))
    # A kept value above the grid (etop >= 16) is overflow whatever the rounding.
    code_t = code_of(np.minimum(kept_val, MAX_VALUE))
    lsb = (code_t & 1) == 1
    if mode == Mode.HYBRID:
        assert thr is not None
        fsh = shift - frac_bits
        fr = np.clip(fsh, 0, 63).astype(U64)
        fl = np.clip(-fsh, 0, 63).astype(U64)
        frac = np.where(fsh >= 0, mag >> fr, mag << fl) & U64((1 << frac_bits) - 1)
        # Table 9 read as rounding inexact values only (module docstring)
        by_thr = (frac >= thr.astype(U64)) & (guard | sticky)
        inc = np.where(np.abs(etop) <= 3, guard, by_thr) & (etop >= -23)
    else:
        inc = increment(mode, lsb, guard, sticky, lanes.neg)
    with np.errstate(over="ignore"):
        val = np.ldexp((kept + inc.astype(U64)).astype(np.float64), q.astype(np.int32))
    val = np.where(mag == 0, 0.0, val)
    overflow = val > MAX_VALUE
    code = code_of(np.minimum(val, MAX_VALUE))
    return code, overflow, guard | sticky
