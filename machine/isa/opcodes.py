"""The opcode enum and table (isa-facts §7 and §4.1): name, struct, engines, generations.

Opcode bytes never change between generations; new generations only add codes
and the seven SUNDA-only codes are never reused (isa-facts §7), so one table
plus per-generation presence serves all four generations.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from neurondbg.machine.dtypes import Gen

# re-exported: the engines are named beside the table (machine.isa.queues declares them)
from neurondbg.machine.isa.queues import DEFAULT_ENGINE as DEFAULT_ENGINE
from neurondbg.machine.isa.queues import ENGINES as ENGINES
from neurondbg.machine.isa.queues import QUEUE_ENGINES as QUEUE_ENGINES


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


class Opcode(IntEnum):
    """Every opcode byte of the table, by its name (an int: compares with bytes).

    Written out, not built from `_TABLE`, so a type checker sees its members; code outside
    machine/isa names an opcode as `Opcode.CAST`, never as 0x47. Each member has exactly
    one `_TABLE` row (tests/isa/test_opcode_enum.py), in the same order (ascending code).
    """

    LDWEIGHTS = 0x01
    MATMUL = 0x02
    PE_REG_WRITE = 0x03
    WEIGHT_MASK = 0x04
    WEIGHT_SHIFT = 0x05
    LDTAGS = 0x06
    MATMUL_SPARSE = 0x07
    PE_MANAGE_SEED = 0x08
    LDWEIGHTS_MX = 0x09
    MATMUL_MX = 0x0A
    ACTIVATE = 0x21
    ACTIVATE_QUANTIZE = 0x22
    ACTIVATION_TABLE_LOAD = 0x23
    ACTIVATION_READ_ACCUMULATOR = 0x24
    ACTIVATE2 = 0x25
    ACTIVATE_MULTIPASS = 0x26
    EXPONENTIAL = 0x30
    TENSOR_TENSOR_ARITH_OP = 0x41
    TENSOR_REDUCE_ARITH_OP = 0x42
    TENSOR_SCALAR_ARITH_OP = 0x43
    TENSOR_SCALAR_PTR_ARITH_OP = 0x44
    POOL = 0x45
    COPY = 0x46
    CAST = 0x47
    RECIPROCAL = 0x48
    MEMSET = 0x49
    REG_LOAD = 0x4A
    REG_STORE = 0x4B
    REG_SHUFFLE = 0x4C
    RNG = 0x4D
    TENSOR_CUMULATIVE_ARITH_OP = 0x4E
    TENSOR_SCALAR_PTR_MULTI_ARITH = 0x4F
    TENSOR_TENSOR_BITVEC_OP = 0x51
    TENSOR_REDUCE_BITVEC_OP = 0x52
    TENSOR_SCALAR_BITVEC_OP = 0x53
    TENSOR_SCALAR_PTR_BITVEC_OP = 0x54
    MAX_POOL_SELECT = 0x58
    TENSOR_CUMULATIVE_BITVEC_OP = 0x5E
    TENSOR_SCALAR_PTR_MULTI_BITVEC = 0x5F
    BATCH_NORM_STATS = 0x60
    BATCH_NORM_STATS2 = 0x61
    BATCH_NORM_AGGREGATE = 0x62
    BATCH_NORM_GRAD_ACCUMULATE = 0x63
    BATCH_NORM_PARAM_LOAD = 0x64
    BATCH_NORM_BACK_PROP = 0x65
    LOAD_PARAMETER_RAM = 0x66
    POOL_BUFFER_LOAD = 0x67
    GATHER = 0x68
    LOAD_MASK_SELECT = 0x69
    STREAM_SHUFFLE = 0x6A
    STREAM_TRANSPOSE = 0x6B
    MAX8 = 0x6C
    MATCH_VALUE_LOAD = 0x6D
    FIND_INDEX8 = 0x6E
    MATCH_REPLACE8 = 0x6F
    TENSOR_SCALAR_IMM_LD_ARITH = 0x70
    TENSOR_SCALAR_IMM_LD_BITVEC = 0x71
    COPY_PREDICATED = 0x72
    ROI_ALIGN = 0x73
    TENSOR_SCALAR_ADDR = 0x74
    RAND = 0x76
    RAND_GET_STATE = 0x77
    RAND_SET_STATE = 0x78
    EMBEDDING_UPDATE = 0x79
    LOAD_POOL_ARGUMENT = 0x7A
    TENSOR_DEQUANTIZE = 0x7B
    CROSS_LANE_REDUCE_ARITH = 0x7C
    CROSS_LANE_REDUCE_BITVEC = 0x7D
    IOTA = 0x7E
    DROPOUT = 0x7F
    JPEG_DECODE = 0x81
    TRANSPOSE_BATCH_NORM_STATS2 = 0x82
    TRANSPOSE_TENSOR_REDUCE_ARITH_OP = 0x83
    TRANSPOSE_TENSOR_REDUCE_BITVEC_OP = 0x84
    CUSTOM_OP_HEADER = 0x85
    CUSTOM_OP_PAYLOAD = 0x86
    TS_PTR_MULTI_DUAL_ARITH = 0x87
    TS_PTR_MULTI_DUAL_BITVEC = 0x88
    TENSOR_TENSOR_ADD_BF16 = 0x8A
    TENSOR_TENSOR_MULT_BF16 = 0x8B
    TENSOR_REDUCE_ADD_BF16 = 0x8C
    TENSOR_REDUCE_MAX_BF16 = 0x8D
    BATCH_NORM_PARAM_LOAD2 = 0x8E
    TENSOR_TENSOR_SUB_BF16 = 0x8F
    TENSOR_SCALAR_AFFINE_SELECT = 0x92
    TRANSPOSE_TENSOR_SCALAR_ARITH_OP = 0x93
    BATCH_NORM_GRAD_ACCUMULATE2 = 0x94
    MODIFY_POOL_CONFIG = 0x95
    SORT = 0x96
    TENSOR_SCALAR_SELECT = 0x98
    CAST_PREDICATED = 0x99
    TENSOR_SCALAR_CACHE_REDUCE = 0x9A
    DVE_READ_ACCUMULATOR = 0x9B
    TENSOR_REDUCE_RANGE_CHECK = 0x9C
    SCALAR_TENSOR_TENSOR_ARITH = 0x9D
    SCALAR_TENSOR_TENSOR_BITVEC = 0x9E
    ENGINE_NOP = 0x9F
    EVENT_SEMAPHORE = 0xA0
    HALT = 0xA1
    DRAIN = 0xA2
    INSTRUCTION_FLUSH = 0xA3
    NOP = 0xA4
    WRITE = 0xA5
    NOTIFY = 0xA6
    MOVE = 0xA7
    ALU_OP = 0xA8
    COMPARE_BRANCH = 0xA9
    TENSOR_LOAD = 0xAA
    TENSOR_STORE = 0xAB
    EVENT_SEMAPHORE_RANGE_CLEAR = 0xB0
    SET_ORDERING_MODE = 0xB1
    MOVE_SHAPE = 0xB2
    POLL_SEM = 0xB3
    TEST_EVENT_SEM = 0xB4
    BRANCH_PREFETCH_HINT = 0xB5
    COMPACT_CONTROL_INST = 0xB6
    DMAMEMCPY = 0xB8
    DMA_MEMCPY2 = 0xB9
    DMA_IMMEDIATE = 0xBA
    DMA_INDIRECT = 0xBB
    RANGE_SELECT = 0xBC
    DMA_TRANSPOSE = 0xBD
    GET_SEQUENCE_BOUNDS = 0xBE
    SB2SB_COLLECTIVE = 0xBF
    PSEUDO_DMATRIGGER = 0xC1
    PSEUDO_DMAREARM = 0xC2
    PSEUDO_DMABARRIER = 0xC3
    PSEUDO_DMAMEMCPY_FULL_IND = 0xC4
    PSEUDO_SEMAPHORE_SET = 0xC5
    PSEUDO_LOAD_ACT_FUNC_SET = 0xC6
    PSEUDO_TRIGGER_ALL_REDUCE = 0xC7
    PSEUDO_TRIGGER_COLLECTIVE = 0xC8
    PSEUDO_READ_VAR_ADDR = 0xC9
    PSEUDO_EMBEDDING_UPDATE = 0xCA
    PSEUDO_SEND_RECV = 0xCB
    PSEUDO_BRANCH_LABEL = 0xCC
    PSEUDO_TENSOR_STORE = 0xCD
    PSEUDO_TENSOR_LOAD = 0xCE
    PSEUDO_DMASWAP_QUEUE_SET = 0xCF
    PSEUDO_SET_RNG_SEED = 0xD0
    PSEUDO_FUNCTION_BEGIN = 0xD1
    PSEUDO_FUNCTION_RETURN = 0xD2
    PSEUDO_FUNCTION_CALL = 0xD3
    PSEUDO_DMA_DIRECT2D = 0xD4
    PSEUDO_SYNC_BARRIER = 0xD5
    PSEUDO_RANGE_CHECK = 0xD6
    PSEUDO_JPEG_DECODE = 0xD7
    PSEUDO_CORE_BARRIER = 0xD8
    PSEUDO_TRIGGER_COLLECTIVE2 = 0xD9
    PSEUDO_EXTENSION = 0xDA
    PSEUDO_CUR_PROCESSING_RANK_ID = 0xDB
    PSEUDO_GID_LOAD = 0xDC
    PSEUDO_BRANCH_PREFETCH_HINT = 0xDD
    PSEUDO_TENSOR_COMPLETION = 0xDE
    PSEUDO_INST = 0xDF
    SPARSITY_COMPRESS = 0xE0
    SPARSITY_COMPRESS_TAG = 0xE1
    RAND2 = 0xE2
    QUANTIZE_MX = 0xE3
    CONV_LUT_LOAD = 0xE4
    TENSOR_TENSOR_SCAN_ARITH = 0xE5
    TENSOR_SCALAR_CACHE_CUMULATIVE = 0xE6
    INDIRECT_COPY = 0xE7
    COPY_PREDICATED_SCALAR = 0xE8
    DVE_READ_INDICES = 0xE9
    SELECT_REDUCE = 0xEA
    EXTENDED_INST = 0xF0
    DMA_GATHER_TRANSPOSE = 0xF1
    NONZERO_WITH_COUNT = 0xF2
    TENSOR_TENSOR_INT_WIDE = 0xF3
    TENSOR_SCALAR_INT_WIDE = 0xF4
    INVALID = 0xFF


# member, struct ("" = undocumented -> RAW), engine key, generations, confidence
_TABLE: tuple[tuple[Opcode, str, str, str, str], ...] = (
    (Opcode.LDWEIGHTS, "", "pe", "", "HIGH"),
    (Opcode.MATMUL, "", "pe", "", "HIGH"),
    (Opcode.PE_REG_WRITE, "", "pe", "", "HIGH"),
    (Opcode.WEIGHT_MASK, "", "pe", "", "HIGH"),
    (Opcode.WEIGHT_SHIFT, "", "pe", "", "HIGH"),
    (Opcode.LDTAGS, "", "pe", "+v3", "HIGH"),
    (Opcode.MATMUL_SPARSE, "", "pe", "+v3", "HIGH"),
    (Opcode.PE_MANAGE_SEED, "", "pe", "+v4", "HIGH"),
    (Opcode.LDWEIGHTS_MX, "", "pe", "+v4", "HIGH"),
    (Opcode.MATMUL_MX, "", "pe", "+v4", "HIGH"),
    (Opcode.ACTIVATE, "", "act", "", "HIGH"),
    (Opcode.ACTIVATE_QUANTIZE, "", "act", "", "HIGH"),
    (Opcode.ACTIVATION_TABLE_LOAD, "", "act", "", "HIGH"),
    (Opcode.ACTIVATION_READ_ACCUMULATOR, "D1_RD", "act", "", "HIGH"),
    (Opcode.ACTIVATE2, "", "act", "+v4", "HIGH"),
    (Opcode.ACTIVATE_MULTIPASS, "", "act", "+v5", "HIGH"),
    (Opcode.EXPONENTIAL, "S3D3_TS", "pd", "", "MED"),
    (Opcode.TENSOR_TENSOR_ARITH_OP, "S3S3D3_TT", "pd", "", "MED"),
    (Opcode.TENSOR_REDUCE_ARITH_OP, "S4D4_TR", "pd", "", "MED"),
    (Opcode.TENSOR_SCALAR_ARITH_OP, "S3D3_TS", "pd", "", "MED"),
    (Opcode.TENSOR_SCALAR_PTR_ARITH_OP, "S3D3_TS", "pd", "", "MED"),
    (Opcode.POOL, "", "pool", "", "MED"),
    (Opcode.COPY, "S4D4_TR", "copy", "", "HIGH"),
    (Opcode.CAST, "S4D4_TR", "copy", "", "HIGH"),
    (Opcode.RECIPROCAL, "S4D4_TR", "pd", "", "MED"),
    (Opcode.MEMSET, "D4_MR", "pd", "", "MED"),
    (Opcode.REG_LOAD, "", "pd", "", "MED"),
    (Opcode.REG_STORE, "D4_MR", "pd", "", "MED"),
    (Opcode.REG_SHUFFLE, "", "pd", "", "MED"),
    (Opcode.RNG, "D4_MR", "pd", "", "MED"),
    (Opcode.TENSOR_CUMULATIVE_ARITH_OP, "S4D4_TR", "pd", "", "MED"),
    (Opcode.TENSOR_SCALAR_PTR_MULTI_ARITH, "", "pd", "", "MED"),
    (Opcode.TENSOR_TENSOR_BITVEC_OP, "S3S3D3_TT", "pd", "", "MED"),
    (Opcode.TENSOR_REDUCE_BITVEC_OP, "S4D4_TR", "pd", "", "MED"),
    (Opcode.TENSOR_SCALAR_BITVEC_OP, "S3D3_TS", "pd", "", "MED"),
    (Opcode.TENSOR_SCALAR_PTR_BITVEC_OP, "S3D3_TS", "pd", "", "MED"),
    (Opcode.MAX_POOL_SELECT, "", "pool", "", "MED"),
    (Opcode.TENSOR_CUMULATIVE_BITVEC_OP, "S4D4_TR", "pd", "", "MED"),
    (Opcode.TENSOR_SCALAR_PTR_MULTI_BITVEC, "", "pd", "", "MED"),
    (Opcode.BATCH_NORM_STATS, "", "pd", "", "MED"),
    (Opcode.BATCH_NORM_STATS2, "", "pd", "", "MED"),
    (Opcode.BATCH_NORM_AGGREGATE, "", "pd", "", "MED"),
    (Opcode.BATCH_NORM_GRAD_ACCUMULATE, "", "pd", "", "MED"),
    (Opcode.BATCH_NORM_PARAM_LOAD, "", "pd", "", "MED"),
    (Opcode.BATCH_NORM_BACK_PROP, "S3S3D3_TT", "pd", "", "MED"),
    (Opcode.LOAD_PARAMETER_RAM, "", "pool", "", "MED"),
    (Opcode.POOL_BUFFER_LOAD, "", "pool", "", "MED"),
    (Opcode.GATHER, "", "pool", "", "MED"),
    # no reference names its engine; the 2.27 compiler's mariana NEFFs issue it on DVE
    # (64 records in two public NEFFs), so it is not refused there
    (Opcode.LOAD_MASK_SELECT, "", "pd", "", "MED"),
    (Opcode.STREAM_SHUFFLE, "S4D4_TR", "pd", "", "MED"),
    (Opcode.STREAM_TRANSPOSE, "S4D4_TR", "pd", "", "MED"),
    (Opcode.MAX8, "", "dve", "", "MED"),
    (Opcode.MATCH_VALUE_LOAD, "", "dve", "", "MED"),
    (Opcode.FIND_INDEX8, "", "dve", "", "MED"),
    (Opcode.MATCH_REPLACE8, "", "dve", "", "MED"),
    (Opcode.TENSOR_SCALAR_IMM_LD_ARITH, "", "pd", "", "MED"),
    (Opcode.TENSOR_SCALAR_IMM_LD_BITVEC, "", "pd", "", "MED"),
    (Opcode.COPY_PREDICATED, "S3S3D3_TT", "dve", "", "HIGH"),
    (Opcode.ROI_ALIGN, "", "pool", "", "MED"),
    (Opcode.TENSOR_SCALAR_ADDR, "", "pd", "", "MED"),
    (Opcode.RAND, "", "pool", "", "MED"),
    (Opcode.RAND_GET_STATE, "", "pool", "", "MED"),
    (Opcode.RAND_SET_STATE, "", "pool", "", "MED"),
    (Opcode.EMBEDDING_UPDATE, "", "pool", "", "MED"),
    (Opcode.LOAD_POOL_ARGUMENT, "", "pool", "", "MED"),
    (Opcode.TENSOR_DEQUANTIZE, "", "pool", "", "HIGH"),
    (Opcode.CROSS_LANE_REDUCE_ARITH, "", "pool", "", "MED"),
    (Opcode.CROSS_LANE_REDUCE_BITVEC, "", "pool", "", "MED"),
    (Opcode.IOTA, "", "pool", "", "MED"),
    (Opcode.DROPOUT, "", "pool", "", "MED"),
    (Opcode.JPEG_DECODE, "", "pool", "+v3", "MED"),
    (Opcode.TRANSPOSE_BATCH_NORM_STATS2, "", "pd", "", "MED"),
    (Opcode.TRANSPOSE_TENSOR_REDUCE_ARITH_OP, "S4D4_TR", "pd", "", "MED"),
    (Opcode.TRANSPOSE_TENSOR_REDUCE_BITVEC_OP, "S4D4_TR", "pd", "", "MED"),
    (Opcode.CUSTOM_OP_HEADER, "", "pool", "", "MED"),
    (Opcode.CUSTOM_OP_PAYLOAD, "", "pool", "", "MED"),
    (Opcode.TS_PTR_MULTI_DUAL_ARITH, "", "pd", "v2", "MED"),
    (Opcode.TS_PTR_MULTI_DUAL_BITVEC, "", "pd", "v2", "MED"),
    (Opcode.TENSOR_TENSOR_ADD_BF16, "", "pd", "v2", "MED"),
    (Opcode.TENSOR_TENSOR_MULT_BF16, "", "pd", "v2", "MED"),
    (Opcode.TENSOR_REDUCE_ADD_BF16, "", "pd", "v2", "MED"),
    (Opcode.TENSOR_REDUCE_MAX_BF16, "", "pd", "v2", "MED"),
    (Opcode.BATCH_NORM_PARAM_LOAD2, "", "pd", "", "MED"),
    (Opcode.TENSOR_TENSOR_SUB_BF16, "", "pd", "v2", "MED"),
    (Opcode.TENSOR_SCALAR_AFFINE_SELECT, "", "pd", "", "MED"),
    (Opcode.TRANSPOSE_TENSOR_SCALAR_ARITH_OP, "S3D3_TS", "pd", "", "MED"),
    (Opcode.BATCH_NORM_GRAD_ACCUMULATE2, "", "pd", "", "MED"),
    (Opcode.MODIFY_POOL_CONFIG, "", "pool", "", "MED"),
    (Opcode.SORT, "", "pool", "", "MED"),
    (Opcode.TENSOR_SCALAR_SELECT, "", "pd", "", "MED"),
    (Opcode.CAST_PREDICATED, "S3S3D3_TT", "dve", "", "HIGH"),
    (Opcode.TENSOR_SCALAR_CACHE_REDUCE, "S3D3_TS", "dve", "", "HIGH"),
    (Opcode.DVE_READ_ACCUMULATOR, "D1_RD", "dve", "", "HIGH"),
    (Opcode.TENSOR_REDUCE_RANGE_CHECK, "", "dve", "", "MED"),
    (Opcode.SCALAR_TENSOR_TENSOR_ARITH, "S2S2D2_STT", "dve", "", "MED"),
    (Opcode.SCALAR_TENSOR_TENSOR_BITVEC, "S2S2D2_STT", "dve", "", "MED"),
    (Opcode.ENGINE_NOP, "", "seq", "", "HIGH"),
    (Opcode.EVENT_SEMAPHORE, "CTRL_ES", "seq", "", "MED"),
    (Opcode.HALT, "", "seq", "", "HIGH"),
    (Opcode.DRAIN, "", "seq", "", "HIGH"),
    (Opcode.INSTRUCTION_FLUSH, "", "seq", "", "HIGH"),
    (Opcode.NOP, "", "seq", "", "HIGH"),
    (Opcode.WRITE, "", "seq", "", "HIGH"),
    (Opcode.NOTIFY, "", "seq", "", "HIGH"),
    (Opcode.MOVE, "CTRL_MV", "seq", "", "HIGH"),
    (Opcode.ALU_OP, "CTRL_AL", "seq", "", "HIGH"),
    (Opcode.COMPARE_BRANCH, "CTRL_BR", "seq", "", "MED"),
    (Opcode.TENSOR_LOAD, "", "seq", "", "HIGH"),
    (Opcode.TENSOR_STORE, "", "seq", "", "HIGH"),
    (Opcode.EVENT_SEMAPHORE_RANGE_CLEAR, "", "seq", "", "HIGH"),
    (Opcode.SET_ORDERING_MODE, "", "seq", "", "HIGH"),
    (Opcode.MOVE_SHAPE, "CTRL_MS", "seq", "", "HIGH"),
    (Opcode.POLL_SEM, "", "seq", "", "HIGH"),
    (Opcode.TEST_EVENT_SEM, "CTRL_TEST_ES", "seq", "+v4", "HIGH"),
    (Opcode.BRANCH_PREFETCH_HINT, "", "seq", "", "HIGH"),
    (Opcode.COMPACT_CONTROL_INST, "", "seq", "+v5", "HIGH"),
    (Opcode.DMAMEMCPY, "", "dma", "", "LOW"),
    (Opcode.DMA_MEMCPY2, "", "dma", "+v5", "LOW"),
    (Opcode.DMA_IMMEDIATE, "", "dma", "+v5", "LOW"),
    (Opcode.DMA_INDIRECT, "", "dma", "", "LOW"),
    (Opcode.RANGE_SELECT, "S2D2_RS", "dve", "+v3", "HIGH"),
    (Opcode.DMA_TRANSPOSE, "", "dma", "+v3", "LOW"),
    (Opcode.GET_SEQUENCE_BOUNDS, "", "pd", "+v3", "MED"),
    (Opcode.SB2SB_COLLECTIVE, "", "dma", "+v3", "LOW"),
    # PSEUDO_DMATRIGGER's payload is neff-facts §5.3 (struct DMA_TRIGGER)
    *((op, "DMA_TRIGGER" if op is Opcode.PSEUDO_DMATRIGGER else "", "none",
       "+v3" if op is Opcode.PSEUDO_JPEG_DECODE else "", "HIGH")
      for op in Opcode if op.name.startswith("PSEUDO_")),
    (Opcode.SPARSITY_COMPRESS, "", "pd", "+v4", "MED"),
    (Opcode.SPARSITY_COMPRESS_TAG, "", "pd", "+v4", "MED"),
    (Opcode.RAND2, "", "pool", "+v4", "MED"),
    (Opcode.QUANTIZE_MX, "", "dve", "+v4", "HIGH"),
    (Opcode.CONV_LUT_LOAD, "", "pd", "+v3", "MED"),
    (Opcode.TENSOR_TENSOR_SCAN_ARITH, "S2S2D2_STT", "dve", "", "MED"),
    (Opcode.TENSOR_SCALAR_CACHE_CUMULATIVE, "S3D3_TS", "dve", "", "HIGH"),
    (Opcode.INDIRECT_COPY, "", "pool", "", "MED"),
    (Opcode.COPY_PREDICATED_SCALAR, "", "dve", "", "MED"),
    (Opcode.DVE_READ_INDICES, "D4_MR", "dve", "+v3", "HIGH"),
    (Opcode.SELECT_REDUCE, "S2S2D2_STT", "dve", "", "HIGH"),
    (Opcode.EXTENDED_INST, "", "pool", "", "MED"),
    (Opcode.DMA_GATHER_TRANSPOSE, "", "dma", "+v3", "LOW"),
    (Opcode.NONZERO_WITH_COUNT, "", "pd", "+v3", "MED"),
    (Opcode.TENSOR_TENSOR_INT_WIDE, "", "pd", "+v5", "MED"),
    (Opcode.TENSOR_SCALAR_INT_WIDE, "", "pd", "+v5", "MED"),
    (Opcode.INVALID, "", "none", "", "HIGH"),
)

OPCODES: dict[int, OpcodeInfo] = {
    int(op): OpcodeInfo(int(op), op.name, struct or "RAW", _E[eng], _GENS[gens], conf,
                        "" if struct else "operand layout not documented: decoded as raw bytes")
    for op, struct, eng, gens, conf in _TABLE
}
_BY_NAME: dict[str, OpcodeInfo] = {i.name: i for i in OPCODES.values()}


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
