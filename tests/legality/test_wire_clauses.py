"""Every wire clause: one record passes it, one fails only it (cayman unless noted).

Records are the predicate's valid example (machine.legality.wire.samples) with
a few fields changed. A handful of clauses cannot fail alone by construction;
for those the test pins the exact minimal set that fails together, and says why.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.isa.enums import AccumCmd, AluOp, BrCmpOp, BrTargetMode, ImmSrc
from neurondbg.machine.isa.opcodes import OPCODES
from neurondbg.machine.legality.explain import explain, validate
from neurondbg.machine.legality.wire.registry import ALL_PREDICATES, BY_NAME
from neurondbg.machine.legality.wire.samples import EXAMPLES, example


def sb(partition: int, offset: int = 0) -> int:
    """Cayman SBUF address (256 KiB partition stride, isa-facts §2.4)."""
    return partition * 0x40000 + offset


OFF_CHIP = 0x3000000  # beyond SBUF and PSUM on cayman

# A word length and a wait mode that fail the header and the events clause of most
# predicates (the others fail them their own way).
_HEADER = {
    "has_valid_neuron_header": {"header.inst_word_len": 15},
    "has_valid_neuron_events": {"events.wait_mode": 0x10},
}
# Overrides that fail one clause of every S4D4_TR-style predicate (prefix-free names).
_S4 = {
    **_HEADER,
    "is_valid_enum(op)": {"op": 0x30},
    "has_valid_active_channel_range": {"num_active_channels": 0},
    "start_addr_active_channels(src)": {"src_mem_pattern.start_addr": sb(100)},
    "start_addr_active_channels(dst)": {"dst_mem_pattern.start_addr": sb(100, 0x400)},
    "tensor4d_valid(src)": {"src_mem_pattern.num_elem": (0, 1, 1, 1)},
    "tensor4d_valid(dst)": {"dst_mem_pattern.num_elem": (4, 0, 1, 1)},
    "tensor_start_addr_valid(src) › addr_aligned_dtype": {"src_mem_pattern.start_addr": 0x1},
    "tensor_start_addr_valid(dst) › addr_aligned_dtype": {"dst_mem_pattern.start_addr": 0x401},
}
_COPY = {
    **_S4,
    "s4d4_tr_reserved_zero": {"reserved1": (0, 0, 1, 0, 0)},
    "mask_enable_zero": {"mask_enable": 1},
    "is_valid_dtype(in_dtype)": {"in_dtype": Dtype.FP32R, "out_dtype": Dtype.FP32R},
    "is_zero_subdim(op_dim)": {"op_dim": 3},
    "s4d4_tr_same_src_dst_count": {"dst_mem_pattern.num_elem": (8, 1, 1, 1)},
    "s4d4_tr_op_bypass": {"op": AluOp.ADD},
    "s4d4_tr_same_src_dst_type": {"out_dtype": Dtype.BF16},
    "has_zero_negated_field": {"negated": 1},
}
_CAST = {**_COPY, "is_valid_dtype(in_dtype)": {"in_dtype": Dtype.FP32R},
         "is_valid_dtype(out_dtype)": {"out_dtype": Dtype.UINT64}}
del _CAST["s4d4_tr_same_src_dst_type"]
_FAMILY = {**_S4, "is_valid_dtype(in_dtype)": {"in_dtype": Dtype.UINT64},
           "is_valid_dtype(out_dtype)": {"out_dtype": Dtype.UINT64}}
_REDUCE = {**_S4, "is_valid_dtype_64(in_dtype)": {"in_dtype": 0},
           "is_valid_dtype_64(out_dtype)": {"out_dtype": 0}}

_TT_COMMON = {
    "has_valid_neuron_header": {"header.inst_word_len": 15},
    "has_valid_neuron_events": {"events.update_mode": 0x06},
    "check_active_channels": {"num_active_channels": 0},
    "start_addr_active_channels(src0)": {"src0.start_addr": sb(97), "src1.start_addr":
                                         sb(96, 0x100), "num_active_channels": 32},
    "start_addr_active_channels(src1)": {"src0.start_addr": sb(96), "src1.start_addr":
                                         sb(97, 0x100), "num_active_channels": 32},
    "start_addr_active_channels(dst)": {"dst.start_addr": sb(100, 0x200)},
    "tensor3d_valid(src0)": {"src0.num_elem": (0, 1, 1)},
    "tensor3d_valid(src1)": {"src1.num_elem": (4, 0, 1)},
    "tensor3d_valid(dst)": {"dst.num_elem": (4, 1, 0)},
    "tensor_start_addr_valid(src0) › addr_on_chip": {"src0.start_addr": OFF_CHIP},
    "tensor_start_addr_valid(src1) › addr_aligned_dtype": {"src1.start_addr": 0x101},
    "tensor_start_addr_valid(dst) › addr_aligned_dtype": {"dst.start_addr": 0x201},
    "tt_same_element_count": {"dst.num_elem": (8, 1, 1)},
    "tt_valid_partitions(src0, src1)": {"src1.start_addr": sb(32, 0x100)},
}
_PRED = {
    **_TT_COMMON,
    "is_valid_dtype(out_dtype)": {"header.opcode": 0x99, "out_dtype": Dtype.FP32R},
    "is_valid_dtype(dtype_hi)": {"header.opcode": 0x99,
                                 "in0_in1_dtype": Dtype.UINT8 | (Dtype.FP32R << 4)},
    "is_valid_int_dtype_datapath(dtype_lo)": {"in0_in1_dtype": Dtype.FP16 | (Dtype.FP32 << 4)},
    "is_cast_predicated_or_same_dtype": {"out_dtype": Dtype.BF16},
    "op_bypass": {"op": AluOp.ADD},
}
_TT_DTYPES = {"is_valid_dtype(out_dtype)": {"out_dtype": 0},
              "is_valid_dtype(dtype_lo)": {"in0_in1_dtype": 0 | (Dtype.FP32 << 4)},
              "is_valid_dtype(dtype_hi)": {"in0_in1_dtype": Dtype.FP32}}
_TT_ARITH = {**_TT_COMMON, **_TT_DTYPES,
             "tensor_tensor_arith_accepts(op)": {"op": AluOp.BITWISE_AND}}
_TT_BITVEC = {**_TT_COMMON, **_TT_DTYPES,
              "is_valid_dtype(dtype_lo)": {"in0_in1_dtype": 0 | (Dtype.UINT32 << 4)},
              "is_valid_dtype(dtype_hi)": {"in0_in1_dtype": Dtype.UINT32},
              "is_general_bitvec_op(op)": {"op": AluOp.CRC32}}

_RS = {
    "has_valid_neuron_header": {"header.inst_word_len": 17},
    "has_valid_neuron_events": {"events.wait_mode": 0xFF},
    "check_active_channels": {"nac": 0},
    "is_valid_fp_dtype_datapath(in_dtype)": {"in_out_dtype": Dtype.INT32 | (Dtype.FP32 << 4)},
    "is_valid_fp_dtype_datapath(out_dtype)": {"in_out_dtype": Dtype.FP32 | (Dtype.INT32 << 4)},
    "range_select_valid_reduce_cmd": {"reduce_cmd": AccumCmd.ZERO},
    "range_select_reduce_op_max": {"reduce_op": 0},
    "is_valid_comp_op(comp_op0)": {"comp_op0": AluOp.ADD},
    "is_valid_comp_op(comp_op1)": {"comp_op1": AluOp.IS_NE},
    "range_select_fill_val_neg_flt_max": {"fill_val": 0xFF800000},
    "range_select_base_in_fp32_range": {"base": 1 << 24},
    "is_valid_enum(bound0_src)": {"bound0_src": 3},
    "is_valid_enum(bound1_src)": {"bound1_src": 7},
    "has_valid_immediates(bound0)": {"bound0_src": ImmSrc.REG_PTR_IMMEDIATE, "bound0": 64},
    "has_valid_immediates(bound1)": {"bound1_src": ImmSrc.POINTER_IMMEDIATE,
                                     "bound1": sb(0, 2)},
    "start_addr_active_channels(src)": {"src.start_addr": sb(100)},
    "start_addr_active_channels(dst)": {"dst.start_addr": sb(100, 0x400)},
    "tensor2d_valid(src)": {"src.num_elem": (0, 1)},
    "tensor2d_valid(dst)": {"dst.num_elem": (4, 0)},
    "tensor_start_addr_valid(src) › addr_aligned_dtype": {"src.start_addr": 0x2},
    "tensor_start_addr_valid(dst) › addr_aligned_dtype": {"dst.start_addr": 0x402},
    "range_select_same_src_dst_count": {"dst.num_elem": (8, 1)},
}

_STT_COMMON = {
    **_HEADER,
    "is_valid_dtype(out_dtype)": {"out_dtype": 0},
    "is_valid_dtype(dtype_lo)": {"in0_in1_dtype": 0 | (Dtype.FP32 << 4)},
    "is_valid_dtype(dtype_hi)": {"in0_in1_dtype": Dtype.UINT8},
    "is_valid_enum(reverse_operands)": {"reverse_operands": 4},
    "is_valid_enum(imm0_src)": {"imm0_src": 3},
    "check_active_channels": {"nac": 0},
    "start_addr_active_channels(src0)": {"src0.start_addr": sb(100)},
    "start_addr_active_channels(src1)": {"src1.start_addr": sb(100, 0x100)},
    "start_addr_active_channels(dst)": {"dst.start_addr": sb(100, 0x200)},
    "tensor2d_valid(src0)": {"src0.num_elem": (0, 1)},
    "tensor2d_valid(src1)": {"src1.num_elem": (0, 1)},
    "tensor2d_valid(dst)": {"dst.num_elem": (0, 1)},
    "tensor_start_addr_valid(src0) › addr_on_chip": {"src0.start_addr": OFF_CHIP},
    "tensor_start_addr_valid(src1) › addr_aligned_dtype": {"src1.start_addr": 0x101},
    "tensor_start_addr_valid(dst) › addr_aligned_dtype": {"dst.start_addr": 0x201},
}
_SELECT = {**_STT_COMMON,
           "select_reduce_valid_accumulator_cmd": {"accumulator_cmd": AccumCmd.ZERO},
           "select_reduce_op0_bypass": {"op0": AluOp.ADD},
           "select_reduce_op1_max": {"op1": AluOp.MIN}}
_STT = {**_STT_COMMON, "is_valid_enum(op0)": {"op0": 0x30}, "is_valid_enum(op1)": {"op1": 0x31},
        "is_valid_enum(accumulator_cmd)": {"accumulator_cmd": 5}}

_TS_COMMON = {
    **_HEADER,
    "is_valid_dtype(in_dtype)": {"in_dtype": Dtype.FP32R},
    "is_valid_dtype(out_dtype)": {"out_dtype": Dtype.UINT64},
    "is_valid_enum(imm0_src)": {"imm0_src": 3},
    "is_valid_enum(imm1_src)": {"imm1_src": 9},
    "is_valid_enum(reverse_operands)": {"reverse_operands": 4},
    "has_valid_immediates(imm0)": {"imm0_src": ImmSrc.REG_PTR_IMMEDIATE, "imm0": 64},
    "has_valid_immediates(imm1)": {"imm1_src": ImmSrc.POINTER_IMMEDIATE, "imm1": sb(100)},
    "check_active_channels": {"nac": 0},
    "start_addr_active_channels(src)": {"src.start_addr": sb(100)},
    "start_addr_active_channels(dst)": {"dst.start_addr": sb(100, 0x400)},
    # S3D3_TS's src is a MEM_PATTERN3D on cayman (isa-facts §2.1, §6.4): mem3d_valid
    "mem3d_valid(src)": {"src.num_elem": (0, 1, 1)},
    "tensor3d_valid(dst)": {"dst.num_elem": (4, 1, 0)},
    "tensor_start_addr_valid(src) › addr_aligned_dtype": {"src.start_addr": 0x1},
    "tensor_start_addr_valid(dst) › addr_aligned_dtype": {"dst.start_addr": 0x401},
}
_TS_ENUMS = {"is_valid_enum(op0)": {"op0": 0x30}, "is_valid_enum(op1)": {"op1": 0x31}}
_CACHE = {**_TS_COMMON,
          "is_general_arith_op(op0)": {"op0": AluOp.DIVIDE},
          "tensor_scalar_cache_fold_op(op1)": {"op1": AluOp.IS_GT}}

_DST_ONLY = {
    **_HEADER,
    "check_active_channels": {"nac": 0},
    "start_addr_active_channels(dst)": {"dst.start_addr": sb(100, 0x400)},
    "tensor_start_addr_valid(dst) › addr_aligned_dtype": {"dst.start_addr": 0x401},
}

MUTATIONS: dict[str, dict[str, dict]] = {
    "is_valid_copy": _COPY,
    "is_valid_cast": _CAST,
    "is_valid_tensor_reduce": _REDUCE,
    "is_valid_tensor_cumulative": _FAMILY,
    "is_valid_reciprocal": _FAMILY,
    "is_valid_stream_shuffle": _FAMILY,
    "is_valid_stream_transpose": {**_FAMILY,
                                  "has_multiple_32_channels": {"num_active_channels": 33}},
    "is_valid_ctrl_mv": {
        **_HEADER,
        "ctrl_mv_valid_num": {"num_mov": 9, "src_registers": (1, 2, 5, 6, 7, 8, 9, 10),
                              "dst_registers": (3, 4, 11, 12, 13, 14, 15, 16)},
        "ctrl_mv_reserved_zero": {"reserved0": 1},
        "ctrl_mv_has_valid_dtype": {"dtype": Dtype.FP16},
        "is_valid_enum(move_source)": {"move_source": 2},
        **{f"ctrl_mv_valid_register({k})": {"src_registers": tuple(
            (70 if k < 2 else 200) if j == k else (1, 2, 0, 0, 0, 0, 0, 0)[j]
            for j in range(8))} for k in range(8)},
        "ctrl_mv_unique_dst_registers": {"dst_registers": (3, 3, 0, 0, 0, 0, 0, 0)},
        "ctrl_mv_dst_not_in_src_registers": {"dst_registers": (2, 4, 0, 0, 0, 0, 0, 0)},
    },
    "is_valid_ctrl_ms": {
        **_HEADER,
        "is_valid_enum(move_type)": {"move_type": 3},
        "ctrl_ms_valid_num": {"num_move": 0},
        "ctrl_ms_reserved_zero(reserved0)": {"reserved0": 1},
        "ctrl_ms_reserved_zero(reserved1)": {"reserved1": (0,) * 11 + (1,)},
    },
    "is_valid_ctrl_al": {
        **_HEADER,
        "is_valid_enum(op)": {"op": 0x30},
        "is_valid_dtype_64(dtype)": {"dtype": Dtype.FP32R},
        "ctrl_al_valid_dst_dtype": {"dst_dtype": Dtype.FP32R},
        "is_valid_enum(src1_datasrc)": {"src1_datasrc": 2},
        "is_valid_register_read(src0_lo)": {"src0_lo": 64},
        "is_valid_register_read(src0_hi)": {"src0_hi": 200},
        "is_valid_register_read(src1_lo)": {"src1_datasrc": 0, "src1_lo": 64},
        "is_valid_register_read(src1_hi)": {"src1_datasrc": 0, "src1_hi": 130},
        "is_valid_register_write(dst_lo)": {"dst_lo": 130},
        "is_valid_register_write(dst_hi)": {"dst_hi": 255},
    },
    "is_valid_ctrl_br": {
        **_HEADER,
        "is_valid_enum(cmp_op)": {"cmp_op": 1},
        "is_valid_enum(target_mode)": {"target_mode": 0},
        "is_valid_dtype(dtype)": {"dtype": Dtype.INT64},
        "is_valid_register_read(cmp_reg0)": {"cmp_reg0": 64},
        "is_valid_register_read(cmp_reg1)": {"cmp_op": BrCmpOp.EQ_REG, "cmp_reg1": 64},
        "is_valid_register_read(target_reg_lo)": {"target_mode": BrTargetMode.REGISTER,
                                                  "target_reg_lo": 64},
        "is_valid_register_read(target_reg_hi)": {"target_mode": BrTargetMode.REL_REGISTER,
                                                  "target_reg_hi": 99},
        "br_relative_offset_in_range": {"br_immediate": -(1 << 31)},
    },
    "is_valid_copy_cast_predicated": _PRED,
    "is_valid_tensor_tensor_arith": _TT_ARITH,
    "is_valid_tensor_tensor_bitvec": _TT_BITVEC,
    "is_valid_range_select": _RS,
    "is_valid_select_reduce": _SELECT,
    "is_valid_scalar_tensor_tensor": _STT,
    "is_valid_tensor_scalar": {
        **_TS_COMMON, **_TS_ENUMS,
        "tensor_scalar_valid_accumulator_cmd": {"accumulator_cmd": AccumCmd.ACCUMULATE},
        "ptr_opcode_immediates_are_pointers": {"header.opcode": 0x44},
    },
    "is_valid_tensor_scalar_cache_reduce": {
        **_CACHE, "tensor_scalar_cache_reduce_valid_accumulator_cmd": {"accumulator_cmd": 0}},
    "is_valid_tensor_scalar_cache_cumulative": {
        **_CACHE, "tensor_scalar_cache_cumulative_valid_accumulator_cmd":
        {"accumulator_cmd": AccumCmd.ZERO}},
    "is_valid_exponential": {**_TS_COMMON, **_TS_ENUMS},
    "is_valid_read_accumulator": {
        **_DST_ONLY,
        "d1_rd_dst_element_count_one": {"dst_element_count": 2},
        "d1_rd_valid_dtype": {"dtype": Dtype.INT32},
        "d1_rd_valid_negated": {"negated": 2},
        "d1_rd_reserved_zero": {"rsvd12": (0,) * 15 + (1,)},
        "tensor1d_valid(dst)": {"dst.num_elem": 0},
    },
    "is_valid_d4_mr": {**_DST_ONLY, "is_valid_dtype_64(dtype)": {"dtype": Dtype.FP32R},
                       "tensor4d_valid(dst)": {"dst.num_elem": (4, 1, 0, 1)}},
    "is_valid_read_indices": {**_DST_ONLY,
                              "read_indices_valid_dtype": {"dtype": Dtype.FP32},
                              "read_indices_dst_element_count": {"dst_element_count": 4},
                              "tensor4d_valid(dst)": {"dst.num_elem": (8, 1, 1, 0)}},
    "header_and_events_only": {
        "has_valid_neuron_header": {"header.opcode": 0x00},
        "has_valid_neuron_events": {"events.update_mode": 0x06},
    },
}

# Clauses that cannot fail alone, with the minimal set that fails with them and why.
TOGETHER: dict[tuple[str, str], tuple[dict, tuple[str, ...]]] = {
    # Copy pins op to BYPASS (0x00), itself a valid ALU op
    ("is_valid_copy", "is_valid_enum(op)"): ({"op": 0x30},
                                             ("is_valid_enum(op)", "s4d4_tr_op_bypass")),
    ("is_valid_cast", "is_valid_enum(op)"): ({"op": 0x30},
                                             ("is_valid_enum(op)", "s4d4_tr_op_bypass")),
    # Copy needs out == in and in passes the gate, so out passes too (unless FP32R/in)
    ("is_valid_copy", "is_valid_dtype(out_dtype)"): (
        {"in_dtype": Dtype.UINT64, "out_dtype": Dtype.UINT64},
        ("is_valid_dtype(in_dtype)", "is_valid_dtype(out_dtype)")),
    # the integer datapath set is a subset of is_valid_dtype
    ("is_valid_copy_cast_predicated", "is_valid_dtype(dtype_lo)"): (
        {"in0_in1_dtype": Dtype.FP32R | (Dtype.FP32 << 4)},
        ("is_valid_dtype(dtype_lo)", "is_valid_int_dtype_datapath(dtype_lo)")),
}

# A zero count fails tensorNd_valid and, evaluated on its own (the reference's
# conjunction evaluates it), the predicate's element-count equality as well.
COUNT_CLAUSE = {
    "is_valid_copy": ("s4d4_tr_same_src_dst_count", ("src", "dst"), 4),
    "is_valid_cast": ("s4d4_tr_same_src_dst_count", ("src", "dst"), 4),
    "is_valid_copy_cast_predicated": ("tt_same_element_count", ("src0", "src1", "dst"), 3),
    "is_valid_tensor_tensor_arith": ("tt_same_element_count", ("src0", "src1", "dst"), 3),
    "is_valid_tensor_tensor_bitvec": ("tt_same_element_count", ("src0", "src1", "dst"), 3),
    "is_valid_range_select": ("range_select_same_src_dst_count", ("src", "dst"), 2),
}
for _pred, (_count, _ops, _nd) in COUNT_CLAUSE.items():
    for _op in _ops:
        _t = f"tensor{_nd}d_valid({_op})"
        TOGETHER[(_pred, _t)] = (MUTATIONS[_pred][_t], (_t, _count))


# tested separately: they fail only when a predicate is forced / on another generation
SEPARATE = ("has_copy_opcode", "has_cast_opcode", "has_move_opcode", "has_valid_nc_rs")


def _resolve(pred: str, key: str) -> tuple[str, str | None]:
    """(top-level clause, failing leaf path) of a mutation key: a key
    `tensor_start_addr_valid(dst) › rule` names a rule of the sub-predicate inside the
    predicate's tensorNd_valid(dst)."""
    if " › " not in key:
        return key, None
    head, rule = key.split(" › ")
    operand = head[head.index("("):]
    top = next(c.name for c in BY_NAME[pred].clauses_for(Gen.CAYMAN)
               if re.fullmatch(r"(tensor|mem)\dd_valid" + re.escape(operand), c.name))
    return top, f"{top} › tensor_start_addr_valid › {rule}"


