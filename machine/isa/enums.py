"""ISA enums (isa-facts §1-8) with a per-value confidence table.

Codes are written once here; the dtype enum lives in machine/dtypes.py. Where
the reference names only some codes (BR_CMP_OP, TENSOR_SUBDIM, ...), the rest
are defined consistently with the known ones and tagged LOW, so the UI can
show that the name is a guess.
"""

from __future__ import annotations

from enum import IntEnum

from neurondbg.machine.dtypes import Dtype, Gen

__all__ = [
    "AccumCmd", "Addr4Marker", "AluOp", "BrCmpOp", "BrTargetMode", "DataSrc", "DebugCmd",
    "Dtype", "ExtOpcode", "ImmSrc", "ReduceOp", "RevOps", "TensorShapeMoveType", "TensorSubdim",
    "TestEsMode", "UpdateMode", "WaitMode", "alu_op_since", "alu_ops_of", "confidence",
    "enum_name", "parse_enum",
]


class DebugCmd(IntEnum):
    """DEBUG_CMD_LEVELS, header byte 2 (isa-facts §1.1)."""

    NONE = 0
    NOTIFY = 1
    START = 3
    END = 5
    START_END = 7
    INS_FIELD = 9


class WaitMode(IntEnum):
    """WAIT_MODE, events byte 0 (isa-facts §1.2)."""

    NONE = 0x00
    SEM_EQ_IMM = 0x01
    SEM_LT_IMM = 0x02
    SEM_LE_IMM = 0x03
    SEM_GT_IMM = 0x04
    SEM_GE_IMM = 0x05
    EVT_SET = 0x06
    EVT_SET_THEN_CLEAR = 0x07
    EVT_CLEAR = 0x0E
    EVT_CLEAR_THEN_SET = 0x0F
    SEM_EQ_REG = 0x81
    SEM_LT_REG = 0x82
    SEM_LE_REG = 0x83
    SEM_GT_REG = 0x84
    SEM_GE_REG = 0x85
    UNORDERED = 0xFE
    INVALID = 0xFF


class UpdateMode(IntEnum):
    """UPDATE_MODE, events byte 2 (isa-facts §1.2): _COMPLETE = code + 0x10, _REG = + 0x80."""

    NONE = 0x00
    EVT_SET_READ = 0x01
    EVT_CLR_READ = 0x02
    SEM_INC_READ = 0x03
    SEM_DEC_READ = 0x04
    SEM_ADD_IMM_READ = 0x05
    SEM_SUB_IMM_READ = 0x07
    SEM_WR_IMM_READ = 0x09
    EVT_SET_COMPLETE = 0x11
    EVT_CLR_COMPLETE = 0x12
    SEM_INC_COMPLETE = 0x13
    SEM_DEC_COMPLETE = 0x14
    SEM_ADD_IMM_COMPLETE = 0x15
    SEM_SUB_IMM_COMPLETE = 0x17
    SEM_WR_IMM_COMPLETE = 0x19
    SEM_ADD_REG_READ = 0x85
    SEM_SUB_REG_READ = 0x87
    SEM_WR_REG_READ = 0x89
    SEM_ADD_REG_COMPLETE = 0x95
    SEM_SUB_REG_COMPLETE = 0x97
    SEM_WR_REG_COMPLETE = 0x99
    INVALID = 0xFF


class DataSrc(IntEnum):
    """DATA_SRC (ref 001 §3: REGISTER 0, IMMEDIATE 1)."""

    REGISTER = 0
    IMMEDIATE = 1


class AccumCmd(IntEnum):
    """ACCUM_CMD (isa-facts §6.1)."""

    IDLE = 0
    ZERO = 1
    ACCUMULATE = 2
    ZERO_ACCUMULATE = 3
    LOAD_ACCUMULATE = 4


class TensorSubdim(IntEnum):
    """TENSOR_SUBDIM: only UNUSED 0 and X 2 are known (ref 000 §3.3); the rest LOW."""

    UNUSED = 0x00
    X = 0x02
    XY = 0x03
    XYZ = 0x04
    XYZW = 0x05


