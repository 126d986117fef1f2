"""The select family: range_select, select_reduce, affine_select, tensor_copy_predicated.

range_select and select_reduce share the Vector accumulator but not their
reduce_cmd sets (ref 004 GOTCHA: select_reduce has no bare `reset`;
CORRECTION REDUCE-1: `load_reduce` is legal for neither). load_reduce belongs
to tensor_scalar_cumulative (compute half, 6.4.1), modelled here only by its
reduce_cmd gate so the contrast can be shown.
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
    is_scalar,
    is_tile,
    op_in,
    out_dtype,
    out_dtype_in,
    reduce_cmd_gate,
    ref004,
    same_partitions,
)
from neurondbg.machine.legality.nki.spec import ClauseSpec, Intrinsic, Param
from neurondbg.machine.legality.nki.vocab import (
    FP32,
    FP32_MIN,
    FP32_MIN_BITS,
    NKI_DTYPES,
    ReduceCmd,
    Scalar,
    Tile,
    dtype_set,
    fp32_bits,
    gen_label,
)
from neurondbg.machine.legality.result import Provenance

# quoted for select_reduce's scalar on_false and affine_select's on_false_value (ref 004)
ON_FALSE_FP32 = message("on_false must be float32 when provided as a scalar[, got …]",
                        "004 select_reduce step 3, affine_select GOTCHA")

R = ReduceCmd
RANGE_SELECT_REDUCE_CMDS = frozenset({R.idle, R.reset, R.reduce, R.reset_reduce})
SELECT_REDUCE_REDUCE_CMDS = frozenset({R.idle, R.reduce, R.reset_reduce})
# tensor_scalar_cumulative: ref 004 REDUCE-1 says load_reduce is its command;
# the set itself is the wire-level one of 0xe6 (isa-facts §6.3).
TENSOR_SCALAR_CUMULATIVE_REDUCE_CMDS = frozenset({R.reduce, R.reset_reduce, R.load_reduce})

# The three per-op reduce_cmd wrappers of _check_supported_reduce_cmd, by their
# binary identifiers. activation's is misspelled in the source ("activiation",
# ref 004 CORRECTION REDUCE-2); activation is compute-half, its set not given here.
REDUCE_CMD_VALIDATORS: dict[str, str] = {
    "range_select": "_check_range_select_supported_reduce_cmd",
    "select_reduce": "_check_select_reduce_supported_reduce_cmd",
    "activation": "_check_activiation_supported_reduce_cmd",
}

COMP_OPS: tuple[str, ...] = ("equal", "less", "less_equal", "greater", "greater_equal")
FP32_EXACT_LIMIT = 2 ** 24
FLOAT_DTYPES = frozenset(d for d in NKI_DTYPES.values() if d.is_float)
SELECT_REDUCE_ON_TRUE_BANNED = dtype_set("tfloat32", "int32", "uint32")
SELECT_REDUCE_PREDICATE_DTYPES = dtype_set("int8", "uint8", "int16", "uint16", "int32", "uint32")
COPY_PREDICATE_DTYPES = dtype_set("uint8", "uint16", "uint32")
AFFINE_SELECT_TILE_DTYPES = FLOAT_DTYPES | dtype_set("int8", "uint8", "int16", "uint16")
ON_CHIP = ("sbuf", "psum")
DOWNCASTS_FILL = dtype_set("float16", "bfloat16", "float8_e4m3", "float8_e5m2", "float8_e3m4")

_NO_LOAD = {R.load_reduce: "; load_reduce is reserved for tensor_scalar_cumulative "
                           "(ref 004 CORRECTION REDUCE-1)"}

# --- range_select ----------------------------------------------------------------


def _availability(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    if gen >= Gen.CAYMAN:
        return True, f"range_select exists on {gen_label(gen)} (NeuronCore-v3+)"
    return False, f"range_select is NeuronCore-v3+ only; {gen_label(gen)} is NC-v{int(gen)}"


def _rs_bound(name: str) -> ClauseSpec:
    @given(name)
    def check(bound: Tile) -> tuple[bool, str]:
        problems = []
        if bound.free_size != 1:
            problems.append(f"{bound.free_size} elements per partition (needs exactly 1)")
        if bound.dtype != FP32:
            problems.append(f"dtype {bound.dtype} (needs float32)")
        if problems:
            return False, f"{name} {bound}: " + " and ".join(problems)
        return True, f"{name} {bound} is a per-partition fp32 scalar"
    return clause(f"_check_range_select_tiles({name})", name,
                  f"{name}: one float32 element per partition", check,
                  ref004("range_select: _check_range_select_tiles :2980"),
                  fix=f"pass {name} as a float32 tile of shape (partitions, 1)")


def _rs_on_true(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    tile = args.get("on_true_tile")
    if tile is None or tile.dtype.is_float:
        return True, f"on_true_tile {tile} has an FP dtype"
    return False, f"on_true_tile {tile} has dtype {tile.dtype}: range_select needs an FP dtype"


def _on_false_fp32_min(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    value: Scalar = args["on_false_value"]
    bits = fp32_bits(value.value)
    if bits == FP32_MIN_BITS and value.dtype.is_float:
        return True, f"on_false_value is fp32.min (0x{FP32_MIN_BITS:08x})"
    return False, (f"on_false_value {value.value!r} (fp32 bits 0x{bits:08x}) is not the fp32.min "
                   f"bit pattern 0x{FP32_MIN_BITS:08x} ({FP32_MIN!r}), a hardware constraint")


def _range_start(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    start = args["range_start"]
    tile = args.get("on_true_tile")
    n = tile.free_size if tile is not None else 1
    last = start + n - 1
    if -FP32_EXACT_LIMIT <= start and last <= FP32_EXACT_LIMIT:
        return True, f"range_start {start} .. {last} within 2^24"
    return False, (f"range_start {start} + free index up to {n - 1} reaches {last}, beyond 2^24 "
                   f"= {FP32_EXACT_LIMIT}: the fp32 index would no longer be exact")


def _reduce_res_fp32(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    res, cmd = args.get("reduce_res"), args["reduce_cmd"]
    if res is None or cmd is ReduceCmd.idle:
        return True, "no reduce_res in use"
    if res.dtype == FP32:
        return True, f"reduce_res {res} is float32"
    out = out_dtype(args, "on_true_tile")
    why = (f" (output {out} downcasts the fill to -INF)" if out in DOWNCASTS_FILL else "")
    return False, (f"reduce_res {res} is not float32{why}: keep reduce_res FP32 so "
                   "range_select -> reduce_res -> activation stays numerically stable")


_RS = "range_select"
_RS_PARAMS = (
    Param("on_true_tile", "tile", required=True), Param("comp_op0", "op", required=True),
    Param("comp_op1", "op", required=True), Param("bound0", "tile", required=True),
    Param("bound1", "tile", required=True),
    Param("reduce_cmd", "reduce_cmd", default=ReduceCmd.idle), Param("reduce_res", "tile"),
    Param("reduce_op", "op", default="max"), Param("range_start", "number", default=0),
    Param("on_false_value", "fp32_value", default=Scalar(FP32_MIN, FP32)),
    Param("mask", "any"), Param("dtype", "dtype"),
)
RANGE_SELECT = intrinsic(
    _RS, "Vector", _RS_PARAMS, "neuron_isa.py:1456",
    "double-bound range test on the free index; optional max-reduce",
    ref004("range_select signature (CONFIRMED stub L1133)"),
    clause("range_select_availability", (), "NeuronCore-v3+ only (trn2 and later)",
           _availability, ref004("range_select availability (CONFIRMED docstring L1140)"),
           fix="target trn2 (cayman) or later"),
    clause("_check_range_select_tiles(partitions)", ("on_true_tile", "bound0", "bound1"),
           "on_true_tile, bound0, bound1 partition sizes match",
           same_partitions(("on_true_tile", "bound0", "bound1")),
           ref004("range_select: _check_range_select_tiles :2980")),
    _rs_bound("bound0"), _rs_bound("bound1"),
    clause("_check_range_select_tiles(on_true_tile)", "on_true_tile",
           "on_true_tile has an FP dtype", _rs_on_true,
           ref004("range_select: _check_range_select_tiles :2980"),
           fix="cast on_true_tile to a float dtype first"),
    reduce_cmd_gate(REDUCE_CMD_VALIDATORS[_RS], _RS,
                    RANGE_SELECT_REDUCE_CMDS, _NO_LOAD,
                    ref004("reduce_cmd: _check_range_select_supported_reduce_cmd :2995"),
                    fix="use idle, reset, reduce or reset_reduce"),
    op_in("comp_op(comp_op0)", "comp_op0", COMP_OPS, "",
          ref004("range_select: legal comp_op0/1 (CONFIRMED)")),
    op_in("comp_op(comp_op1)", "comp_op1", COMP_OPS, "",
          ref004("range_select: legal comp_op0/1 (CONFIRMED)")),
    op_in("reduce_op(reduce_op)", "reduce_op", ("max",), ": range_select reduces with max only",
          ref004("range_select: reduce_op only np.max (CONFIRMED)"), fix="use np.max"),
    clause("on_false_value_fp32_min", "on_false_value", "on_false_value is fp32.min",
           _on_false_fp32_min, ref004("range_select GOTCHA: on_false_value"),
           fix="leave on_false_value at its default fp32.min"),
    clause("range_start_fp32_exact", ("range_start", "on_true_tile"),
           "range_start + free_index within 2^24", _range_start,
           ref004("range_select GOTCHA: fp32 exact-integer range"),
           fix="split the free dim so range_start + size stays below 2^24"),
    clause("reduce_res_fp32", ("reduce_res", "reduce_cmd", "dtype", "on_true_tile"),
           "reduce_res should be float32 (numerical stability)", _reduce_res_fp32,
           ref004("range_select GOTCHA: keep reduce_res FP32"), note=True,
           fix="allocate reduce_res as float32"),
    asserted=("on_true_tile", "bound0", "bound1"),
)


# --- select_reduce ---------------------------------------------------------------


def _on_false_scalar(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    value = args.get("on_false")
    if not is_scalar(value):
        return True, "on_false is not a scalar"
    if value.dtype == FP32:
        return True, f"scalar on_false {value} is float32"
    return False, (f"scalar on_false {value}: \"on_false must be float32 when provided as a "
                   f"scalar, got {value.dtype}\"")


def _on_false_vector(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    value, on_true = args.get("on_false"), args.get("on_true")
    if not is_tile(value):
        return True, "on_false is not a tile"
    free = value.shape[1] if len(value.shape) > 1 else 1
    if len(value.shape) > 2 or free != 1:
        return False, (f"on_false {value}: \"on_false's free dimension should be 1 (a vector), "
                       f"got {list(value.shape[1:])}\"")
    if on_true is not None and value.partitions != on_true.partitions:
        return False, (f"on_false {value} has {value.partitions} partitions; on_true {on_true} "
                       f"has {on_true.partitions}: the vector is (on_true.shape[0], 1)")
    return True, f"on_false {value} is a (partitions, 1) vector"


def _same_shape(arg: str, ref: str) -> ClauseSpec:
    def check(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
        a, b = args.get(arg), args.get(ref)
        if a is None or b is None or a.shape == b.shape:
            return True, f"{arg} shape matches {ref}"
        return False, (f"{arg} shape {list(a.shape)} != {ref} shape {list(b.shape)}: "
                       f"on_true, dst and predicate must have identical shapes")
    return clause(f"assert_tile_has_expected_shape({arg})", (arg, ref),
                  f"{arg}.shape == {ref}.shape", check,
                  ref004("select_reduce step 4: shape match"))


def _dst_dtype(base: str, provenance: Provenance) -> ClauseSpec:
    def check(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
        dst = args.get("dst")
        out = out_dtype(args, base) if is_tile(args.get(base)) or args.get("dtype") else None
        if out is None and dst is not None:
            out = dst.dtype  # scalar src and no dtype: the output is dst's dtype (decision)
        if dst is None or dst.dtype == out:
            return True, f"dst dtype {None if dst is None else dst.dtype} is the output dtype"
        origin = "dtype" if args.get("dtype") is not None else f"{base}'s dtype"
        return False, (f"dst dtype {dst.dtype} != output dtype {out} (from {origin}): "
                       "\"dst dtype must match instruction ...\"")
    return quoting(clause("dst_dtype_matches_output", ("dst", "dtype", base),
                          "dst.dtype == output dtype (dtype, default the input's)", check,
                          provenance, fix="pass dtype= equal to dst's dtype, or allocate dst "
                          "in the output dtype"),
                   message("dst dtype must match instruction[ …]",
                           "004 select_reduce step 5, tensor_copy_predicated"))


def _reduce_res_vector(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    res, on_true = args.get("reduce_res"), args.get("on_true")
    if res is None:
        return True, "reduce_res not given"
    problems = []
    if on_true is not None and res.shape != (on_true.partitions, 1):
        problems.append(f"shape {list(res.shape)} != [{on_true.partitions}, 1]")
    if not res.dtype.is_float:
        problems.append(f"dtype {res.dtype} is not a float dtype")
    if problems:
        return False, f"reduce_res {res}: " + " and ".join(problems)
    return True, f"reduce_res {res} is a float (partitions, 1) vector"


def _memory(inputs: tuple[str, ...], name: str, provenance: Provenance) -> ClauseSpec:
    def check(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
        given = {n: args.get(n) for n in (*inputs, "dst")}
        tiles = {n: t for n, t in given.items() if is_tile(t)}
        off_chip = [f"{n} in {t.buffer}" for n, t in tiles.items() if t.buffer not in ON_CHIP]
        if off_chip:
            return False, f"{', '.join(off_chip)}: operands must be in SBUF or PSUM"
        in_psum = [n for n in inputs if n in tiles and tiles[n].buffer == "psum"]
        if len(in_psum) > 1:
            return False, f"{' and '.join(in_psum)} are both in PSUM: at most one of them may be"
        shown = ", ".join(f"{n} {t.buffer}" for n, t in tiles.items())
        return True, f"{shown}: at most one of {', '.join(inputs)} in PSUM"
    return clause(name, (*inputs, "dst"), f"at most one of {', '.join(inputs)} in PSUM; "
                  "all in SBUF/PSUM", check, provenance,
                  fix=f"move one of {', '.join(inputs)} to SBUF")


_SR = "select_reduce"
_SR_PARAMS = (
    Param("dst", "tile", required=True), Param("predicate", "tile", required=True),
    Param("on_true", "tile", required=True), Param("on_false", "tile_or_scalar", required=True),
    Param("reduce_res", "tile"), Param("reduce_cmd", "reduce_cmd", default=ReduceCmd.idle),
    Param("reduce_op", "op", default="max"), Param("reverse_pred", "bool", default=False),
    Param("mask", "any"), Param("dtype", "dtype"),
)
SELECT_REDUCE = intrinsic(
    _SR, "Vector", _SR_PARAMS, "neuron_isa.py:1591",
    "where(predicate, on_true, on_false) with an optional max-reduce",
    ref004("select_reduce signature (CONFIRMED stub L1298)"),
    quoting(clause("err_instruction_unsupported_dtypes(on_true)", "on_true",
                   "on_true.dtype not in {tfloat32, int32, uint32}",
                   lambda args, gen: _on_true_dtype(args),
                   ref004("select_reduce step 1: on_true dtype"),
                   fix="cast on_true to float32 / bfloat16 / a narrower int"),
            aliases=("err_instruction_unsupported_dtypes",)),
    quoting(dtype_in("err_instruction_unsupported_dtypes(predicate)", "predicate",
                     SELECT_REDUCE_PREDICATE_DTYPES, ": the predicate must be an integer tile",
                     ref004("select_reduce step 2: predicate integer"),
                     fix="make the predicate an int8/16/32 or uint8/16/32 tile"),
            aliases=("err_instruction_unsupported_dtypes",)),
    quoting(clause("on_false_scalar_float32", "on_false", "scalar on_false is float32",
                   _on_false_scalar, ref004("select_reduce step 3 (CONFIRMED literal)"),
                   fix="write the scalar as a float32 (e.g. 0.0, not 0)"), ON_FALSE_FP32),
    quoting(clause("on_false_vector_free_dim_1", ("on_false", "on_true"),
                   "tile on_false has shape (on_true.shape[0], 1)", _on_false_vector,
                   ref004("select_reduce step 3 (CONFIRMED literal)"),
                   fix="pass on_false as a (partitions, 1) tile"),
            message("on_false's free dimension should be 1[ (a vector)][, got …]",
                    "004 select_reduce step 3")),
    _same_shape("dst", "on_true"), _same_shape("predicate", "on_true"),
    _dst_dtype("on_true", ref004("select_reduce step 5 (CONFIRMED literal)")),
    clause("reduce_res_vector", ("reduce_res", "on_true"),
           "reduce_res is a float (on_true.shape[0], 1) tile", _reduce_res_vector,
           ref004("select_reduce step 6"), fix="allocate reduce_res as float32 (P, 1)"),
    op_in("reduce_op(reduce_op)", "reduce_op", ("max",), ": select_reduce reduces with max",
          ref004("select_reduce step 6: reduce_op=max only"), fix="use np.max"),
    reduce_cmd_gate(REDUCE_CMD_VALIDATORS[_SR], _SR,
                    SELECT_REDUCE_REDUCE_CMDS,
                    {**_NO_LOAD, R.reset: "; unlike range_select there is no bare reset: "
                                          "use reset_reduce (ref 004 GOTCHA)"},
                    ref004("reduce_cmd: _check_select_reduce_supported_reduce_cmd :3000"),
                    fix="select_reduce takes idle, reduce or reset_reduce: for reset use "
                    "reset_reduce (reset, then accumulate); for load_reduce use reduce "
                    "(accumulate onto the running value)"),
    _memory(("on_true", "predicate"), "memory(on_true, predicate)",
            ref004("select_reduce MEMORY (CONFIRMED docstring)")),
    asserted=("dst", "predicate", "on_true", "on_false"),
)


def _on_true_dtype(args: Mapping[str, Any]) -> tuple[bool, str]:
    tile = args.get("on_true")
    if tile is None or tile.dtype not in SELECT_REDUCE_ON_TRUE_BANNED:
        return True, f"on_true dtype {None if tile is None else tile.dtype} is supported"
    return False, (f"on_true dtype {tile.dtype} is one of {{tfloat32, int32, uint32}}, which "
                   "select_reduce does not support")


# --- affine_select -------------------------------------------------------------------


def _affine_pred(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    pred = args.get("pred")
    if pred is None:
        return False, "pred is None: an affine expression is required"
    if is_tile(pred):
        return False, (f"pred is a materialized tile {pred}: affine_select takes a single affine "
                       "expression over nl.arange indices, evaluated per element")
    if "&" in pred or "|" in pred:
        return False, (f"pred {pred!r} combines masks with &/|: it must be one affine "
                       "expression; use nl.where for richer predicates")
    return True, f"pred {pred!r} is a single affine expression"


def _affine_on_false(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    value = args.get("on_false_value")
    if value is None or value.dtype == FP32:
        return True, f"on_false_value {value} is float32"
    return False, (f"on_false_value {value} is {value.dtype}: it must be float32 regardless of "
                   "the tile dtypes")


_AS_PARAMS = (Param("pred", "expr", required=True), Param("on_true_tile", "tile", required=True),
              Param("on_false_value", "scalar", required=True), Param("mask", "any"),
              Param("dtype", "dtype"))
AFFINE_SELECT = intrinsic(
    "affine_select", "GpSimd", _AS_PARAMS, "neuron_isa.py:1389",
    "out = (pred > 0) ? on_true_tile : on_false_value, pred affine",
    ref004("affine_select signature (CONFIRMED stub L268)"),
    clause("pred_affine_expression", "pred", "pred is one affine expression, not a tile "
           "and not an &/| combination", _affine_pred, ref004("affine_select GOTCHA"),
           fix="build pred from nl.arange index algebra, or use nl.where"),
    dtype_in("on_true_tile_dtype", "on_true_tile", AFFINE_SELECT_TILE_DTYPES,
             ": affine_select tiles are any float or 8/16-bit int",
             ref004("affine_select GOTCHA: DTYPE (CONFIRMED docstring)")),
    clause("output_dtype", ("dtype", "on_true_tile"), "output is a float or 8/16-bit int",
           out_dtype_in("on_true_tile", AFFINE_SELECT_TILE_DTYPES, "a float or 8/16-bit int"),
           ref004("affine_select GOTCHA: DTYPE (CONFIRMED docstring)")),
    quoting(clause("on_false_value_float32", "on_false_value", "on_false_value is float32",
                   _affine_on_false, ref004("affine_select GOTCHA: on_false fp32 error "
                                            "string (CONFIRMED)"),
                   fix="write on_false_value as a float32 (e.g. -1e9, not an int)"),
            ON_FALSE_FP32),
    asserted=("on_true_tile",),
)


# --- tensor_copy_predicated ----------------------------------------------------------


def _copy_predicate(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    pred = args.get("predicate")
    if pred is None or pred.dtype in COPY_PREDICATE_DTYPES:
        return True, f"predicate {pred} is a uint8/16/32 tile"
    signed = " (signed ints are not accepted here)" if pred.dtype.is_int else ""
    return False, (f"predicate dtype {pred.dtype} not in {{uint8, uint16, uint32}}{signed}: "
                   "\"`predicate` must be a boolean or integer tile\"")


def _copy_same_dtype(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    src, dst = args.get("src"), args.get("dst")
    if not is_tile(src) or dst is None or src.dtype == dst.dtype:
        return True, "src is a scalar or has dst's dtype"
    return False, (f"src dtype {src.dtype} != dst dtype {dst.dtype}: \"`src` and `dst` must "
                   "have the same dtype\" (the predicated copy does not convert)")


def _copy_scalar_float(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    src, dst = args.get("src"), args.get("dst")
    if is_scalar(src) and dst is not None and dst.dtype.is_float and not src.dtype.is_float:
        return False, (f"scalar src {src} is not float but dst is {dst.dtype}: \"Scalar `src` "
                       "must be float if `dst` is float\"")
    return True, "no int scalar written into a float dst"


def _copy_reverse(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    src, reverse = args.get("src"), args["reverse_pred"]
    if reverse and not is_scalar(src):
        return False, (f"reverse_pred=True with tile src {src}: \"`reverse_pred` only supported "
                       "if `src` is scalar input.\"")
    return True, f"reverse_pred={reverse} with {'scalar' if is_scalar(src) else 'tile'} src"


_TCP_PARAMS = (
    Param("src", "tile_or_scalar", required=True), Param("dst", "tile", required=True),
    Param("predicate", "tile", required=True), Param("reverse_pred", "bool", default=False),
    Param("mask", "any"), Param("dtype", "dtype"),
)
_TCP_PROV = ref004("tensor_copy_predicated (CONFIRMED literal, body 0x7e1f0)")
_TCP_QUOTE = "004 tensor_copy_predicated"
TENSOR_COPY_PREDICATED = intrinsic(
    "tensor_copy_predicated", "Vector", _TCP_PARAMS, "neuron_isa.py:1909",
    "where predicate, copy src into dst; elsewhere dst is unchanged",
    ref004("tensor_copy_predicated signature (CONFIRMED)"),
    quoting(clause("predicate_integer_tile", "predicate",
                   "predicate.dtype in {uint8, uint16, uint32}", _copy_predicate, _TCP_PROV,
                   fix="make the predicate a uint8 (bool) tile"),
            message("`predicate` must be a boolean or integer tile", _TCP_QUOTE)),
    quoting(clause("src_dst_same_dtype", ("src", "dst"), "tile src has dst's dtype",
                   _copy_same_dtype, _TCP_PROV, fix="copy into a dst of src's dtype, then cast"),
            message("`src` and `dst` must have the same dtype", _TCP_QUOTE)),
    quoting(clause("scalar_src_float_if_dst_float", ("src", "dst"),
                   "scalar src is float when dst is float", _copy_scalar_float, _TCP_PROV,
                   fix="write the scalar as a float (1.0, not 1)"),
            message("Scalar `src` must be float if `dst` is float", _TCP_QUOTE)),
    quoting(clause("reverse_pred_scalar_src_only", ("reverse_pred", "src"),
                   "reverse_pred only with a scalar src", _copy_reverse, _TCP_PROV,
                   fix="invert the predicate tile instead of reverse_pred"),
            message("`reverse_pred` only supported if `src` is scalar input.", _TCP_QUOTE)),
    _dst_dtype("src", _TCP_PROV),
    _memory(("src", "predicate"), "memory(src, predicate)",
            ref004("tensor_copy_predicated MEMORY (CONFIRMED docstring)")),
    asserted=("src", "dst", "predicate"),
)


# --- tensor_scalar_cumulative (only its reduce_cmd gate) -----------------------------

_TSC = "tensor_scalar_cumulative"
_TSC_PARAMS = (
    Param("dst", "any"), Param("src", "any"), Param("op0", "op"), Param("op1", "op"),
    Param("imm0", "any"), Param("imm1", "any"),
    Param("reduce_cmd", "reduce_cmd", default=ReduceCmd.reset_reduce),
)
TENSOR_SCALAR_CUMULATIVE = intrinsic(
    _TSC, "Vector", _TSC_PARAMS, "ref 004 6.4.1 (compute half)",
    "cumulative tensor-scalar: not a reference 004 intrinsic (004 names it only in "
    "REDUCE-1); neurondbg's model of its reduce_cmd gate, from the 0xe6 wire set",
    Provenance("isa-facts", "§6.3", "MED"),
    reduce_cmd_gate("_check_supported_reduce_cmd", _TSC,
                    TENSOR_SCALAR_CUMULATIVE_REDUCE_CMDS, {},
                    Provenance("isa-facts", "§6.3 (0xe6), neurondbg's: not in ref 004 but "
                               "CORRECTION REDUCE-1", "MED"),
                    fix="use reduce, reset_reduce or load_reduce"),
)


# --- activation (only its reduce_cmd gate) ------------------------------------------------

# Ref 004 names activation's validator (REDUCE-2, misspelled in the binary) and says
# load_reduce is legal for none of the three per-op wrappers (REDUCE-1); the rest of
# its set is in the compute-half page, not given here. Decision (MED): the other four
# commands pass, as for range_select.
ACTIVATION_REDUCE_CMDS = frozenset({R.idle, R.reset, R.reduce, R.reset_reduce})
_ACT = "activation"
ACTIVATION = Intrinsic(
    _ACT, "Scalar", (Param("reduce_cmd", "reduce_cmd", default=ReduceCmd.idle),),
    (quoting(reduce_cmd_gate(REDUCE_CMD_VALIDATORS[_ACT], _ACT, ACTIVATION_REDUCE_CMDS,
                             _NO_LOAD,
                             ref004("CORRECTION REDUCE-1, REDUCE-2 (neuron_isa.py:2990); the "
                                    "set beyond 'no load_reduce' is neurondbg's", "MED"),
                             fix="use idle, reset, reduce or reset_reduce"),
             aliases=("_check_activation_supported_reduce_cmd",)),),  # the reader's spelling
    "neuron_isa.py:2990 (ref 004 REDUCE-2)",
    var_kwargs=True,  # its other parameters are the compute half's (6.4.1), not checked
    doc="activation; only its reduce_cmd gate is modelled (ref 004 REDUCE-1/2)",
)

INTRINSICS: tuple[Intrinsic, ...] = (RANGE_SELECT, SELECT_REDUCE, AFFINE_SELECT,
                                     TENSOR_COPY_PREDICATED, TENSOR_SCALAR_CUMULATIVE,
                                     ACTIVATION)