def _cases():
    for pred in ALL_PREDICATES:
        keys = [cl.name for cl in pred.clauses_for(Gen.CAYMAN)
                if not cl.informational and cl.name not in SEPARATE]
        keys += [k for k in MUTATIONS[pred.name] if " › " in k]
        for key in keys:
            yield pytest.param(pred.name, key, id=f"{pred.name}:{key}")


@pytest.mark.parametrize(("pred", "key"), list(_cases()))
def test_clause_fails_alone(pred: str, key: str) -> None:
    clause, leaf = _resolve(pred, key)
    base = example(pred)
    assert explain(base, "cayman").clause(clause).passed
    if leaf is None and (pred, clause) in TOGETHER:
        overrides, expected = TOGETHER[(pred, clause)]
    else:
        overrides, expected = MUTATIONS[pred][key], (clause,)
    raw = example(pred, **{k.replace(".", "__"): v for k, v in overrides.items()})
    v = explain(raw, "cayman")
    if leaf is not None:  # exactly that rule fails inside the tree
        paths = [" › ".join(p) for c in v.clauses for p, _ in c.failing_paths()]
        assert paths == [leaf], paths
    is_note = v.clause(clause).note
    assert (v.notes if is_note else v.failed) == expected, [
        (c.name, c.message) for c in v.clauses if not c.passed]
    if is_note:
        assert v.valid and v.failed == ()
    # the bulk path agrees
    bulk = validate(raw, "cayman")
    assert bulk.failed_of(0) == list(v.failed)


