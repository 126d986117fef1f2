"""S4D4_TR predicates: is_valid_copy / is_valid_cast verbatim (ref 000 §3.3) and the
other S4D4_TR opcodes as far as the references document them (ref 000 §7, §12).
"""

from __future__ import annotations

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.enums import AluOp, TensorSubdim
from neurondbg.machine.isa.opcodes import Opcode as Op
from neurondbg.machine.legality.provenance import Provenance
from neurondbg.machine.legality.wire import common as c
from neurondbg.machine.legality.wire import gates
from neurondbg.machine.legality.wire.clause import Clause, Ctx, Predicate, Values
from neurondbg.machine.legality.wire.gates import dtype_label
from neurondbg.machine.legality.wire.operands import DtypeRef, Tensor

P = Provenance("000", "§3.3")
P_FAMILY = Provenance("000", "§7, §12", "MED")
NAC = "num_active_channels"
IN = DtypeRef("in_dtype")
OUT = DtypeRef("out_dtype")
# ref 000 §3.3: src read-only, dst written; PSUM and SBUF both allowed at the wire level.
# isa-facts §2.1: from MARIANA on the operands are MEM_PATTERN4D (may be indirect).
SRC = Tensor("src", "src_mem_pattern", 4, IN, mem_pattern_from=Gen.MARIANA)
DST = Tensor("dst", "dst_mem_pattern", 4, OUT, write=True, mem_pattern_from=Gen.MARIANA)
# ref 000 §3.3 GOTCHA: both tensor4d_valid calls pass AllowedInPSUM::True and
# AllowedInSBUF::True; that POOL (GpSimd) cannot reach PSUM is engine-physical, not a
# struct rule: the machine faults it at run time (machine.engines), and the NKI level
# checks it (tensor_copy on gpsimd, machine.legality.nki.memory).

RESERVED = c.zero_bytes("s4d4_tr_reserved_zero", "reserved1", P)
MASK = c.equals("mask_enable_zero", "mask_enable", 0, P,
                "plain Copy/Cast have no predicate "
                f"(COPY_PREDICATED {Op.COPY_PREDICATED:#04x} is a separate opcode)")
OP_ENUM = c.alu_enum("op", P)
SUBDIM = c.in_set("is_zero_subdim(op_dim)", "op_dim", (TensorSubdim.UNUSED, TensorSubdim.X), P,
                  "op_dim must be UNUSED or X", names={0: "UNUSED", 2: "X"},
                  fix="set op_dim = 0 (UNUSED)")
CHANNELS = c.active_channels(NAC, "has_valid_active_channel_range", P)
COUNT = c.same_count("s4d4_tr_same_src_dst_count", SRC, DST, P)
BYPASS = c.alu_equals("s4d4_tr_op_bypass", "op", AluOp.BYPASS, P,
                      "Copy/Cast are a BYPASS walk (no arithmetic)")
NEGATED = c.equals("has_zero_negated_field", "negated", 0, P, "Copy/Cast never negate")


def _same_type_message(v: Values, ctx: Ctx, ok: bool) -> str:
    i, o = int(v["in_dtype"]), int(v["out_dtype"])
    rel = "==" if ok else "!="
    return (f"out_dtype {dtype_label(o)} {rel} in_dtype {dtype_label(i)}: "
            f"Copy keeps the dtype; Cast ({Op.CAST:#04x}) converts")


SAME_TYPE = Clause(
    "s4d4_tr_same_src_dst_type", ("in_dtype", "out_dtype"),
    lambda r: r["in_dtype"] == r["out_dtype"], _same_type_message, P,
    fix=lambda v, ctx: f"use CAST ({Op.CAST:#04x}) to convert, or set out_dtype = in_dtype",
    # keep the destination's dtype; converting is CAST's job (the one clause it omits)
    repair=lambda v, ctx: [{"out_dtype": int(v["in_dtype"])}, *_both_dtypes(v, ctx),
                           {"header.opcode": int(Op.CAST)}])


def _both_dtypes(v: Values, ctx: Ctx) -> list[dict[str, int]]:
    """One dtype for both operands, valid as Copy's input (so also as its output), the
    nearest in meaning to out_dtype: where in_dtype is no valid input (FP32R, INVALID),
    a Copy stays a Copy by changing both, rather than becoming a Cast."""
    from neurondbg.machine.legality.wire.repair import nearest_dtypes

    ok = gates.dtype_gate(ctx.gen, allow_fp32r=False, plain=True)
    out = [d for d in nearest_dtypes(int(v["out_dtype"])) if ok[d]]
    return [{"in_dtype": out[0], "out_dtype": out[0]}] if out else []


