"""One valid example record per predicate (for tests, benchmarks, tours and the UI).

`example(name)` returns 64 bytes that pass every clause of predicate `name` on
every generation that has the opcode; tests derive "fails only this clause"
records from it by changing one field.
"""

from __future__ import annotations

from neurondbg.machine.dtypes import Dtype
from neurondbg.machine.isa.codec import encode
from neurondbg.machine.isa.enums import AccumCmd, AluOp, BrCmpOp, BrTargetMode, ReduceOp
from neurondbg.machine.isa.opcodes import Opcode as Op
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.legality.wire.registry import BY_NAME

FieldValues = dict[str, int | tuple[int, ...]]


def _t(prefix: str, addr: int, dims: int, n: int = 4) -> FieldValues:
    if dims == 1:
        return {f"{prefix}.start_addr": addr, f"{prefix}.step_elem": 1,
                f"{prefix}.num_elem": n}
    return {f"{prefix}.start_addr": addr,
            f"{prefix}.step_elem": (1,) + (0,) * (dims - 1),
            f"{prefix}.num_elem": (n,) + (1,) * (dims - 1)}


def _s4d4(op: int, in_dt: int = Dtype.FP32, out_dt: int = Dtype.FP32, nac: int = 128,
          alu: int = AluOp.BYPASS) -> FieldValues:
    return {"header.opcode": op, "in_dtype": in_dt, "out_dtype": out_dt,
            "num_active_channels": nac, "op": alu,
            **_t("src_mem_pattern", 0x0, 4), **_t("dst_mem_pattern", 0x400, 4)}


def _tt(op: int, lo: int, hi: int, out: int, alu: int = AluOp.BYPASS) -> FieldValues:
    return {"header.opcode": op, "in0_in1_dtype": lo | (hi << 4), "out_dtype": out, "op": alu,
            "num_active_channels": 64, **_t("src0", 0x0, 3), **_t("src1", 0x100, 3),
            **_t("dst", 0x200, 3)}


def _ts(op: int, acc: int = AccumCmd.IDLE, op1: int = AluOp.ADD, imm: int = 0) -> FieldValues:
    return {"header.opcode": op, "accumulator_cmd": acc, "in_dtype": Dtype.FP32,
            "out_dtype": Dtype.FP32, "nac": 128, "op0": AluOp.MULT, "op1": op1,
            "imm0_src": imm, "imm1_src": imm, **_t("src", 0x0, 3), **_t("dst", 0x400, 3)}


def _stt(op: int, op0: int = AluOp.BYPASS, op1: int = AluOp.MAX) -> FieldValues:
    return {"header.opcode": op, "op0": op0, "op1": op1,
            "in0_in1_dtype": Dtype.UINT8 | (Dtype.FP32 << 4), "out_dtype": Dtype.FP32,
            "nac": 32, **_t("src0", 0x0, 2), **_t("src1", 0x100, 2), **_t("dst", 0x200, 2)}


