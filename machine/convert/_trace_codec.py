"""One-lane decode / encode of every format on plain Python ints (for traces).

Deliberately separate from the vectorized kernels: this is the readable
statement of what an encoding means, field by field.

A finite value is carried exactly as (sign, sig, exp2): (-1)**sign * sig * 2**exp2,
with sig >= 0 an integer.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from neurondbg.machine.convert.formats import FORMATS, FloatFormat, Format, IntFormat
from neurondbg.machine.convert.roles import field_marks

Mark = tuple[int, int, str]

# HiFloat8 (ref 002 Table 9): after the sign, a prefix-coded "dot" field says how many
# exponent bits D follow; |E| is then sign-magnitude with an implicit leading one.
# dot -> (dot width, D, mantissa bits, smallest |E| of that width)
HIF8_DOTS: tuple[tuple[str, int, int, int], ...] = (
    ("11", 4, 1, 8),
    ("10", 3, 2, 4),
    ("01", 2, 3, 2),
    ("001", 1, 3, 1),
    ("0001", 0, 3, 0),
)
HIF8_SUB_MIN_E = -22  # dot 0000, 3-bit field M: value 2**(M - 23), M = 1..7 (Table 9 "subnormal")
HIF8_EMAX = 15


def hif8_man_bits(e: int) -> int:
    """Mantissa bits HiFloat8 keeps at unbiased exponent e (|e| <= 15); 0 when subnormal."""
    a = abs(e)
    if e < -15:
        return 0
    return 3 if a <= 3 else 2 if a <= 7 else 1


@dataclass(frozen=True)
class Decoded:
    """One encoding, taken apart."""

    cls: str  # zero / subnormal / normal / inf / nan (integers: "integer")
    sign: int
    sig: int = 0
    exp2: int = 0
    fields: dict[str, int] | None = None  # named raw fields (biased exponent, mantissa, ...)
    marks: tuple[Mark, ...] = ()

    @property
    def finite(self) -> bool:
        return self.cls not in ("inf", "nan")

    @property
    def value(self) -> Fraction | float:
        if self.cls == "nan":
            return float("nan")
        if self.cls == "inf":
            return float("-inf") if self.sign else float("inf")
        v = Fraction(self.sig) * Fraction(2) ** self.exp2
        return -v if self.sign else v


def bitstr(bits: int, width: int) -> str:
    return format(bits & ((1 << width) - 1), f"0{width}b")


def float_marks(fmt: FloatFormat) -> tuple[Mark, ...]:
    """Sign / exponent / mantissa / pad ranges of a FloatFormat encoding (MSB = index 0)."""
    return tuple(field_marks(fmt.exp_bits, fmt.man_bits, fmt.signed, fmt.pad_bits))


def decode(bits: int, fmt: Format) -> Decoded:
    if fmt.is_int:
        return _decode_int(bits, fmt)
    if fmt.is_hif8:
        return _decode_hif8(bits)
    return _decode_float(bits, fmt)


def _decode_int(bits: int, fmt: IntFormat) -> Decoded:
    bits &= (1 << fmt.bits) - 1
    v = bits - (1 << fmt.bits) if fmt.signed and bits >> (fmt.bits - 1) else bits
    marks = ((0, 1, "sign"), (1, fmt.bits, "mantissa")) if fmt.signed else ((0, fmt.bits,
                                                                               "mantissa"),)
    return Decoded("integer", int(v < 0), abs(v), 0, {"value": v}, marks)


def _decode_float(bits: int, fmt: FloatFormat) -> Decoded:
    bits &= (1 << fmt.bits) - 1
    if fmt.pad_bits:  # fp32r is an fp32 container: read every mantissa bit (DESIGN: fp32r)
        return _decode_float(bits, _FP32)
    sign = (bits >> (fmt.bits - 1)) & 1 if fmt.signed else 0
    man = (bits >> fmt.pad_bits) & ((1 << fmt.man_bits) - 1)
    e = (bits >> (fmt.pad_bits + fmt.man_bits)) & ((1 << fmt.exp_bits) - 1)
    top = (1 << fmt.exp_bits) - 1
    fields = {"sign": sign, "exponent": e, "mantissa": man}
    marks = float_marks(fmt)
    if fmt.nan == "code" and bits == fmt.nan_code:
        return Decoded("nan", sign, fields=fields, marks=marks)
    if fmt.nan == "allones" and e == top and man == (1 << fmt.man_bits) - 1:
        return Decoded("nan", sign, fields=fields, marks=marks)
    if fmt.nan == "ieee" and e == top:
        return Decoded("nan" if man else "inf", sign, fields=fields, marks=marks)
    if fmt.subnormals and e == 0:
        cls = "subnormal" if man else "zero"
        return Decoded(cls, sign, man, fmt.emin - fmt.man_bits, fields, marks)
    return Decoded("normal", sign, (1 << fmt.man_bits) | man, e - fmt.bias - fmt.man_bits,
                   fields, marks)


def hif8_marks(dot_width: int, d: int) -> tuple[Mark, ...]:
    """sign | dot | exponent sign | exponent magnitude | mantissa of a HiFloat8 code: D
    exponent bits follow the dot field, the first is the sign of the sign-magnitude E
    (its leading one is implicit), the rest its magnitude bits."""
    marks: list[Mark] = [(0, 1, "sign"), (1, 1 + dot_width, "dot")]
    pos = 1 + dot_width
    if d:
        marks.append((pos, pos + 1, "exp_sign"))
    if d > 1:
        marks.append((pos + 1, pos + d, "exponent"))
    marks.append((pos + d, 8, "mantissa"))
    return tuple(marks)


def _decode_hif8(bits: int) -> Decoded:
    bits &= 0xFF
    sign = bits >> 7
    rest = format(bits & 0x7F, "07b")
    for dot, d, m, emag in HIF8_DOTS:
        if rest.startswith(dot):
            body = rest[len(dot):]
            es = int(body[0]) if d else 0  # exponent sign bit: 1 = negative
            mag = emag + (int(body[1:d], 2) if d > 1 else 0)
            e = -mag if es else mag
            man = int(body[d:], 2)
            marks = hif8_marks(len(dot), d)
            fields = {"sign": sign, "dot": int(dot, 2), "dot_width": len(dot), "exponent": e,
                      "mantissa": man, "man_bits": m}
            if (bits & 0x7F) == 0x6F:
                return Decoded("inf", sign, fields=fields, marks=marks)
            return Decoded("normal", sign, (1 << m) | man, e - m, fields, marks)
    # dot 0000: zero / NaN / subnormal 2**(M - 23)
    m = bits & 0x7
    marks = hif8_marks(4, 0)
    fields = {"sign": sign, "dot": 0, "dot_width": 4, "mantissa": m}
    if m == 0:
        return Decoded("nan" if sign else "zero", sign, fields=fields, marks=marks)
    return Decoded("subnormal", sign, 1, m - 23, fields, marks)


def hif8_encode(sign: int, e: int, man: int) -> int:
    """Bits of sign * 1.man * 2**e (normal, |e| <= 15, man in hif8_man_bits(e) bits) or of
    the subnormal 2**e (-22 <= e <= -16, man == 0)."""
    if e < -15:
        return (sign << 7) | (e + 23)
    a = abs(e)
    for dot, d, m, emag in HIF8_DOTS:
        if a >= emag:
            exp_field = ""
            if d:
                exp_field = str(int(e < 0)) + (format(a - emag, f"0{d - 1}b") if d > 1 else "")
            body = dot + exp_field + (format(man, f"0{m}b") if m else "")
            return (sign << 7) | int(body, 2)
    raise AssertionError(e)


def float_code(fmt: FloatFormat, sign: int, biased: int, man: int) -> int:
    code = (biased << fmt.man_bits) | man
    if fmt.signed:
        code |= sign << (fmt.exp_bits + fmt.man_bits)
    return code << fmt.pad_bits


def nan_code(fmt: Format, sign: int) -> int | None:
    """The NaN this project writes (canonical quiet NaN, sign kept), None if the format has none."""
    if fmt.is_hif8:
        return fmt.nan_code
    if fmt.is_int or fmt.nan == "none":
        return None
    if fmt.nan == "code":
        return fmt.nan_code
    top = (1 << fmt.exp_bits) - 1
    man = (1 << fmt.man_bits) - 1 if fmt.nan == "allones" else 1 << (fmt.man_bits - 1)
    return float_code(fmt, sign if fmt.signed else 0, top, man)


def inf_code(fmt: Format, sign: int) -> int | None:
    if fmt.is_hif8:
        return (sign << 7) | fmt.inf_code
    if fmt.is_int or not fmt.inf:
        return None
    return float_code(fmt, sign, (1 << fmt.exp_bits) - 1, 0)


def max_code(fmt: Format, sign: int) -> int:
    """Largest finite magnitude with `sign` (integers: max or min)."""
    if fmt.is_int:
        v = fmt.min_value if sign else fmt.max_value
        return v & ((1 << fmt.bits) - 1)
    if fmt.is_hif8:
        return (sign << 7) | 0x6E
    code = fmt.max_code
    if fmt.signed and sign:
        code |= 1 << (fmt.bits - 1)
    return code


_FP32 = FloatFormat("fp32", 32, 8, 23, 127)


def _hif8_value(code: int) -> float:
    v = decode(code, _HIF8).value
    return float(v)  # every HiFloat8 value (and inf / NaN) is a float64 exactly


_HIF8 = FORMATS["hif8"]
# the value of every HiFloat8 code, from the one decoder above (kernels index it)
HIF8_VALUES: np.ndarray = np.array([_hif8_value(c) for c in range(256)], dtype=np.float64)
HIF8_VALUES.setflags(write=False)
