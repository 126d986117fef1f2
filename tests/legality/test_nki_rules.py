"""Reference 004's NKI rules: for every clause a legal call and a call failing only it.

BASE holds one legal call per intrinsic. FAILING mutates a base call so that
exactly the named clause fails (the GOTCHA / CORRECTION cases are labelled);
PASSING holds the legal neighbours that show where a rule's edge is.
"""

from __future__ import annotations

from typing import Any

import pytest

from neurondbg.machine.legality.nki import INTRINSICS, check_call

DROP = object()  # remove an argument from the base call


def T(dtype: str, *shape: int, buffer: str = "sbuf", indirect: bool = False) -> dict[str, Any]:
    tile: dict[str, Any] = {"dtype": dtype, "shape": list(shape), "buffer": buffer}
    if indirect:
        tile["indirect"] = True
    return tile


BASE: dict[str, tuple[str, dict[str, Any]]] = {
    "tensor_reduce": ("trn2", {"op": "np.add", "data": T("float32", 128, 64, 4), "axis": [1, 2]}),
    "tensor_partition_reduce": ("trn2", {"op": "np.max", "data": T("float32", 128, 64)}),
    "bn_stats": ("trn2", {"data": T("float32", 128, 512)}),
    "bn_aggr": ("trn2", {"data": T("float32", 128, 12)}),
    "max8": ("trn2", {"src": T("float32", 128, 64)}),
    "nc_find_index8": ("trn2", {"data": T("float32", 128, 64), "vals": T("float32", 128, 8)}),
    "nc_match_replace8": ("trn2", {"data": T("float32", 128, 64), "vals": T("float32", 128, 8),
                                   "imm": 0.0}),
    "range_select": ("trn2", {"on_true_tile": T("float32", 128, 64),
                              "comp_op0": "np.greater_equal", "comp_op1": "np.less",
                              "bound0": T("float32", 128, 1), "bound1": T("float32", 128, 1)}),
    "select_reduce": ("trn2", {"dst": T("float32", 128, 64), "predicate": T("uint8", 128, 64),
                               "on_true": T("float32", 128, 64), "on_false": 0.0}),
    "affine_select": ("trn2", {"pred": "i_p - i_f >= 0", "on_true_tile": T("bfloat16", 128, 64),
                               "on_false_value": -1e9}),
    "tensor_copy_predicated": ("trn2", {"src": T("float32", 128, 64), "dst": T("float32", 128, 64),
                                        "predicate": T("uint8", 128, 64)}),
    "tensor_scalar_cumulative": ("trn2", {}),
    "activation": ("trn2", {"op": "exp"}),  # any other keyword: only reduce_cmd is judged
    "memset": ("trn2", {"shape": [128, 64], "value": 0, "dtype": "bfloat16"}),
    "iota": ("trn2", {"expr": "i_p * 64 + i_f", "dtype": "int32"}),
    "dropout": ("trn2", {"data": T("float32", 128, 64), "prob": 0.1}),
    "sequence_bounds": ("trn2", {"segment_ids": T("int32", 1, 64)}),
    "tensor_copy": ("trn1", {"src": T("float32", 128, 64), "engine": "scalar"}),
    "tensor_copy_dynamic_src": ("trn2", {"src": T("float32", 128, 64), "engine": "scalar"}),
    "tensor_copy_dynamic_dst": ("trn2", {"dst": T("float32", 128, 64), "src": T("float32", 128, 64),
                                         "engine": "scalar"}),
    "local_gather": ("trn2", {"src_buffer": T("float32", 128, 64), "index": T("uint16", 128, 4),
                              "num_elem_per_idx": 2}),
    "builtin_custom_op": ("trn2", {"function_name": "f", "lib_file_name": "libbuiltincustomop.so",
                                   "ulib_to_ucode_version": "1", "ulib_to_isa_version": "1",
                                   "srcs": [], "dsts": [], "any_kwarg": 3}),
    "dma_copy": ("trn2", {"dst": T("float32", 128, 64),
                          "src": T("float32", 128, 64, buffer="hbm")}),
    "dma_transpose": ("trn2", {"src": T("bfloat16", 64, 256, buffer="hbm")}),
}


def call(name: str, gen: str | None = None, overrides: dict[str, Any] | None = None
         ) -> dict[str, Any]:
    base_gen, base_args = BASE[name]
    args = dict(base_args)
    for k, v in (overrides or {}).items():
        if v is DROP:
            args.pop(k, None)
        else:
            args[k] = v
    return {"op": name, "gen": gen or base_gen, "args": args}


