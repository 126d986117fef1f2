"""Parse a call's JSON arguments into typed values, by parameter kind.

Every parser takes (value, path) and returns the typed value or raises
`NkiInputError` naming the path ("call 3: args.reduce_cmd: expected ...").
JSON null is kept as None where the reference's signature allows None (tiles,
dtype, ops, optional ints) so that `assert_not_none` can judge it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from neurondbg.machine.legality.nki.vocab import (
    DGE_MODES,
    ENGINES,
    OOB_MODES,
    NkiInputError,
    _is_int,
    _is_number,
    _show,
    parse_enum,
    parse_fp32_value,
    parse_nki_dtype,
    parse_op,
    parse_reduce_cmd,
    parse_scalar,
    parse_tile,
    parse_tile_or_scalar,
)


def _nullable(parse: Callable[[Any, str], Any]) -> Callable[[Any, str], Any]:
    def parse_or_none(value: Any, path: str) -> Any:
        return None if value is None else parse(value, path)
    return parse_or_none


def _bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise NkiInputError(f"{path}: expected true or false, got {_show(value)}")
    return value


def _int(value: Any, path: str) -> int:
    if not _is_int(value):
        raise NkiInputError(f"{path}: expected an integer, got {_show(value)}")
    return value


def _number(value: Any, path: str) -> float | int:
    if not _is_number(value):
        raise NkiInputError(f"{path}: expected a number, got {_show(value)}")
    return value


def _int_list(value: Any, path: str) -> tuple[int, ...]:
    """An int or a list of ints (axes, shapes)."""
    if _is_int(value):
        return (value,)
    if isinstance(value, list) and all(_is_int(v) for v in value):
        return tuple(value)
    raise NkiInputError(f"{path}: expected an integer or a list of integers, got {_show(value)}")


def _expr(value: Any, path: str) -> Any:
    """An access-pattern / affine expression: a string, or a tile if one was passed."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict) and "shape" in value:
        return parse_tile(value, path)
    raise NkiInputError(f"{path}: expected an expression string such as \"i_p - i_f >= 0\", "
                        f"got {_show(value)}")


def _enum(choices: tuple[str, ...]) -> Callable[[Any, str], str]:
    return lambda value, path: parse_enum(value, choices, path)


PARSERS: dict[str, Callable[[Any, str], Any]] = {
    "tile": _nullable(parse_tile),
    "tile_or_scalar": _nullable(parse_tile_or_scalar),
    "scalar": _nullable(parse_scalar),
    "fp32_value": parse_fp32_value,
    "dtype": _nullable(parse_nki_dtype),
    "reduce_cmd": parse_reduce_cmd,
    "op": parse_op,
    "engine": _enum(ENGINES),
    "dge_mode": _enum(DGE_MODES),
    "oob_mode": _enum(OOB_MODES),
    "bool": _bool,
    "int": _nullable(_int),
    "number": _number,
    "int_list": _nullable(_int_list),
    "expr": _nullable(_expr),
    "any": lambda value, path: value,
}
