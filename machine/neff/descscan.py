"""A fast reading of an engine JSON: its DMA descriptors found by one regular-expression
pass and kept as columns, the rest parsed by json.

    doc = scan_engine_json(data, max_depth, convert)   # None: read it the ordinary way

An engine JSON of a large NEFF is tens of MB, nearly all of it descriptors, each a flat
object the compiler spells the same way: compact, keys in one of two orders (sorted, as
the compiler writes them, or as machine.neff.writer does). A descriptor spelled so is
cut out of the text by one `re.split`, which captures its two offsets and the text
around them. Descriptors whose text differs only in the offsets are one *kind*: each
kind is parsed once, by json.loads of its text (offsets 0) and `convert` (the reader's
per-descriptor check), and the table (model.DescriptorTable) holds per descriptor its
kind and its offsets. What is left of the text (entries, with a `null` where each
descriptor stood) is parsed by json.loads; each entry's `desc` list of nulls becomes a
DescriptorRange over its rows, made into Descriptors only when read.

The result reads as `json.loads(data, object_hook=reader's descriptor hook)` does
wherever the reader looks (each engine JSON `dma[i].desc[j]`): a descriptor spelled
otherwise (a transpose, another key order, whitespace) stays a dict for the reader's
own per-descriptor path. Whenever the fast reading could differ (the text is not
ASCII, holds `null` outside descriptors, is not valid JSON once reduced, a descriptor
was found outside a `desc` list, a kind `convert` refuses, an offset beyond 64 bits,
or the text may be nested too deep), None is returned and the caller parses the whole
text the ordinary way, which words any fault.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from neurondbg.machine.neff.jsonfile import json_depth
from neurondbg.machine.neff.model import Descriptor, DescriptorRange, DescriptorTable

# (possessive `*+`: what follows each run is a character the run cannot hold, so giving
# characters back never helps; not offering to is faster)
_S = rb'"[^"\\\x00-\x1f]*+"'  # a string without escapes or control characters
_N = rb"(0|[1-9][0-9]*+)"  # a natural number as JSON spells it: an offset, captured
_L = rb"\[[-0-9,]*+\]"  # a list of integers (json.loads checks each kind's)
_OP = rb'"op":' + _S
_TILE = rb'"num_tiling_dimensions":(?:0|[1-9][0-9]*+)'


def _names(key: bytes) -> bytes:
    return rb'"%s":%s,"%s_dtype":%s' % (key, _S, key, _S)


def _shape(key: bytes) -> bytes:
    return rb'"%s_sizes":%s,"%s_steps":%s' % (key, _L, key, _L)


# Groups: (text before from_off), from_off, (text between the offsets), to_off, (text
# after to_off); what is around the offsets makes a descriptor's kind.
_SORTED = re.compile(
    rb"\{(" + _names(b"from") + rb'),"from_off":' + _N + rb",(" + _shape(b"from")
    + rb",(?:" + _TILE + rb",)?(?:" + _OP + rb",)?" + _names(b"to") + rb'),"to_off":' + _N
    + rb",(" + _shape(b"to") + rb")\}")
_WRITER = re.compile(
    rb"\{(" + _names(b"from") + rb'),"from_off":' + _N + rb",(" + _shape(b"from") + rb","
    + _names(b"to") + rb'),"to_off":' + _N + rb",(" + _shape(b"to") + rb"(?:," + _OP
    + rb")?(?:," + _TILE + rb")?)\}")
_WIDTH = 6  # a split's pieces per descriptor: the text before it and its five groups
_START = b'{"from":"'
_MARK = b"null"

Convert = Callable[[dict[str, Any]], Descriptor | None]


class _NotFast(Exception):
    """The fast reading does not apply: the caller reads the text the ordinary way."""


def _table(parts: list[bytes], convert: Convert) -> DescriptorTable:
    """The descriptors split out of the text (module docstring) as a DescriptorTable."""
    head, src_off, mid, dst_off, tail = (parts[g::_WIDTH] for g in range(1, _WIDTH))
    n = len(head)
    keys = list(zip(head, mid, tail, strict=True))
    distinct = dict.fromkeys(keys)
    kinds = []
    for k, (a, b, c) in enumerate(distinct):
        value = json.loads(b"{%s,\"from_off\":0,%s,\"to_off\":0,%s}" % (a, b, c))
        d = convert(value) if type(value) is dict else None
        if d is None:
            raise _NotFast
        kinds.append(d)
        distinct[(a, b, c)] = k
    kind = np.fromiter(map(distinct.__getitem__, keys), dtype=np.intp, count=n)
    try:
        src = np.fromiter(map(int, src_off), dtype=np.int64, count=n)
        dst = np.fromiter(map(int, dst_off), dtype=np.int64, count=n)
    except OverflowError:  # an offset beyond 64 bits: the ordinary reading has it
        raise _NotFast from None
    return DescriptorTable(tuple(kinds), kind, src, dst)


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
    start = data.find(_START)
    if start < 0 or not data.isascii():
        return None
    pattern = _SORTED if _SORTED.match(data, start) else _WRITER
    enabled = gc.isenabled()
    gc.disable()
    try:
        parts = pattern.split(data)
        between = parts[::_WIDTH]
        if _MARK in b"".join(between):
            return None
        reduced = _MARK.join(between)
        # a descriptor adds two levels (its object and its lists) where its null stands
        if json_depth(reduced) + 2 > max_depth:
            return None
        table = _table(parts, convert)
        del parts, between
        doc = json.loads(reduced)
        return doc if _put_back(doc, table) else None
    except (_NotFast, ValueError, RecursionError):
        return None
    finally:
        if enabled:
            gc.enable()
