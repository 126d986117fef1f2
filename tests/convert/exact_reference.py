"""An independent exact reference for conversions: obviously correct, not fast.

decode an encoding to an exact rational (fractions.Fraction), list every finite
value of the target with its code, pick the neighbours of the input by plain
comparison, choose one by the rounding mode, then apply the profile's special
rules (DESIGN.md "Conversion API"). Shares no code with machine.convert except
the format descriptors (widths and biases are facts, not semantics).
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction
from functools import cache

from neurondbg.machine.convert.formats import FORMATS, FloatFormat, HiF8Format, IntFormat

NAN = "nan"


def value(bits: int, name: str) -> Fraction | float | str:
    """Exact value: Fraction, +-inf as float, NaN as "nan". (-0 is Fraction 0; see is_neg.)"""
    f = FORMATS[name]
    if isinstance(f, IntFormat):
        return Fraction(bits - (1 << f.bits) if f.signed and bits >> (f.bits - 1) else bits)
    if isinstance(f, HiF8Format):
        return _hif8_value(bits)
    if name == "fp32r":
        f = FORMATS["fp32"]
    neg = f.signed and bits >> (f.bits - 1) & 1
    body = bits >> f.pad_bits
    man = body % (1 << f.man_bits)
    exp = (body >> f.man_bits) % (1 << f.exp_bits)
    top = (1 << f.exp_bits) - 1
    if f.nan == "code" and bits == f.nan_code:
        return NAN
    if f.nan == "allones" and exp == top and man == (1 << f.man_bits) - 1:
        return NAN
    if f.nan == "ieee" and exp == top:
        return NAN if man else (-math.inf if neg else math.inf)
    if exp == 0 and f.subnormals:
        v = Fraction(man, 1 << f.man_bits) * Fraction(2) ** (1 - f.bias)
    else:
        v = (1 + Fraction(man, 1 << f.man_bits)) * Fraction(2) ** (exp - f.bias)
    return -v if neg else v


def _hif8_value(bits: int) -> Fraction | float | str:
    """HiFloat8: sign | dot (11, 10, 01, 001, 0001, 0000) | exponent (D bits) | mantissa."""
    neg = bits >> 7
    s = format(bits & 0x7F, "07b")
    if s == "1101111":
        return -math.inf if neg else math.inf
    if s.startswith("0000"):
        m = int(s[4:], 2)
        if m == 0:
            return NAN if neg else Fraction(0)
        v = Fraction(2) ** (m - 23)
        return -v if neg else v
    d = {"11": 4, "10": 3, "01": 2}.get(s[:2])
    if d is None:
        d = 1 if s[:3] == "001" else 0
        dot_len = 3 if d == 1 else 4
    else:
        dot_len = 2
    rest = s[dot_len:]
    if d == 0:
        e = 0
    else:
        mag = int("1" + rest[1:d], 2)  # implicit leading one
        e = -mag if rest[0] == "1" else mag
    mbits = rest[d:]
    v = (1 + Fraction(int(mbits, 2), 1 << len(mbits))) * Fraction(2) ** e
    return -v if neg else v


def is_neg(bits: int, name: str) -> bool:
    f = FORMATS[name]
    return bool(f.signed and bits >> (f.bits - 1) & 1)


@cache
def _table(name: str) -> tuple[list[Fraction], list[int]]:
    """Every finite value of a <= 16-bit float format, sorted, with its code (one code per
    value; +0 for zero)."""
    f = FORMATS[name]
    pairs: dict[Fraction, int] = {}
    for code in range(1 << f.bits):
        v = value(code, name)
        if isinstance(v, Fraction) and v not in pairs:
            pairs[v] = code
    vals = sorted(pairs)
    return vals, [pairs[v] for v in vals]


def _mag_code(code: int, name: str) -> int:
    f = FORMATS[name]
    return code & ~(1 << (f.bits - 1)) if f.signed else code


def _max(name: str) -> tuple[Fraction, int]:
    vals, codes = _table(name)
    return vals[-1], codes[-1]


@cache
def _positive(name: str) -> tuple[list[tuple[Fraction, int]], list[Fraction]]:
    """The non-negative values of a small format with their magnitude codes, sorted."""
    vals, codes = _table(name)
    pos = [(v, _mag_code(c, name)) for v, c in zip(vals, codes, strict=True) if v >= 0]
    return pos, [v for v, _ in pos]


def _neighbours(x: Fraction, name: str) -> tuple[tuple[Fraction, int], tuple[Fraction, int]]:
    """(lower, upper) candidates around |x| >= 0 as (value, magnitude code); beyond the
    largest finite value, the upper one is the virtual next code (max code + 1) at
    max + one unit in the last place of the top binade."""
    f = FORMATS[name]
    if name in ("fp32", "fp32r"):
        mb = 23 if name == "fp32" else 13
        e = max(math.floor(math.log2(x)) if x else -126, -126)
        while Fraction(2) ** (e + 1) <= x:
            e += 1
        while e > -126 and Fraction(2) ** e > x:
            e -= 1
        quantum = Fraction(2) ** (e - mb)
        k = math.floor(x / quantum)
        lo, hi = k * quantum, (k + 1) * quantum
        if lo == x:  # exactly representable: no rounding (ceil of 0 is 0)
            return (lo, k), (lo, k)
        return (lo, k), (hi, k + 1)  # parity of k is the code's parity (mantissa lsb)
    pos, pv = _positive(name)
    top, top_code = pos[-1]
    if isinstance(f, HiF8Format):
        ulp = Fraction(2) ** 14
    else:
        ulp = Fraction(2) ** (f.emax - f.man_bits)
    if x > top:
        return (top, top_code), (top + ulp, top_code + 1)
    i = bisect.bisect_right(pv, x) - 1
    if pv[i] == x:
        return pos[i], pos[i]
    if i < 0:  # below the smallest value (e8m0 has no zero)
        return (Fraction(0), -1), pos[0]
    return pos[i], pos[i + 1]


def _choose(x: Fraction, neg: bool, lo: tuple, hi: tuple, mode: str) -> tuple:
    if lo == hi:
        return lo
    d_lo, d_hi = x - lo[0], hi[0] - x
    if mode in ("rint", "round"):
        if d_lo != d_hi:
            return lo if d_lo < d_hi else hi
        if mode == "round":
            return hi
        return lo if lo[1] % 2 == 0 else hi  # even code
    if mode == "trunc":
        return lo
    if mode == "floor":
        return hi if neg else lo
    if mode == "ceil":
        return lo if neg else hi
    if mode == "odd":
        return lo if lo[1] % 2 == 1 else hi
    raise ValueError(mode)


def _with_sign(code: int, neg: bool, name: str) -> int:
    f = FORMATS[name]
    return code | (1 << (f.bits - 1)) if neg and f.signed else code


def _max_code(name: str, neg: bool) -> int:
    return _with_sign(_max(name)[1] if name not in ("fp32", "fp32r") else
                      (0x7F7FFFFF if name == "fp32" else 0x7F7FFC00), neg, name)


def _nan(name: str, neg: bool) -> int | None:
    f = FORMATS[name]
    if isinstance(f, HiF8Format):
        return 0x80
    if f.nan == "none":
        return None
    if f.nan == "code":
        return f.nan_code
    man = (1 << f.man_bits) - 1 if f.nan == "allones" else 1 << (f.man_bits - 1)
    return _with_sign((((1 << f.exp_bits) - 1) << f.man_bits | man) << f.pad_bits, neg, name)


def _inf(name: str, neg: bool) -> int | None:
    f = FORMATS[name]
    if isinstance(f, HiF8Format):
        return _with_sign(0x6F, neg, name)
    if not f.inf:
        return None
    return _with_sign(((1 << f.exp_bits) - 1) << (f.man_bits + f.pad_bits), neg, name)


def _overflow(name: str, neg: bool, mode: str, sat: bool, inf_input: bool) -> int:
    """DESIGN: ieee overflow / infinity rules."""
    if sat:
        return _max_code(name, neg)
    inf = _inf(name, neg)
    if inf_input and inf is not None:
        return inf
    toward_zero = mode in ("trunc", "odd") or (mode == "floor" and not neg) or (
        mode == "ceil" and neg)
    if toward_zero:
        return _max_code(name, neg)
    if inf is not None:
        return inf
    nan = _nan(name, neg)
    return nan if nan is not None else _max_code(name, neg)


def convert_ieee(bits: int, src: str, dst: str, mode: str = "rint", sat: bool = False) -> int:
    """The ieee profile for one lane."""
    x = value(bits, src)
    neg = is_neg(bits, src) if not isinstance(x, Fraction) or x == 0 else x < 0
    f = FORMATS[dst]
    if isinstance(f, IntFormat):
        return _to_int(x, f, mode)
    if x == NAN:
        nan = _nan(dst, neg)
        return nan if nan is not None else 0
    if isinstance(x, float):
        return _overflow(dst, neg, mode, sat, True)
    if dst == "fp8_e8m0" and (neg or x == 0):
        return 0xFF  # e8m0: only 2^k > 0 (decision shared with the kernels)
    mag = abs(x)
    lo, hi = _neighbours(mag, dst)
    # the mode acts on the signed value: floor of a negative moves the magnitude up
    pick = _choose(mag, neg, lo, hi, mode)
    if pick[1] == -1:  # e8m0, below 2^-127: no zero, the smallest value stands in
        return 0x00
    if pick[0] > _max(dst)[0] if dst not in ("fp32", "fp32r") else pick[0] > _fp32_max(dst):
        return _overflow(dst, neg, mode, sat, False)
    return _encode(pick[0], neg, dst)


def _fp32_max(dst: str) -> Fraction:
    mb = 23 if dst == "fp32" else 13
    return (2 - Fraction(1, 1 << mb)) * Fraction(2) ** 127


def _encode(v: Fraction, neg: bool, dst: str) -> int:
    if dst in ("fp32", "fp32r"):
        import struct

        code = struct.unpack("<I", struct.pack("<f", float(v)))[0]  # v is exact in fp32
        return code | (0x80000000 if neg else 0)
    vals, codes = _table(dst)
    i = bisect.bisect_left(vals, v)
    assert vals[i] == v
    if v == 0:
        f = FORMATS[dst]
        return _with_sign(codes[i], neg, dst) if isinstance(f, FloatFormat) else codes[i]
    return _with_sign(codes[i], neg, dst)


def _to_int(x: Fraction | float | str, f: IntFormat, mode: str) -> int:
    mask = (1 << f.bits) - 1
    if x == NAN:
        return 0
    if isinstance(x, float):
        return (f.max_value if x > 0 else f.min_value) & mask
    lo = math.floor(x)
    frac = x - lo
    if frac == 0:
        n = lo
    elif mode == "floor":
        n = lo
    elif mode == "ceil":
        n = lo + 1
    elif mode == "trunc":
        n = lo if x > 0 else lo + 1
    elif mode == "odd":
        n = lo if lo % 2 else lo + 1
    elif frac != Fraction(1, 2):
        n = lo if frac < Fraction(1, 2) else lo + 1
    elif mode == "round":
        n = lo + 1 if x > 0 else lo
    else:
        n = lo if lo % 2 == 0 else lo + 1
    return max(f.min_value, min(f.max_value, n)) & mask