def test_every_mutation_names_a_real_clause() -> None:
    for pred in ALL_PREDICATES:
        names = {c.name for c in pred.clauses}
        keys = {_resolve(pred.name, k)[0] for k in MUTATIONS[pred.name]}
        assert keys <= names, keys - names


@pytest.mark.parametrize("forced,other", [("is_valid_copy", 0x47), ("is_valid_cast", 0x46)])
def test_opcode_clause_fails_when_predicate_is_forced(forced: str, other: int) -> None:
    raw = example(forced, header__opcode=other)
    v = explain(raw, "cayman", predicate=forced)
    assert v.failed == (("has_copy_opcode",) if forced == "is_valid_copy" else
                        ("has_cast_opcode",))
    assert explain(example(forced), "cayman").clause(v.failed[0]).passed


def test_move_opcode_clause() -> None:
    raw = example("is_valid_ctrl_mv", header__opcode=0xA1)  # HALT bytes judged as a MOVE
    assert explain(raw, "cayman", predicate="is_valid_ctrl_mv").failed == ("has_move_opcode",)


def test_range_select_generation_gate() -> None:
    raw = example("is_valid_range_select")
    assert explain(raw, "sunda").failed == ("has_valid_neuron_header", "has_valid_nc_rs")
    for gen in ("cayman", "mariana", "maverick"):
        assert explain(raw, gen).valid


