"""Constant generation, on-chip copies and GpSimd gather (ref 004).

memset, iota, dropout, sequence_bounds, tensor_copy and its dynamic variants
(the trn1 Scalar-engine ban), local_gather, builtin_custom_op.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.messages import message, quoting
from neurondbg.machine.legality.nki.common import (
    clause,
    dtype_in,
    given,
    intrinsic,
    is_tile,
    out_dtype,
    out_dtype_in,
    ref004,
    signature,
)
from neurondbg.machine.legality.nki.spec import ClauseSpec, Intrinsic, Param
from neurondbg.machine.legality.nki.vocab import FP32, Scalar, Tile, dtype_set, gen_label
from neurondbg.machine.legality.result import Provenance

MEMSET_ENGINES: tuple[str, ...] = ("vector", "gpsimd", "unknown")
SEQUENCE_BOUNDS_DTYPES = dtype_set("float32", "int32")
GATHER_PARTITIONS_PER_CORE = 16  # 8 GpSimd cores x 16 SBUF partitions = 128
GATHER_ELEMS_PER_IDX: tuple[int, ...] = (1, 2, 4, 8, 16, 32)
GATHER_MAX_INDICES_PER_CORE = 4096
GATHER_INDEX_DTYPES = dtype_set("uint16")


# --- memset / iota ------------------------------------------------------------------

def _memset_engine(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    engine = args["engine"]
    if engine in MEMSET_ENGINES:
        return True, f"engine {engine} can memset"
    return False, (f"engine {engine} cannot memset: memset runs on "
                   f"{{{', '.join(e + '_engine' for e in MEMSET_ENGINES)}}}")


_MEMSET_PARAMS = (Param("shape", "int_list", required=True),
                  Param("value", "number", required=True),
                  Param("dtype", "dtype", required=True), Param("mask", "any"),
                  Param("engine", "engine", default="unknown"))
MEMSET = intrinsic(
    "memset", "Vector or GpSimd", _MEMSET_PARAMS, "neuron_isa.py:1817",
    "fill a tile with a compile-time constant; all valid NKI dtypes",
    ref004("memset signature (CONFIRMED stub L740)"),
    clause("supported_engine(engine)", "engine", "engine in {vector, gpsimd, unknown}",
           _memset_engine, ref004("memset: engine may be vector | gpsimd | unknown"),
           fix="use engine=nisa.vector_engine, gpsimd_engine or leave it unknown"),
    asserted=("dtype",),
)

_IOTA_PARAMS = (Param("expr", "expr", required=True), Param("dtype", "dtype", required=True),
                Param("mask", "any"))
IOTA = intrinsic("iota", "GpSimd", _IOTA_PARAMS, "neuron_isa.py:1281",
                 "index pattern from an affine nl.arange expression; no local _check_*",
                 ref004("iota signature (CONFIRMED stub L602)"), asserted=("expr", "dtype"))


# --- dropout --------------------------------------------------------------------------

def _prob_shape(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    data, prob = args.get("data"), args.get("prob")
    if not is_tile(prob) or data is None:
        return True, f"prob {prob} is a scalar"
    if prob.shape == (data.partitions, 1):
        return True, f"prob {prob} is a per-partition (P, 1) tile"
    return False, (f"prob {prob} has shape {list(prob.shape)}; a prob tile must be "
                   f"({data.partitions}, 1) = (data.shape[0], 1)")


@given("data", "prob")
def _prob_dtype(data: Tile, prob: Tile | Scalar) -> tuple[bool, str]:
    if data.dtype.is_int:
        if prob.dtype == FP32:
            return True, f"integer data {data.dtype} with float32 prob"
        return False, f"data is integer ({data.dtype}), so prob must be float32, got {prob.dtype}"
    if prob.dtype.is_float:
        return True, f"float data {data.dtype} with float prob {prob.dtype}"
    return False, f"data is float ({data.dtype}); prob must be a float type, got {prob.dtype}"


def _dropout_out(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    data = args.get("data")
    if data is None or not data.dtype.is_int:
        return True, "float data: any valid output dtype"
    out = out_dtype(args, "data")
    if out == data.dtype:
        return True, f"integer data keeps its dtype {out}"
    return False, f"data is integer ({data.dtype}), so the output dtype must equal it, got {out}"


_DROPOUT_PARAMS = (Param("data", "tile", required=True),
                   Param("prob", "tile_or_scalar", required=True),
                   Param("mask", "any"), Param("dtype", "dtype"))
_DROPOUT_PROV = ref004("dropout dtype rules (CONFIRMED docstring, enforced in ctx)")
DROPOUT = intrinsic(
    "dropout", "Vector", _DROPOUT_PARAMS, "neuron_isa.py:1312",
    "per-element Bernoulli zeroing with drop probability prob",
    ref004("dropout signature (CONFIRMED stub L548)"),
    clause("prob_shape", ("prob", "data"), "prob is a scalar or a (data.shape[0], 1) tile",
           _prob_shape, ref004("dropout: prob scalar or (data.shape[0], 1)"),
           fix="pass prob as a scalar or a (P, 1) tile"),
    clause("prob_dtype", ("prob", "data"), "integer data => float32 prob; float data => "
           "float prob", _prob_dtype, _DROPOUT_PROV, fix="pass prob as float32"),
    clause("output_dtype", ("dtype", "data"), "integer data => output dtype == data dtype",
           _dropout_out, _DROPOUT_PROV, fix="drop dtype= for integer data"),
    asserted=("data", "prob"),
)


# --- sequence_bounds ------------------------------------------------------------------

@given("segment_ids")
def _segment_shape(ids: Tile) -> tuple[bool, str]:
    if len(ids.shape) == 2 and ids.partitions == 1:
        return True, f"segment_ids {ids} is (1, N): output (1, 2, {ids.shape[1]})"
    return False, (f"segment_ids {ids} has shape {list(ids.shape)}: the partition dim must be 1 "
                   "and the input (1, N)")


_SB_PARAMS = (Param("segment_ids", "tile", required=True), Param("dtype", "dtype"))
SEQUENCE_BOUNDS = intrinsic(
    "sequence_bounds", "GpSimd", _SB_PARAMS, "neuron_isa.py:1775",
    "[start, end] of each element's segment; padding id 0 -> [n, -1]",
    ref004("sequence_bounds GOTCHA: no mask parameter"),
    clause("partition_dim_1(segment_ids)", "segment_ids", "segment_ids shape (1, N)",
           _segment_shape, ref004("sequence_bounds: partition dim MUST be 1"),
           fix="reshape segment_ids to (1, N)"),
    dtype_in("segment_ids_dtype", "segment_ids", SEQUENCE_BOUNDS_DTYPES, "",
             ref004("sequence_bounds: segment_ids float32 or int32"),
             fix="cast segment_ids to int32"),
    clause("output_dtype", ("dtype", "segment_ids"), "output dtype float32 or int32",
           out_dtype_in("segment_ids", SEQUENCE_BOUNDS_DTYPES, "float32 or int32"),
           ref004("sequence_bounds: out dtype float32 or int32")),
    asserted=("segment_ids",), why=" (sequence_bounds is the only op with no mask parameter)",
)


# --- tensor_copy and the dynamic variants ----------------------------------------------

def _dynamic_engine(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    engine = args["engine"]
    # Exactly `get_nc_version() == gen2 and engine == scalar` (ref 004 GOTCHA).
    if gen is Gen.SUNDA and engine == "scalar":
        return False, (f"engine scalar on {gen_label(gen)}: \"is not supported on trn1 Scalar "
                       "Engine.\" (legal on trn2+; vector and gpsimd are legal everywhere)")
    return True, f"engine {engine} on {gen_label(gen)}"


def _dynamic_engine_clause() -> ClauseSpec:
    return quoting(clause("_check_tensor_copy_dynamic_supported_engine", "engine",
                          "not (trn1 and engine == scalar)", _dynamic_engine,
                          ref004("tensor_copy dynamic variants GOTCHA (CONFIRMED literal)"),
                          fix="use engine=nisa.vector_engine or gpsimd_engine on trn1"),
                   message("<inst> is not supported on trn1 Scalar Engine.",
                           "004 tensor_copy dynamic variants"),
                   aliases=("nki_assert",))


def _gpsimd_sbuf(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    engine, src = args["engine"], args.get("src")
    where = getattr(src, "buffer", None)
    if engine == "gpsimd" and where == "psum":
        return False, ("engine gpsimd with src in PSUM: \"GpSimd engine cannot access "
                       "PSUM\"; a PSUM-resident copy runs on the Vector or Scalar engine")
    return True, f"engine {engine}, src in {where or 'SBUF'}"


_COPY_PARAMS = (Param("src", "tile", required=True), Param("mask", "any"),
                Param("dtype", "dtype"), Param("engine", "engine", default="unknown"))
_COPY_ENGINES = "Vector / Scalar / GpSimd"
TENSOR_COPY = intrinsic(
    "tensor_copy", _COPY_ENGINES, _COPY_PARAMS, "neuron_isa.py:1857",
    "on-chip SRAM copy; lowers to COPY 0x46 when the dtypes match, CAST 0x47 when "
    "they differ (ref 000 §8)",
    ref004("tensor_copy signature (stub L1424)"),
    quoting(clause("gpsimd_no_psum(src)", ("engine", "src"),
                   "engine != gpsimd or src not in PSUM", _gpsimd_sbuf,
                   Provenance("000", "§3.3 GOTCHA, §8 (GpSimd path asserts SBUF-only)"),
                   fix="copy on engine=nisa.vector_engine or scalar_engine, or move src to "
                   "SBUF"),
            message("GpSimd engine cannot access PSUM", "000 §3.3 GOTCHA")),
    asserted=("src",),
)
TENSOR_COPY_DYNAMIC_SRC = intrinsic(
    "tensor_copy_dynamic_src", _COPY_ENGINES, _COPY_PARAMS, "neuron_isa.py:2328",
    "copy with src at a dynamic per-partition offset",
    ref004("tensor_copy_dynamic_src signature (stub L1499)"), _dynamic_engine_clause(),
    asserted=("src",),
)
_COPY_DST_PARAMS = (Param("dst", "tile", required=True), *_COPY_PARAMS)
TENSOR_COPY_DYNAMIC_DST = intrinsic(
    "tensor_copy_dynamic_dst", _COPY_ENGINES, _COPY_DST_PARAMS, "neuron_isa.py:2383",
    "copy with dst at a dynamic per-partition offset",
    ref004("tensor_copy_dynamic_dst signature (stub L1467)"), _dynamic_engine_clause(),
    asserted=("dst", "src"),
)


# --- local_gather ---------------------------------------------------------------------

@given("src_buffer", "index")
def _gather_partitions(src: Tile, index: Tile) -> tuple[bool, str]:
    if src.partitions != index.partitions:
        return False, (f"src_buffer has {src.partitions} partitions, index {index.partitions}: "
                       "src_buffer.shape[0] must equal index.shape[0]")
    if src.partitions % GATHER_PARTITIONS_PER_CORE:
        return False, (f"{src.partitions} partitions is not divisible by 16: each GpSimd core "
                       "gathers from its 16 connected SBUF partitions")
    return True, f"{src.partitions} partitions = {src.partitions // 16} cores x 16"


def _per_core(index: Tile) -> int:
    """Indices per core: index.size / (index.shape[0] / 16) = 16 * free size."""
    return GATHER_PARTITIONS_PER_CORE * index.free_size


def _gather_elems(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    n = args["num_elem_per_idx"]
    if n in GATHER_ELEMS_PER_IDX:
        return True, f"num_elem_per_idx {n} is in {set(GATHER_ELEMS_PER_IDX)}"
    return False, f"num_elem_per_idx {n} is not in {{1, 2, 4, 8, 16, 32}}"


@given("index")
def _gather_count(index: Tile) -> tuple[bool, str]:
    n = _per_core(index)
    if n <= GATHER_MAX_INDICES_PER_CORE:
        return True, f"index {index}: {n} indices per core <= {GATHER_MAX_INDICES_PER_CORE}"
    return False, (f"index {index}: {n} indices per core (16 partitions x {index.free_size}) > "
                   f"{GATHER_MAX_INDICES_PER_CORE}")


def _gather_valid(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    index, valid = args.get("index"), args.get("num_valid_indices")
    if index is None or valid is None:
        return True, "num_valid_indices defaults to index.size / (index.shape[0] / 16)"
    limit = _per_core(index)
    if 0 <= valid <= limit:
        return True, f"num_valid_indices {valid} <= {limit}"
    return False, (f"num_valid_indices {valid} exceeds index.size / (index.shape[0] / 16) "
                   f"= {limit}" if valid > limit else f"num_valid_indices {valid} is negative")


_LG_PARAMS = (Param("src_buffer", "tile", required=True), Param("index", "tile", required=True),
              Param("num_elem_per_idx", "int", default=1), Param("num_valid_indices", "int"),
              Param("mask", "any"))
_LG_PROV = ref004("local_gather constraints (CONFIRMED docstring)")
LOCAL_GATHER = intrinsic(
    "local_gather", "GpSimd", _LG_PARAMS, "neuron_isa.py:2596",
    "each GpSimd core gathers from its 16 SBUF partitions; no dtype parameter",
    ref004("local_gather NOTE: no dtype parameter"),
    clause("check_local_gather_shape(partitions)", ("src_buffer", "index"),
           "src_buffer.shape[0] == index.shape[0], divisible by 16", _gather_partitions,
           _LG_PROV, fix="use a multiple of 16 partitions for both"),
    clause("num_elem_per_idx", "num_elem_per_idx", "num_elem_per_idx in {1,2,4,8,16,32}",
           _gather_elems, _LG_PROV),
    clause("indices_per_core", "index", f"<= {GATHER_MAX_INDICES_PER_CORE} indices per core",
           _gather_count, ref004("local_gather; thresholds NOTE (value CONFIRMED)"),
           fix="split the gather into several calls"),
    dtype_in("index_dtype", "index", GATHER_INDEX_DTYPES, ": local_gather indices are uint16",
             _LG_PROV, fix="cast index to nl.uint16"),
    clause("num_valid_indices", ("num_valid_indices", "index"),
           "num_valid_indices <= index.size / (index.shape[0] / 16)", _gather_valid, _LG_PROV),
    asserted=("src_buffer", "index"),
    why=" (local_gather has no dtype parameter: the output keeps src_buffer's dtype)",
)


# --- builtin_custom_op: a pure registration forward, no validation -----------------------

_BCO_PARAMS = tuple(Param(n, "any", required=True) for n in (
    "function_name", "lib_file_name", "ulib_to_ucode_version", "ulib_to_isa_version",
    "srcs", "dsts"))
BUILTIN_CUSTOM_OP = Intrinsic(
    "builtin_custom_op", "custom", _BCO_PARAMS, source="neuron_isa.py:2798", var_kwargs=True,
    doc="registers a precompiled custom-op call; no dtype/engine validation at this layer",
    # only the signature's six required arguments (**kwargs takes any other keyword)
    clauses=(signature("builtin_custom_op", _BCO_PARAMS,
                       ref004("builtin_custom_op signature (CONFIRMED stub L411)")),),
)

INTRINSICS: tuple[Intrinsic, ...] = (MEMSET, IOTA, DROPOUT, SEQUENCE_BOUNDS, TENSOR_COPY,
                                     TENSOR_COPY_DYNAMIC_SRC, TENSOR_COPY_DYNAMIC_DST,
                                     LOCAL_GATHER, BUILTIN_CUSTOM_OP)
