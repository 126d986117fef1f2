"""DVE-side predicates: the predicated copy/cast (isa-facts §5.2), tensor-tensor ops
(§3.3), RANGE_SELECT and SELECT_REDUCE and the tensor-scalar accumulator command sets
(§6.3-6.4), the accumulator read-back D1_RD and the D4_MR family (§6.4).
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.isa.enums import AccumCmd, AluOp, ImmSrc, ReduceOp, RevOps
from neurondbg.machine.isa.opcodes import Opcode as Op
from neurondbg.machine.legality.messages import quoting
from neurondbg.machine.legality.provenance import Provenance
from neurondbg.machine.legality.wire import common as c
from neurondbg.machine.legality.wire import gates
from neurondbg.machine.legality.wire.clause import (
    Clause,
    Ctx,
    Predicate,
    Rows,
    Values,
    as_mask,
    composite,
    lookup,
)
from neurondbg.machine.legality.wire.operands import (
    SBUF,
    DtypeRef,
    Tensor,
    decode_words,
    element_count,
    value_count,
)

# -- ALU op classes (isa-facts §3.3) --------------------------------------------------------

A = AluOp
BITVEC = frozenset({A.BYPASS, A.BITWISE_NOT, A.ARITH_SHIFT_LEFT, A.ARITH_SHIFT_RIGHT,
                    A.LOGICAL_SHIFT_LEFT, A.LOGICAL_SHIFT_RIGHT, A.BITWISE_AND, A.BITWISE_OR,
                    A.BITWISE_XOR, A.CRC32})
GENERAL_BITVEC = BITVEC - {A.CRC32}
INT_OPS = frozenset({A.ADD_INT, A.MULT_INT, A.SUB_INT, A.DIVIDE_INT, A.MOD_INT})
ARITH = frozenset({A.BYPASS, A.ADD, A.SUBTRACT, A.MULT, A.DIVIDE, A.MAX, A.MIN, A.LOGICAL_AND,
                   A.LOGICAL_OR, A.LOGICAL_XOR, A.IS_EQUAL, A.IS_GT, A.IS_GE, A.IS_LE, A.IS_LT,
                   A.IS_NE, A.ABS_DIFF, A.ABS_VALUE, A.POW, A.MOD, A.RSQRT, A.ABS_MAX, A.ABS_MIN,
                   A.RELU, A.SQUARE}) | INT_OPS
GENERAL_ARITH = ARITH - {A.DIVIDE, A.POW, A.MOD, A.RSQRT} - INT_OPS
# isa-facts §3.3: the 0xC4..0xE1 band minus the four argmax/argmin ops, plus MOD.
# Decision (review P6 L3): isa-facts prints the count "(26)" but its rule names 27 ops
# (30 - 4 = 26 band ops, + MOD). The rule wins over the printed count: it is the more
# specific statement, and MOD would otherwise never reach TENSOR_TENSOR_ARITH 0x41, which
# accepts general_arith || POW || int_aluop and general_arith excludes MOD. Count: 27.
INT_ALUOP = frozenset(op for op in A if 0xC4 <= op <= 0xDD) | {A.MOD}
COMPARE = frozenset({A.IS_EQUAL, A.IS_GT, A.IS_GE, A.IS_LE, A.IS_LT})
CACHE_FOLD = frozenset({A.ADD, A.SUBTRACT, A.MULT, A.MAX, A.MIN})

P_OPS = Provenance("isa-facts", "§3.3")


def op_class(name: str, field: str, members: frozenset[AluOp], prov: Provenance,
             rule: str) -> Clause:
    """The ALU op is in a class (restricted to the ops the generation has)."""
    def table(gen: Gen) -> np.ndarray:
        return as_mask(c.alu_table(gen) & c.enum_table(members))

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        return f"{field} {c.alu_name(int(v[field]))} " + ("is" if ok else "is not") \
            + f" {rule} on {ctx.gen.label}"

    return Clause(name, (field,), lambda r: lookup(table(r.ctx.gen), r[field]), message, prov)


# The accepted command nearest in meaning to a refused one (NKI names, isa-facts §6.1):
# reset (ZERO) -> reset_reduce (ZERO_ACCUMULATE), load_reduce -> reduce (ACCUMULATE).
NEAREST_CMD: dict[int, AccumCmd] = {AccumCmd.ZERO: AccumCmd.ZERO_ACCUMULATE,
                                    AccumCmd.LOAD_ACCUMULATE: AccumCmd.ACCUMULATE,
                                    AccumCmd.IDLE: AccumCmd.ACCUMULATE}


def accum_set(name: str, field: str, codes: frozenset[int], prov: Provenance,
              rule: str) -> Clause:
    def repair(v: Values, ctx: Ctx) -> list[dict[str, int]]:
        near = NEAREST_CMD.get(int(v[field]))
        return [{field: int(near)}] if near is not None and near in codes else []

    def fix(v: Values, ctx: Ctx) -> str:
        near = NEAREST_CMD.get(int(v[field]))
        names = ", ".join(AccumCmd(x).name for x in sorted(codes))
        if near is not None and near in codes:
            return f"use {near.name} ({int(near)}), the accepted command nearest in meaning"
        return f"use one of {names}"

    return replace(c.in_set(name, field, codes, prov, rule,
                            names={int(m): m.name for m in AccumCmd}), repair=repair, fix=fix)


# -- predicated copy / cast 0x72 / 0x99 (isa-facts §5.2) -----------------------------------

P_PRED = Provenance("isa-facts", "§5.2")
TT_NAC = "num_active_channels"
# The in0_in1_dtype pair layouts (S3S3D3_TT, S2S2D2_STT): src0 reads dtype_lo, src1
# dtype_hi, dst is written in out_dtype.
LO = DtypeRef("in0_in1_dtype", "lo")
HI = DtypeRef("in0_in1_dtype", "hi")
TT_OUT = DtypeRef("out_dtype")


def _pair_operands(rank: int) -> tuple[Tensor, Tensor, Tensor]:
    """src0, src1 and dst of a pair layout whose access patterns have `rank` dims."""
    return (Tensor("src0", "src0", rank, LO), Tensor("src1", "src1", rank, HI),
            Tensor("dst", "dst", rank, TT_OUT, write=True))


def _pair_dtypes(prov: Provenance, allow_fp32r: bool = False) -> tuple[Clause, ...]:
    """out_dtype, dtype_lo and dtype_hi of a pair layout are valid dtypes."""
    return (c.dtype_clause(TT_OUT, allow_fp32r=allow_fp32r, prov=prov),
            c.dtype_clause(LO, label="dtype_lo", prov=prov),
            c.dtype_clause(HI, label="dtype_hi", prov=prov))


def _placed(nac: str, *tensors: Tensor) -> tuple[Clause, ...]:
    """Each operand starts within the active channels, then each operand is valid whole
    (the order every DVE predicate lists them in)."""
    return (*(c.start_addr_active_channels(t, nac) for t in tensors),
            *(cl for t in tensors for cl in c.operand_valid(t)))


SRC0, SRC1, TT_DST = _pair_operands(3)


def _tt_tensor_clauses() -> list[Clause]:
    return [
        c.active_channels(TT_NAC, prov=P_PRED),
        *_placed(TT_NAC, SRC0, SRC1, TT_DST),
        c.same_count("tt_same_element_count", SRC0, SRC1, P_PRED, TT_DST),
        c.tt_valid_partitions(SRC0, SRC1),
    ]


def _pred_same_type(r: Rows) -> np.ndarray:
    return as_mask((r["header.opcode"] == Op.CAST_PREDICATED) | (HI.column(r) == r["out_dtype"]))


def _pred_same_type_msg(v: Values, ctx: Ctx, ok: bool) -> str:
    if int(v["header.opcode"]) == Op.CAST_PREDICATED:
        return "CAST_PREDICATED may convert src1's dtype to out_dtype"
    hi, out = HI.value(v), int(v["out_dtype"])
    return (f"dtype_hi (src1) {gates.dtype_label(hi)} " + ("==" if ok else "!=")
            + f" out_dtype {gates.dtype_label(out)}: COPY_PREDICATED keeps the dtype; "
            f"CAST_PREDICATED ({Op.CAST_PREDICATED:#04x}) converts")


COPY_CAST_PREDICATED = Predicate(
    "is_valid_copy_cast_predicated", "S3S3D3_TT", (Op.COPY_PREDICATED, Op.CAST_PREDICATED), (
        *c.header_clauses(),
        *_pair_dtypes(P_PRED),
        c.dtype_set_clause("is_valid_int_dtype_datapath(dtype_lo)", LO, gates.INT_DATAPATH,
                           P_PRED, "the predicate (src0) is an integer tensor",
                           label="dtype_lo"),
        Clause("is_cast_predicated_or_same_dtype", ("header.opcode", "in0_in1_dtype",
                                                    "out_dtype"),
               _pred_same_type, _pred_same_type_msg, P_PRED,
               fix=lambda v, ctx: f"use CAST_PREDICATED ({Op.CAST_PREDICATED:#04x}) to convert, "
               "or set out_dtype to src1's dtype"),
        c.alu_equals("op_bypass", "op", A.BYPASS, P_PRED, "the predicated copy is a BYPASS"),
        *_tt_tensor_clauses(),
    ), P_PRED, doc="dst[i] = src0[i] != 0 ? convert(src1[i]) : dst[i]")


TENSOR_TENSOR_ARITH = Predicate(
    "is_valid_tensor_tensor_arith", "S3S3D3_TT", (Op.TENSOR_TENSOR_ARITH_OP,), (
        *c.header_clauses(),
        c.informational("partially documented predicate",
                        "isa-facts §3.3 gives the op acceptance; the rest are the shared "
                        "S3S3D3_TT operand clauses (MED)", P_OPS),
        quoting(op_class("tensor_tensor_arith_accepts(op)", "op",
                         GENERAL_ARITH | {A.POW} | INT_ALUOP, P_OPS,
                         "general arith, POW or an integer ALU op "
                         f"(TENSOR_TENSOR_ARITH {Op.TENSOR_TENSOR_ARITH_OP:#04x})"),
                # isa-facts §3.3's class predicates this clause is the disjunction of
                aliases=("is_valid_int_aluop", "is_general_arith_op")),
        *_pair_dtypes(P_OPS, allow_fp32r=True),
        *_tt_tensor_clauses(),
    ), P_OPS)

TENSOR_TENSOR_BITVEC = Predicate(
    "is_valid_tensor_tensor_bitvec", "S3S3D3_TT", (Op.TENSOR_TENSOR_BITVEC_OP,), (
        *c.header_clauses(),
        c.informational("partially documented predicate",
                        "isa-facts §3.3 gives the op acceptance; the rest are the shared "
                        "S3S3D3_TT operand clauses (MED)", P_OPS),
        op_class("is_general_bitvec_op(op)", "op", GENERAL_BITVEC, P_OPS,
                 f"a general bitvec op (TENSOR_TENSOR_BITVEC {Op.TENSOR_TENSOR_BITVEC_OP:#04x}; "
                 "CRC32 excluded)"),
        *_pair_dtypes(P_OPS),
        *_tt_tensor_clauses(),
    ), P_OPS)


# -- immediates (isa-facts §6.4 has_valid_immediates) ----------------------------------------

P_IMM = Provenance("isa-facts", "§6.4 has_valid_immediates")


class ImmRef(NamedTuple):
    """An IMM_VAL slot: its value field, its IMM_SRC field, the alignment dtype (a
    NamedTuple: cheaper to declare than a frozen dataclass)."""

    label: str
    value: str
    src: str
    align: DtypeRef


def _imm_pointer_ok(imm: ImmRef, nac: str, r: Rows) -> tuple[np.ndarray, np.ndarray]:
    """(pointer rows, tpb_addr_active_channels) of an IMM slot: an on-chip SBUF address
    whose partition + nac <= 128 (isa-facts §6.4: a PartitionOffset into SBUF)."""
    ptr = r[imm.src] == ImmSrc.POINTER_IMMEDIATE
    if not ptr.any():  # the address decode only when some record holds a pointer
        return ptr, np.ones(len(r), dtype=bool)
    a = decode_words(r[imm.value], r.ctx.gen)
    return ptr, a.immediate & (a.space == SBUF) & a.backed & (
        a.partition + r[nac] <= c.PARTITIONS)


def _imm_where(imm: ImmRef, v: Values, ctx: Ctx) -> str:
    word = int(v[imm.value])
    a = decode_words(np.array([word], dtype=np.uint32), ctx.gen)
    return (f"SBUF partition {int(a.partition[0])} byte {int(a.offset[0])}"
            if a.space[0] == SBUF and a.backed[0] else "not an SBUF address")


def _imm_mode(imm: ImmRef, v: Values, mode: int) -> str | None:
    """The message of a rule that does not apply to this IMM_SRC mode (None: it applies)."""
    if int(v[imm.src]) == mode:
        return None
    return f"{imm.label} is not {ImmSrc(mode).name}: the rule does not apply"


def has_valid_immediates(imm: ImmRef, nac: str) -> Clause:
    """has_valid_immediates(imm, src, nac, dtype) as its sub-predicates (isa-facts §6.4):
    INSTRUCTION: passes; POINTER: tpb_addr_active_channels && addr_aligned_dtype (an SBUF
    PartitionOffset address, the DESIGN decision partition + nac <= 128); REG_PTR:
    is_valid_imm_reg (register < 64)."""
    def tpb_check(r: Rows) -> np.ndarray:
        ptr, ok = _imm_pointer_ok(imm, nac, r)
        return as_mask(~ptr | ok)

    def tpb_message(v: Values, ctx: Ctx, ok: bool) -> str:
        skip = _imm_mode(imm, v, ImmSrc.POINTER_IMMEDIATE)
        if skip:
            return skip
        return (f"{imm.label} is a pointer 0x{int(v[imm.value]):08X} ({_imm_where(imm, v, ctx)}):"
                f" it must be an SBUF address with partition + {nac} {int(v[nac])} <= 128")

    def tpb_repair(v: Values, ctx: Ctx) -> list[dict[str, int]]:
        return [{imm.value: 0}, {imm.src: int(ImmSrc.INSTRUCTION_IMMEDIATE)}]

    def aligned_check(r: Rows) -> np.ndarray:
        ptr = r[imm.src] == ImmSrc.POINTER_IMMEDIATE
        low = lookup(gates.align_mask_table(), imm.align.column(r))
        return as_mask(~ptr | ((r[imm.value] & low) == 0))

    def aligned_message(v: Values, ctx: Ctx, ok: bool) -> str:
        skip = _imm_mode(imm, v, ImmSrc.POINTER_IMMEDIATE)
        if skip:
            return skip
        size = gates.element_size(imm.align.value(v))
        return (f"pointer 0x{int(v[imm.value]):08X} " + ("is" if ok else "is not")
                + f" aligned to {size} bytes")

    def aligned_repair(v: Values, ctx: Ctx) -> list[dict[str, int]]:
        size = gates.element_size(imm.align.value(v))
        return [{imm.value: int(v[imm.value]) & ~(size - 1)}]

    def reg_check(r: Rows) -> np.ndarray:
        reg = r[imm.src] == ImmSrc.REG_PTR_IMMEDIATE
        return as_mask(~reg | ((r[imm.value] & 0xFF) < 64))

    def reg_message(v: Values, ctx: Ctx, ok: bool) -> str:
        skip = _imm_mode(imm, v, ImmSrc.REG_PTR_IMMEDIATE)
        if skip:
            return skip
        return f"{imm.label} names register {int(v[imm.value]) & 0xFF}: R0..R63 " + (
            "holds the pointer" if ok else "are the only GP registers")

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        mode, word = int(v[imm.src]), int(v[imm.value])
        if mode == ImmSrc.POINTER_IMMEDIATE:
            size = gates.element_size(imm.align.value(v))
            return (f"{imm.label} is a pointer 0x{word:08X} ({_imm_where(imm, v, ctx)}): it "
                    f"must be an SBUF address with partition + {nac} {int(v[nac])} <= 128, "
                    f"aligned to {size} bytes (tpb_addr_active_channels, addr_aligned_dtype)")
        if mode == ImmSrc.REG_PTR_IMMEDIATE:
            return f"{imm.label} names register {word & 0xFF}: is_valid_imm_reg needs R0..R63"
        if mode == ImmSrc.INSTRUCTION_IMMEDIATE:
            return f"{imm.label} is an inline immediate 0x{word:08X}: always valid"
        return f"{imm.src} {mode} is not an IMM_SRC (checked by is_valid_enum)"

    fields = (imm.src, imm.value, nac)
    return composite(f"has_valid_immediates({imm.label})", (
        Clause("tpb_addr_active_channels", fields, tpb_check, tpb_message, P_IMM,
               fix=lambda v, ctx: f"point {imm.label} into SBUF within the active channels",
               repair=tpb_repair),
        Clause("addr_aligned_dtype", (imm.src, imm.value, *imm.align.fields), aligned_check,
               aligned_message, P_IMM, fix=lambda v, ctx: f"align the {imm.label} pointer",
               repair=aligned_repair),
        Clause("is_valid_imm_reg", (imm.src, imm.value), reg_check, reg_message, P_IMM,
               fix=lambda v, ctx: f"name R0..R63 in byte 0 of {imm.value}",
               repair=lambda v, ctx: [{imm.value: int(v[imm.value]) & 0x3F}]),
    ), P_IMM, message=message)


# -- RANGE_SELECT 0xbc (isa-facts §6.3-6.4) ----------------------------------------------------

P_RS = Provenance("isa-facts", "§6.4 S2D2_RS")
# isa-facts §6.4 names the byte `in_out_dtype (DTYPE_PAIR)` but not which nibble is which:
# lo = input, hi = output by analogy with DTYPE_PAIR's lo = in0 (§5.1), a neurondbg decision.
P_RS_NIBBLE = Provenance("isa-facts", "§6.4 S2D2_RS; nibble roles (lo in, hi out) decided "
                         "by neurondbg", "LOW")
RS_IN = DtypeRef("in_out_dtype", "lo")
RS_OUT = DtypeRef("in_out_dtype", "hi")
RS_SRC = Tensor("src", "src", 2, RS_IN)
RS_DST = Tensor("dst", "dst", 2, RS_OUT, write=True)
FP32_BOUND = DtypeRef("bound0", fixed=int(Dtype.FP32))
NEG_FLT_MAX = 0xFF7FFFFF
FP24 = 1 << 24


def _base_ok(r: Rows) -> np.ndarray:
    base = r["base"].astype(np.int64)
    shape = decode_words(r["src.start_addr"], r.ctx.gen).shape
    return as_mask(((base <= FP24) & (base + element_count(r, RS_SRC) <= FP24)) | shape)


def _base_msg(v: Values, ctx: Ctx, ok: bool) -> str:
    if int(v["src.start_addr"]) & (1 << 30):
        return "the shape comes from the shape registers: base is checked at run time"
    base, n = int(v["base"]), value_count(v, RS_SRC)
    return (f"base {base} and base + element count {base + n} must both be <= 2^24 "
            "(range indices are compared exactly in fp32)")


RANGE_SELECT = Predicate("is_valid_range_select", "S2D2_RS", (Op.RANGE_SELECT,), (
    *c.header_clauses(),
    Clause("has_valid_nc_rs", (), lambda r: np.full(len(r), r.ctx.gen >= Gen.CAYMAN),
           lambda v, ctx, ok: f"RANGE_SELECT exists from NC-v3 (cayman) on; this is "
           f"{ctx.gen.label}", P_RS,
           fix=lambda v, ctx: "no field edit adds the opcode: use --gen cayman or later"),
    c.active_channels("nac", prov=P_RS),
    c.dtype_set_clause("is_valid_fp_dtype_datapath(in_dtype)", RS_IN, gates.FP_DATAPATH,
                       P_RS_NIBBLE, "RANGE_SELECT input is FP only", label="in_dtype"),
    c.dtype_set_clause("is_valid_fp_dtype_datapath(out_dtype)", RS_OUT,
                       gates.FP_DATAPATH | {Dtype.FP32R}, P_RS_NIBBLE,
                       "RANGE_SELECT output is FP only (FP32R allowed)", label="out_dtype"),
    accum_set("range_select_valid_reduce_cmd", "reduce_cmd",
              frozenset({AccumCmd.IDLE, AccumCmd.ACCUMULATE, AccumCmd.ZERO_ACCUMULATE}),
              Provenance("isa-facts", "§6.3"),
              "LOAD_ACCUMULATE would need an immediate slot the bounds use; ZERO alone is "
              "not accepted"),
    c.equals("range_select_reduce_op_max", "reduce_op", int(ReduceOp.MAX), P_RS,
             "the only reduction is MAX (REDUCE_OP 2)"),
    c.in_set("is_valid_comp_op(comp_op0)", "comp_op0", COMPARE, P_RS,
             "comparisons are IS_EQUAL..IS_LT only", names={int(m): m.name for m in COMPARE}),
    c.in_set("is_valid_comp_op(comp_op1)", "comp_op1", COMPARE, P_RS,
             "comparisons are IS_EQUAL..IS_LT only", names={int(m): m.name for m in COMPARE}),
    c.equals("range_select_fill_val_neg_flt_max", "fill_val", NEG_FLT_MAX, P_RS,
             "fill_val is fixed to -FLT_MAX (not -inf) by DVE restrictions", label="hex"),
    Clause("range_select_base_in_fp32_range", ("base", "src.num_elem", "src.start_addr"),
           _base_ok, _base_msg, P_RS),
    c.is_valid_enum("bound0_src", ImmSrc, P_RS),
    c.is_valid_enum("bound1_src", ImmSrc, P_RS),
    has_valid_immediates(ImmRef("bound0", "bound0", "bound0_src", FP32_BOUND), "nac"),
    has_valid_immediates(ImmRef("bound1", "bound1", "bound1_src", FP32_BOUND), "nac"),
    *_placed("nac", RS_SRC, RS_DST),
    c.same_count("range_select_same_src_dst_count", RS_SRC, RS_DST, P_RS),
), P_RS, doc="p = (x op0 bound0) && (x op1 bound1); out = p ? x : fill_val")


# -- S2S2D2_STT: SELECT_REDUCE 0xea and the scalar-tensor-tensor ops --------------------------

P_STT = Provenance("isa-facts", "§6.3-6.4 S2S2D2_STT")
STT_SRC0, STT_SRC1, STT_DST = _pair_operands(2)


def _stt_common() -> list[Clause]:
    return [
        *_pair_dtypes(P_STT, allow_fp32r=True),
        c.is_valid_enum("reverse_operands", RevOps, P_STT),
        c.is_valid_enum("imm0_src", ImmSrc, P_STT),
        c.active_channels("nac", prov=P_STT),
        *_placed("nac", STT_SRC0, STT_SRC1, STT_DST),
    ]


SELECT_REDUCE = Predicate("is_valid_select_reduce", "S2S2D2_STT", (Op.SELECT_REDUCE,), (
    *c.header_clauses(),
    c.informational("partially documented predicate",
                    "isa-facts §6.3 gives the accumulator commands and the op pair; the "
                    "S2S2D2_STT operand clauses are neurondbg's, from the §6.4 layout (MED)",
                    P_STT),
    accum_set("select_reduce_valid_accumulator_cmd", "accumulator_cmd",
              frozenset({AccumCmd.IDLE, AccumCmd.ACCUMULATE, AccumCmd.ZERO_ACCUMULATE}),
              Provenance("isa-facts", "§6.3"), "SELECT_REDUCE accepts IDLE, ACCUMULATE, "
              "ZERO_ACCUMULATE"),
    c.alu_equals("select_reduce_op0_bypass", "op0", A.BYPASS, Provenance("isa-facts", "§6.3"),
               "the select passes the chosen value through"),
    c.alu_equals("select_reduce_op1_max", "op1", A.MAX, Provenance("isa-facts", "§6.3"),
               "the reduction into the accumulator is MAX"),
    *_stt_common(),
), P_STT)

SCALAR_TENSOR_TENSOR = Predicate(
    "is_valid_scalar_tensor_tensor", "S2S2D2_STT", (
        Op.SCALAR_TENSOR_TENSOR_ARITH, Op.SCALAR_TENSOR_TENSOR_BITVEC,
        Op.TENSOR_TENSOR_SCAN_ARITH), (
        *c.header_clauses(),
        c.informational("partially documented predicate",
                        "isa-facts §6.4 gives the S2S2D2_STT layout; neurondbg checks the "
                        "enums, dtypes and operands (MED)", P_STT),
        c.alu_enum("op0", P_STT), c.alu_enum("op1", P_STT),
        accum_set("is_valid_enum(accumulator_cmd)", "accumulator_cmd",
                  frozenset(int(m) for m in AccumCmd), P_STT, "an ACCUM_CMD code"),
        *_stt_common(),
    ), P_STT)


# -- S3D3_TS: tensor-scalar ops and the cache reduce / cumulative accumulators ----------------

P_TS = Provenance("isa-facts", "§6.3-6.4 S3D3_TS")
TS_IN = DtypeRef("in_dtype")
TS_OUT = DtypeRef("out_dtype")
# isa-facts §2.1: MEM_PATTERN3D is defined from CAYMAN on
TS_SRC = Tensor("src", "src", 3, TS_IN, mem_pattern_from=Gen.CAYMAN)
TS_DST = Tensor("dst", "dst", 3, TS_OUT, write=True)
_BITVEC_TS = (Op.TENSOR_SCALAR_BITVEC_OP, Op.TENSOR_SCALAR_PTR_BITVEC_OP)
_LEGACY_PTR = (Op.TENSOR_SCALAR_PTR_ARITH_OP, Op.TENSOR_SCALAR_PTR_BITVEC_OP)


class _ImmAlign(DtypeRef):
    """has_valid_immediates alignment: 4 bytes for arith opcodes, in_dtype for bitvec."""

    __slots__ = ()

    def column(self, rows: Rows) -> np.ndarray:
        bitvec = np.isin(rows["header.opcode"], _BITVEC_TS)
        return np.where(bitvec, rows["in_dtype"], np.uint8(Dtype.FP32))

    def value(self, v: Values) -> int:
        return int(v["in_dtype"]) if int(v["header.opcode"]) in _BITVEC_TS else int(Dtype.FP32)


TS_ALIGN = _ImmAlign("in_dtype")


def _ptr_ops(r: Rows) -> np.ndarray:
    legacy = np.isin(r["header.opcode"], _LEGACY_PTR)
    both = (r["imm0_src"] == ImmSrc.POINTER_IMMEDIATE) & (r["imm1_src"] == ImmSrc.POINTER_IMMEDIATE)
    return as_mask(~legacy | both)


def _ts(name: str, codes: tuple[int, ...], accum: frozenset[int] | None,
        extra: tuple[Clause, ...] = (), partial: bool = False,
        op_enums: bool = True) -> Predicate:
    clauses: list[Clause] = [*c.header_clauses()]
    if partial:
        clauses.append(c.informational(
            "partially documented predicate",
            "isa-facts §6.4 gives the S3D3_TS layout; neurondbg checks the enums, dtypes, "
            "immediates and operands (MED)", P_TS))
    if accum is not None:
        names = ", ".join(AccumCmd(x).name for x in sorted(accum))
        clauses.append(accum_set(f"{name}_valid_accumulator_cmd".removeprefix("is_valid_"),
                                 "accumulator_cmd", accum, Provenance("isa-facts", "§6.3"),
                                 f"this opcode accepts {{{names}}}"))
    clauses += [
        *extra,
        # the cache ops' class clauses already imply the enum membership
        *((c.alu_enum("op0", P_TS), c.alu_enum("op1", P_TS)) if op_enums else ()),
        c.dtype_clause(TS_IN, prov=P_TS),
        c.dtype_clause(TS_OUT, allow_fp32r=True, prov=P_TS),
        c.is_valid_enum("imm0_src", ImmSrc, P_TS), c.is_valid_enum("imm1_src", ImmSrc, P_TS),
        c.is_valid_enum("reverse_operands", RevOps, P_TS),
        has_valid_immediates(ImmRef("imm0", "imm0", "imm0_src", TS_ALIGN), "nac"),
        has_valid_immediates(ImmRef("imm1", "imm1", "imm1_src", TS_ALIGN), "nac"),
        c.active_channels("nac", prov=P_TS),
        *_placed("nac", TS_SRC, TS_DST),
    ]
    return Predicate(name, "S3D3_TS", codes, tuple(clauses), P_TS)


CACHE_CMDS = frozenset({AccumCmd.ACCUMULATE, AccumCmd.ZERO_ACCUMULATE, AccumCmd.LOAD_ACCUMULATE})
_CACHE_OPS = (
    op_class("is_general_arith_op(op0)", "op0", GENERAL_ARITH, Provenance("isa-facts", "§6.3"),
             "a general arith op (the elementwise step)"),
    op_class("tensor_scalar_cache_fold_op(op1)", "op1", CACHE_FOLD,
             Provenance("isa-facts", "§6.3"),
             "one of ADD, SUBTRACT, MULT, MAX, MIN (the fold into the accumulator)"),
)
PTR_IMMEDIATES = Clause(
    "ptr_opcode_immediates_are_pointers", ("header.opcode", "imm0_src", "imm1_src"),
    _ptr_ops,
    lambda v, ctx, ok: f"imm0_src {int(v['imm0_src'])}, imm1_src {int(v['imm1_src'])}: "
    f"the legacy PTR opcodes ({_LEGACY_PTR[0]:#04x}, {_LEGACY_PTR[1]:#04x}) take both immediates "
    "as pointers (POINTER 1)"
    if int(v["header.opcode"]) in _LEGACY_PTR else "not a legacy PTR opcode",
    P_IMM, fix=lambda v, ctx: "set imm0_src = imm1_src = 1 (POINTER_IMMEDIATE)",
    repair=lambda v, ctx: [{k: 1 for k in ("imm0_src", "imm1_src") if int(v[k]) != 1}])

TENSOR_SCALAR = _ts("is_valid_tensor_scalar", (Op.TENSOR_SCALAR_ARITH_OP,
                                               Op.TENSOR_SCALAR_BITVEC_OP, *_LEGACY_PTR,
                                               Op.TRANSPOSE_TENSOR_SCALAR_ARITH_OP),
                    frozenset({AccumCmd.IDLE}), extra=(PTR_IMMEDIATES,), partial=True)
TENSOR_SCALAR_CACHE_REDUCE = _ts("is_valid_tensor_scalar_cache_reduce",
                                 (Op.TENSOR_SCALAR_CACHE_REDUCE,), CACHE_CMDS,
                                 extra=_CACHE_OPS, partial=True, op_enums=False)
TENSOR_SCALAR_CACHE_CUMULATIVE = _ts("is_valid_tensor_scalar_cache_cumulative",
                                     (Op.TENSOR_SCALAR_CACHE_CUMULATIVE,),
                                     CACHE_CMDS, extra=_CACHE_OPS, partial=True,
                                     op_enums=False)
EXPONENTIAL = _ts("is_valid_exponential", (Op.EXPONENTIAL,), None, partial=True)


# -- D1_RD: DVE_READ_ACCUMULATOR 0x9b / ACTIVATION_READ_ACCUMULATOR 0x24 ----------------------

P_RD = Provenance("isa-facts", "§6.4 D1_RD, §6.2")
RD_DST = Tensor("dst", "dst", 1, DtypeRef("dtype"), write=True)
RD_DVE_DTYPES = gates.FP_DATAPATH | {Dtype.FP32R}
RD_ACT_DTYPES = RD_DVE_DTYPES - {Dtype.FP8_EXP3, Dtype.FP8_EXP4, Dtype.FP8_EXP5}


def _rd_dtype_ok(r: Rows) -> np.ndarray:
    act = r["header.opcode"] == Op.ACTIVATION_READ_ACCUMULATOR
    d = r["dtype"]
    return as_mask(np.where(act, gates.set_gate(RD_ACT_DTYPES)[d],
                            gates.set_gate(RD_DVE_DTYPES)[d]))


def _rd_dtype_msg(v: Values, ctx: Ctx, ok: bool) -> str:
    act = int(v["header.opcode"]) == Op.ACTIVATION_READ_ACCUMULATOR
    allowed = RD_ACT_DTYPES if act else RD_DVE_DTYPES
    who = "ACTIVATION_READ_ACCUMULATOR (no FP8)" if act else "DVE_READ_ACCUMULATOR"
    return (f"dtype {gates.dtype_label(int(v['dtype']))} " + ("is" if ok else "is not")
            + f" in {gates.set_label(allowed)} for {who}")


def _rd_neg_ok(r: Rows) -> np.ndarray:
    limit = np.where(r["header.opcode"] == Op.ACTIVATION_READ_ACCUMULATOR, 0, 1)
    return r["negated"] <= limit


def _rd_neg_msg(v: Values, ctx: Ctx, ok: bool) -> str:
    act = int(v["header.opcode"]) == Op.ACTIVATION_READ_ACCUMULATOR
    rule = "must be 0 on ACT" if act else "must be 0 or 1"
    return f"negated {int(v['negated'])}: {rule}"


def _rd_reserved(r: Rows) -> np.ndarray:
    return as_mask(~np.any(r["rsvd12"] != 0, axis=1) & ~np.any(r["rsvd35"] != 0, axis=1) &
                   ~np.any(r["rsvd52"] != 0, axis=1))


READ_ACCUMULATOR = Predicate("is_valid_read_accumulator", "D1_RD", (
    Op.DVE_READ_ACCUMULATOR, Op.ACTIVATION_READ_ACCUMULATOR), (
    *c.header_clauses(),
    c.informational("partially documented predicate",
                    "isa-facts §6.4 gives the D1_RD layout and the one-element read-back; "
                    "the dtype, negated and reserved clauses are neurondbg's (MED)", P_RD),
    c.equals("d1_rd_dst_element_count_one", "dst_element_count", 1, P_RD,
             "the read-back writes one element per partition"),
    Clause("d1_rd_valid_dtype", ("header.opcode", "dtype"), _rd_dtype_ok, _rd_dtype_msg, P_RD),
    Clause("d1_rd_valid_negated", ("header.opcode", "negated"), _rd_neg_ok, _rd_neg_msg, P_RD,
           fix=lambda v, ctx: "set negated = 0"),
    Clause("d1_rd_reserved_zero", ("rsvd12", "rsvd35", "rsvd52"), _rd_reserved,
           lambda v, ctx, ok: "reserved bytes 12..27, 35..43, 52..63 "
           + ("are all 0" if ok else "must all be 0"),
           Provenance("isa-facts", "§6.4 D1_RD (rsvd)", "MED"),
           fix=lambda v, ctx: "zero the reserved bytes",
           repair=lambda v, ctx: [{f: (0,) * len(v[f]) for f in ("rsvd12", "rsvd35", "rsvd52")
                                   if any(v[f])}]),
    c.active_channels("nac", prov=P_RD),
    *_placed("nac", RD_DST),
), P_RD)


# -- D4_MR: MEMSET 0x49, REG_STORE 0x4b, RNG 0x4d, DVE_READ_INDICES 0xe9 ----------------------

P_MR = Provenance("isa-facts", "§6.4 D4_MR", "MED")
MR_DST = Tensor("dst", "dst", 4, DtypeRef("dtype"), write=True)


def _mr(name: str, codes: tuple[int, ...], extra: tuple[Clause, ...],
        dtype_clause: Clause) -> Predicate:
    return Predicate(name, "D4_MR", codes, (
        *c.header_clauses(),
        c.informational("partially documented predicate",
                        "isa-facts §6.4 gives the D4_MR layout only; neurondbg checks the "
                        "dtype, channels and destination (MED)", P_MR),
        dtype_clause, *extra,
        c.active_channels("nac", prov=P_MR),
        *_placed("nac", MR_DST),
    ), P_MR)


MEMORY_WRITE = _mr("is_valid_d4_mr", (Op.MEMSET, Op.REG_STORE, Op.RNG), (),
                   c.dtype_clause(DtypeRef("dtype"), allow_64=True, prov=P_MR))
READ_INDICES = _mr("is_valid_read_indices", (Op.DVE_READ_INDICES,), (
    c.equals("read_indices_dst_element_count", "dst_element_count", 8,
             Provenance("isa-facts", "§6.2", "MED"), "the index flops hold 8 indices"),
), c.dtype_set_clause("read_indices_valid_dtype", DtypeRef("dtype"),
                      frozenset({Dtype.UINT16, Dtype.UINT32}),
                      Provenance("isa-facts", "§6.2"), "indices are u16 or u32"))

PREDICATES = (COPY_CAST_PREDICATED, TENSOR_TENSOR_ARITH, TENSOR_TENSOR_BITVEC, RANGE_SELECT,
              SELECT_REDUCE, SCALAR_TENSOR_TENSOR, TENSOR_SCALAR, TENSOR_SCALAR_CACHE_REDUCE,
              TENSOR_SCALAR_CACHE_CUMULATIVE, EXPONENTIAL, READ_ACCUMULATOR, MEMORY_WRITE,
              READ_INDICES)