# (label, op, gen or None, overrides, the one clause expected to fail)
FAILING: list[tuple[str, str, str | None, dict[str, Any], str]] = [
    # tensor_reduce
    ("unexpected kwarg", "tensor_reduce", None, {"bogus": 1}, "signature"),
    ("data None", "tensor_reduce", None, {"data": None}, "assert_not_none(data)"),
    ("GOTCHA axis empty", "tensor_reduce", None, {"axis": []}, "_check_free_axis"),
    ("GOTCHA axis partition", "tensor_reduce", None, {"axis": [0, 1]}, "_check_free_axis"),
    ("GOTCHA axis gap [1,3,4]", "tensor_reduce", None,
     {"axis": [1, 3, 4], "data": T("float32", 128, 2, 2, 2, 2)}, "_check_free_axis"),
    ("GOTCHA axis [2,3] not from 1", "tensor_reduce", None,
     {"axis": [2, 3], "data": T("float32", 128, 2, 2, 2)}, "_check_free_axis"),
    ("axis > 4 axes", "tensor_reduce", None,
     {"axis": [1, 2, 3, 4, 5], "data": T("float32", 128, 2, 2, 2, 2, 2)}, "_check_free_axis"),
    ("axis beyond rank", "tensor_reduce", None, {"axis": [1, 2, 3]}, "_check_free_axis"),
    ("unsupported op", "tensor_reduce", None, {"op": "np.power"},
     "_check_tensor_reduce_supported_op"),
    ("bitvec dtype int8", "tensor_reduce", None,
     {"op": "np.bitwise_and", "data": T("int8", 128, 64), "axis": [1]},
     "_check_tensor_reduce_bitvec_types"),
    ("bitvec dtype int16 out", "tensor_reduce", None,
     {"op": "np.logical_xor", "data": T("int32", 128, 64), "axis": [1], "dtype": "int16"},
     "_check_tensor_reduce_bitvec_types"),
    ("bitvec float input", "tensor_reduce", None,
     {"op": "np.bitwise_or", "data": T("float32", 128, 64), "axis": [1], "dtype": "int32"},
     "bitvec_input_integer(data)"),
    ("negate with bitvec", "tensor_reduce", None,
     {"op": "np.bitwise_xor", "data": T("int32", 128, 64), "axis": [1], "negate": True},
     "err_reduce_unsupported_negate"),
    # tensor_partition_reduce
    ("partition reduce min", "tensor_partition_reduce", None, {"op": "np.min"},
     "err_par_reduce_unsupported_op"),
    ("partition reduce xor", "tensor_partition_reduce", None,
     {"op": "np.bitwise_xor", "data": T("uint32", 128, 64)}, "err_par_reduce_unsupported_op"),
    ("GOTCHA partition bitvec int32", "tensor_partition_reduce", None,
     {"op": "np.bitwise_and", "data": T("int32", 128, 64)},
     "err_par_reduce_bitvec_op_invalid_dtype"),
    ("partition bitvec int16 dtype", "tensor_partition_reduce", None,
     {"op": "np.bitwise_or", "data": T("uint16", 128, 64), "dtype": "int16"},
     "err_par_reduce_bitvec_op_invalid_dtype"),
    ("partition reduce data None", "tensor_partition_reduce", None, {"data": None},
     "assert_not_none(data)"),
    # bn_stats / bn_aggr
    ("bn_stats 513", "bn_stats", None, {"data": T("float32", 128, 513)}, "bn_stats_fmax"),
    ("bn_stats 2x300", "bn_stats", None, {"data": T("float32", 128, 2, 300)}, "bn_stats_fmax"),
    ("bn_stats None", "bn_stats", None, {"data": None}, "assert_not_none(data)"),
    ("bn_aggr 13", "bn_aggr", None, {"data": T("float32", 128, 13)},
     "bn_aggr_free_size_multiple_of_3"),
    ("bn_aggr None", "bn_aggr", None, {"data": None}, "assert_not_none(data)"),
    # max8 / find_index8 / match_replace8
    ("max8 6-D", "max8", None, {"src": T("float32", 128, 2, 2, 2, 2, 2)},
     "assert_max_dimensions(src)"),
    ("max8 7 elems", "max8", None, {"src": T("float32", 128, 7)}, "elements_per_partition(src)"),
    ("max8 16385 elems", "max8", None, {"src": T("float32", 128, 16385)},
     "elements_per_partition(src)"),
    ("max8 None", "max8", None, {"src": None}, "assert_not_none(src)"),
    ("find8 6-D data", "nc_find_index8", None, {"data": T("float32", 128, 2, 2, 2, 2, 2)},
     "assert_max_dimensions(data)"),
    ("find8 4-D vals", "nc_find_index8", None, {"vals": T("float32", 128, 2, 2, 2)},
     "assert_max_dimensions(vals)"),
    ("find8 data 4 elems", "nc_find_index8", None, {"data": T("float32", 128, 4)},
     "elements_per_partition(data)"),
    ("NOTE find8 7 vals", "nc_find_index8", None, {"vals": T("float32", 128, 7)},
     "vals_exactly_8"),
    ("find8 int32 out", "nc_find_index8", None, {"dtype": "int32"}, "output_dtype"),
    ("find8 data None", "nc_find_index8", None, {"data": None}, "assert_not_none(data)"),
    ("find8 vals None", "nc_find_index8", None, {"vals": None}, "assert_not_none(vals)"),
    ("match8 6-D data", "nc_match_replace8", None, {"data": T("float32", 128, 2, 2, 2, 2, 2)},
     "assert_max_dimensions(data)"),
    ("match8 4-D vals", "nc_match_replace8", None, {"vals": T("float32", 128, 2, 2, 2)},
     "assert_max_dimensions(vals)"),
    ("match8 16385", "nc_match_replace8", None, {"data": T("float32", 128, 16385)},
     "elements_per_partition(data)"),
    ("NOTE match8 9 vals", "nc_match_replace8", None, {"vals": T("float32", 128, 9)},
     "vals_exactly_8"),
    ("match8 vals partitions", "nc_match_replace8", None, {"vals": T("float32", 64, 8)},
     "assert_same_shape(partitions)"),
    ("match8 dst_idx partitions", "nc_match_replace8", None, {"dst_idx": T("uint32", 64, 8)},
     "assert_same_shape(partitions)"),
    ("match8 data None", "nc_match_replace8", None, {"data": None}, "assert_not_none(data)"),
    ("match8 vals None", "nc_match_replace8", None, {"vals": None}, "assert_not_none(vals)"),
    # range_select
    ("range_select on trn1", "range_select", "trn1", {}, "range_select_availability"),
    ("range_select on inf2", "range_select", "inf2", {}, "range_select_availability"),
    ("bound partitions", "range_select", None, {"bound0": T("float32", 64, 1)},
     "_check_range_select_tiles(partitions)"),
    ("bound0 two elems", "range_select", None, {"bound0": T("float32", 128, 2)},
     "_check_range_select_tiles(bound0)"),
    ("bound1 bf16", "range_select", None, {"bound1": T("bfloat16", 128, 1)},
     "_check_range_select_tiles(bound1)"),
    ("on_true int", "range_select", None, {"on_true_tile": T("int32", 128, 64)},
     "_check_range_select_tiles(on_true_tile)"),
    ("CORRECTION REDUCE-1 range_select load_reduce", "range_select", None,
     {"reduce_cmd": "load_reduce"}, "_check_range_select_supported_reduce_cmd"),
    ("comp_op0 not_equal", "range_select", None, {"comp_op0": "np.not_equal"},
     "comp_op(comp_op0)"),
    ("comp_op1 add", "range_select", None, {"comp_op1": "np.add"}, "comp_op(comp_op1)"),
    ("reduce_op add", "range_select", None, {"reduce_op": "np.add"}, "reduce_op(reduce_op)"),
    ("reduce_op maximum", "range_select", None, {"reduce_op": "np.maximum"},
     "reduce_op(reduce_op)"),
    ("GOTCHA on_false 0", "range_select", None, {"on_false_value": 0.0},
     "on_false_value_fp32_min"),
    ("GOTCHA on_false -inf", "range_select", None, {"on_false_value": float("-inf")},
     "on_false_value_fp32_min"),
    ("GOTCHA range_start past 2^24", "range_select", None, {"range_start": 2 ** 24 - 62},
     "range_start_fp32_exact"),
    ("range_select None", "range_select", None, {"bound1": None}, "assert_not_none(bound1)"),
    # select_reduce
    ("on_true tfloat32", "select_reduce", None,
     {"on_true": T("tfloat32", 128, 64), "dst": T("tfloat32", 128, 64)},
     "err_instruction_unsupported_dtypes(on_true)"),
    ("on_true int32", "select_reduce", None,
     {"on_true": T("int32", 128, 64), "dst": T("int32", 128, 64)},
     "err_instruction_unsupported_dtypes(on_true)"),
    ("on_true uint32", "select_reduce", None,
     {"on_true": T("uint32", 128, 64), "dst": T("uint32", 128, 64)},
     "err_instruction_unsupported_dtypes(on_true)"),
    ("predicate float", "select_reduce", None, {"predicate": T("float32", 128, 64)},
     "err_instruction_unsupported_dtypes(predicate)"),
    ("on_false fp16 scalar", "select_reduce", None, {"on_false": {"value": 0, "dtype": "fp16"}},
     "on_false_scalar_float32"),
    ("on_false int scalar", "select_reduce", None, {"on_false": 0}, "on_false_scalar_float32"),
    ("on_false free dim 2", "select_reduce", None, {"on_false": T("float32", 128, 2)},
     "on_false_vector_free_dim_1"),
    ("on_false partitions", "select_reduce", None, {"on_false": T("float32", 64, 1)},
     "on_false_vector_free_dim_1"),
    ("dst shape", "select_reduce", None, {"dst": T("float32", 128, 32)},
     "assert_tile_has_expected_shape(dst)"),
    ("predicate shape", "select_reduce", None, {"predicate": T("uint8", 128, 32)},
     "assert_tile_has_expected_shape(predicate)"),
    ("dst dtype mismatch", "select_reduce", None, {"dst": T("bfloat16", 128, 64)},
     "dst_dtype_matches_output"),
    ("reduce_res shape", "select_reduce", None, {"reduce_res": T("float32", 128, 2)},
     "reduce_res_vector"),
    ("reduce_res int", "select_reduce", None, {"reduce_res": T("int32", 128, 1)},
     "reduce_res_vector"),
    ("select_reduce reduce_op add", "select_reduce", None, {"reduce_op": "np.add"},
     "reduce_op(reduce_op)"),
    ("GOTCHA select_reduce reset", "select_reduce", None, {"reduce_cmd": "reset"},
     "_check_select_reduce_supported_reduce_cmd"),
    ("CORRECTION REDUCE-1 select_reduce load_reduce", "select_reduce", None,
     {"reduce_cmd": 4}, "_check_select_reduce_supported_reduce_cmd"),
    ("both in PSUM", "select_reduce", None,
     {"on_true": T("float32", 128, 64, buffer="psum"),
      "predicate": T("uint8", 128, 64, buffer="psum")}, "memory(on_true, predicate)"),
    ("dst in HBM", "select_reduce", None, {"dst": T("float32", 128, 64, buffer="hbm")},
     "memory(on_true, predicate)"),
    ("select_reduce dst None", "select_reduce", None, {"dst": None}, "assert_not_none(dst)"),
    ("select_reduce predicate None", "select_reduce", None, {"predicate": None},
     "assert_not_none(predicate)"),
    ("select_reduce on_true None", "select_reduce", None, {"on_true": None},
     "assert_not_none(on_true)"),
    ("select_reduce on_false None", "select_reduce", None, {"on_false": None},
     "assert_not_none(on_false)"),
    # affine_select
    ("GOTCHA pred tile", "affine_select", None, {"pred": T("uint8", 128, 64)},
     "pred_affine_expression"),
    ("GOTCHA pred &", "affine_select", None, {"pred": "(i_p > 0) & (i_f > 2)"},
     "pred_affine_expression"),
    ("GOTCHA pred None", "affine_select", None, {"pred": None}, "pred_affine_expression"),
    ("on_true int32", "affine_select", None,
     {"on_true_tile": T("int32", 128, 64), "dtype": "bfloat16"}, "on_true_tile_dtype"),
    ("output int32", "affine_select", None, {"dtype": "int32"}, "output_dtype"),
    ("GOTCHA on_false fp16", "affine_select", None,
     {"on_false_value": {"value": -1e4, "dtype": "float16"}}, "on_false_value_float32"),
    ("GOTCHA on_false int", "affine_select", None, {"on_false_value": -1},
     "on_false_value_float32"),
    ("affine_select None", "affine_select", None, {"on_true_tile": None},
     "assert_not_none(on_true_tile)"),
    # tensor_copy_predicated
    ("predicate int8", "tensor_copy_predicated", None, {"predicate": T("int8", 128, 64)},
     "predicate_integer_tile"),
    ("predicate float", "tensor_copy_predicated", None, {"predicate": T("float32", 128, 64)},
     "predicate_integer_tile"),
    ("src dtype differs", "tensor_copy_predicated", None,
     {"src": T("bfloat16", 128, 64), "dtype": "float32"}, "src_dst_same_dtype"),
    ("int scalar into float dst", "tensor_copy_predicated", None, {"src": 1},
     "scalar_src_float_if_dst_float"),
    ("reverse_pred tile src", "tensor_copy_predicated", None, {"reverse_pred": True},
     "reverse_pred_scalar_src_only"),
    ("dtype != dst", "tensor_copy_predicated", None, {"dtype": "bfloat16"},
     "dst_dtype_matches_output"),
    ("copy both PSUM", "tensor_copy_predicated", None,
     {"src": T("float32", 128, 64, buffer="psum"),
      "predicate": T("uint8", 128, 64, buffer="psum")}, "memory(src, predicate)"),
    ("copy src None", "tensor_copy_predicated", None, {"src": None}, "assert_not_none(src)"),
    ("copy dst None", "tensor_copy_predicated", None, {"dst": None}, "assert_not_none(dst)"),
    ("copy predicate None", "tensor_copy_predicated", None, {"predicate": None},
     "assert_not_none(predicate)"),
    # tensor_scalar_cumulative
    ("cumulative idle", "tensor_scalar_cumulative", None, {"reduce_cmd": "idle"},
     "_check_supported_reduce_cmd"),
    ("cumulative reset", "tensor_scalar_cumulative", None, {"reduce_cmd": "reset"},
     "_check_supported_reduce_cmd"),
    ("cumulative kwarg", "tensor_scalar_cumulative", None, {"mask": 1}, "signature"),
    ("custom op without srcs", "builtin_custom_op", None, {"srcs": DROP}, "signature"),
    # activation (ref 004 REDUCE-1, REDUCE-2)
    ("REDUCE-2 activation load_reduce", "activation", None, {"reduce_cmd": "load_reduce"},
     "_check_activiation_supported_reduce_cmd"),
    # memset / iota
    ("memset on scalar engine", "memset", None, {"engine": "scalar"}, "supported_engine(engine)"),
    ("memset dtype None", "memset", None, {"dtype": None}, "assert_not_none(dtype)"),
    ("memset kwarg", "memset", None, {"axis": 1}, "signature"),
    ("iota expr None", "iota", None, {"expr": None}, "assert_not_none(expr)"),
    ("iota dtype None", "iota", None, {"dtype": None}, "assert_not_none(dtype)"),
    ("iota kwarg", "iota", None, {"engine": "gpsimd"}, "signature"),
    # dropout
    ("prob tile shape", "dropout", None, {"prob": T("float32", 128, 2)}, "prob_shape"),
    ("int data fp16 prob", "dropout", None,
     {"data": T("int32", 128, 64), "prob": {"value": 0.5, "dtype": "float16"}}, "prob_dtype"),
    ("float data int prob", "dropout", None, {"prob": {"value": 0, "dtype": "int32"}},
     "prob_dtype"),
    ("int data cast out", "dropout", None, {"data": T("int32", 128, 64), "dtype": "float32"},
     "output_dtype"),
    ("dropout data None", "dropout", None, {"data": None}, "assert_not_none(data)"),
    ("dropout prob None", "dropout", None, {"prob": None}, "assert_not_none(prob)"),
    # sequence_bounds
    ("GOTCHA sequence_bounds mask", "sequence_bounds", None, {"mask": "m"}, "signature"),
    ("segment partitions 2", "sequence_bounds", None, {"segment_ids": T("int32", 2, 64)},
     "partition_dim_1(segment_ids)"),
    ("segment 3-D", "sequence_bounds", None, {"segment_ids": T("int32", 1, 4, 16)},
     "partition_dim_1(segment_ids)"),
    ("segment bf16", "sequence_bounds", None,
     {"segment_ids": T("bfloat16", 1, 64), "dtype": "float32"}, "segment_ids_dtype"),
    ("sequence out fp16", "sequence_bounds", None, {"dtype": "float16"}, "output_dtype"),
    ("segment None", "sequence_bounds", None, {"segment_ids": None},
     "assert_not_none(segment_ids)"),
    # tensor_copy and dynamic variants
    ("copy kwarg", "tensor_copy", None, {"dst": T("float32", 128, 64)}, "signature"),
    ("copy None", "tensor_copy", None, {"src": None}, "assert_not_none(src)"),
    ("copy gpsimd from PSUM", "tensor_copy", None,
     {"src": T("float32", 128, 64, buffer="psum"), "engine": "gpsimd"}, "gpsimd_no_psum(src)"),
    ("GOTCHA trn1 scalar dynamic src", "tensor_copy_dynamic_src", "trn1", {},
     "_check_tensor_copy_dynamic_supported_engine"),
    ("GOTCHA trn1 scalar dynamic dst", "tensor_copy_dynamic_dst", "trn1",
     {"engine": "nisa.scalar_engine"}, "_check_tensor_copy_dynamic_supported_engine"),
    ("dynamic src None", "tensor_copy_dynamic_src", None, {"src": None}, "assert_not_none(src)"),
    ("dynamic dst None", "tensor_copy_dynamic_dst", None, {"dst": None}, "assert_not_none(dst)"),
    ("dynamic dst src None", "tensor_copy_dynamic_dst", None, {"src": None},
     "assert_not_none(src)"),
    ("dynamic kwarg", "tensor_copy_dynamic_src", None, {"offset": 3}, "signature"),
    ("dynamic dst kwarg", "tensor_copy_dynamic_dst", None, {"offset": 3}, "signature"),
    # local_gather
    ("NOTE local_gather dtype", "local_gather", None, {"dtype": "float32"}, "signature"),
    ("gather partitions differ", "local_gather", None, {"index": T("uint16", 64, 4)},
     "check_local_gather_shape(partitions)"),
    ("gather partitions not /16", "local_gather", None,
     {"src_buffer": T("float32", 120, 64), "index": T("uint16", 120, 4)},
     "check_local_gather_shape(partitions)"),
    ("gather elems 3", "local_gather", None, {"num_elem_per_idx": 3}, "num_elem_per_idx"),
    ("gather elems 64", "local_gather", None, {"num_elem_per_idx": 64}, "num_elem_per_idx"),
    ("gather 4112 per core", "local_gather", None,
     {"index": T("uint16", 128, 257)}, "indices_per_core"),
    ("gather index int16", "local_gather", None, {"index": T("int16", 128, 4)}, "index_dtype"),
    ("gather valid > default", "local_gather", None, {"num_valid_indices": 65},
     "num_valid_indices"),
    ("gather valid negative", "local_gather", None, {"num_valid_indices": -1},
     "num_valid_indices"),
    ("gather src None", "local_gather", None, {"src_buffer": None},
     "assert_not_none(src_buffer)"),
    ("gather index None", "local_gather", None, {"index": None}, "assert_not_none(index)"),
    # dma_copy
    ("hwdge on trn1", "dma_copy", "trn1", {"dge_mode": "hwdge"}, "err_min_arch_support_for_hwdge"),
    ("rmw multiply", "dma_copy", None, {"dst_rmw_op": "np.multiply"}, "dst_rmw_op_add_only"),
    ("rmw with oob skip", "dma_copy", None, {"dst_rmw_op": "np.add", "oob_mode": "skip"},
     "dst_rmw_op_oob_mode_error"),
    ("dma_copy dst None", "dma_copy", None, {"dst": None}, "assert_not_none(dst)"),
    ("dma_copy src None", "dma_copy", None, {"src": None}, "assert_not_none(src)"),
    ("dma_copy kwarg", "dma_copy", None, {"dtype": "float32"}, "signature"),
    # dma_transpose
    ("axes (0,1)", "dma_transpose", None, {"axes": [0, 1]}, "dma_transpose_axes"),
    ("3-D axes (1,0)", "dma_transpose", None,
     {"src": T("bfloat16", 4, 8, 16, buffer="hbm"), "axes": [1, 0]}, "dma_transpose_axes"),
    ("5-D src", "dma_transpose", None, {"src": T("bfloat16", 2, 2, 2, 2, 2, buffer="hbm")},
     "dma_transpose_axes"),
    ("GOTCHA swdge plain", "dma_transpose", None, {"dge_mode": "swdge"}, "dge_mode_for_path"),
    ("GOTCHA hwdge indirect", "dma_transpose", None,
     {"src": T("bfloat16", 64, 256, buffer="hbm", indirect=True), "dge_mode": "hwdge"},
     "dge_mode_for_path"),
    ("hwdge transpose on trn1", "dma_transpose", "trn1", {"dge_mode": "hwdge"},
     "err_min_arch_support_for_hwdge"),
    ("CORRECTION DMA-1 64 columns", "dma_transpose", None,
     {"src": T("bfloat16", 64, 64, buffer="hbm"), "dge_mode": "hwdge"},
     "hwdge_columns_multiple_of_128"),
    ("CORRECTION DMA-1 129 columns", "dma_transpose", None,
     {"src": T("bfloat16", 64, 129, buffer="hbm"), "dge_mode": "hwdge"},
     "hwdge_columns_multiple_of_128"),
    ("dma_transpose None", "dma_transpose", None, {"src": None}, "assert_not_none(src)"),
    ("range_select on_true None", "range_select", None, {"on_true_tile": None},
     "assert_not_none(on_true_tile)"),
    ("range_select bound0 None", "range_select", None, {"bound0": None},
     "assert_not_none(bound0)"),
    # a keyword the signature lacks, for every intrinsic not covered above
    *((f"{op} kwarg", op, None, {"no_such_arg": 1}, "signature") for op in (
        "affine_select", "bn_aggr", "bn_stats", "dma_transpose", "dropout", "max8",
        "nc_find_index8", "nc_match_replace8", "range_select", "select_reduce",
        "tensor_copy_predicated", "tensor_partition_reduce")),
    ("max8 has no vals", "max8", None, {"vals": T("float32", 128, 8)}, "signature"),
    ("bn_stats has no axis", "bn_stats", None, {"axis": [1]}, "signature"),
]