class BrCmpOp(IntEnum):
    """BR_CMP_OP: only EQ_IMM 3 and GT_IMM 6 were seen (isa-facts §4.5); the rest LOW.

    Chosen layout: 0 unconditional, the immediate comparisons at 3..8 in the
    order EQ, NE, LT, GT, LE, GE (which puts EQ at 3 and GT at 6), the register
    comparisons (against cmp_reg1) at 9..14 in the same order.
    """

    ALWAYS = 0
    EQ_IMM = 3
    NE_IMM = 4
    LT_IMM = 5
    GT_IMM = 6
    LE_IMM = 7
    GE_IMM = 8
    EQ_REG = 9
    NE_REG = 10
    LT_REG = 11
    GT_REG = 12
    LE_REG = 13
    GE_REG = 14


class BrTargetMode(IntEnum):
    """BR_TARGET_MODE (isa-facts §4.5, MED); ABS_IMM 2 is inferred (LOW)."""

    REGISTER = 1
    ABS_IMM = 2
    REL_IMM = 3
    REL_REGISTER = 4


class TensorShapeMoveType(IntEnum):
    """TENSOR_SHAPE_MOVE_TYPE (ref 001 §5.2)."""

    IMMEDIATE = 0
    REG_TO_SHAPE = 1
    SHAPE_TO_REG = 2


class ReduceOp(IntEnum):
    """REDUCE_OP (isa-facts §6.4)."""

    ADD = 0
    AVERAGE = 1
    MAX = 2
    OR = 3
    AND = 4
    XOR = 5


class ImmSrc(IntEnum):
    """IMM_SRC (isa-facts §6.4)."""

    INSTRUCTION_IMMEDIATE = 0
    POINTER_IMMEDIATE = 1
    REG_PTR_IMMEDIATE = 2


class RevOps(IntEnum):
    """TENS_SCALAR_REV_OPS (isa-facts §6.4)."""

    NONE = 0
    FIRST = 1
    SECOND = 2
    BOTH = 3


class TestEsMode(IntEnum):
    """CTRL_TEST_ES mode (isa-facts §4.6)."""

    READ_SEM = 0
    READ_EVT = 1
    UPDATE_SEM = 2
    UPDATE_EVT = 3
    COND_UPDATE_SEM = 4


class ExtOpcode(IntEnum):
    """0xF0 EXTENDED_INST sub-ops (isa-facts §7)."""

    ENOP = 0
    COPY = 1
    TTA = 2
    RAND_SET = 3
    RAND_GET = 4
    SB2SB = 6
    CPTC_DECODE = 7
    RDMA_DESC_GEN = 8
    RDMA_DESC_START = 9


class Addr4Marker(IntEnum):
    """ADDR4 top-byte markers (isa-facts §2.2)."""

    IMMEDIATE = 0x00
    MXTENSOR_V2 = 0x01  # MAVERICK MX structs only
    INDIRECT_IMM = 0x20
    SHAPE_REG = 0x40
    ADDR_REG = 0x80
    INDIRECT_REG = 0xA0
    ADDR_SHAPE_REG = 0xC0


