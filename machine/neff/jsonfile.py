"""JSON members of a NEFF, parsed with a bound on their nesting.

`load_json` refuses a document nested deeper than MAX_JSON_DEPTH before it is parsed:
the depth is measured on the brackets outside strings, found with a few C-speed byte
operations (escapes dropped, everything but quotes and brackets deleted) and one numpy
cumulative sum over what is left, so a hostile member costs no parser recursion and a
60 MB engine JSON costs a few tens of milliseconds. Real NEFF JSON nests about 5 deep.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from machine.files import InputFileError
from machine.files import load_json as _parse

MAX_JSON_DEPTH = 64

_KEEP = b'"[]{}'
_DELETE = bytes(b for b in range(256) if b not in _KEEP)


class JsonMemberError(ValueError):
    """A JSON member that cannot be read: one line naming the member."""


def json_depth(data: bytes) -> int:
    """The deepest nesting of `[` and `{` in JSON text `data` (0 for a scalar)."""
    marks = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _DELETE)
    if not marks:
        return 0
    arr = np.frombuffer(marks, dtype=np.uint8)
    quote = arr == ord('"')
    outside = (np.cumsum(quote) & 1) == 0  # after an even number of quotes
    outside &= ~quote
    step = np.zeros(len(arr), dtype=np.int8)
    step[(arr == ord("[")) | (arr == ord("{"))] = 1
    step[(arr == ord("]")) | (arr == ord("}"))] = -1
    step[~outside] = 0
    return int(np.cumsum(step, dtype=np.int64).max(initial=0))


def load_json(data: bytes, where: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The document in `data`; JsonMemberError (`where:line:column: ...` for syntax,
    `where: nested N deep` for depth) on anything that is not sane JSON."""
    depth = json_depth(data)
    if depth > max_depth:
        raise JsonMemberError(f"{where}: JSON nested {depth} levels deep; the limit is "
                              f"{max_depth}")
    try:
        return _parse(data, where)
    except InputFileError as e:
        raise JsonMemberError(str(e)) from None