# (label, op, gen or None, overrides): legal neighbours at each rule's edge.
PASSING: list[tuple[str, str, str | None, dict[str, Any]]] = [
    ("axis [1]", "tensor_reduce", None, {"axis": [1]}),
    ("axis 1 as int", "tensor_reduce", None, {"axis": 1}),
    ("axis [1,2,3,4]", "tensor_reduce", None,
     {"axis": [1, 2, 3, 4], "data": T("float32", 128, 2, 2, 2, 2)}),
    ("axis -1 on 2-D translates to 1", "tensor_reduce", None,
     {"axis": [-1], "data": T("float32", 128, 64)}),
    ("axis [2,1] normalised", "tensor_reduce", None, {"axis": [2, 1]}),
    ("bitvec int32", "tensor_reduce", None,
     {"op": "np.bitwise_and", "data": T("int32", 128, 64), "axis": [1]}),
    ("bitvec uint8 -> uint16", "tensor_reduce", None,
     {"op": "np.logical_or", "data": T("uint8", 128, 64), "axis": [1], "dtype": "uint16"}),
    ("negate arithmetic", "tensor_reduce", None, {"op": "np.max", "negate": True}),
    ("arith cast to bf16", "tensor_reduce", None, {"op": "np.multiply", "dtype": "bf16"}),
    ("partition sum alias", "tensor_partition_reduce", None, {"op": "np.sum"}),
    ("partition maximum alias", "tensor_partition_reduce", None, {"op": "np.maximum"}),
    ("partition add", "tensor_partition_reduce", None, {"op": "nl.add"}),
    ("partition bitvec uint32", "tensor_partition_reduce", None,
     {"op": "np.bitwise_or", "data": T("uint32", 128, 64)}),
    ("partition bitvec uint8", "tensor_partition_reduce", None,
     {"op": "np.bitwise_and", "data": T("int32", 128, 64), "dtype": "uint8"}),
    ("bn_stats 2x256", "bn_stats", None, {"data": T("float32", 128, 2, 256)}),
    ("bn_aggr 6", "bn_aggr", None, {"data": T("float32", 128, 6)}),
    ("max8 8 elems", "max8", None, {"src": T("float32", 128, 8)}),
    ("max8 16384 elems 5-D", "max8", None, {"src": T("bfloat16", 128, 4, 4, 4, 256)}),
    ("find8 uint16", "nc_find_index8", None, {"dtype": "uint16"}),
    ("find8 3-D vals", "nc_find_index8", None, {"vals": T("float32", 128, 2, 4)}),
    ("match8 4 elems", "nc_match_replace8", None, {"data": T("float32", 128, 4)}),
    ("match8 dst_idx", "nc_match_replace8", None, {"dst_idx": T("uint32", 128, 8)}),
    ("range_select trn3", "range_select", "trn3", {}),
    ("range_select maverick", "range_select", "maverick", {}),
    ("GOTCHA range_select reset legal", "range_select", None, {"reduce_cmd": "reset"}),
    ("range_select reduce", "range_select", None, {"reduce_cmd": "reduce"}),
    ("range_select reset_reduce", "range_select", None, {"reduce_cmd": 3}),
    ("comp ops", "range_select", None, {"comp_op0": "np.equal", "comp_op1": "np.less_equal"}),
    ("on_false fp32.min name", "range_select", None, {"on_false_value": "fp32.min"}),
    ("on_false fp32.min value", "range_select", None,
     {"on_false_value": -3.4028234663852886e38}),
    ("range_start edge 2^24", "range_select", None, {"range_start": 2 ** 24 - 63}),
    ("on_true fp8", "range_select", None, {"on_true_tile": T("float8_e4m3", 128, 64)}),
    ("select_reduce idle", "select_reduce", None, {"reduce_cmd": "idle"}),
    ("select_reduce reduce", "select_reduce", None, {"reduce_cmd": "reduce"}),
    ("select_reduce reset_reduce", "select_reduce", None,
     {"reduce_cmd": "reduce_cmd.reset_reduce", "reduce_res": T("float32", 128, 1)}),
    ("predicate int8", "select_reduce", None, {"predicate": T("int8", 128, 64)}),
    ("predicate int32", "select_reduce", None, {"predicate": T("int32", 128, 64)}),
    ("on_false vector", "select_reduce", None, {"on_false": T("float32", 128, 1)}),
    ("on_false fp32 object", "select_reduce", None,
     {"on_false": {"value": -1, "dtype": "float32"}}),
    ("on_true int16", "select_reduce", None,
     {"on_true": T("int16", 128, 64), "dst": T("int16", 128, 64)}),
    ("dst cast via dtype", "select_reduce", None,
     {"dst": T("bfloat16", 128, 64), "dtype": "bfloat16"}),
    ("one PSUM input", "select_reduce", None, {"on_true": T("float32", 128, 64, buffer="psum"),
                                               "dst": T("float32", 128, 64, buffer="psum")}),
    ("affine uint8 tile", "affine_select", None, {"on_true_tile": T("uint8", 128, 64)}),
    ("affine float32 object", "affine_select", None,
     {"on_false_value": {"value": 0, "dtype": "float32"}}),
    ("predicate uint16", "tensor_copy_predicated", None, {"predicate": T("uint16", 128, 64)}),
    ("bool predicate", "tensor_copy_predicated", None, {"predicate": T("bool_", 128, 64)}),
    ("float scalar src", "tensor_copy_predicated", None, {"src": 1.0}),
    ("int scalar into int dst", "tensor_copy_predicated", None,
     {"src": 1, "dst": T("int32", 128, 64)}),
    ("reverse_pred scalar", "tensor_copy_predicated", None, {"src": 0.5, "reverse_pred": True}),
    ("copy one PSUM", "tensor_copy_predicated", None,
     {"predicate": T("uint8", 128, 64, buffer="psum")}),
    ("CORRECTION REDUCE-1 cumulative load_reduce", "tensor_scalar_cumulative", None,
     {"reduce_cmd": "load_reduce"}),
    ("cumulative reduce", "tensor_scalar_cumulative", None, {"reduce_cmd": "reduce"}),
    *((f"activation {c}", "activation", None, {"reduce_cmd": c})
      for c in ("idle", "reset", "reduce", "reset_reduce")),
    ("memset vector", "memset", None, {"engine": "vector_engine"}),
    ("memset gpsimd", "memset", None, {"engine": "nisa.gpsimd_engine", "value": 1.5}),
    ("dropout prob tile", "dropout", None, {"prob": T("float32", 128, 1)}),
    ("dropout int data fp32 prob", "dropout", None, {"data": T("int8", 128, 64)}),
    ("dropout float any out", "dropout", None,
     {"prob": {"value": 0.5, "dtype": "bf16"}, "dtype": "int8"}),
    ("sequence float32", "sequence_bounds", None,
     {"segment_ids": T("float32", 1, 64), "dtype": "int32"}),
    ("dynamic vector on trn1", "tensor_copy_dynamic_src", "trn1", {"engine": "vector"}),
    ("dynamic gpsimd on trn1", "tensor_copy_dynamic_dst", "trn1", {"engine": "gpsimd"}),
    ("dynamic unknown on trn1", "tensor_copy_dynamic_dst", "trn1", {"engine": DROP}),
    ("dynamic scalar on trn3", "tensor_copy_dynamic_src", "trn3", {}),
    ("gather 4096 per core", "local_gather", None, {"index": T("uint16", 128, 256)}),
    ("gather 32 per idx", "local_gather", None, {"num_elem_per_idx": 32}),
    ("gather valid = default", "local_gather", None, {"num_valid_indices": 64}),
    ("gather 16 partitions", "local_gather", None,
     {"src_buffer": T("bfloat16", 16, 8), "index": T("uint16", 16, 1)}),
    ("hwdge on trn2", "dma_copy", None, {"dge_mode": "hwdge"}),
    ("swdge on trn1", "dma_copy", "trn1", {"dge_mode": "swdge"}),
    ("rmw add", "dma_copy", None, {"dst_rmw_op": "np.add", "oob_mode": "error"}),
    ("oob skip without rmw", "dma_copy", None, {"oob_mode": 1}),
    ("axes (1,0)", "dma_transpose", None, {"axes": [1, 0]}),
    ("3-D (2,1,0)", "dma_transpose", None,
     {"src": T("bfloat16", 4, 8, 16, buffer="hbm"), "axes": [2, 1, 0]}),
    ("4-D (3,1,2,0)", "dma_transpose", None,
     {"src": T("bfloat16", 2, 4, 8, 16, buffer="hbm"), "axes": [3, 1, 2, 0]}),
    ("CORRECTION DMA-1 256 columns", "dma_transpose", None, {"dge_mode": "hwdge"}),
    ("indirect swdge", "dma_transpose", None,
     {"src": T("bfloat16", 64, 64, buffer="hbm", indirect=True), "dge_mode": "swdge"}),
    ("plain unknown 64 columns", "dma_transpose", None, {"src": T("bfloat16", 64, 64)}),
    ("indirect unknown", "dma_transpose", None,
     {"src": T("bfloat16", 64, 64, indirect=True)}),
]