EXAMPLES: dict[str, FieldValues] = {
    "is_valid_copy": _s4d4(Op.COPY),
    "is_valid_cast": _s4d4(Op.CAST, Dtype.FP32, Dtype.BF16),
    "is_valid_tensor_reduce": _s4d4(Op.TENSOR_REDUCE_ARITH_OP, alu=AluOp.ADD),
    "is_valid_tensor_cumulative": _s4d4(Op.TENSOR_CUMULATIVE_ARITH_OP, alu=AluOp.ADD),
    "is_valid_reciprocal": _s4d4(Op.RECIPROCAL),
    "is_valid_stream_shuffle": _s4d4(Op.STREAM_SHUFFLE),
    "is_valid_stream_transpose": _s4d4(Op.STREAM_TRANSPOSE, nac=64),
    "is_valid_ctrl_mv": {"header.opcode": Op.MOVE, "num_mov": 2, "dtype": Dtype.INT32,
                         "move_source": 0, "src_registers": (1, 2, 0, 0, 0, 0, 0, 0),
                         "dst_registers": (3, 4, 0, 0, 0, 0, 0, 0)},
    "is_valid_ctrl_ms": {"header.opcode": Op.MOVE_SHAPE, "move_type": 0, "num_move": 1},
    "is_valid_ctrl_al": {"header.opcode": Op.ALU_OP, "op": AluOp.ADD, "dtype": Dtype.INT32,
                         "dst_dtype": Dtype.INT32, "src1_datasrc": 1, "src0_lo": 1,
                         "dst_lo": 2},
    "is_valid_ctrl_br": {"header.opcode": Op.COMPARE_BRANCH, "cmp_op": BrCmpOp.EQ_IMM,
                         "dtype": Dtype.INT32,
                         "target_mode": BrTargetMode.REL_IMM, "cmp_reg0": 5,
                         "br_immediate": -128, "header.debug_hint": 0},
    "is_valid_copy_cast_predicated": _tt(Op.COPY_PREDICATED, Dtype.UINT8, Dtype.FP32, Dtype.FP32),
    "is_valid_tensor_tensor_arith": _tt(Op.TENSOR_TENSOR_ARITH_OP, Dtype.FP32, Dtype.FP32,
                                        Dtype.FP32, AluOp.ADD),
    "is_valid_tensor_tensor_bitvec": _tt(Op.TENSOR_TENSOR_BITVEC_OP, Dtype.UINT32, Dtype.UINT32,
                                         Dtype.UINT32, AluOp.BITWISE_AND),
    "is_valid_range_select": {
        "header.opcode": Op.RANGE_SELECT, "nac": 128,
        "in_out_dtype": Dtype.FP32 | (Dtype.FP32 << 4),
        "reduce_cmd": AccumCmd.ZERO_ACCUMULATE, "reduce_op": ReduceOp.MAX, "base": 0,
        "fill_val": 0xFF7FFFFF, "comp_op0": AluOp.IS_GE, "comp_op1": AluOp.IS_LT,
        "bound0_src": 0, "bound1_src": 0, "bound0": 0, "bound1": 0x41200000,
        **_t("src", 0x0, 2), **_t("dst", 0x400, 2)},
    "is_valid_select_reduce": _stt(Op.SELECT_REDUCE),
    "is_valid_scalar_tensor_tensor": _stt(Op.SCALAR_TENSOR_TENSOR_ARITH, AluOp.ADD, AluOp.MULT),
    "is_valid_tensor_scalar": _ts(Op.TENSOR_SCALAR_ARITH_OP),
    "is_valid_tensor_scalar_cache_reduce": _ts(Op.TENSOR_SCALAR_CACHE_REDUCE,
                                               AccumCmd.ZERO_ACCUMULATE, AluOp.MAX),
    "is_valid_tensor_scalar_cache_cumulative": _ts(Op.TENSOR_SCALAR_CACHE_CUMULATIVE,
                                                   AccumCmd.ACCUMULATE, AluOp.ADD),
    "is_valid_exponential": _ts(Op.EXPONENTIAL),
    "is_valid_read_accumulator": {"header.opcode": Op.DVE_READ_ACCUMULATOR, "dst_element_count": 1,
                                  "dtype": Dtype.FP32, "negated": 1, "nac": 128,
                                  **_t("dst", 0x400, 1, 1)},
    "is_valid_d4_mr": {"header.opcode": Op.MEMSET, "dtype": Dtype.FP32, "nac": 128,
                       "dst_element_count": 4, **_t("dst", 0x400, 4)},
    "is_valid_read_indices": {"header.opcode": Op.DVE_READ_INDICES, "dtype": Dtype.UINT32,
                              "nac": 128,
                              "dst_element_count": 8, **_t("dst", 0x400, 4, 8)},
    "header_and_events_only": {"header.opcode": Op.HALT},
}


def example_fields(name: str) -> FieldValues:
    """Field values of the valid example of predicate `name` (inst_word_len included)."""
    return {"header.inst_word_len": 16, **EXAMPLES[name]}


def example(name: str, **overrides: int | tuple[int, ...]) -> bytes:
    """64 valid bytes for predicate `name`, with `overrides` (dotted names as `a__b`)."""
    pred = BY_NAME[name]
    fields = example_fields(name)
    fields.update({k.replace("__", "."): v for k, v in overrides.items()})
    return encode(STRUCTS[pred.struct], fields)


__all__ = ["EXAMPLES", "example", "example_fields"]
