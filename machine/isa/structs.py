"""Every documented 64-byte instruction layout, composed from shared sub-layouts.

Sources: ref 000 §3 (S4D4_TR, TENSOR4D, HEADER), ref 001 §3 and §5.2 (CTRL_MV,
CTRL_MS), isa-facts §1-6 (EVENTS, tensors, control structs, DVE structs).
Byte runs the reference leaves unnamed become `rsvd<offset>` fields, so each
of the 64 bytes belongs to exactly one field.
"""

from __future__ import annotations

from enum import IntEnum

from neurondbg.machine.dtypes import Dtype
from neurondbg.machine.isa.enums import (
    AccumCmd,
    AluOp,
    BrCmpOp,
    BrTargetMode,
    DataSrc,
    DebugCmd,
    ImmSrc,
    ReduceOp,
    RevOps,
    TensorShapeMoveType,
    TensorSubdim,
    TestEsMode,
    UpdateMode,
    WaitMode,
)
from neurondbg.machine.isa.spec import Field, Struct, fill_gaps

R000 = "ref 000 §3"
R001 = "ref 001 §3"


def _f(name: str, offset: int, ctype: str = "u1", count: int = 1,
       enum: type[IntEnum] | None = None, role: str = "", doc: str = "",
       source: str = "", confidence: str = "HIGH") -> Field:
    if not role:
        role = "dtype" if enum is Dtype else ("enum" if enum is not None else "")
    return Field(name, offset, ctype, count, enum, role, doc, source, confidence)


def header() -> list[Field]:
    """NEURON_ISA_TPB_HEADER at 0 (ref 000 §3.1, isa-facts §1.1)."""
    s = "isa-facts §1.1"
    return [
        _f("header.opcode", 0, role="opcode", doc="NEURON_ISA_TPB_OPCODE", source=s),
        _f("header.inst_word_len", 1, role="count", doc="dwords; must be 16", source=s),
        _f("header.debug_cmd", 2, enum=DebugCmd, doc="DEBUG_CMD_LEVELS", source=s),
        _f("header.debug_hint", 3, doc="2 for relative branches (compiler habit)", source=s),
    ]


def events(prefix: str = "events", offset: int = 4) -> list[Field]:
    """NEURON_ISA_TPB_EVENTS (8 B) at 4 (isa-facts §1.2)."""
    s = "isa-facts §1.2"
    return [
        _f(f"{prefix}.wait_mode", offset, enum=WaitMode, source=s),
        _f(f"{prefix}.wait_idx", offset + 1, doc="event/semaphore index 0..255", source=s),
        _f(f"{prefix}.update_mode", offset + 2, enum=UpdateMode, source=s),
        _f(f"{prefix}.update_idx", offset + 3, source=s),
        _f(f"{prefix}.semaphore_value", offset + 4, "u4", role="imm", source=s),
    ]


def events_extended(prefix: str, offset: int) -> list[Field]:
    """EVENTS_EXTENDED (12 B): two semaphore values (isa-facts §1.2, §4.1)."""
    s = "isa-facts §1.2"
    return [
        _f(f"{prefix}.wait_mode", offset, enum=WaitMode, source=s),
        _f(f"{prefix}.wait_idx", offset + 1, source=s),
        _f(f"{prefix}.update_mode", offset + 2, enum=UpdateMode, source=s),
        _f(f"{prefix}.update_idx", offset + 3, source=s),
        _f(f"{prefix}.sem_wait_value", offset + 4, "u4", role="imm", source=s),
        _f(f"{prefix}.sem_update_value", offset + 8, "u4", role="imm", source=s),
    ]


def tensor(prefix: str, offset: int, dims: int, source: str = "isa-facts §2.1",
           confidence: str = "HIGH") -> list[Field]:
    """TENSORnD: ADDR4 start_addr; i16 step_elem[n]; u16 num_elem[n] (isa-facts §2.1)."""
    return [
        _f(f"{prefix}.start_addr", offset, "u4", role="addr4",
           doc="ADDR4: partition/byte address or register/shape/indirect marker",
           source="isa-facts §2.2", confidence=confidence),
        _f(f"{prefix}.step_elem", offset + 4, "i2", dims, role="step",
           doc="signed stride in elements per dim (0 broadcasts)", source=source,
           confidence=confidence),
        _f(f"{prefix}.num_elem", offset + 4 + 2 * dims, "u2", dims, role="count",
           doc="element count per dim, >= 1", source=source, confidence=confidence),
    ]


def tensor1d(prefix: str, offset: int) -> list[Field]:
    return tensor(prefix, offset, 1)


def tensor2d(prefix: str, offset: int) -> list[Field]:
    return tensor(prefix, offset, 2)


def tensor3d(prefix: str, offset: int) -> list[Field]:
    return tensor(prefix, offset, 3)


