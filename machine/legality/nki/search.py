"""The DVE search ops: max8, nc_find_index8, nc_match_replace8 (ref 004).

Their envelopes differ: max8 and find_index8 read 8..16384 elements per
partition, match_replace8 up to 16384; find/match need exactly 8 vals (the
8 is silicon width, not a parameter — ref 004 NOTE).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.nki.common import clause, given, intrinsic, ref004, same_partitions
from neurondbg.machine.legality.nki.spec import ClauseSpec, Intrinsic, Param
from neurondbg.machine.legality.nki.vocab import Tile, dtype_set, show_set

SEARCH_WIDTH = 8  # fixed silicon width
MAX_ELEMS = 16384
FIND_INDEX8_DTYPES = dtype_set("uint16", "uint32")


def max_dims(arg: str, limit: int, section: str) -> ClauseSpec:
    """assert_max_dimensions over one operand."""
    def check(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
        tile = args.get(arg)
        if tile is None or len(tile.shape) <= limit:
            return True, f"{arg} {tile} has at most {limit} dims"
        return False, f"{arg} {tile} has {len(tile.shape)} dims; at most {limit} ({limit}-D)"
    return clause(f"assert_max_dimensions({arg})", arg, f"{arg} rank <= {limit}", check,
                  ref004(section), fix=f"reshape {arg} to at most {limit} dims")


def elems_per_partition(arg: str, low: int, section: str) -> ClauseSpec:
    """low..16384 elements per partition."""
    @given(arg)
    def check(tile: Tile) -> tuple[bool, str]:
        n = tile.free_size
        if low <= n <= MAX_ELEMS:
            return True, f"{arg} {tile} has {n} elements per partition in {low}..{MAX_ELEMS}"
        return False, (f"{arg} {tile} has {n} elements per partition, outside {low}..{MAX_ELEMS}")
    return clause(f"elements_per_partition({arg})", arg, f"{low} <= {arg} free size <= {MAX_ELEMS}",
                  check, ref004(section + "; thresholds NOTE (value CONFIRMED)"),
                  fix=f"give {arg} {low}..{MAX_ELEMS} elements per partition (tile larger "
                  "inputs" + (f"; pad inputs below {low}" if low > 1 else "") + ")")


def exactly_8_vals(section: str) -> ClauseSpec:
    def check(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
        vals = args.get("vals")
        if vals is None or vals.free_size == SEARCH_WIDTH:
            return True, f"vals {vals} has exactly {SEARCH_WIDTH} elements per partition"
        return False, (f"vals {vals} has {vals.free_size} elements per partition; exactly "
                       f"{SEARCH_WIDTH} (fixed silicon width: any other count is a shape error)")
    return clause("vals_exactly_8", "vals", "vals has exactly 8 elements per partition", check,
                  ref004(section + "; NOTE: the 8 is fixed silicon width"),
                  fix="pass exactly 8 values per partition")


def _find_index8_dtype(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    dtype = args.get("dtype")
    if dtype is None:
        return True, "output dtype defaults to uint32"
    if dtype in FIND_INDEX8_DTYPES:
        return True, f"output dtype {dtype} is in {show_set(FIND_INDEX8_DTYPES)}"
    return False, f"output dtype {dtype} is not in {show_set(FIND_INDEX8_DTYPES)}"


def _data_vals(op: str, low: int, span: str) -> tuple[ClauseSpec, ...]:
    """The envelope find_index8 and match_replace8 share: data up to 5-D with `low`..16384
    elements per partition (`span`, as the reference words it), vals up to 3-D with 8."""
    return (max_dims("data", 5, f"{op}: data up to 5-D"),
            max_dims("vals", 3, f"{op}: vals up to 3-D"),
            elems_per_partition("data", low, f"{op}: {span} elem/part"),
            exactly_8_vals(f"{op}: vals exactly 8 elem/part"))


_MAX8_PARAMS = (Param("src", "tile", required=True), Param("mask", "any"),
                Param("dtype", "dtype"))
MAX8 = intrinsic(
    "max8", "Vector", _MAX8_PARAMS, "neuron_isa.py:2124",
    "the 8 largest values per partition, descending; output [par, 8]",
    ref004("max8 signature (CONFIRMED stub L704)"),
    max_dims("src", 5, "max8: src up to 5-D"),
    elems_per_partition("src", SEARCH_WIDTH, "max8: 8..16384 elements per partition"),
    asserted=("src",),
)

_FI_PARAMS = (Param("data", "tile", required=True), Param("vals", "tile", required=True),
              Param("mask", "any"), Param("dtype", "dtype"))
NC_FIND_INDEX8 = intrinsic(
    "nc_find_index8", "Vector", _FI_PARAMS, "neuron_isa.py:2162",
    "index of the first occurrence of each of 8 vals per partition",
    ref004("nc_find_index8 signature (CONFIRMED stub L776)"),
    *_data_vals("nc_find_index8", SEARCH_WIDTH, "8..16384"),
    clause("output_dtype", "dtype", "dtype in {uint16, uint32} (default uint32)",
           _find_index8_dtype, ref004("nc_find_index8: output dtype uint16 OR uint32"),
           fix="use dtype=nl.uint32 (default) or nl.uint16"),
    asserted=("data", "vals"),
)

_MR_PARAMS = (Param("data", "tile", required=True), Param("vals", "tile", required=True),
              Param("imm", "number", required=True), Param("dst_idx", "tile"),
              Param("mask", "any"), Param("dtype", "dtype"))
NC_MATCH_REPLACE8 = intrinsic(
    "nc_match_replace8", "Vector", _MR_PARAMS, "neuron_isa.py:2207",
    "replace the first occurrence of each of 8 vals with imm",
    ref004("nc_match_replace8 signature (CONFIRMED stub L816)"),
    *_data_vals("nc_match_replace8", 1, "<= 16384"),
    clause("assert_same_shape(partitions)", ("data", "vals", "dst_idx"),
           "data / vals (/ dst_idx) partition dims match",
           same_partitions(("data", "vals", "dst_idx")),
           ref004("nc_match_replace8: assert_same_shape over partition dims"),
           fix="give data and vals the same partition count"),
    asserted=("data", "vals"),
)

INTRINSICS: tuple[Intrinsic, ...] = (MAX8, NC_FIND_INDEX8, NC_MATCH_REPLACE8)
