"""The values an NKI call is made of: dtypes, tiles, scalars, enums, generations.

Reference 004 states legality over NKI objects (tiles with a dtype, a shape and
a buffer; Python scalars; the `reduce_cmd` / `dge_mode` / `oob_mode` enums;
numpy ufuncs as ops). A call arrives as JSON, so this module fixes how each is
spelled there and parses it into a small typed value (the parsers take the JSON
value as decoded, hence `Any`: checking it is their job). Bad spellings raise
`NkiInputError` with the path of the offending value, never a clause failure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, TypeGuard

import numpy as np

from neurondbg.machine.dtypes import DEFAULT_GEN, GEN_NAMES, PRODUCT_GENS, Gen, parse_gen_name


class NkiInputError(ValueError):
    """A call that cannot be judged: unknown op, missing or ill-typed argument."""


# --- dtypes -----------------------------------------------------------------


@dataclass(frozen=True)
class NkiDtype:
    """An NKI (nl.*) dtype: name, class and width."""

    name: str
    kind: str  # "float" or "int"
    bits: int
    signed: bool = True

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_int(self) -> bool:
        return self.kind == "int"

    def __str__(self) -> str:
        return self.name


def _d(name: str, kind: str, bits: int, signed: bool = True) -> NkiDtype:
    return NkiDtype(name, kind, bits, signed)


NKI_DTYPES: dict[str, NkiDtype] = {
    d.name: d
    for d in (
        _d("float32", "float", 32),
        _d("tfloat32", "float", 32),
        _d("bfloat16", "float", 16),
        _d("float16", "float", 16),
        _d("float8_e4m3", "float", 8),
        _d("float8_e4m3fn", "float", 8),  # distinct: native on trn3+ only (isa-facts §8.2)
        _d("float8_e5m2", "float", 8),
        _d("float8_e3m4", "float", 8),
        _d("int8", "int", 8),
        _d("int16", "int", 16),
        _d("int32", "int", 32),
        _d("uint8", "int", 8, False),
        _d("uint16", "int", 16, False),
        _d("uint32", "int", 32, False),
    )
}

# Other spellings: numpy / nl prefixes are stripped first; the short names and
# the Neuron wire enum names (machine.dtypes.Dtype) map onto the NKI names.
# nl.bool_ is stored as uint8 in NKI tiles, so it is judged as uint8 (decision:
# ref 004 tensor_copy_predicated calls uint8/16/32 "a boolean or integer tile").
_DTYPE_ALIASES: dict[str, str] = {
    "fp32": "float32", "float": "float32", "tf32": "tfloat32", "bf16": "bfloat16",
    "fp16": "float16", "half": "float16", "fp8_e4m3": "float8_e4m3",
    "fp8_e5m2": "float8_e5m2", "fp8_e3m4": "float8_e3m4", "bool": "uint8", "bool_": "uint8",
    "bfloat": "bfloat16", "fp8_exp4": "float8_e4m3", "fp8_exp5": "float8_e5m2",
    "fp8_exp3": "float8_e3m4", "fp8_e4m3fn": "float8_e4m3fn",
}
# isa-facts §8.2 CAUTION (public NKI docs): float8_e4m3fn is not float8_e4m3; it is native
# from trn3 (mariana) on ("F8E4M3FN not supported on TRN1/TRN2").
NATIVE_FROM: dict[str, Gen] = {"float8_e4m3fn": Gen.MARIANA}

FLOAT32 = NKI_DTYPES["float32"]
FP32 = FLOAT32
INT32 = NKI_DTYPES["int32"]


def _strip_prefix(text: str) -> str:
    for prefix in ("numpy.", "np.", "nl.", "nki.language.", "nisa.", "nki.isa."):
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


def parse_nki_dtype(text: Any, path: str) -> NkiDtype:
    """An NKI dtype from its name (np./nl. prefixes and aliases accepted)."""
    if not isinstance(text, str):
        raise NkiInputError(f"{path}: expected a dtype name string, got {_show(text)}")
    key = _strip_prefix(text.strip()).lower()
    key = _DTYPE_ALIASES.get(key, key)
    if key not in NKI_DTYPES:
        raise NkiInputError(
            f"{path}: unknown dtype {text!r}; expected one of: {', '.join(NKI_DTYPES)}")
    return NKI_DTYPES[key]


def dtype_set(*names: str) -> frozenset[NkiDtype]:
    """A frozen set of NKI dtypes by name (the reference's legal sets)."""
    return frozenset(NKI_DTYPES[n] for n in names)


def show_set(dtypes: frozenset[NkiDtype]) -> str:
    """A legal set written in the fixed catalogue order: "{int32, uint8}"."""
    return "{" + ", ".join(n for n, d in NKI_DTYPES.items() if d in dtypes) + "}"


# --- tiles and scalars --------------------------------------------------------

BUFFERS: tuple[str, ...] = ("sbuf", "psum", "hbm")


@dataclass(frozen=True)
class Tile:
    """A tile argument: dtype, shape (shape[0] is the partition dim), buffer."""

    dtype: NkiDtype
    shape: tuple[int, ...]
    buffer: str = "sbuf"
    indirect: bool = False  # an indirectly indexed (gather) access, for dma_transpose

    @property
    def partitions(self) -> int:
        return self.shape[0]

    @property
    def free_size(self) -> int:
        """Elements per partition: the product of the free dims."""
        return math.prod(self.shape[1:])

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __str__(self) -> str:
        dims = ", ".join(str(n) for n in self.shape)
        extra = ", indirect" if self.indirect else ""
        return f"{self.dtype}[{dims}] ({self.buffer}{extra})"


@dataclass(frozen=True)
class Scalar:
    """A Python/numpy scalar argument; JSON 1.0 is float32, JSON 1 is int32."""

    value: float | int
    dtype: NkiDtype

    def __str__(self) -> str:
        return f"{self.value!r} ({self.dtype})"


def parse_tile(value: Any, path: str) -> Tile:
    """{"dtype": ..., "shape": [...], "buffer"?: sbuf|psum|hbm, "indirect"?: bool}."""
    if not isinstance(value, dict) or "shape" not in value:
        raise NkiInputError(
            f"{path}: expected a tile object {{\"dtype\": ..., \"shape\": [...]}}, "
            f"got {_show(value)}")
    unknown = sorted(set(value) - {"dtype", "shape", "buffer", "indirect"})
    if unknown:
        raise NkiInputError(f"{path}: unknown tile key {unknown[0]!r}; "
                            "expected dtype, shape, buffer, indirect")
    if "dtype" not in value:
        raise NkiInputError(f"{path}: tile has no \"dtype\"")
    dtype = parse_nki_dtype(value["dtype"], f"{path}.dtype")
    shape = value["shape"]
    if (not isinstance(shape, list) or not shape
            or not all(_is_int(n) and n > 0 for n in shape)):
        raise NkiInputError(f"{path}.shape: expected a non-empty list of positive integers, "
                            f"got {_show(shape)}")
    buffer = value.get("buffer", "sbuf")
    if not isinstance(buffer, str) or buffer.lower() not in BUFFERS:
        raise NkiInputError(f"{path}.buffer: expected one of {', '.join(BUFFERS)}, "
                            f"got {_show(buffer)}")
    indirect = value.get("indirect", False)
    if not isinstance(indirect, bool):
        raise NkiInputError(f"{path}.indirect: expected true or false, got {_show(indirect)}")
    return Tile(dtype, tuple(shape), buffer.lower(), indirect)


def parse_scalar(value: Any, path: str) -> Scalar:
    """A JSON number, or {"value": number, "dtype": name}."""
    if isinstance(value, dict) and "value" in value:
        unknown = sorted(set(value) - {"value", "dtype"})
        if unknown:
            raise NkiInputError(f"{path}: unknown scalar key {unknown[0]!r}; expected value, dtype")
        number = value["value"]
        if not _is_number(number):
            raise NkiInputError(f"{path}.value: expected a number, got {_show(number)}")
        if "dtype" in value:
            return Scalar(number, parse_nki_dtype(value["dtype"], f"{path}.dtype"))
        value = number
    if not _is_number(value):
        raise NkiInputError(f"{path}: expected a number or {{\"value\", \"dtype\"}}, "
                            f"got {_show(value)}")
    return Scalar(value, INT32 if _is_int(value) else FLOAT32)


def parse_tile_or_scalar(value: Any, path: str) -> Tile | Scalar:
    if isinstance(value, dict) and "shape" in value:
        return parse_tile(value, path)
    return parse_scalar(value, path)


# fp32.min, the bit pattern 0xff7fffff (ref 004 range_select GOTCHA; isa-facts §6.4)
FP32_MIN_BITS = 0xFF7FFFFF
FP32_MIN = float(np.uint32(FP32_MIN_BITS).view(np.float32))
_FP32_MIN_NAMES = ("fp32.min", "float32.min", "nl.fp32.min", "-flt_max")


def parse_fp32_value(value: Any, path: str) -> Scalar:
    """A float scalar; also the names "fp32.min" / "float32.min"."""
    if isinstance(value, str) and value.strip().lower() in _FP32_MIN_NAMES:
        return Scalar(FP32_MIN, FLOAT32)
    return parse_scalar(value, path)


def fp32_bits(x: float) -> int:
    """The fp32 bit pattern of a number (rounded to nearest fp32)."""
    with np.errstate(over="ignore"):
        return int(np.float32(x).view(np.uint32))


# --- enums --------------------------------------------------------------------


class ReduceCmd(IntEnum):
    """nki.isa reduce_cmd (ref 004 "reduce_cmd", CONFIRMED stub L85)."""

    idle = 0
    reset = 1
    reduce = 2
    reset_reduce = 3
    load_reduce = 4


def show_cmds(cmds: frozenset[ReduceCmd]) -> str:
    return "{" + ", ".join(c.name for c in sorted(cmds)) + "}"


ENGINES: tuple[str, ...] = ("vector", "scalar", "gpsimd", "unknown")
DGE_MODES: tuple[str, ...] = ("unknown", "swdge", "hwdge")
OOB_MODES: tuple[str, ...] = ("error", "skip")  # error=0, skip=1 (ref 004 dma_copy)


def parse_enum(value: Any, choices: tuple[str, ...], path: str) -> str:
    """A name from `choices` (also its ordinal, and `x.name` / `x_engine` spellings)."""
    if _is_int(value) and 0 <= value < len(choices):
        return choices[value]
    if isinstance(value, str):
        key = _strip_prefix(value.strip()).lower()
        key = key.rsplit(".", 1)[-1]
        if key.endswith("_engine"):
            key = key[: -len("_engine")]
        if key in choices:
            return key
    raise NkiInputError(f"{path}: expected one of {', '.join(choices)}, got {_show(value)}")


def parse_reduce_cmd(value: Any, path: str) -> ReduceCmd:
    name = parse_enum(value, tuple(c.name for c in ReduceCmd), path)
    return ReduceCmd[name]


def parse_op(value: Any, path: str) -> str | None:
    """An op (numpy ufunc) by name: "np.max" -> "max"; null stays None."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise NkiInputError(f"{path}: expected an op name such as \"np.max\", got {_show(value)}")
    return _strip_prefix(value.strip()).lower()


# --- generations ----------------------------------------------------------------

# Reference 004 names products; machine.dtypes.Gen names codenames (isa-facts §0).


def parse_call_gen(value: Any, path: str) -> Gen:
    """Gen from a product name (trn1, inf2, trn2, trn3), codename, or "genN" (NC-vN)."""
    if value is None:
        return DEFAULT_GEN
    if isinstance(value, str):
        try:
            return parse_gen_name(value.strip())
        except ValueError:
            pass
    names = ", ".join((*PRODUCT_GENS, *GEN_NAMES))
    raise NkiInputError(f"{path}: unknown generation {_show(value)}; expected one of: {names}")


def gen_label(gen: Gen) -> str:
    """"cayman (trn2)"-style label for messages."""
    products = "/".join(p for p, g in PRODUCT_GENS.items() if g is gen)
    return f"{gen.label} ({products})" if products else gen.label


# --- small helpers --------------------------------------------------------------


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: object) -> TypeGuard[int | float]:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _show(x: object) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."