def tensor4d(prefix: str, offset: int, source: str = "isa-facts §2.1") -> list[Field]:
    return tensor(prefix, offset, 4, source)


def _reg(name: str, offset: int, count: int = 1, doc: str = "", source: str = R001,
         confidence: str = "HIGH") -> Field:
    return _f(name, offset, "u1", count, role="register",
              doc=doc or "register specifier: R0..R63, 128 PC_LO, 129 PC_HI", source=source,
              confidence=confidence)


def _dtype(name: str, offset: int, doc: str = "", source: str = "") -> Field:
    return _f(name, offset, enum=Dtype, doc=doc, source=source)


def _pair(name: str, offset: int, doc: str, source: str) -> Field:
    return _f(name, offset, role="dtype_pair", doc=doc, source=source)


def _struct(name: str, body: list[Field], doc: str, source: str,
            confidence: str = "HIGH", with_events: bool = True) -> Struct:
    prefix = header() + (events() if with_events else [])
    return Struct(name, fill_gaps(prefix + body), doc, source, confidence)


def _s4d4_tr() -> Struct:
    return _struct("S4D4_TR", [
        *tensor4d("src_mem_pattern", 12, R000),
        _dtype("in_dtype", 32, "source dtype (no FP32R)", R000),
        _dtype("out_dtype", 33, "destination dtype (FP32R allowed)", R000),
        _f("num_active_channels", 34, role="count", doc="partitions 1..128", source=R000),
        _f("negated", 35, doc="must be 0 for Copy/Cast", source=R000),
        _f("op", 36, enum=AluOp, doc="must be BYPASS for Copy/Cast", source=R000),
        _f("op_dim", 37, enum=TensorSubdim, doc="UNUSED(0) or X(2) for Copy/Cast", source=R000),
        _f("mask_enable", 38, doc="must be 0", source=R000),
        _f("reserved1", 39, count=5, role="reserved", doc="all 0", source=R000),
        *tensor4d("dst_mem_pattern", 44, R000),
    ], "4-D tensor reduce/transpose/copy/cast operand struct", R000)


def _ctrl_mv() -> Struct:
    return _struct("CTRL_MV", [
        _f("num_mov", 12, role="count", doc="1..8 moves", source=R001),
        _dtype("dtype", 13, "one of INT32, UINT32, FP32", R001),
        _f("move_source", 14, enum=DataSrc, doc="REGISTER 0 / IMMEDIATE 1", source=R001),
        _f("reserved0", 15, role="reserved", doc="must be 0", source=R001),
        _reg("src_registers", 16, 8, "source specifiers; unused slots 0"),
        _reg("dst_registers", 24, 8, "destination specifiers, unique"),
        _f("immediate", 32, "u4", 8, role="imm", doc="MOVE_IMMEDIATE: 8 x 32-bit words",
           source=R001),
    ], "SEQ general-purpose register move", R001)


def _ctrl_ms() -> Struct:
    s = "ref 001 §5.2"
    return _struct("CTRL_MS", [
        _f("move_type", 12, enum=TensorShapeMoveType, source=s),
        _f("num_move", 13, role="count", doc="number of tensor shapes to move", source=s),
        _f("shape_reg_type", 14, doc="SHAPE_REG_TYPE (codes not recovered)", source=s),
        _f("reserved0", 15, role="reserved", source=s),
        _f("shape_registers", 16, count=4, role="shape_register", source=s),
        _f("reserved1", 20, count=12, role="reserved", source=s),
        _f("data", 32, "u4", 8, role="imm", doc="TENSOR_SHAPE_DATA: immediates or registers",
           source=s),
    ], "SEQ move of tensor-shape descriptors", s)


def _ctrl_al() -> Struct:
    s = "isa-facts §4.4"
    return _struct("CTRL_AL", [
        _f("op", 12, enum=AluOp, source=s),
        _dtype("dtype", 13, source=s),
        _f("src1_datasrc", 14, enum=DataSrc, doc="REGISTER 0 / IMMEDIATE 1", source=s),
        _dtype("dst_dtype", 15, source=s),
        _reg("src0_lo", 16, source=s),
        _reg("src0_hi", 17, source=s),
        _reg("src1_lo", 18, source=s),
        _reg("src1_hi", 19, source=s),
        _reg("dst_lo", 20, source=s),
        _reg("dst_hi", 21, source=s),
        _f("immediate", 24, "u4", 2, role="imm", doc="ALU_IMMEDIATE (lo, hi words)", source=s),
    ], "SEQ scalar ALU on the register file", s)


