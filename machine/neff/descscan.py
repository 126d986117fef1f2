"""A fast reading of an engine JSON: its DMA descriptors found by one regular-expression
pass and made into Descriptors column by column, the rest parsed by json.

    doc = scan_engine_json(data, max_depth)   # None: read it the ordinary way

An engine JSON of a large NEFF is tens of MB, nearly all of it descriptors, each a flat
object the compiler spells the same way: compact, keys in one of two orders (sorted, as
the compiler writes them, or as machine.neff.writer does). A descriptor spelled so is
cut out of the text by one `re.split` that captures its fields; each distinct name,
sizes and steps text is checked and converted once, offsets column by column; what is
left (entries, with a `null` where each descriptor stood) is parsed by json.loads and
the Descriptors are put back in place of the nulls.

The result equals what `json.loads(data, object_hook=reader's descriptor hook)` gives
wherever the reader looks (each engine JSON `dma[i].desc[j]`): a descriptor spelled
otherwise (a transpose, another key order, whitespace) stays a dict for the reader's
own per-descriptor path. Whenever the fast reading could differ (the text is not
ASCII, holds `null` outside descriptors, is not valid JSON once reduced, a descriptor
was found outside a `desc` list, a number or list is not well formed, or the text may
be nested too deep), None is returned and the caller parses the whole text the
ordinary way, which words any fault.
"""

from __future__ import annotations

import gc
import json
import re
from itertools import repeat
from typing import Any

from neurondbg.machine.neff.jsonfile import json_depth
from neurondbg.machine.neff.model import Descriptor

_S = rb'"([^"\\\x00-\x1f]*)"'  # a string without escapes or control characters
_N = rb"(0|[1-9][0-9]*)"  # a natural number as JSON spells it
_L = rb"\[([-0-9,]*)\]"  # a list of integers (each distinct text checked by _INTS)
_OP = rb'"op":' + _S
_TILE = rb'"num_tiling_dimensions":' + _N


def _side(key: bytes) -> bytes:
    return (rb'"%s":%s,"%s_dtype":%s,"%s_off":%s,"%s_sizes":%s,"%s_steps":%s'
            % (key, _S, key, _S, key, _N, key, _L, key, _L))


# Field order of each spelling's groups: src, src_dtype, src_off, src_sizes, src_steps,
# dst, ..., dst_steps, op, num_tiling_dimensions (as group numbers, 1-based).
_SORTED = re.compile(rb"\{" + _side(b"from") + rb",(?:" + _TILE + rb",)?(?:" + _OP + rb",)?"
                     + _side(b"to") + rb"\}")
_SORTED_GROUPS = (1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 7, 6)
_WRITER = re.compile(rb"\{" + _side(b"from") + rb"," + _side(b"to") + rb"(?:," + _OP
                     + rb")?(?:," + _TILE + rb")?\}")
_WRITER_GROUPS = tuple(range(1, 13))
_START = b'{"from":"'
_MARK = b"null"
_INT = rb"-?(?:0|[1-9][0-9]*)"
_INTS = re.compile(rb"(?:%s(?:,%s)*)?" % (_INT, _INT))


class _NotFast(Exception):
    """The fast reading does not apply: the caller reads the text the ordinary way."""


def _names(column: list[bytes | None]) -> list[str | None]:
    table: dict[bytes | None, str | None] = {b: None if b is None else b.decode("ascii")
                                             for b in set(column)}
    return list(map(table.__getitem__, column))


def _tuples(column: list[bytes], naturals: bool) -> tuple[list[tuple[int, ...]],
                                                             dict[bytes, tuple[int, ...]]]:
    table: dict[bytes, tuple[int, ...]] = {}
    for text in set(column):
        if not _INTS.fullmatch(text) or (naturals and b"-" in text):
            raise _NotFast
        table[text] = tuple(map(int, text.split(b","))) if text else ()
    return list(map(table.__getitem__, column)), table


def _pairs_agree(sizes: list[bytes], steps: list[bytes], size_of: dict[bytes, tuple[int, ...]],
                 step_of: dict[bytes, tuple[int, ...]]) -> bool:
    return all(len(size_of[a]) == len(step_of[b]) for a, b in set(zip(sizes, steps,
                                                                      strict=True)))


def _descriptors(parts: list[Any], groups: tuple[int, ...], width: int) -> list[Descriptor]:
    """The Descriptors of the captured fields, column by column."""
    cols = [parts[g::width] for g in groups]
    src, sdt, so, ss, st, dst, ddt, do, ds, dt, op, tile = cols
    ss_t, ss_of = _tuples(ss, naturals=True)
    st_t, st_of = _tuples(st, naturals=False)
    ds_t, ds_of = _tuples(ds, naturals=True)
    dt_t, dt_of = _tuples(dt, naturals=False)
    if not (_pairs_agree(ss, st, ss_of, st_of) and _pairs_agree(ds, dt, ds_of, dt_of)):
        raise _NotFast
    tiles = [None if b is None else int(b) for b in tile] if any(tile) else [None] * len(tile)
    none = repeat(None)
    return list(map(Descriptor, _names(src), _names(dst), _names(sdt), _names(ddt),
                    map(int, so), map(int, do), ss_t, ds_t, st_t, dt_t, _names(op), tiles,
                    none, none, none))


def _put_back(doc: Any, found: list[Descriptor]) -> bool:
    """Each null of each `dma[i].desc` list replaced by the next of `found`; whether
    they were exactly as many."""
    if type(doc) is not dict or type(doc.get("dma")) is not list:
        return not found
    it = iter(found)
    used = 0
    for entry in doc["dma"]:
        if type(entry) is not dict:
            continue
        desc = entry.get("desc")
        if type(desc) is not list:
            continue
        for k, x in enumerate(desc):
            if x is None:
                desc[k] = next(it, None)
                used += 1
    return used == len(found)


def scan_engine_json(data: bytes | bytearray, max_depth: int) -> Any | None:
    """The engine JSON in `data` with its descriptors as Descriptors (module docstring),
    or None when it must be read the ordinary way."""
    start = data.find(_START)
    if start < 0 or not data.isascii():
        return None
    pattern, groups = ((_SORTED, _SORTED_GROUPS) if _SORTED.match(data, start)
                       else (_WRITER, _WRITER_GROUPS))
    enabled = gc.isenabled()
    gc.disable()
    try:
        parts = pattern.split(data)
        width = pattern.groups + 1
        between = parts[::width]
        if _MARK in b"".join(between):
            return None
        reduced = _MARK.join(between)
        # a descriptor adds two levels (its object and its lists) where its null stands
        if json_depth(reduced) + 2 > max_depth:
            return None
        found = _descriptors(parts, groups, width) if len(between) > 1 else []
        del parts, between
        doc = json.loads(reduced)
        return doc if _put_back(doc, found) else None
    except (_NotFast, ValueError, RecursionError):
        return None
    finally:
        if enabled:
            gc.enable()
