"""Number formats as descriptors, not code paths (DESIGN.md "Conversion model").

A kernel or a trace reads a descriptor's fields (widths, bias, which special
values exist) instead of branching on the format's name. Every format of the
CLI is here; `FORMATS[name]` is the single table.

Bit convention of the conversion API: encodings are unsigned integers in the
`container` dtype (fp32 in uint32, 16-bit formats in uint16, 8-bit in uint8,
4-bit one per uint8 in the low nibble, integers as two's-complement patterns).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import ml_dtypes
import numpy as np

from machine.dtypes import DTYPE_ALIASES, Dtype, Gen, dtype_format


@dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format: sign? | exponent | mantissa.

    nan: "ieee"    exponent all ones, mantissa != 0 (and inf = mantissa 0)
         "allones" only S.1111...1 is NaN (OCP e4m3fn); no infinity
         "code"    one code is NaN: `nan_code` (e8m0 0xFF, hif8 0x80)
         "none"    no NaN (fp4)
    """

    name: str
    bits: int  # encoding width
    exp_bits: int
    man_bits: int  # stored mantissa (fraction) bits that carry precision
    bias: int
    subnormals: bool = True
    inf: bool = True
    nan: str = "ieee"
    nan_code: int | None = None
    signed: bool = True
    pad_bits: int = 0  # fp32r: low bits of the fp32 container that are always zero
    ml_dtype: np.dtype | None = None  # the ml_dtypes/numpy dtype with identical semantics
    kind: str = "float"
    output_only: bool = False  # a conversion may produce it but never read it (fp32r)
    is_int: ClassVar[bool] = False
    is_hif8: ClassVar[bool] = False
    is_float: ClassVar[bool] = True  # a FloatFormat: the fields above describe it

    @property
    def container(self) -> np.dtype:
        return _container(self.bits)

    @property
    def is_fp32(self) -> bool:
        """IEEE binary32 itself: the hub every Neuron Cast goes through."""
        return (self.bits, self.exp_bits, self.man_bits, self.pad_bits) == (32, 8, 23, 0)

    @property
    def is_fp16(self) -> bool:
        """IEEE binary16 (ref 002 Table 10 reads its bits; numpy keeps its NaN payloads)."""
        return (self.bits, self.exp_bits, self.man_bits) == (16, 5, 10)

    @property
    def is_scale(self) -> bool:
        """A scale format: unsigned, no mantissa, powers of two only (e8m0)."""
        return self.man_bits == 0 and not self.signed

    @property
    def is_minifloat(self) -> bool:
        """An 8- or 4-bit float with sign and mantissa (fp8_*, fp4_*; not e8m0, not hif8)."""
        return self.bits <= 8 and not self.is_scale

    @property
    def emax(self) -> int:
        """Largest unbiased exponent of a finite value."""
        top = (1 << self.exp_bits) - 1
        # The top exponent is taken by inf/NaN (IEEE) or, with no mantissa, by the NaN code.
        reserved = self.inf or self.nan == "ieee" or (self.nan == "code" and self.man_bits == 0)
        return (top - 1 if reserved else top) - self.bias

    @property
    def emin(self) -> int:
        """Unbiased exponent of the smallest normal (the subnormal scale too)."""
        return 1 - self.bias if self.subnormals else -self.bias

    @property
    def max_code(self) -> int:
        """Encoding of the largest finite positive value."""
        man_all = (1 << self.man_bits) - 1
        if self.nan == "allones":
            man_all -= 1  # S.1111.111 is NaN, so the top mantissa code is one lower
        e = self.emax + self.bias
        return ((e << self.man_bits) | man_all) << self.pad_bits

    @property
    def max_value(self) -> Fraction:
        m = (1 << self.man_bits) - 1 - (1 if self.nan == "allones" else 0)
        return Fraction((1 << self.man_bits) + m, 1 << self.man_bits) * Fraction(2) ** self.emax