def _ctrl_br() -> Struct:
    s = "isa-facts §4.5"
    return _struct("CTRL_BR", [
        _f("cmp_op", 12, enum=BrCmpOp, source=s, confidence="MED"),
        _dtype("dtype", 13, source=s),
        _f("target_mode", 14, enum=BrTargetMode, source=s, confidence="MED"),
        _f("cmp_immediate", 16, "u4", role="imm", source=s, confidence="MED"),
        _reg("cmp_reg0", 32, source=s, confidence="MED"),
        _reg("cmp_reg1", 33, doc="inferred: second comparand of the *_REG compares",
             source="neurondbg decision (byte unnamed in isa-facts §4.5)", confidence="LOW"),
        _reg("target_reg_lo", 34, source=s, confidence="MED"),
        _reg("target_reg_hi", 35, source=s, confidence="MED"),
        _f("br_immediate", 48, "i8", role="branch_offset",
           doc="branch target; REL_IMM: byte offset from this instruction, |off| < 2^31",
           source=s, confidence="MED"),
    ], "SEQ compare and branch", s, "MED")


def _ctrl_es() -> Struct:
    s = "isa-facts §4.1"
    return _struct("CTRL_ES", [
        _f("setter_signature", 12, source=s),
        *events_extended("events_extended", 32),
    ], "SEQ event/semaphore operation", s, "MED")


def _ctrl_test_es() -> Struct:
    s = "isa-facts §4.6"
    return _struct("CTRL_TEST_ES", [
        _f("mode", 12, enum=TestEsMode, source=s),
        _f("update_type", 13, source=s),
        _f("repeat_count", 14, role="count", source=s),
        _f("num_evt_sem", 15, role="count", doc="1..16", source=s),
        _f("evt_sem_ids", 16, count=16, source=s),
        _reg("value_registers", 32, 16, source=s),
        _f("threshold", 48, "u4", role="imm", source=s),
        _f("setter_signature", 52, source=s),
    ], "SEQ test of events/semaphores (v4+)", s)


def _s3s3d3_tt() -> Struct:
    s = "isa-facts §5.1"
    return _struct("S3S3D3_TT", [
        _pair("in0_in1_dtype", 12, "DTYPE_PAIR: low nibble src0, high nibble src1", s),
        _dtype("out_dtype", 13, source=s),
        _f("op", 14, enum=AluOp, source=s),
        _f("num_active_channels", 15, role="count", doc="partitions 1..128", source=s),
        *tensor3d("src0", 16),
        *tensor3d("src1", 32),
        *tensor3d("dst", 48),
    ], "tensor-tensor op (two 3-D sources)", s)


def _s3d3_ts() -> Struct:
    s = "isa-facts §6.4"
    return _struct("S3D3_TS", [
        _f("accumulator_cmd", 12, enum=AccumCmd, source=s),
        *tensor3d("src", 16),
        _dtype("in_dtype", 32, source=s),
        _dtype("out_dtype", 33, source=s),
        _f("nac", 34, role="count", doc="active channels 1..128", source=s),
        _f("imm0_src", 35, enum=ImmSrc, source=s),
        _f("op0", 36, enum=AluOp, source=s),
        _f("op1", 37, enum=AluOp, source=s),
        _f("reverse_operands", 38, enum=RevOps, source=s),
        _f("imm1_src", 39, enum=ImmSrc, source=s),
        _f("imm0", 40, "u4", role="imm", doc="IMM_VAL: fp32/int32/pointer/register", source=s),
        _f("imm1", 44, "u4", role="imm", doc="IMM_VAL: fp32/int32/pointer/register", source=s),
        *tensor3d("dst", 48),
    ], "tensor-scalar op (3-D)", s)


def _s2d2_rs() -> Struct:
    s = "isa-facts §6.4"
    return _struct("S2D2_RS", [
        _f("nac", 12, role="count", doc="active channels 1..128", source=s),
        _pair("in_out_dtype", 13, "DTYPE_PAIR: low nibble input, high nibble output", s),
        _f("reduce_cmd", 14, enum=AccumCmd, source=s),
        _f("reduce_op", 15, enum=ReduceOp, doc="must be MAX", source=s),
        _f("base", 16, "u4", role="imm", doc="declared f32, validated as u32 <= 2^24", source=s),
        _f("fill_val", 20, "u4", role="imm", doc="must be 0xff7fffff (-FLT_MAX)", source=s),
        *tensor2d("src", 24),
        _f("comp_op0", 36, enum=AluOp, doc="IS_EQUAL..IS_LT", source=s),
        _f("comp_op1", 37, enum=AluOp, doc="IS_EQUAL..IS_LT", source=s),
        _f("bound0_src", 38, enum=ImmSrc, source=s),
        _f("bound1_src", 39, enum=ImmSrc, source=s),
        _f("bound0", 40, "u4", role="imm", doc="fp32 bound / pointer / register", source=s),
        _f("bound1", 44, "u4", role="imm", doc="fp32 bound / pointer / register", source=s),
        *tensor2d("dst", 48),
    ], "RANGE_SELECT (v3+)", s)


