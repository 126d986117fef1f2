"""The Neuron dtype enum (wire codes), element sizes, generations and aliases.

Source: reference 000 §4 (the base 16 ordinals, HIGH) and isa-facts §8 (the
extension codes 0x10..0x1F per generation, the dtype gates). This module is the
single place these codes are written down; the ISA enums, the legality gates
and the convert CLI's format aliases all derive from it.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple


class Gen(IntEnum):
    """Hardware generations, in order (isa-facts §0). Value = NC version."""

    SUNDA = 2
    CAYMAN = 3
    MARIANA = 4
    MAVERICK = 5

    @property
    def label(self) -> str:
        return self.name.lower()


GEN_NAMES: tuple[str, ...] = tuple(g.label for g in Gen)
DEFAULT_GEN = Gen.CAYMAN


def parse_gen(name: str | Gen) -> Gen:
    """Gen from its codename (case-insensitive); ValueError lists the choices."""
    if isinstance(name, Gen):
        return name
    try:
        return Gen[name.strip().upper()]
    except KeyError:
        raise ValueError(
            f"unknown generation {name!r}; expected one of: {', '.join(GEN_NAMES)}"
        ) from None


# Products name generations too (reference 004, `check-nki`): trn1/inf2 = NC-v2, ...
PRODUCT_GENS: dict[str, Gen] = {"trn1": Gen.SUNDA, "inf2": Gen.SUNDA, "trn2": Gen.CAYMAN,
                                "trn3": Gen.MARIANA}


def parse_gen_name(name: str | Gen) -> Gen:
    """Gen from a codename, a product name (trn1, inf2, trn2, trn3) or "genN" (NC-vN),
    case-insensitive: what every CLI `--gen` accepts. ValueError lists the choices."""
    if isinstance(name, Gen):
        return name
    key = name.strip().lower()
    if key in PRODUCT_GENS:
        return PRODUCT_GENS[key]
    if key.startswith("gen") and key[3:].isdigit() and int(key[3:]) in Gen._value2member_map_:
        return Gen(int(key[3:]))
    if key.upper() in Gen.__members__:
        return Gen[key.upper()]
    raise ValueError(f"unknown generation {name!r}; expected one of: "
                     f"{', '.join((*GEN_NAMES, *PRODUCT_GENS))}")


class Dtype(IntEnum):
    """NEURON_ISA_TPB_DTYPE wire codes (one byte)."""

    INVALID = 0x0
    UINT64 = 0x1
    INT8 = 0x2
    UINT8 = 0x3
    INT16 = 0x4
    UINT16 = 0x5
    BF16 = 0x6
    FP16 = 0x7
    INT32 = 0x8
    UINT32 = 0x9
    FP32 = 0xA
    FP32R = 0xB
    INT64 = 0xC
    FP8_EXP3 = 0xD
    FP8_EXP4 = 0xE
    FP8_EXP5 = 0xF
    FP4_EXP2 = 0x10
    FP8_EXP2 = 0x11
    INT4 = 0x12
    SFP8_E8 = 0x13
    SFP8_E7 = 0x14
    SFP8_E6 = 0x15
    SFP8_E5 = 0x16
    CPTC1 = 0x19
    CPTC2 = 0x1A
    CPTC3 = 0x1B
    CPTC4 = 0x1C
    CPTC5 = 0x1D
    CPTC6 = 0x1E
    CPTC7 = 0x1F


class DtypeInfo(NamedTuple):
    """What the ISA says about one dtype code (a NamedTuple: immutable and compared by
    value as a frozen dataclass, and no dataclass machinery on the CLI's start-up path)."""

    code: Dtype
    bits: int | None  # element width in bits; None where the width is not fixed (CPTC)
    since: Gen  # first generation whose enum has the code
    format: str | None  # the machine.convert format name, None if not convertible
    kind: str  # "int", "float", "scale", "compressed", "invalid"

    @property
    def size(self) -> float | None:
        """Element size in bytes (0.5 for the 4-bit types)."""
        return None if self.bits is None else self.bits / 8


def _info(code: Dtype, bits: int | None, fmt: str | None, kind: str,
          since: Gen = Gen.SUNDA) -> DtypeInfo:
    return DtypeInfo(code, bits, since, fmt, kind)


# FP8_EXP4's format depends on the generation (see fp8_exp4_format); the
# entry below names the sunda/cayman default.
DTYPE_INFO: dict[Dtype, DtypeInfo] = {
    i.code: i
    for i in (
        _info(Dtype.INVALID, None, None, "invalid"),
        _info(Dtype.UINT64, 64, "uint64", "int"),
        _info(Dtype.INT8, 8, "int8", "int"),
        _info(Dtype.UINT8, 8, "uint8", "int"),
        _info(Dtype.INT16, 16, "int16", "int"),
        _info(Dtype.UINT16, 16, "uint16", "int"),
        _info(Dtype.BF16, 16, "bf16", "float"),
        _info(Dtype.FP16, 16, "fp16", "float"),
        _info(Dtype.INT32, 32, "int32", "int"),
        _info(Dtype.UINT32, 32, "uint32", "int"),
        _info(Dtype.FP32, 32, "fp32", "float"),
        _info(Dtype.FP32R, 32, "fp32r", "float"),
        _info(Dtype.INT64, 64, "int64", "int"),
        _info(Dtype.FP8_EXP3, 8, "fp8_e3m4", "float"),
        _info(Dtype.FP8_EXP4, 8, "fp8_e4m3", "float"),
        _info(Dtype.FP8_EXP5, 8, "fp8_e5m2", "float"),
        _info(Dtype.FP4_EXP2, 4, "fp4_e2m1", "float", Gen.MARIANA),
        _info(Dtype.FP8_EXP2, 8, None, "float", Gen.MAVERICK),  # E2M5: no convert format
        _info(Dtype.INT4, 4, "int4", "int", Gen.MAVERICK),
        _info(Dtype.SFP8_E8, 8, "fp8_e8m0", "scale", Gen.MAVERICK),
        _info(Dtype.SFP8_E7, 8, None, "scale", Gen.MAVERICK),
        _info(Dtype.SFP8_E6, 8, None, "scale", Gen.MAVERICK),
        _info(Dtype.SFP8_E5, 8, None, "scale", Gen.MAVERICK),
        *(_info(Dtype(0x18 + w), None, None, "compressed", Gen.MARIANA) for w in range(1, 8)),
    )
}

# Alternative spellings users type (reference 000 writes BFLOAT16).
DTYPE_ALIASES: dict[str, Dtype] = {"BFLOAT16": Dtype.BF16, "FLOAT32": Dtype.FP32,
                                   "FLOAT16": Dtype.FP16}


def dtypes_of(gen: Gen) -> frozenset[Dtype]:
    """The codes present in `gen`'s enum (16 / 16 / 24 / 30 enumerators)."""
    return frozenset(d for d, i in DTYPE_INFO.items() if i.since <= gen)


def fp8_exp4_format(gen: Gen) -> str:
    """FP8_EXP4 is IEEE-style e4m3 on sunda/cayman, OCP e4m3fn from mariana on.

    DESIGN.md "Format semantics"; isa-facts §8.2 (MED, conflicting sources).
    """
    return "fp8_e4m3" if gen <= Gen.CAYMAN else "fp8_e4m3fn"


def dtype_format(code: int, gen: Gen = DEFAULT_GEN) -> str | None:
    """The machine.convert format name for a dtype code under `gen`, or None."""
    try:
        d = Dtype(code)
    except ValueError:
        return None
    if d is Dtype.FP8_EXP4:
        return fp8_exp4_format(gen)
    return DTYPE_INFO[d].format


def dtype_bytes(code: int) -> float | None:
    """Element size in bytes of a code (None for unknown/variable-width codes)."""
    try:
        return DTYPE_INFO[Dtype(code)].size
    except ValueError:
        return None


_DTYPE_NAMES: dict[int, str] = {int(d): d.name for d in Dtype}


def dtype_name(code: int) -> str:
    """Enum name of a code, or its hex value when the code is unassigned (a table look-up:
    messages name dtypes often, and building the enum member per call cost ~1 us)."""
    name = _DTYPE_NAMES.get(int(code))
    return name if name is not None else f"0x{code:02X}"


def parse_dtype(text: str) -> Dtype:
    """A Dtype from its enum name, an alias, or a number (decimal / 0x hex)."""
    key = text.strip().upper()
    if key in Dtype.__members__:
        return Dtype[key]
    if key in DTYPE_ALIASES:
        return DTYPE_ALIASES[key]
    try:
        return Dtype(int(text, 0))
    except ValueError:
        names = ", ".join(Dtype.__members__)
        raise ValueError(f"unknown dtype {text!r}; expected one of: {names}") from None