@dataclass(frozen=True)
class HiF8Format:
    """HiFloat8 (reference 002 Table 9/10): sign, dot-coded exponent width, mantissa.

    0x00 zero, 0x80 NaN, 0x6F / 0xEF +-infinity, largest finite 32768.
    The field layout is tapered and is decoded by machine.convert, not here.
    """

    name: str = "hif8"
    bits: int = 8
    nan_code: int = 0x80
    inf_code: int = 0x6F
    signed: bool = True
    kind: str = "hif8"
    ml_dtype: None = None
    output_only: ClassVar[bool] = False
    is_int: ClassVar[bool] = False
    is_hif8: ClassVar[bool] = True
    is_float: ClassVar[bool] = False
    is_fp32: ClassVar[bool] = False
    is_fp16: ClassVar[bool] = False
    is_scale: ClassVar[bool] = False
    is_minifloat: ClassVar[bool] = False

    @property
    def container(self) -> np.dtype:
        return np.dtype(np.uint8)

    @property
    def max_value(self) -> Fraction:
        return Fraction(32768)


@dataclass(frozen=True)
class IntFormat:
    """A two's-complement (signed) or plain binary (unsigned) integer."""

    name: str
    bits: int
    signed: bool
    kind: str = "int"
    output_only: ClassVar[bool] = False
    is_int: ClassVar[bool] = True
    is_hif8: ClassVar[bool] = False
    is_float: ClassVar[bool] = False
    is_fp32: ClassVar[bool] = False
    is_fp16: ClassVar[bool] = False
    is_scale: ClassVar[bool] = False
    is_minifloat: ClassVar[bool] = False

    @property
    def container(self) -> np.dtype:
        return _container(self.bits)

    @property
    def value_dtype(self) -> np.dtype:
        """The numpy integer dtype that holds the value (int4 in int8)."""
        width = max(8, self.bits)
        return np.dtype(f"{'int' if self.signed else 'uint'}{width}")

    @property
    def min_value(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max_value(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1


Format = FloatFormat | HiF8Format | IntFormat


def _container(bits: int) -> np.dtype:
    return np.dtype(f"uint{max(8, bits)}")


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        FloatFormat("fp32", 32, 8, 23, 127, ml_dtype=np.dtype(np.float32)),
        # FP32R: fp32 rounded (RNE) to 13 mantissa bits, low 10 bits zero (DESIGN, MED).
        FloatFormat("fp32r", 32, 8, 13, 127, pad_bits=10, output_only=True),
        FloatFormat("fp16", 16, 5, 10, 15, ml_dtype=np.dtype(np.float16)),
        FloatFormat("bf16", 16, 8, 7, 127, ml_dtype=np.dtype(ml_dtypes.bfloat16)),
        FloatFormat("fp8_e3m4", 8, 3, 4, 3, ml_dtype=np.dtype(ml_dtypes.float8_e3m4)),
        FloatFormat("fp8_e4m3", 8, 4, 3, 7, ml_dtype=np.dtype(ml_dtypes.float8_e4m3)),
        FloatFormat("fp8_e4m3fn", 8, 4, 3, 7, inf=False, nan="allones",
                    ml_dtype=np.dtype(ml_dtypes.float8_e4m3fn)),
        FloatFormat("fp8_e5m2", 8, 5, 2, 15, ml_dtype=np.dtype(ml_dtypes.float8_e5m2)),
        FloatFormat("fp8_e8m0", 8, 8, 0, 127, subnormals=False, inf=False, nan="code",
                    nan_code=0xFF, signed=False, ml_dtype=np.dtype(ml_dtypes.float8_e8m0fnu)),
        HiF8Format(),
        FloatFormat("fp4_e2m1", 4, 2, 1, 1, inf=False, nan="none",
                    ml_dtype=np.dtype(ml_dtypes.float4_e2m1fn)),
        FloatFormat("fp4_e1m2", 4, 1, 2, 1, inf=False, nan="none"),
        IntFormat("int4", 4, True), IntFormat("uint4", 4, False),
        IntFormat("int8", 8, True), IntFormat("uint8", 8, False),
        IntFormat("int16", 16, True), IntFormat("uint16", 16, False),
        IntFormat("int32", 32, True), IntFormat("uint32", 32, False),
        IntFormat("int64", 64, True), IntFormat("uint64", 64, False),
    )
}

FORMAT_NAMES: tuple[str, ...] = tuple(FORMATS)


