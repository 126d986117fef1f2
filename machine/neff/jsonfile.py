"""JSON members of a NEFF, parsed with a bound on their nesting.

`load_json` refuses a document nested deeper than MAX_JSON_DEPTH before it is parsed:
the depth is measured on the brackets outside strings, found with C-speed byte
operations (escapes dropped, everything but quotes and brackets deleted, strings cut
out by a replace and a regular expression) and one numpy cumulative sum over the brackets left, so a
hostile member costs no parser recursion. Real NEFF JSON nests about 5 deep.

An `object_hook` may turn objects into compact values as they are parsed (the reader
turns each DMA descriptor into a tuple at once, so a 50 MB engine JSON is never held as
dictionaries all at the same time).
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from neurondbg.machine.files import InputFileError
from neurondbg.machine.files import load_json as _parse

MAX_JSON_DEPTH = 64

_KEEP = b'"[]{}'
_DELETE = bytes(b for b in range(256) if b not in _KEEP)
_STRING = re.compile(rb'"[^"]*"')


class JsonMemberError(ValueError):
    """A JSON member that cannot be read: one line naming the member."""


def json_depth(data: bytes | bytearray) -> int:
    """The deepest nesting of `[` and `{` in JSON text `data` (0 for a scalar)."""
    text = data  # a bytearray member is read in place: no copy of 40 MB
    if b"\\" in text:  # escapes (rare in a NEFF): two more passes over the text
        text = text.replace(b"\\\\", b"").replace(b'\\"', b"")
    marks = text.translate(None, _DELETE)
    # a string without brackets is now `""`: dropping adjacent quote pairs keeps the
    # parity of the quotes before every bracket, and leaves little for the expression
    brackets = _STRING.sub(b"", marks.replace(b'""', b""))
    if not brackets:
        return 0
    arr = np.frombuffer(brackets, dtype=np.int8)
    step = np.where((arr == ord("[")) | (arr == ord("{")), 1, -1).astype(np.int32)
    return max(int(np.cumsum(step).max()), 0)


def load_json(data: bytes | bytearray, where: str, max_depth: int = MAX_JSON_DEPTH,
              object_hook: Callable[[dict[str, Any]], Any] | None = None) -> Any:
    """The document in `data`; JsonMemberError (`where:line:column: ...` for syntax,
    `where: nested N deep` for depth) on anything that is not sane JSON. The garbage
    collector is paused while the objects are made (none of them form cycles)."""
    depth = json_depth(data)
    if depth > max_depth:
        raise JsonMemberError(f"{where}: JSON nested {depth} levels deep; the limit is "
                              f"{max_depth}")
    enabled = gc.isenabled()
    gc.disable()
    try:
        return json.loads(data, object_hook=object_hook)
    except (ValueError, RecursionError):
        try:  # machine.files words every parse failure as one line
            _parse(bytes(data), where)
        except InputFileError as e:
            raise JsonMemberError(str(e)) from None
        raise JsonMemberError(f"{where}: invalid JSON") from None
    finally:
        if enabled:
            gc.enable()