def _copy_cast(name: str, code: int, copy: bool) -> Predicate:
    clauses: list[Clause] = [
        *c.header_clauses(),
        c.fixed_opcode("has_copy_opcode" if copy else "has_cast_opcode", code),
        RESERVED, MASK,
        # ref 000 §4 NOTE, §6.2: the plain set only (no 0x10..0x1F code), every generation
        c.dtype_clause(IN, allow_fp32r=False, prov=P, plain=True),
        c.dtype_clause(OUT, allow_fp32r=True, prov=P, plain=True),
        OP_ENUM, SUBDIM, CHANNELS,
        c.start_addr_active_channels(SRC, NAC), c.start_addr_active_channels(DST, NAC),
        *c.operand_valid(SRC),
        *c.operand_valid(DST),
        COUNT, BYPASS,
    ]
    if copy:
        clauses.append(SAME_TYPE)
    clauses.append(NEGATED)
    return Predicate(name, "S4D4_TR", (code,), tuple(clauses), P,
                     doc="Copy keeps the dtype (bit-accurate move)" if copy else
                     "Cast converts through fp32")


IS_VALID_COPY = _copy_cast("is_valid_copy", Op.COPY, copy=True)
IS_VALID_CAST = _copy_cast("is_valid_cast", Op.CAST, copy=False)

_PARTIAL = c.informational(
    "partially documented predicate",
    "the references document only the struct and a few rules of this opcode; "
    "neurondbg checks those plus the shared operand clauses (MED)", P_FAMILY)

# ref 000 §3 NOTE: StreamTranspose requires a multiple of 32 channels.
MULTIPLE_32 = Clause(
    "has_multiple_32_channels", (NAC,),
    lambda r: (r[NAC] % 32 == 0),
    lambda v, ctx, ok: f"{NAC} {int(v[NAC])} " + ("is" if ok else "is not")
    + " a multiple of 32: StreamTranspose moves whole quadrants ({32, 64, 96, 128})",
    Provenance("000", "§3.3 NOTE"), fix=lambda v, ctx: f"set {NAC} to 32, 64, 96 or 128")


def _family(name: str, codes: tuple[int, ...], use_64: bool,
            extra: tuple[Clause, ...] = ()) -> Predicate:
    """Shared-struct S4D4_TR opcodes: header, dtype gate, channels, operands."""
    clauses = [
        *c.header_clauses(), _PARTIAL,
        c.dtype_clause(IN, allow_fp32r=False, allow_64=use_64, prov=P_FAMILY),
        c.dtype_clause(OUT, allow_fp32r=True, allow_64=use_64, prov=P_FAMILY),
        OP_ENUM, CHANNELS, *extra,
        c.start_addr_active_channels(SRC, NAC), c.start_addr_active_channels(DST, NAC),
        *c.operand_valid(SRC),
        *c.operand_valid(DST),
    ]
    return Predicate(name, "S4D4_TR", codes, tuple(clauses), P_FAMILY)


# ref 000 §12: TensorReduce uses the _64 dtype gate (can take INT64/UINT64).
TENSOR_REDUCE = _family("is_valid_tensor_reduce", (
    Op.TENSOR_REDUCE_ARITH_OP, Op.TENSOR_REDUCE_BITVEC_OP, Op.TRANSPOSE_TENSOR_REDUCE_ARITH_OP,
    Op.TRANSPOSE_TENSOR_REDUCE_BITVEC_OP), use_64=True)
TENSOR_CUMULATIVE = _family("is_valid_tensor_cumulative", (
    Op.TENSOR_CUMULATIVE_ARITH_OP, Op.TENSOR_CUMULATIVE_BITVEC_OP), use_64=False)
RECIPROCAL = _family("is_valid_reciprocal", (Op.RECIPROCAL,), use_64=False)
STREAM_SHUFFLE = _family("is_valid_stream_shuffle", (Op.STREAM_SHUFFLE,), use_64=False)
STREAM_TRANSPOSE = _family("is_valid_stream_transpose", (Op.STREAM_TRANSPOSE,), use_64=False,
                           extra=(MULTIPLE_32,))

PREDICATES = (IS_VALID_COPY, IS_VALID_CAST, TENSOR_REDUCE, TENSOR_CUMULATIVE, RECIPROCAL,
              STREAM_SHUFFLE, STREAM_TRANSPOSE)