def test_tile_idx_zero_is_maverick_only() -> None:
    raw = example("is_valid_ctrl_mv", header__debug_hint=2)
    assert explain(raw, "maverick").failed == ("has_tile_idx_zero",)
    for gen in ("sunda", "cayman", "mariana"):
        v = explain(raw, gen)
        assert v.valid and "has_tile_idx_zero" not in {c.name for c in v.clauses}


def test_tile_idx_zero_applies_to_move_only() -> None:
    # A relative branch carries debug_hint 2 (isa-facts §1.1): still valid on maverick.
    raw = example("is_valid_ctrl_br", header__debug_hint=2)
    verdict = explain(raw, "maverick")
    assert verdict.valid and "has_tile_idx_zero" not in {c.name for c in verdict.clauses}


def test_alu_op_example_of_isa_facts_4_4_is_valid() -> None:
    # The dword @12 = 0x00010804: ADD, INT32, immediate source, dst_dtype byte 0.
    raw = bytearray(example("is_valid_ctrl_al"))
    raw[12:16] = (0x00010804).to_bytes(4, "little")
    verdict = explain(bytes(raw), "cayman")
    assert verdict.valid, verdict.failed
    assert verdict.clause("ctrl_al_valid_dst_dtype").passed


def test_examples_valid_on_every_generation_with_the_opcode() -> None:
    for name in EXAMPLES:
        raw = example(name)
        for gen in Gen:
            if gen in OPCODES[raw[0]].gens:
                v = explain(raw, gen)
                assert v.valid and not v.notes, (name, gen, v.failed, v.notes)


def test_bulk_clause_arrays() -> None:
    good = example("is_valid_copy")
    bad = example("is_valid_copy", out_dtype=Dtype.BF16)
    bulk = validate(good + bad + good, "cayman")
    np.testing.assert_array_equal(bulk.valid, [True, False, True])
    assert bulk.failures == {"s4d4_tr_same_src_dst_type": 1}
    np.testing.assert_array_equal(bulk.passed("s4d4_tr_same_src_dst_type"), [True, False, True])
    np.testing.assert_array_equal(bulk.applies("is_valid_enum(move_source)"), [False] * 3)
