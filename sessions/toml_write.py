"""Session TOML text, written by tomli-w (tomllib reads it back).

Strings that hold a line break (tour notes, descriptions) are written as multiline
strings, so a note reads in the file as it reads on screen. tomli-w turns CRLF into LF
inside a multiline string, so a document holding a CR LF pair is written with escaped
single-line strings instead: the text reads back exactly as saved, whichever it is.
A value TOML cannot hold (bytes, None, ...) is a TypeError naming its key before any
text exists, so an unsaveable layout never yields a corrupt file.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, time
from decimal import Decimal
from typing import Any

import tomli_w

_SCALARS = (str, int, float, date, time, Decimal)  # bool is an int; datetime is a date


def dumps(doc: Mapping[str, Any]) -> str:
    """The TOML text of a mapping (keys in insertion order, plain values before tables)."""
    bad = _unwritable(doc, ())
    if bad is not None:
        where, v = bad
        raise TypeError(f"{'.'.join(where) or 'value'}: cannot write {type(v).__name__} "
                        f"to TOML")
    return tomli_w.dumps(doc, multiline_strings=not _holds_crlf(doc))


def _unwritable(v: object, where: tuple[str, ...]) -> tuple[tuple[str, ...], object] | None:
    """The key path and value of the first value TOML cannot hold, else None."""
    if isinstance(v, Mapping):
        for k, x in v.items():
            if not isinstance(k, str):
                return (*where, repr(k)), k
            found = _unwritable(x, (*where, k))
            if found is not None:
                return found
        return None
    if isinstance(v, list | tuple):
        for i, x in enumerate(v):
            found = _unwritable(x, (*where[:-1], f"{where[-1]}[{i}]") if where else (f"[{i}]",))
            if found is not None:
                return found
        return None
    return None if isinstance(v, _SCALARS) else (where, v)


def _holds_crlf(v: object) -> bool:
    if isinstance(v, str):
        return "\r\n" in v
    if isinstance(v, Mapping):
        return any(_holds_crlf(x) for x in v.values())  # keys are never multiline
    if isinstance(v, list | tuple):
        return any(_holds_crlf(x) for x in v)
    return False