def _s2s2d2_stt() -> Struct:
    s = "isa-facts §6.4"
    return _struct("S2S2D2_STT", [
        *tensor2d("src0", 12),
        *tensor2d("src1", 24),
        _f("op0", 36, enum=AluOp, source=s),
        _f("op1", 37, enum=AluOp, source=s),
        _f("reverse_operands", 38, enum=RevOps, source=s),
        _f("imm0_src", 39, enum=ImmSrc, source=s),
        _pair("in0_in1_dtype", 40, "DTYPE_PAIR: low nibble src0, high nibble src1", s),
        _dtype("out_dtype", 41, source=s),
        _f("nac", 42, role="count", doc="active channels 1..128", source=s),
        _dtype("imm0_dtype", 43, source=s),
        _f("accumulator_cmd", 44, enum=AccumCmd, source=s),
        *tensor2d("dst", 48),
        _f("imm0", 60, "u4", role="imm", source=s),
    ], "scalar-tensor-tensor op (2-D)", s)


def _d1_rd() -> Struct:
    s = "isa-facts §6.4"
    return _struct("D1_RD", [
        _f("dst_element_count", 28, "u4", role="count", doc="must be 1", source=s),
        _dtype("dtype", 32, source=s),
        _f("negated", 33, doc="0 or 1", source=s),
        _f("nac", 34, role="count", doc="active channels 1..128", source=s),
        *tensor1d("dst", 44),
    ], "read the DVE/ACT accumulator", s)


def _d4_mr() -> Struct:
    s = "isa-facts §6.4"
    return _struct("D4_MR", [
        _f("dst_element_count", 28, "u4", role="count", source=s),
        _dtype("dtype", 32, source=s),
        _f("nac", 34, role="count", doc="active channels 1..128", source=s),
        _f("serialization_mode", 36, source=s),
        _f("set_value", 40, "u4", role="imm", source=s),
        *tensor4d("dst", 44),
    ], "memset / register store / RNG / read indices (4-D destination)", s)


def _dma_trigger() -> Struct:
    s = "neff-facts §5.3"
    return _struct("DMA_TRIGGER", [
        _f("queue", 12, count=36, role="ascii",
           doc="DMA queue name, ASCII, NUL-padded (qSPIO0, qPoolIO0, ...)", source=s),
        _f("id", 48, "u4", doc="entry id in the issuing engine's JSON dma list", source=s),
    ], "NEFF DMA trigger: the queue and entry the runtime starts", s)


def _raw() -> Struct:
    return _struct("RAW", [
        _f("raw", 12, count=52, role="raw", doc="operand bytes of an undocumented layout",
           confidence="LOW"),
    ], "header + events + undocumented operand bytes", "isa-facts §1", "LOW")


STRUCTS: dict[str, Struct] = {
    s.name: s for s in (
        _s4d4_tr(), _ctrl_mv(), _ctrl_ms(), _ctrl_al(), _ctrl_br(), _ctrl_es(),
        _ctrl_test_es(), _s3s3d3_tt(), _s3d3_ts(), _s2d2_rs(), _s2s2d2_stt(), _d1_rd(),
        _d4_mr(), _dma_trigger(), _raw(),
    )
}
RAW = STRUCTS["RAW"]

# Sub-layout sizes (isa-facts §2.1), for tests and the Struct pane.
SUBLAYOUT_BYTES = {"HEADER": 4, "EVENTS": 8, "EVENTS_EXTENDED": 12, "TENSOR1D": 8,
                   "TENSOR2D": 12, "TENSOR3D": 16, "TENSOR4D": 20}


def pair_lo(byte: int) -> int:
    """Low nibble of a DTYPE_PAIR byte: src0 / in0 / input (isa-facts §5.1)."""
    return byte & 0x0F


def pair_hi(byte: int) -> int:
    """High nibble of a DTYPE_PAIR byte: src1 / in1 / output."""
    return (byte >> 4) & 0x0F


def make_pair(lo: int, hi: int) -> int:
    """A DTYPE_PAIR byte; only codes <= 0xF fit (isa-facts §5.1)."""
    if not (0 <= lo <= 0xF and 0 <= hi <= 0xF):
        raise ValueError(f"DTYPE_PAIR holds codes 0..15 only, got {lo:#x}, {hi:#x}")
    return lo | (hi << 4)


def tensor_operands(struct: Struct) -> tuple[str, ...]:
    """Prefixes of the tensor operands of a struct, in layout order ("src_mem_pattern", ...)."""
    return tuple(f.name[: -len(".start_addr")] for f in struct.fields if f.role == "addr4")
