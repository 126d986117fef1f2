"""The opcode table (isa-facts §7 and §4.1): name, struct, engines, generations.

Opcode bytes never change between generations; new generations only add codes
and the seven SUNDA-only codes are never reused (isa-facts §7), so one table
plus per-generation presence serves all four generations.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from machine.dtypes import Gen

# re-exported: the engines are named beside the table (machine.isa.queues declares them)
from machine.isa.queues import DEFAULT_ENGINE as DEFAULT_ENGINE
from machine.isa.queues import ENGINES as ENGINES
from machine.isa.queues import QUEUE_ENGINES as QUEUE_ENGINES


class OpcodeInfo(NamedTuple):
    """One opcode: its struct binding ("RAW" when undocumented) and where it runs (a
    NamedTuple: immutable and compared by value as a frozen dataclass, and declared
    without exec'ing dataclass methods at start-up)."""

    code: int
    name: str
    struct: str
    engines: frozenset[str]
    gens: frozenset[Gen]
    confidence: str = "HIGH"  # of the struct binding and engine set
    note: str = ""

    @property
    def pseudo(self) -> bool:
        """PSEUDO_* ops are lowered by the runtime and never executed (isa-facts §4.1)."""
        return self.name.startswith("PSEUDO_")


_ALL = frozenset(Gen)
_GENS = {
    "": _ALL,
    "+v3": frozenset(g for g in Gen if g >= Gen.CAYMAN),
    "+v4": frozenset(g for g in Gen if g >= Gen.MARIANA),
    "+v5": frozenset({Gen.MAVERICK}),
    "v2": frozenset({Gen.SUNDA}),
}
# Engine sets. Engine bindings of most data ops are inferred from the struct
# families (MED); the DVE-native ops follow their own pages over the catalog
# (isa-facts §7 caveat and §9).
_E = {
    "pe": frozenset({"pe"}),
    "act": frozenset({"act"}),
    "pool": frozenset({"pool"}),
    "dve": frozenset({"dve"}),
    "pd": frozenset({"pool", "dve"}),
    "copy": frozenset({"pool", "dve", "act"}),  # tensor_copy engine in {gpsimd, vector, scalar}
    "seq": frozenset({"seq"}),
    "dma": frozenset(QUEUE_ENGINES),
    "none": frozenset(),
}

# code, name, struct ("" = undocumented -> RAW), engine key, generations, confidence
_TABLE: tuple[tuple[int, str, str, str, str, str], ...] = (
    (0x01, "LDWEIGHTS", "", "pe", "", "HIGH"),
    (0x02, "MATMUL", "", "pe", "", "HIGH"),
    (0x03, "PE_REG_WRITE", "", "pe", "", "HIGH"),
    (0x04, "WEIGHT_MASK", "", "pe", "", "HIGH"),
    (0x05, "WEIGHT_SHIFT", "", "pe", "", "HIGH"),
    (0x06, "LDTAGS", "", "pe", "+v3", "HIGH"),
    (0x07, "MATMUL_SPARSE", "", "pe", "+v3", "HIGH"),
    (0x08, "PE_MANAGE_SEED", "", "pe", "+v4", "HIGH"),
    (0x09, "LDWEIGHTS_MX", "", "pe", "+v4", "HIGH"),
    (0x0A, "MATMUL_MX", "", "pe", "+v4", "HIGH"),
    (0x21, "ACTIVATE", "", "act", "", "HIGH"),
    (0x22, "ACTIVATE_QUANTIZE", "", "act", "", "HIGH"),
    (0x23, "ACTIVATION_TABLE_LOAD", "", "act", "", "HIGH"),
    (0x24, "ACTIVATION_READ_ACCUMULATOR", "D1_RD", "act", "", "HIGH"),
    (0x25, "ACTIVATE2", "", "act", "+v4", "HIGH"),
    (0x26, "ACTIVATE_MULTIPASS", "", "act", "+v5", "HIGH"),
    (0x30, "EXPONENTIAL", "S3D3_TS", "pd", "", "MED"),
    (0x41, "TENSOR_TENSOR_ARITH_OP", "S3S3D3_TT", "pd", "", "MED"),
    (0x42, "TENSOR_REDUCE_ARITH_OP", "S4D4_TR", "pd", "", "MED"),
    (0x43, "TENSOR_SCALAR_ARITH_OP", "S3D3_TS", "pd", "", "MED"),
    (0x44, "TENSOR_SCALAR_PTR_ARITH_OP", "S3D3_TS", "pd", "", "MED"),
    (0x45, "POOL", "", "pool", "", "MED"),
    (0x46, "COPY", "S4D4_TR", "copy", "", "HIGH"),
    (0x47, "CAST", "S4D4_TR", "copy", "", "HIGH"),
    (0x48, "RECIPROCAL", "S4D4_TR", "pd", "", "MED"),
    (0x49, "MEMSET", "D4_MR", "pd", "", "MED"),
    (0x4A, "REG_LOAD", "", "pd", "", "MED"),
    (0x4B, "REG_STORE", "D4_MR", "pd", "", "MED"),
    (0x4C, "REG_SHUFFLE", "", "pd", "", "MED"),
    (0x4D, "RNG", "D4_MR", "pd", "", "MED"),
    (0x4E, "TENSOR_CUMULATIVE_ARITH_OP", "S4D4_TR", "pd", "", "MED"),
    (0x4F, "TENSOR_SCALAR_PTR_MULTI_ARITH", "", "pd", "", "MED"),
    (0x51, "TENSOR_TENSOR_BITVEC_OP", "S3S3D3_TT", "pd", "", "MED"),
    (0x52, "TENSOR_REDUCE_BITVEC_OP", "S4D4_TR", "pd", "", "MED"),
    (0x53, "TENSOR_SCALAR_BITVEC_OP", "S3D3_TS", "pd", "", "MED"),
    (0x54, "TENSOR_SCALAR_PTR_BITVEC_OP", "S3D3_TS", "pd", "", "MED"),
    (0x58, "MAX_POOL_SELECT", "", "pool", "", "MED"),
    (0x5E, "TENSOR_CUMULATIVE_BITVEC_OP", "S4D4_TR", "pd", "", "MED"),
    (0x5F, "TENSOR_SCALAR_PTR_MULTI_BITVEC", "", "pd", "", "MED"),
    (0x60, "BATCH_NORM_STATS", "", "pd", "", "MED"),
    (0x61, "BATCH_NORM_STATS2", "", "pd", "", "MED"),
    (0x62, "BATCH_NORM_AGGREGATE", "", "pd", "", "MED"),
    (0x63, "BATCH_NORM_GRAD_ACCUMULATE", "", "pd", "", "MED"),
    (0x64, "BATCH_NORM_PARAM_LOAD", "", "pd", "", "MED"),
    (0x65, "BATCH_NORM_BACK_PROP", "S3S3D3_TT", "pd", "", "MED"),
    (0x66, "LOAD_PARAMETER_RAM", "", "pool", "", "MED"),
    (0x67, "POOL_BUFFER_LOAD", "", "pool", "", "MED"),
    (0x68, "GATHER", "", "pool", "", "MED"),
    (0x69, "LOAD_MASK_SELECT", "", "pool", "", "MED"),
    (0x6A, "STREAM_SHUFFLE", "S4D4_TR", "pd", "", "MED"),
    (0x6B, "STREAM_TRANSPOSE", "S4D4_TR", "pd", "", "MED"),
    (0x6C, "MAX8", "", "dve", "", "MED"),
    (0x6D, "MATCH_VALUE_LOAD", "", "dve", "", "MED"),
    (0x6E, "FIND_INDEX8", "", "dve", "", "MED"),
    (0x6F, "MATCH_REPLACE8", "", "dve", "", "MED"),
    (0x70, "TENSOR_SCALAR_IMM_LD_ARITH", "", "pd", "", "MED"),
    (0x71, "TENSOR_SCALAR_IMM_LD_BITVEC", "", "pd", "", "MED"),
    (0x72, "COPY_PREDICATED", "S3S3D3_TT", "dve", "", "HIGH"),
    (0x73, "ROI_ALIGN", "", "pool", "", "MED"),
    (0x74, "TENSOR_SCALAR_ADDR", "", "pd", "", "MED"),
    (0x76, "RAND", "", "pool", "", "MED"),
    (0x77, "RAND_GET_STATE", "", "pool", "", "MED"),
    (0x78, "RAND_SET_STATE", "", "pool", "", "MED"),
    (0x79, "EMBEDDING_UPDATE", "", "pool", "", "MED"),
    (0x7A, "LOAD_POOL_ARGUMENT", "", "pool", "", "MED"),
    (0x7B, "TENSOR_DEQUANTIZE", "", "pool", "", "HIGH"),
    (0x7C, "CROSS_LANE_REDUCE_ARITH", "", "pool", "", "MED"),
    (0x7D, "CROSS_LANE_REDUCE_BITVEC", "", "pool", "", "MED"),
    (0x7E, "IOTA", "", "pool", "", "MED"),
    (0x7F, "DROPOUT", "", "pool", "", "MED"),
    (0x81, "JPEG_DECODE", "", "pool", "+v3", "MED"),
    (0x82, "TRANSPOSE_BATCH_NORM_STATS2", "", "pd", "", "MED"),
    (0x83, "TRANSPOSE_TENSOR_REDUCE_ARITH_OP", "S4D4_TR", "pd", "", "MED"),
    (0x84, "TRANSPOSE_TENSOR_REDUCE_BITVEC_OP", "S4D4_TR", "pd", "", "MED"),
    (0x85, "CUSTOM_OP_HEADER", "", "pool", "", "MED"),
    (0x86, "CUSTOM_OP_PAYLOAD", "", "pool", "", "MED"),
    (0x87, "TS_PTR_MULTI_DUAL_ARITH", "", "pd", "v2", "MED"),
    (0x88, "TS_PTR_MULTI_DUAL_BITVEC", "", "pd", "v2", "MED"),
    (0x8A, "TENSOR_TENSOR_ADD_BF16", "", "pd", "v2", "MED"),
    (0x8B, "TENSOR_TENSOR_MULT_BF16", "", "pd", "v2", "MED"),
    (0x8C, "TENSOR_REDUCE_ADD_BF16", "", "pd", "v2", "MED"),
    (0x8D, "TENSOR_REDUCE_MAX_BF16", "", "pd", "v2", "MED"),
    (0x8E, "BATCH_NORM_PARAM_LOAD2", "", "pd", "", "MED"),
    (0x8F, "TENSOR_TENSOR_SUB_BF16", "", "pd", "v2", "MED"),
    (0x92, "TENSOR_SCALAR_AFFINE_SELECT", "", "pd", "", "MED"),
    (0x93, "TRANSPOSE_TENSOR_SCALAR_ARITH_OP", "S3D3_TS", "pd", "", "MED"),
    (0x94, "BATCH_NORM_GRAD_ACCUMULATE2", "", "pd", "", "MED"),
    (0x95, "MODIFY_POOL_CONFIG", "", "pool", "", "MED"),
    (0x96, "SORT", "", "pool", "", "MED"),
    (0x98, "TENSOR_SCALAR_SELECT", "", "pd", "", "MED"),
    (0x99, "CAST_PREDICATED", "S3S3D3_TT", "dve", "", "HIGH"),
    (0x9A, "TENSOR_SCALAR_CACHE_REDUCE", "S3D3_TS", "dve", "", "HIGH"),
    (0x9B, "DVE_READ_ACCUMULATOR", "D1_RD", "dve", "", "HIGH"),
    (0x9C, "TENSOR_REDUCE_RANGE_CHECK", "", "dve", "", "MED"),
    (0x9D, "SCALAR_TENSOR_TENSOR_ARITH", "S2S2D2_STT", "dve", "", "MED"),
    (0x9E, "SCALAR_TENSOR_TENSOR_BITVEC", "S2S2D2_STT", "dve", "", "MED"),
    (0x9F, "ENGINE_NOP", "", "seq", "", "HIGH"),
    (0xA0, "EVENT_SEMAPHORE", "CTRL_ES", "seq", "", "MED"),
    (0xA1, "HALT", "", "seq", "", "HIGH"),
    (0xA2, "DRAIN", "", "seq", "", "HIGH"),
    (0xA3, "INSTRUCTION_FLUSH", "", "seq", "", "HIGH"),
    (0xA4, "NOP", "", "seq", "", "HIGH"),
    (0xA5, "WRITE", "", "seq", "", "HIGH"),
    (0xA6, "NOTIFY", "", "seq", "", "HIGH"),
    (0xA7, "MOVE", "CTRL_MV", "seq", "", "HIGH"),
    (0xA8, "ALU_OP", "CTRL_AL", "seq", "", "HIGH"),
    (0xA9, "COMPARE_BRANCH", "CTRL_BR", "seq", "", "MED"),
    (0xAA, "TENSOR_LOAD", "", "seq", "", "HIGH"),
    (0xAB, "TENSOR_STORE", "", "seq", "", "HIGH"),
    (0xB0, "EVENT_SEMAPHORE_RANGE_CLEAR", "", "seq", "", "HIGH"),
    (0xB1, "SET_ORDERING_MODE", "", "seq", "", "HIGH"),
    (0xB2, "MOVE_SHAPE", "CTRL_MS", "seq", "", "HIGH"),
    (0xB3, "POLL_SEM", "", "seq", "", "HIGH"),
    (0xB4, "TEST_EVENT_SEM", "CTRL_TEST_ES", "seq", "+v4", "HIGH"),
    (0xB5, "BRANCH_PREFETCH_HINT", "", "seq", "", "HIGH"),
    (0xB6, "COMPACT_CONTROL_INST", "", "seq", "+v5", "HIGH"),
    (0xB8, "DMAMEMCPY", "", "dma", "", "LOW"),
    (0xB9, "DMA_MEMCPY2", "", "dma", "+v5", "LOW"),
    (0xBA, "DMA_IMMEDIATE", "", "dma", "+v5", "LOW"),
    (0xBB, "DMA_INDIRECT", "", "dma", "", "LOW"),
    (0xBC, "RANGE_SELECT", "S2D2_RS", "dve", "+v3", "HIGH"),
    (0xBD, "DMA_TRANSPOSE", "", "dma", "+v3", "LOW"),
    (0xBE, "GET_SEQUENCE_BOUNDS", "", "pd", "+v3", "MED"),
    (0xBF, "SB2SB_COLLECTIVE", "", "dma", "+v3", "LOW"),
    # PSEUDO_DMATRIGGER's payload is neff-facts §5.3 (struct DMA_TRIGGER)
    *((code, name, "DMA_TRIGGER" if name == "PSEUDO_DMATRIGGER" else "", "none",
       "+v3" if name == "PSEUDO_JPEG_DECODE" else "", "HIGH")
      for code, name in enumerate((
          "PSEUDO_DMATRIGGER", "PSEUDO_DMAREARM", "PSEUDO_DMABARRIER",
          "PSEUDO_DMAMEMCPY_FULL_IND", "PSEUDO_SEMAPHORE_SET", "PSEUDO_LOAD_ACT_FUNC_SET",
          "PSEUDO_TRIGGER_ALL_REDUCE", "PSEUDO_TRIGGER_COLLECTIVE", "PSEUDO_READ_VAR_ADDR",
          "PSEUDO_EMBEDDING_UPDATE", "PSEUDO_SEND_RECV", "PSEUDO_BRANCH_LABEL",
          "PSEUDO_TENSOR_STORE", "PSEUDO_TENSOR_LOAD", "PSEUDO_DMASWAP_QUEUE_SET",
          "PSEUDO_SET_RNG_SEED", "PSEUDO_FUNCTION_BEGIN", "PSEUDO_FUNCTION_RETURN",
          "PSEUDO_FUNCTION_CALL", "PSEUDO_DMA_DIRECT2D", "PSEUDO_SYNC_BARRIER",
          "PSEUDO_RANGE_CHECK", "PSEUDO_JPEG_DECODE", "PSEUDO_CORE_BARRIER",
          "PSEUDO_TRIGGER_COLLECTIVE2", "PSEUDO_EXTENSION", "PSEUDO_CUR_PROCESSING_RANK_ID",
          "PSEUDO_GID_LOAD", "PSEUDO_BRANCH_PREFETCH_HINT", "PSEUDO_TENSOR_COMPLETION",
          "PSEUDO_INST"), start=0xC1)),
    (0xE0, "SPARSITY_COMPRESS", "", "pd", "+v4", "MED"),
    (0xE1, "SPARSITY_COMPRESS_TAG", "", "pd", "+v4", "MED"),
    (0xE2, "RAND2", "", "pool", "+v4", "MED"),
    (0xE3, "QUANTIZE_MX", "", "dve", "+v4", "HIGH"),
    (0xE4, "CONV_LUT_LOAD", "", "pd", "+v3", "MED"),
    (0xE5, "TENSOR_TENSOR_SCAN_ARITH", "S2S2D2_STT", "dve", "", "MED"),
    (0xE6, "TENSOR_SCALAR_CACHE_CUMULATIVE", "S3D3_TS", "dve", "", "HIGH"),
    (0xE7, "INDIRECT_COPY", "", "pool", "", "MED"),
    (0xE8, "COPY_PREDICATED_SCALAR", "", "dve", "", "MED"),
    (0xE9, "DVE_READ_INDICES", "D4_MR", "dve", "+v3", "HIGH"),
    (0xEA, "SELECT_REDUCE", "S2S2D2_STT", "dve", "", "HIGH"),
    (0xF0, "EXTENDED_INST", "", "pool", "", "MED"),
    (0xF1, "DMA_GATHER_TRANSPOSE", "", "dma", "+v3", "LOW"),
    (0xF2, "NONZERO_WITH_COUNT", "", "pd", "+v3", "MED"),
    (0xF3, "TENSOR_TENSOR_INT_WIDE", "", "pd", "+v5", "MED"),
    (0xF4, "TENSOR_SCALAR_INT_WIDE", "", "pd", "+v5", "MED"),
    (0xFF, "INVALID", "", "none", "", "HIGH"),
)

OPCODES: dict[int, OpcodeInfo] = {
    code: OpcodeInfo(code, name, struct or "RAW", _E[eng], _GENS[gens], conf,
                     "" if struct else "operand layout not documented: decoded as raw bytes")
    for code, name, struct, eng, gens, conf in _TABLE
}
_BY_NAME: dict[str, OpcodeInfo] = {i.name: i for i in OPCODES.values()}

# Generated from _TABLE, so a name or a code is declared once: code outside
# machine/isa names an opcode as `Opcode.CAST`, never as 0x47.
Opcode = IntEnum("Opcode", [(i.name, i.code) for i in OPCODES.values()], module=__name__)
Opcode.__doc__ = "Every opcode byte of the table, by its name (an int: compares with bytes)."


def opcode_by_name(name: str) -> OpcodeInfo:
    """The opcode named `name` (case-insensitive); KeyError if there is none."""
    return _BY_NAME[name.strip().upper()]


def opcodes_of(gen: Gen) -> frozenset[int]:
    """Opcode bytes present in `gen`'s enum (including the 0xFF sentinel)."""
    return frozenset(c for c, i in OPCODES.items() if gen in i.gens)


def mnemonic(code: int) -> str:
    """The opcode's name, or OP_<hex> for a byte no generation assigns."""
    info = OPCODES.get(code)
    return info.name if info else f"OP_{code:02X}"


def struct_name_of(code: int) -> str:
    """The struct an opcode byte decodes with (RAW for unknown bytes)."""
    info = OPCODES.get(code)
    return info.struct if info else "RAW"


# isa-facts §1.1: the validator's opcode-membership bitmask, four 64-bit words
# (bit b of word w = opcode 64*w + b).
HEADER_OPCODE_BITMASK: tuple[int, int, int, int] = (
    0x400082F07FBFFFFF, 0x024BC3FFFFDF3F7F, 0x7FEFFFFFE08F7FFF, 0x1001E0000003E)


def bitmask_opcodes() -> frozenset[int]:
    """The opcode set the §1.1 bitmask admits."""
    return frozenset(64 * w + b for w, word in enumerate(HEADER_OPCODE_BITMASK)
                     for b in range(64) if word >> b & 1)
