"""Free-dim and partition reductions, BatchNorm statistics (ref 004 first half).

tensor_reduce (Vector), tensor_partition_reduce (GpSimd), bn_stats, bn_aggr.
The trap: the bitvec dtype sets differ ({int32, uint8, uint16, uint32} for
tensor_reduce, uint-only for tensor_partition_reduce; ref 004 GOTCHA).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.messages import message, quoting
from neurondbg.machine.legality.nki.common import (
    clause,
    given,
    intrinsic,
    out_dtype,
    ref004,
)
from neurondbg.machine.legality.nki.spec import Intrinsic, Param
from neurondbg.machine.legality.nki.vocab import Tile, dtype_set

MAX_REDUCE_AXES = 4

# ref 004 tensor_reduce: "bitvec ops (bitwise_and/or/xor, logical_and/or/xor)".
BITVEC_OPS: tuple[str, ...] = ("bitwise_and", "bitwise_or", "bitwise_xor",
                               "logical_and", "logical_or", "logical_xor")
# "arithmetic ops (add/subtract/multiply/max/min/…)": the list is elided in the
# reference, so the set below is the named ops plus numpy's maximum/minimum (MED).
ARITH_OPS: tuple[str, ...] = ("add", "subtract", "multiply", "max", "min", "maximum", "minimum")

TENSOR_REDUCE_BITVEC_DTYPES = dtype_set("int32", "uint8", "uint16", "uint32")
# np.sum and np.maximum are probed as the aliases of add / max (ref 004).
PARTITION_REDUCE_OPS: tuple[str, ...] = ("add", "sum", "max", "maximum",
                                         "bitwise_and", "bitwise_or")
PARTITION_REDUCE_BITVEC_OPS: tuple[str, ...] = ("bitwise_and", "bitwise_or")
PARTITION_REDUCE_BITVEC_DTYPES = dtype_set("uint8", "uint16", "uint32")

BN_STATS_FMAX = 512  # nl.tile_size.bn_stats_fmax


def _free_axis(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    axis = args["axis"]
    data = args.get("data")
    rank = len(data.shape) if data is not None else None
    if axis is None or len(axis) == 0:
        return False, "axis is empty: \"Empty axis not supported\""
    # _check_and_translate_free_axis normalises: negative axes count from the end.
    axes = sorted(a + rank if (a < 0 and rank is not None) else a for a in axis)
    shown = list(axis) if len(axis) > 1 else axis[0]
    if 0 in axes or any(a < 0 for a in axes):
        return False, (f"axis {shown} includes the partition axis 0: \"Reduction on partition "
                       "axes is not supported\"")
    wanted = list(range(1, len(axes) + 1))
    if axes != wanted:
        return False, (f"axis {shown} is not consecutive from the most-minor free axis 1 "
                       f"(legal: [1], [1,2], [1,2,3], [1,2,3,4])")
    if len(axes) > MAX_REDUCE_AXES:
        return False, f"axis {shown} reduces {len(axes)} axes; at most {MAX_REDUCE_AXES}"
    if rank is not None and axes[-1] >= rank:
        return False, f"axis {shown} names axis {axes[-1]} but data {data} has rank {rank}"
    return True, f"axis {shown} is consecutive free axes from 1"


def _supported_op(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    op = args["op"]
    if op in BITVEC_OPS:
        return True, f"op np.{op} is a bitvec op"
    if op in ARITH_OPS:
        return True, f"op np.{op} is an arithmetic op"
    return False, (f"op {op if op is None else 'np.' + op} is neither a bitvec op "
                   f"({', '.join(BITVEC_OPS)}) nor an arithmetic op ({', '.join(ARITH_OPS)})")


def _bitvec_types(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    op, dtype = args["op"], out_dtype(args, "data")
    if op not in BITVEC_OPS:
        return True, f"op np.{op} is not bitvec: any dtype (cast through fp32)"
    if dtype in TENSOR_REDUCE_BITVEC_DTYPES:
        return True, f"bitvec op np.{op} with dtype {dtype} in {{int32, uint8, uint16, uint32}}"
    return False, (f"bitvec op np.{op} with dtype {dtype}: bitvec reduce needs dtype in "
                   "{int32, uint8, uint16, uint32} (no casting; elements are bit patterns)")


def _bitvec_input(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    op, data = args["op"], args.get("data")
    if op not in BITVEC_OPS or data is None:
        return True, "not a bitvec reduce"
    if data.dtype.is_int:
        return True, f"bitvec op np.{op} reads integer data {data}"
    return False, (f"bitvec op np.{op} reads {data.dtype} data: bitvec ops treat elements as "
                   "bit patterns, input must be integer")


def _negate(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    op, negate = args["op"], args["negate"]
    if negate and op in BITVEC_OPS:
        return False, (f"negate=True with bitvec op np.{op}: negate multiplies the fp32 result "
                       "by -1.0 and is legal only for arithmetic ops")
    return True, f"negate={negate} with op np.{op}"


_TR_PARAMS = (
    Param("op", "op", required=True), Param("data", "tile", required=True),
    Param("axis", "int_list", required=True), Param("mask", "any"), Param("dtype", "dtype"),
    Param("negate", "bool", default=False), Param("keepdims", "bool", default=False),
)
TENSOR_REDUCE = intrinsic(
    "tensor_reduce", "Vector", _TR_PARAMS, "neuron_isa.py:487",
    "free-dimension reduction; the partition axis is preserved",
    ref004("tensor_reduce signature (CONFIRMED stub L1614)"),
    quoting(clause("_check_free_axis", ("axis", "data"),
                   "axis: free dims only, consecutive from 1, at most 4, non-empty", _free_axis,
                   ref004("tensor_reduce GOTCHA (axis rule, CONFIRMED docstring)"),
                   fix="reduce over [1], [1,2], [1,2,3] or [1,2,3,4]"),
            message("Reduction on partition axes is not supported", "004 tensor_reduce"),
            message("Empty axis not supported", "004 tensor_reduce GOTCHA"),
            aliases=("_check_and_translate_free_axis",)),
    clause("_check_tensor_reduce_supported_op", "op", "op is a bitvec or arithmetic op",
           _supported_op, ref004("tensor_reduce: two op classes (list elided)", "MED")),
    quoting(clause("_check_tensor_reduce_bitvec_types", ("op", "dtype", "data"),
                   "bitvec op => dtype in {int32, uint8, uint16, uint32}", _bitvec_types,
                   ref004("tensor_reduce: _check_tensor_reduce_bitvec_types :3130 (CONFIRMED)"),
                   fix="pass dtype=nl.int32 / uint8 / uint16 / uint32"),
            aliases=("err_reduce_bitvec_op_invalid_dtype",)),
    clause("bitvec_input_integer(data)", ("op", "data"), "bitvec op => integer data",
           _bitvec_input, ref004("tensor_reduce: two op classes (CONFIRMED docstring)"),
           fix="bitcast the data to an integer dtype"),
    clause("err_reduce_unsupported_negate", ("op", "negate"), "negate only for arithmetic ops",
           _negate, ref004("tensor_reduce: negate is ARITHMETIC-only (CONFIRMED)"),
           fix="drop negate=True or use an arithmetic op"),
    asserted=("data",),
)


def _par_op(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    op = args["op"]
    if op in PARTITION_REDUCE_OPS:
        return True, f"op np.{op} is in {{add, max, bitwise_and, bitwise_or}}"
    shown = op if op is None else "np." + op
    return False, (f"op {shown} is not supported by tensor_partition_reduce: the set is exactly "
                   "{add, max, bitwise_and, bitwise_or} (np.sum / np.maximum as aliases)")


_TPR_PARAMS = (Param("op", "op", required=True), Param("data", "tile", required=True),
               Param("mask", "any"), Param("dtype", "dtype"))
TENSOR_PARTITION_REDUCE = intrinsic(
    "tensor_partition_reduce", "GpSimd", _TPR_PARAMS, "neuron_isa.py:583",
    "reduction across partitions on GpSimd",
    ref004("tensor_partition_reduce signature (CONFIRMED)"),
    clause("err_par_reduce_unsupported_op", "op", "op in {add, max, bitwise_and, bitwise_or}",
           _par_op, ref004("tensor_partition_reduce: body 0x76320 probes (CONFIRMED)"),
           fix="use np.add, np.max, np.bitwise_and or np.bitwise_or"),
    clause("err_par_reduce_bitvec_op_invalid_dtype", ("op", "dtype", "data"),
           "bitwise_and/or => dtype in {uint8, uint16, uint32} (no int32)",
           lambda args, gen: _par_bitvec(args),
           ref004("tensor_partition_reduce GOTCHA: uint-only (STRONG)"),
           fix="use dtype=nl.uint32 (int32 is legal for tensor_reduce, not here)"),
    asserted=("data",),
)


def _par_bitvec(args: Mapping[str, Any]) -> tuple[bool, str]:
    op, dtype = args["op"], out_dtype(args, "data")
    if op not in PARTITION_REDUCE_BITVEC_OPS:
        return True, f"op {op} is not a bitvec op"
    if dtype in PARTITION_REDUCE_BITVEC_DTYPES:
        return True, f"bitvec op np.{op} with dtype {dtype} in {{uint8, uint16, uint32}}"
    extra = (" (int32 is legal for tensor_reduce's bitvec ops, not for the partition reduce)"
             if dtype is not None and dtype.name == "int32" else "")
    return False, (f"bitvec op np.{op} with dtype {dtype}: tensor_partition_reduce bitvec dtypes "
                   f"are {{uint8, uint16, uint32}}{extra}")


@given("data")
def _bn_stats_fmax(data: Tile) -> tuple[bool, str]:
    if data.free_size <= BN_STATS_FMAX:
        return True, f"data {data} has {data.free_size} free elements <= {BN_STATS_FMAX}"
    return False, (f"data {data} has {data.free_size} free elements > {BN_STATS_FMAX} "
                   "(nl.tile_size.bn_stats_fmax)")


@given("data")
def _bn_aggr_triples(data: Tile) -> tuple[bool, str]:
    n = data.free_size
    if n % 3 == 0:
        return True, f"data {data} has {n} free elements = {n // 3} (count, mean, var) triples"
    return False, (f"data {data} has {n} free elements, not a multiple of 3: bn_aggr reads "
                   "(count, mean, variance*count) triples from bn_stats")


_BN_PARAMS = (Param("data", "tile", required=True), Param("mask", "any"), Param("dtype", "dtype"))
BN_STATS = intrinsic(
    "bn_stats", "Vector", _BN_PARAMS, "neuron_isa.py:2501",
    "per-partition mean/variance: 6 elements (even and odd triples)",
    ref004("bn_stats signature (CONFIRMED stub L356)"),
    clause("bn_stats_fmax", "data", f"data free size <= {BN_STATS_FMAX}", _bn_stats_fmax,
           ref004("bn_stats NOTE; thresholds NOTE (value CONFIRMED, enforced in nki_ctx)"),
           fix=f"split the free dim into tiles of <= {BN_STATS_FMAX} and bn_aggr them"),
    asserted=("data",),
)
BN_AGGR = intrinsic(
    "bn_aggr", "Vector", _BN_PARAMS, "neuron_isa.py:2558",
    "folds bn_stats outputs into (mean, variance) per partition",
    ref004("bn_aggr signature (CONFIRMED stub L320)"),
    clause("bn_aggr_free_size_multiple_of_3", "data", "data free size % 3 == 0",
           _bn_aggr_triples, ref004("bn_aggr (CONFIRMED docstring)"),
           fix="pass whole bn_stats outputs (6 elements each)"),
    asserted=("data",),
)

INTRINSICS: tuple[Intrinsic, ...] = (TENSOR_REDUCE, TENSOR_PARTITION_REDUCE, BN_STATS, BN_AGGR)
