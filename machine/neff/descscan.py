"""A fast reading of an engine JSON: its DMA descriptors found by vectorized byte
comparisons and kept as columns, the rest parsed by json.

    doc = scan_engine_json(data, max_depth, convert)   # None: read it the ordinary way

An engine JSON of a large NEFF is tens of MB, nearly all of it descriptors: flat objects
that start `{"from":"` and differ from one another mostly in their two offsets. The text
is read as a numpy byte array. Each descriptor's text is three parts: up to its
`"from_off":`, up to its `"to_off":` after the from offset's digits, and up to the
first `}` after the to offset's digits. Each part is matched against *templates* (the
part of the first descriptor not yet matched, compared with all the others at once as
rows of bytes; after the few templates that match many, the rest one by one), and the
digits that follow are read in bulk. Descriptors whose three parts are the same
templates are one *kind*: their texts differ only in the offsets' digits. Each kind is
parsed once, by json.loads of its first descriptor and `convert` (the reader's
per-descriptor check), and the table (model.DescriptorTable) holds per descriptor its
kind and its offsets. What is left of the text (entries, with a `null` where each
descriptor stood) is parsed by json.loads; each entry's `desc` list of nulls becomes a
DescriptorRange over its rows, made into Descriptors only when read.

The result reads as `json.loads(data, object_hook=reader's descriptor hook)` does
wherever the reader looks (each engine JSON `dma[i].desc[j]`): an object spelled
otherwise (not starting `{"from":"`) stays a dict for the reader's own per-descriptor
path. Whenever the fast reading could differ (the text is not ASCII or holds a
backslash, a descriptor lacks an offset or its offset is not a plain natural number of
at most 18 digits, a kind's text is not valid JSON or its parsed offsets are not the
digits read, `convert` refuses a kind, descriptors overlap, the text holds `null` of its
own, is not valid JSON once reduced or may be nested too deep, or a descriptor was found
outside a `desc` list), None is returned and the caller parses the whole text the
ordinary way, which words any fault.

Why that is exact: without backslashes, a descriptor's text equals its kind's first
one but for digits that are a number token in both (checked against the parsed
offsets), so it is valid JSON with the same keys and values but the offsets; and since
every inserted `null` must be a JSON null inside a `desc` list, each descriptor stood
where a value stands, outside any string.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from neurondbg.machine.neff.jsonfile import json_depth
from neurondbg.machine.neff.model import Descriptor, DescriptorRange, DescriptorTable

_START = b'{"from":"'
_FROM_OFF = b'"from_off":'
_TO_OFF = b'"to_off":'
_MARK = b"null"
_DIGITS = 18  # an offset of more digits is read the ordinary way (int64 holds 18 exactly)
_TEMPLATES = 64  # templates tried on all the descriptors at once, at most
_FEW = 64  # ... and while each matches at least this many
_PART_BYTES = 4096  # a part of a descriptor's text longer than this: not a compiler's
_ROW_BYTES = 1 << 26  # the bytes of a template's rows compared at once, at most
_JOINED = 16384  # fewer descriptors than this: the reduced text is joined from slices
_ID_BITS = 21  # a template's number (a descriptor is more than 64 bytes of a 64 MB member)

Convert = Callable[[dict[str, Any]], Descriptor | None]


class _NotFast(Exception):
    """The fast reading does not apply: the caller reads the text the ordinary way."""


def _starts(arr: np.ndarray) -> np.ndarray:
    """Every position of `{"from":"`, ascending."""
    start = np.flatnonzero(arr == _START[0])
    start = start[start <= len(arr) - len(_START)]
    for k in range(1, len(_START)):
        start = start[arr[start + k] == _START[k]]
    return start


def _rows(arr: np.ndarray, at: np.ndarray, width: int) -> np.ndarray:
    """The `width` bytes from each position of `at`, one row each (past the end of
    `arr`: zeros)."""
    if len(at) and int(at.max()) + width > len(arr):
        arr = np.concatenate([arr, np.zeros(width, dtype=np.uint8)])
    rows: np.ndarray = sliding_window_view(arr, width)[at]
    return rows


def _naturals(window: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(value, digit count) of the natural number each row of `window` starts with;
    _NotFast when one is not a plain JSON natural (no digit, a leading zero, more than
    _DIGITS digits)."""
    window = window - np.uint8(ord("0"))  # (wraps below '0')
    count = np.argmin(window <= 9, axis=1)  # the first non-digit (none in the row: 0)
    if len(window) and (not count.all() or ((window[:, 0] == 0) & (count > 1)).any()):
        raise _NotFast
    value = np.zeros(len(window), dtype=np.int64)
    for k in range(int(count.max()) if len(window) else 0):  # Horner's rule
        value = np.where(k < count, value * 10 + window[:, k], value)
    return value, count