@pytest.mark.parametrize("op", sorted(BASE))
def test_base_call_is_legal(op: str) -> None:
    verdict = check_call(call(op))
    assert verdict.valid, [(c.name, c.message) for c in verdict.clauses if not c.passed]
    assert verdict.failed == () and verdict.notes == ()
    assert verdict.predicate == op and verdict.level == "nki"


@pytest.mark.parametrize(("label", "op", "gen", "overrides", "clause"), FAILING,
                         ids=[f[0] for f in FAILING])
def test_failing_call_fails_only_its_clause(label: str, op: str, gen: str | None,
                                            overrides: dict[str, Any], clause: str) -> None:
    verdict = check_call(call(op, gen, overrides))
    assert not verdict.valid
    assert verdict.failed == (clause,)
    failing = verdict.clause(clause)
    assert failing.message and "could not evaluate" not in failing.message
    assert failing.provenance.ref in ("000", "004", "isa-facts")


@pytest.mark.parametrize(("label", "op", "gen", "overrides"), PASSING,
                         ids=[p[0] for p in PASSING])
def test_passing_neighbour_is_legal(label: str, op: str, gen: str | None,
                                    overrides: dict[str, Any]) -> None:
    verdict = check_call(call(op, gen, overrides))
    assert verdict.valid, [(c.name, c.message) for c in verdict.clauses if not c.passed]


def test_every_clause_has_a_failing_case() -> None:
    covered = {(op, clause) for _, op, _, _, clause in FAILING}
    declared = {(op, c.name) for op, specs in INTRINSICS.items() for c in specs if not c.note}
    assert declared - covered == set()
    assert covered <= declared


def test_clause_names_unique_per_intrinsic() -> None:
    for op, specs in INTRINSICS.items():
        names = [c.name for c in specs]
        assert len(names) == len(set(names)), op
