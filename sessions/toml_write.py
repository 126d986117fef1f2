"""A small TOML writer for session files (tomllib reads them back).

Covers what sessions need: strings, ints, floats (inf/nan too), bools, arrays,
tables, arrays of tables, and inline tables inside arrays. Anything else is a
TypeError naming the key, so an unsaveable layout never yields a corrupt file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
            "\r": "\\r"}


def dumps(doc: Mapping[str, Any]) -> str:
    """The TOML text of a mapping (keys in insertion order)."""
    lines: list[str] = []
    _table(lines, (), doc)
    return "\n".join(lines).lstrip("\n") + "\n"


def key(k: str) -> str:
    if not isinstance(k, str):
        raise TypeError(f"TOML keys must be strings, found {k!r}")
    return k if _BARE_KEY.fullmatch(k) else string(k)


def string(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _is_table_array(v: Any) -> bool:
    return (isinstance(v, Sequence) and not isinstance(v, str | bytes) and len(v) > 0
            and all(isinstance(x, Mapping) for x in v))


def _table(lines: list[str], path: tuple[str, ...], table: Mapping[str, Any]) -> None:
    subtables = []
    for k, v in table.items():
        if isinstance(v, Mapping) or _is_table_array(v):
            subtables.append((k, v))
        else:
            lines.append(f"{key(k)} = {value(v, (*path, k))}")
    for k, v in subtables:
        name = ".".join(key(p) for p in (*path, k))
        if isinstance(v, Mapping):
            lines += ["", f"[{name}]"]
            _table(lines, (*path, k), v)
        else:
            for item in v:
                lines += ["", f"[[{name}]]"]
                _table(lines, (*path, k), item)


def value(v: Any, where: tuple[str, ...] = ()) -> str:
    """One inline TOML value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(int(v))
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return string(v)
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{key(k)} = {value(x, (*where, k))}" for k, x in v.items()) + "}"
    if isinstance(v, Sequence) and not isinstance(v, bytes):
        return "[" + ", ".join(value(x, where) for x in v) + "]"
    raise TypeError(f"{'.'.join(where) or 'value'}: cannot write {type(v).__name__} to TOML")