def _part(data: bytes | bytearray, arr: np.ndarray, at: np.ndarray, key: bytes,
          number: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One part of every descriptor's text: from each position of `at` to the end of
    the first `key` after it, then (`number`) the natural number there. Per position:
    which *template* its part is (parts of one template are the same bytes), the part's
    length, and the number and its digit count. A template is the part of the first
    position not yet matched, tried on all the others at once (a large NEFF's
    descriptors share a few): a position whose bytes are exactly a template's has the
    same part (its first `key` is where the template's is). Once templates match few
    positions, the rest are read one by one. _NotFast when a position has no `key`
    within _PART_BYTES after it, or a template's rows would take more than _ROW_BYTES
    (hostile text costs neither quadratic time nor unbounded memory here)."""
    n = len(at)
    template = np.zeros(n, dtype=np.intp)
    length = np.zeros(n, dtype=np.intp)
    todo = np.arange(n)
    extra = _DIGITS + 1 if number else 0
    windows = np.zeros((n, extra), dtype=np.uint8)
    for t in range(_TEMPLATES):
        if not len(todo):
            break
        first = int(at[todo[0]])
        found = data.find(key, first, first + _PART_BYTES)
        if found < 0 or len(todo) * (found + len(key) - first + extra) > _ROW_BYTES:
            raise _NotFast
        width = found + len(key) - first
        rows = _rows(arr, at[todo], width + extra)
        ok = (rows[:, :width] == arr[first:first + width]).all(axis=1)
        if ok.all():  # (the common case: no row picked out)
            template[todo], length[todo] = t, width
            windows[todo] = rows[:, width:]
            todo = todo[:0]
            break
        hit = todo[ok]
        template[hit], length[hit] = t, width
        windows[hit] = rows[ok, width:]
        todo = todo[~ok]
        if len(hit) < _FEW:
            break
    if len(todo):  # one by one, each part's text naming its template
        ids: dict[bytes, int] = {}
        for i in todo.tolist():
            first = int(at[i])
            found = data.find(key, first, first + _PART_BYTES)
            if found < 0:
                raise _NotFast
            width = found + len(key) - first
            template[i] = ids.setdefault(bytes(data[first:found + len(key)]),
                                         _TEMPLATES + len(ids))
            length[i] = width
        if number:
            windows[todo] = _rows(arr, at[todo] + length[todo], extra)
    if not number:
        return template, length, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.intp)
    value, count = _naturals(windows)
    return template, length, value, count


def _table(data: bytes | bytearray, arr: np.ndarray, convert: Convert
           ) -> tuple[DescriptorTable, np.ndarray, np.ndarray]:
    """The descriptors (module docstring) as a DescriptorTable, and their spans
    (first byte, closing brace)."""
    start = _starts(arr)
    if len(start) >= (1 << _ID_BITS) - _TEMPLATES:
        raise _NotFast
    head, head_len, src, src_len = _part(data, arr, start, _FROM_OFF, True)
    after_src = start + head_len + src_len
    mid, mid_len, dst, dst_len = _part(data, arr, after_src, _TO_OFF, True)
    after_dst = after_src + mid_len + dst_len
    tail, tail_len, _, _ = _part(data, arr, after_dst, b"}", False)
    end = after_dst + tail_len - 1
    if len(start) > 1 and (start[1:] <= end[:-1]).any():
        raise _NotFast
    # a kind is a combination of templates: numbered in order of first appearance
    combo = (head << 2 * _ID_BITS) | (mid << _ID_BITS) | tail
    _, firsts, kind = np.unique(combo, return_index=True, return_inverse=True)
    order = np.argsort(firsts)
    kind = np.argsort(order)[kind.reshape(-1)]
    kinds = []
    for i in firsts[order].tolist():  # each kind's first, parsed and checked
        try:
            value = json.loads(data[start[i]:end[i] + 1])
        except (ValueError, RecursionError):
            raise _NotFast from None
        if (type(value) is not dict or type(value.get("from_off")) is not int
                or type(value.get("to_off")) is not int
                or value["from_off"] != int(src[i]) or value["to_off"] != int(dst[i])):
            raise _NotFast
        value["from_off"] = value["to_off"] = 0
        d = convert(value)
        if d is None:
            raise _NotFast
        kinds.append(d)
    return DescriptorTable(tuple(kinds), kind, src, dst), start, end


def _reduced(data: bytes | bytearray, arr: np.ndarray, start: np.ndarray, end: np.ndarray
             ) -> bytes:
    """The text with `null` in place of each descriptor (start..end, both included)."""
    n = len(start)
    gap_from = np.concatenate([[0], end + 1])
    gap_to = np.concatenate([start, [len(arr)]])
    if n < _JOINED:
        return _MARK.join([data[a:b] for a, b in zip(gap_from.tolist(), gap_to.tolist(),
                                                      strict=True)])
    # many descriptors: the bytes between them gathered at once, then the nulls put in
    gap_len = gap_to - gap_from
    total = int(gap_len.sum())
    before = np.cumsum(gap_len) - gap_len  # gap bytes before each gap
    src = np.arange(total) + np.repeat(gap_from - before, gap_len)
    dest = np.arange(total) + np.repeat(np.arange(n + 1) * len(_MARK), gap_len)
    out = np.empty(total + n * len(_MARK), dtype=np.uint8)
    out[dest] = arr[src]
    at = before[1:] + np.arange(n) * len(_MARK)
    for k, ch in enumerate(_MARK):
        out[at + k] = ch
    return out.tobytes()


def _put_back(doc: Any, table: DescriptorTable) -> bool:
    """Each `dma[i].desc` list of nulls made the DescriptorRange of the next rows of
    `table` (a list mixing nulls and dicts: each null the next row's Descriptor);
    whether the nulls were exactly as many as the rows."""
    if type(doc) is not dict or type(doc.get("dma")) is not list:
        return not len(table)
    used = 0
    for entry in doc["dma"]:
        if type(entry) is not dict:
            continue
        desc = entry.get("desc")
        if type(desc) is not list or not desc:
            continue
        nulls = desc.count(None)
        if nulls == len(desc) and used + nulls <= len(table):
            entry["desc"] = DescriptorRange(table, used, used + nulls)
            used += nulls
            continue
        for k, x in enumerate(desc):
            if x is None:
                if used == len(table):
                    return False
                desc[k] = table.row(used)
                used += 1
    return used == len(table)


def scan_engine_json(data: bytes | bytearray, max_depth: int, convert: Convert) -> Any | None:
    """The engine JSON in `data` with its descriptors in DescriptorRanges (module
    docstring), or None when it must be read the ordinary way. `convert` makes a
    descriptor's dict its Descriptor, or None when the dict is not one."""
    if data.find(_START) < 0 or not data.isascii():
        return None
    enabled = gc.isenabled()
    gc.disable()
    try:
        arr = np.frombuffer(data, dtype=np.uint8)
        if data.find(b"\\") >= 0:
            return None  # (no escapes: a descriptor's quotes pair up as they stand)
        table, start, end = _table(data, arr, convert)
        reduced = _reduced(data, arr, start, end)
        if reduced.count(_MARK) != len(table):
            return None  # a `null` of its own: which nulls were descriptors is not known
        # a descriptor nests as deep as its kinds' texts where its null stands
        deepest = max(json_depth(data[start[i]:end[i] + 1])
                      for i in np.unique(table.kind, return_index=True)[1].tolist())
        if json_depth(reduced) + deepest > max_depth:
            return None
        doc = json.loads(reduced)
        return doc if _put_back(doc, table) else None
    except (_NotFast, ValueError, RecursionError):
        return None
    finally:
        if enabled:
            gc.enable()