def parse_format(name: str, gen: Gen | None = None) -> Format:
    """A format by CLI name, or by Neuron dtype name (`FP8_EXP4`, `BFLOAT16`, ...).

    Neuron names resolve through machine.dtypes, so FP8_EXP4 follows `gen`
    (default cayman: IEEE-style e4m3). ValueError lists the valid names.
    """
    key = name.strip()
    if key.lower() in FORMATS:
        return FORMATS[key.lower()]
    upper = key.upper()
    code = Dtype.__members__.get(upper) or DTYPE_ALIASES.get(upper)
    if code is not None:
        fmt = dtype_format(code, gen) if gen is not None else dtype_format(code)
        if fmt is not None:
            return FORMATS[fmt]
    raise ValueError(f"unknown format {name!r}; expected one of: {', '.join(FORMAT_NAMES)} "
                     "(or a Neuron dtype name such as FP8_EXP4, BFLOAT16)")


# --- HiFloat8 field layout (reference 002 Table 9; DESIGN "Format semantics") -------------
# After the sign bit a prefix-coded "dot" field gives the exponent width D; the exponent is
# sign-magnitude with an implicit leading 1 (|Ev| in [2^(D-1), 2^D - 1]); the mantissa takes
# the rest of the byte. Dot "0000" is the denormal form: value 2^(M - 23), M = 1..7 (M = 0 is
# zero, or NaN with the sign set). (dot code, dot width, D, mantissa bits) per row:
HIF8_DOTS: tuple[tuple[int, int, int, int], ...] = (
    (0b11, 2, 4, 1),  # |Ev| in [8, 15]
    (0b10, 2, 3, 2),  # |Ev| in [4, 7]
    (0b01, 2, 2, 3),  # |Ev| in [2, 3]
    (0b001, 3, 1, 3),  # |Ev| = 1
    (0b0001, 4, 0, 3),  # Ev = 0
)
HIF8_DENORMAL_BIAS = 23  # denormal value 2^(M - 23)


@dataclass(frozen=True)
class HiF8Fields:
    """One HiFloat8 code taken apart (for traces and the value table)."""

    code: int
    sign: int
    dot: str  # the dot field as a bit string ("11", "001", "0000", ...)
    exp_width: int  # D; -1 for the denormal form
    exponent: int  # Ev (unbiased); for a denormal the exponent of 2^(M-23)
    mantissa: int
    man_bits: int
    kind: str  # "zero", "nan", "inf", "normal", "denormal"
    value: float


def hif8_fields(code: int) -> HiF8Fields:
    """Decode one HiFloat8 byte into its fields and exact value (float64 holds it exactly)."""
    code &= 0xFF
    sign, rest = code >> 7, code & 0x7F  # rest: 7 bits after the sign
    for dot, width, d, mbits in HIF8_DOTS:
        if rest >> (7 - width) == dot:
            body = rest & ((1 << (7 - width)) - 1)
            efield, man = body >> mbits, body & ((1 << mbits) - 1)
            if d == 0:
                ev = 0
            else:
                mag = (1 << (d - 1)) | (efield & ((1 << (d - 1)) - 1))
                ev = -mag if efield >> (d - 1) else mag
            value = (1 + man / (1 << mbits)) * 2.0**ev
            kind = "normal"
            if code & 0x7F == HIF8.inf_code:
                kind, value = "inf", float("inf")
            return HiF8Fields(code, sign, format(dot, f"0{width}b"), d, ev, man, mbits, kind,
                              -value if sign else value)
    m = rest & 0x7  # dot 0000: denormal
    if m == 0:
        kind, value = ("nan", float("nan")) if sign else ("zero", 0.0)
        return HiF8Fields(code, sign, "0000", -1, 0, 0, 3, kind, value)
    value = 2.0 ** (m - HIF8_DENORMAL_BIAS)
    return HiF8Fields(code, sign, "0000", -1, m - HIF8_DENORMAL_BIAS, m, 3, "denormal",
                      -value if sign else value)


HIF8: HiF8Format = FORMATS["hif8"]  # type: ignore[assignment]
HIF8_VALUES: np.ndarray = np.array([hif8_fields(c).value for c in range(256)], dtype=np.float64)
HIF8_VALUES.setflags(write=False)
