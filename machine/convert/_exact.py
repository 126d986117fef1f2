"""Decode encodings of any format into exact lanes: value = (-1)^neg * mag * 2^exp.

Every kernel rounds from this one representation, so a new format only needs a
decoder. `mag` is uint64 (an int64's magnitude fits), `exp` int64, `cls` says
finite / inf / nan. Formats of at most 16 bits are decoded through a cached
table of all their encodings (one fancy-index per call).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from neurondbg.machine.convert._trace_codec import HIF8_VALUES
from neurondbg.machine.convert.formats import FloatFormat, Format, IntFormat

FINITE, INF, NAN = 0, 1, 2
U64 = np.uint64


@dataclass
class Lanes:
    """Exact decoded lanes (all arrays of one shape)."""

    cls: np.ndarray  # uint8: FINITE / INF / NAN
    neg: np.ndarray  # bool: sign bit (also for zero and NaN)
    mag: np.ndarray  # uint64 significand (0 for zero, inf, nan)
    exp: np.ndarray  # int64 scale exponent

    def take(self, idx: np.ndarray) -> Lanes:
        return Lanes(self.cls[idx], self.neg[idx], self.mag[idx], self.exp[idx])


def as_bits(bits: object, fmt: Format) -> np.ndarray:
    """Encodings as the format's container dtype; values are taken modulo 2^width.

    Negative Python ints are read as two's-complement patterns (int8 -1 -> 0xFF).
    """
    arr = np.asarray(bits)
    if arr.dtype.kind == "f":
        raise TypeError(f"bits for {fmt.name} must be integers (encodings), not floats")
    if arr.dtype.kind not in "iub":
        arr = arr.astype(np.int64)
    out = arr.astype(fmt.container, copy=False) if arr.dtype.kind != "b" else arr.astype(
        fmt.container)
    if fmt.bits == 4:
        out = out & np.uint8(0x0F)
    return out


def decode(bits: np.ndarray, fmt: Format) -> Lanes:
    """Exact lanes of `bits` (already in fmt's container)."""
    if fmt.is_int:
        return _decode_int(bits, fmt)
    if fmt.is_hif8 or fmt.bits <= 16:
        return _table(fmt.name).take(bits.astype(np.intp))
    return _decode_float(bits, fmt)  # fp32, fp32r


def _decode_int(bits: np.ndarray, fmt: IntFormat) -> Lanes:
    u = bits.astype(U64)
    if fmt.signed:
        neg = (u >> U64(fmt.bits - 1)) & U64(1) == 1
        mask = U64((1 << fmt.bits) - 1) if fmt.bits < 64 else U64(0xFFFF_FFFF_FFFF_FFFF)
        with np.errstate(over="ignore"):  # ~0 + 1 wraps to 0 on purpose (0-d inputs warn)
            mag = np.where(neg, ((~u) + U64(1)) & mask, u)  # two's-complement magnitude
    else:
        neg = np.zeros(u.shape, dtype=bool)
        mag = u
    z = np.zeros(u.shape, dtype=np.int64)
    return Lanes(np.zeros(u.shape, dtype=np.uint8), neg, mag, z)


def _decode_float(bits: np.ndarray, fmt: FloatFormat) -> Lanes:
    b = bits.astype(U64) >> U64(fmt.pad_bits)
    mb = fmt.man_bits
    sign_shift = fmt.bits - fmt.pad_bits - 1
    neg = ((b >> U64(sign_shift)) & U64(1) == 1) if fmt.signed else np.zeros(b.shape, bool)
    e = ((b >> U64(mb)) & U64((1 << fmt.exp_bits) - 1)).astype(np.int64)
    m = b & U64((1 << mb) - 1)
    top = (1 << fmt.exp_bits) - 1
    sub = (e == 0) if fmt.subnormals else np.zeros(e.shape, bool)
    mag = np.where(sub, m, m | U64(1 << mb))
    exp = np.where(sub, fmt.emin, e - fmt.bias) - mb
    cls = np.zeros(b.shape, dtype=np.uint8)
    if fmt.nan == "ieee":
        special = e == top
        cls[special & (m == 0) & fmt.inf] = INF
        cls[special & (m != 0)] = NAN
    elif fmt.nan == "allones":
        cls[(e == top) & (m == (1 << mb) - 1)] = NAN
    elif fmt.nan == "code" and fmt.nan_code is not None:
        cls[(b & U64((1 << (fmt.bits - 1 + (not fmt.signed))) - 1 if fmt.signed else 0xFF))
            == U64(fmt.nan_code)] = NAN
    mag = np.where(cls == FINITE, mag, U64(0))
    return Lanes(cls, neg, mag, exp)


def _decode_hif8(codes: np.ndarray) -> Lanes:
    vals = HIF8_VALUES[codes.astype(np.intp)]
    cls = np.where(np.isnan(vals), NAN, np.where(np.isinf(vals), INF, FINITE)).astype(np.uint8)
    neg = codes >= 0x80
    fin = np.where(cls == FINITE, np.abs(vals), 0.0)
    m, e = np.frexp(fin)  # fin = m * 2^e, 0.5 <= m < 1; hif8 has at most 4 significant bits
    mag = np.round(np.ldexp(m, 4)).astype(U64)
    exp = e.astype(np.int64) - 4
    return Lanes(cls, neg, mag, exp)


@cache
def _table(name: str) -> Lanes:
    from neurondbg.machine.convert.formats import FORMATS

    fmt = FORMATS[name]
    codes = np.arange(1 << fmt.bits, dtype=fmt.container)
    if fmt.is_hif8:
        return _decode_hif8(codes)
    return _decode_float(codes, fmt)  # type: ignore[arg-type]


def bit_length(mag: np.ndarray) -> np.ndarray:
    """Exact bit length of uint64 values (0 for 0), vectorized."""
    f = mag.astype(np.float64)  # may round up across a power of two; corrected below
    _, e = np.frexp(f)
    e = np.minimum(e.astype(np.int64), 64)  # 2^64 - 1 rounds up to 2^64 in float64
    over = e > 0
    lo = np.zeros(mag.shape, dtype=U64)
    lo[over] = U64(1) << (e[over] - 1).astype(U64)
    return np.where(over & (mag < lo), e - 1, e)


def lanes_value(lanes: Lanes) -> np.ndarray:
    """float64 value of each lane (exact where float64 holds it; NaN/inf as float)."""
    v = np.ldexp(lanes.mag.astype(np.float64), np.clip(lanes.exp, -2000, 2000).astype(np.int32))
    v = np.where(lanes.cls == INF, np.inf, v)
    v = np.where(lanes.cls == NAN, np.nan, v)
    return np.where(lanes.neg & (lanes.cls != NAN), -v, v)
