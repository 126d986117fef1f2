"""Number formats as descriptors, not code paths (DESIGN.md "Conversion model").

A kernel or a trace reads a descriptor's fields (widths, bias, which special
values exist) instead of branching on the format's name. Every format of the
CLI is here; `FORMATS[name]` is the single table.

Bit convention of the conversion API: encodings are unsigned integers in the
`container` dtype (fp32 in uint32, 16-bit formats in uint16, 8-bit in uint8,
4-bit one per uint8 in the low nibble, integers as two's-complement patterns).

`Format` is a tagged union a type checker narrows: each class declares its kind flags
(`is_float`, `is_hif8`, `is_int`, and `is_fp32`, `is_fp16`, `is_scale`, `is_minifloat`,
`output_only` where they are always false) as `Literal` class constants, so after
`if fmt.is_int:` the checker knows `fmt` is an IntFormat, as after `isinstance`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar, Literal

import ml_dtypes
import numpy as np

from neurondbg.machine.dtypes import DTYPE_ALIASES, Dtype, Gen, dtype_format


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
    nan: Literal["ieee", "allones", "code", "none"] = "ieee"
    nan_code: int | None = None
    signed: bool = True
    pad_bits: int = 0  # fp32r: low bits of the fp32 container that are always zero
    ml_dtype: np.dtype | None = None  # the ml_dtypes/numpy dtype with identical semantics
    kind: Literal["float"] = "float"
    output_only: bool = False  # a conversion may produce it but never read it (fp32r)
    is_float: ClassVar[Literal[True]] = True
    is_hif8: ClassVar[Literal[False]] = False
    is_int: ClassVar[Literal[False]] = False

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
    kind: Literal["hif8"] = "hif8"
    ml_dtype: None = None
    is_float: ClassVar[Literal[False]] = False
    is_hif8: ClassVar[Literal[True]] = True
    is_int: ClassVar[Literal[False]] = False
    is_fp32: ClassVar[Literal[False]] = False
    is_fp16: ClassVar[Literal[False]] = False
    is_scale: ClassVar[Literal[False]] = False
    is_minifloat: ClassVar[Literal[False]] = False
    output_only: ClassVar[Literal[False]] = False

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
    kind: Literal["int"] = "int"
    is_float: ClassVar[Literal[False]] = False
    is_hif8: ClassVar[Literal[False]] = False
    is_int: ClassVar[Literal[True]] = True
    is_fp32: ClassVar[Literal[False]] = False
    is_fp16: ClassVar[Literal[False]] = False
    is_scale: ClassVar[Literal[False]] = False
    is_minifloat: ClassVar[Literal[False]] = False
    output_only: ClassVar[Literal[False]] = False

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