class AluOp(IntEnum):
    """NEURON_ISA_TPB_ALU_OP (isa-facts §3): base band and integer band."""

    BYPASS = 0x00
    BITWISE_NOT = 0x01
    ARITH_SHIFT_LEFT = 0x02
    ARITH_SHIFT_RIGHT = 0x03
    ADD = 0x04
    SUBTRACT = 0x05
    MULT = 0x06
    DIVIDE = 0x07
    MAX = 0x08
    MIN = 0x09
    BITWISE_AND = 0x0A
    BITWISE_OR = 0x0B
    BITWISE_XOR = 0x0C
    LOGICAL_AND = 0x0D
    LOGICAL_OR = 0x0E
    LOGICAL_XOR = 0x0F
    LOGICAL_SHIFT_LEFT = 0x10
    LOGICAL_SHIFT_RIGHT = 0x11
    IS_EQUAL = 0x12
    IS_GT = 0x13
    IS_GE = 0x14
    IS_LE = 0x15
    IS_LT = 0x16
    ABS_DIFF = 0x17
    IS_NE = 0x18
    ABS_VALUE = 0x19
    POW = 0x1A
    MOD = 0x1B
    CRC32 = 0x1C
    RSQRT = 0x1D
    ABS_MAX = 0x20
    ABS_MIN = 0x21
    RELU = 0x22
    SQUARE = 0x23
    SYMMETRIC_CLAMP = 0x24
    ADD_INT = 0xC4
    MULT_INT = 0xC5
    SUB_INT = 0xC6
    DIVIDE_INT = 0xC7
    MOD_INT = 0xC8
    IS_EQUAL_INT = 0xC9
    IS_NE_INT = 0xCA
    ABS_MAX_INT = 0xCB
    ABS_MIN_INT = 0xCC
    ABS_DIFF_INT = 0xCD
    ABS_VALUE_INT = 0xCE
    MAX_INT = 0xCF
    MIN_INT = 0xD0
    IS_GT_INT = 0xD1
    IS_GE_INT = 0xD2
    IS_LE_INT = 0xD3
    IS_LT_INT = 0xD4
    MAX_UINT = 0xD5
    MIN_UINT = 0xD6
    IS_GT_UINT = 0xD7
    IS_GE_UINT = 0xD8
    IS_LE_UINT = 0xD9
    IS_LT_UINT = 0xDA
    MULT_UINT = 0xDB
    DIVIDE_UINT = 0xDC
    MOD_UINT = 0xDD
    ARGMAX_INT = 0xDE
    ARGMIN_INT = 0xDF
    ARGMAX_UINT = 0xE0
    ARGMIN_UINT = 0xE1


def alu_op_since(op: AluOp) -> Gen:
    """First generation with `op`: counts 33 / 60 / 64 / 65 (isa-facts §3, §3.2)."""
    if op <= AluOp.RSQRT or AluOp.ADD_INT <= op <= AluOp.SUB_INT:
        return Gen.SUNDA
    if op >= AluOp.DIVIDE_INT:
        return Gen.CAYMAN
    if op is AluOp.SYMMETRIC_CLAMP:
        return Gen.MAVERICK
    return Gen.MARIANA


def alu_ops_of(gen: Gen) -> frozenset[AluOp]:
    """ALU ops present in `gen`'s enum."""
    return frozenset(op for op in AluOp if alu_op_since(op) <= gen)


# Per-value confidence where it is not HIGH; everything unlisted is HIGH.
_CONFIDENCE: dict[type[IntEnum], dict[int, str]] = {
    TensorSubdim: {int(v): "LOW" for v in TensorSubdim if v not in (0, 2)},
    BrCmpOp: {int(v): ("MED" if v in (3, 6) else "LOW") for v in BrCmpOp},
    BrTargetMode: {1: "MED", 2: "LOW", 3: "MED", 4: "MED"},
    # Only 0x97/0x99 of the register variants were seen (isa-facts §1.2).
    UpdateMode: {0x85: "MED", 0x87: "MED", 0x89: "MED", 0x95: "MED"},
    AccumCmd: {1: "MED"},  # exact semantics of ZERO alone unknown (isa-facts §10)
    Addr4Marker: {0x01: "MED"},
}


def confidence(enum_cls: type[IntEnum], value: int) -> str:
    """HIGH / MED / LOW for one code; an unassigned code is LOW."""
    try:
        enum_cls(value)
    except ValueError:
        return "LOW"
    return _CONFIDENCE.get(enum_cls, {}).get(int(value), "HIGH")


def enum_name(enum_cls: type[IntEnum] | None, value: int) -> str | None:
    """The member name of `value`, or None if unassigned (or no enum)."""
    if enum_cls is None:
        return None
    try:
        return enum_cls(value).name
    except ValueError:
        return None


def parse_enum(enum_cls: type[IntEnum], text: str) -> int:
    """A code from a member name (case-insensitive); KeyError when not a member."""
    key = text.strip().upper()
    if enum_cls is Dtype:
        from neurondbg.machine.dtypes import DTYPE_ALIASES
        if key in DTYPE_ALIASES:
            return int(DTYPE_ALIASES[key])
    return int(enum_cls[key])
