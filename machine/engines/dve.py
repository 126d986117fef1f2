"""DVE (vector engine) instructions and its accumulators (isa-facts §5-6, ref 004).

Accumulator commands (isa-facts §6.1-6.2): IDLE leaves it; ZERO sets the
identity without folding (exact meaning unrecovered; neurondbg: identity, LOW);
ACCUMULATE folds into the running value; ZERO_ACCUMULATE seeds the identity of
the fold op (MAX: -inf) then folds; LOAD_ACCUMULATE seeds from imm1 then folds.
Folds run in element order, sequentially (ufunc.accumulate), in fp32.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from neurondbg.machine.dtypes import Dtype, dtype_name
from neurondbg.machine.engines.alu import AluFault, alu_vec, vector_kind
from neurondbg.machine.engines.ap import operand, read_elems, resolve_addr, same_count, write_elems
from neurondbg.machine.engines.context import Context, Fields
from neurondbg.machine.engines.pool import pair_operands
from neurondbg.machine.engines.record import Fault
from neurondbg.machine.engines.seq import Handler
from neurondbg.machine.engines.tensor import cast_bits, from_f32, from_u32, to_f32, to_u32
from neurondbg.machine.isa.enums import AccumCmd, AluOp, ImmSrc, RevOps
from neurondbg.machine.isa.opcodes import Opcode as Op
from neurondbg.machine.isa.structs import pair_hi, pair_lo
from neurondbg.machine.state import MachineState, Region

if TYPE_CHECKING:
    from neurondbg.machine.isa.codec import Instruction

_FOLD = {AluOp.ADD: np.add, AluOp.SUBTRACT: np.add, AluOp.MULT: np.multiply,
         AluOp.MAX: np.maximum, AluOp.MIN: np.minimum}
_IDENTITY: dict[int, float] = {AluOp.ADD: 0.0, AluOp.SUBTRACT: 0.0, AluOp.MULT: 1.0,
                               AluOp.MAX: -np.inf, AluOp.MIN: np.inf}


def scalar_operand(ctx: Context, mode: int, raw: int, rows: slice, what: str) -> np.ndarray:
    """Per-partition 32-bit patterns (P, 1) of an IMM_SRC operand (isa-facts §6.4)."""
    st = ctx.state
    n = rows.stop - rows.start
    if mode == ImmSrc.INSTRUCTION_IMMEDIATE:
        return np.full((n, 1), raw, np.uint32)
    if mode == ImmSrc.REG_PTR_IMMEDIATE:
        reg = raw & 0xFF
        if reg >= 64:
            raise Fault(f"{what}: REG_PTR_IMMEDIATE names R{reg}; only R0..R63")
        raw = st.R[reg]
    elif mode != ImmSrc.POINTER_IMMEDIATE:
        raise Fault(f"{what}: imm source {mode} is not an IMM_SRC code")
    space, _, off = resolve_addr(raw, st, what)  # each partition reads its own value
    mem = st.memory(space)
    if off + 4 > mem.shape[1]:
        raise Fault(f"{what}: pointer byte {off} + 4 is outside {space}")
    if space == "psum" and ctx.engine == "pool":
        raise Fault(f"{what}: GPSIMD cannot access PSUM (ref 000)")
    if st.reads is not None:  # the race detector sees this read too
        st.note_read(Region(space, rows.start, rows.stop, off, 4, (1,), (1,)))
    return np.ascontiguousarray(mem[rows, off:off + 4]).view("<u4")


def _acc_seed(st: MachineState, cmd: int, op: int, rows: slice, imm1: np.ndarray | None,
              what: str) -> np.ndarray | None:
    """The accumulator value before folding, or None for IDLE."""
    if cmd == AccumCmd.IDLE:
        return None
    if cmd in (AccumCmd.ZERO, AccumCmd.ZERO_ACCUMULATE):
        return np.full(rows.stop - rows.start, _IDENTITY[op], np.float32)
    if cmd == AccumCmd.ACCUMULATE:
        return st.acc[rows].copy()
    if cmd == AccumCmd.LOAD_ACCUMULATE:
        if imm1 is None:
            raise Fault(f"{what}: LOAD_ACCUMULATE has no imm1 to load from")
        return imm1.reshape(-1).view(np.float32).copy()
    raise Fault(f"{what}: accumulator command {cmd} is not an ACCUM_CMD code")


def _running(op: int, seed: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Prefix fold of t (P, n) after seed (P,): (P, n) running values, fp32, in order."""
    x = -t if op == AluOp.SUBTRACT else t
    both = np.concatenate([seed[:, None], x.astype(np.float32)], axis=1)
    with np.errstate(all="ignore"):
        return _FOLD[AluOp(op)].accumulate(both, axis=1, dtype=np.float32)[:, 1:]


# -- predicated copy / cast (isa-facts §5.2): false lanes keep the old destination ---------
def predicated(ctx: Context, inst: Instruction) -> None:
    st = ctx.state
    (dp, dv, dout), (pred_r, data_r, dst) = pair_operands(
        ctx, inst, "predicated", ("src0 (predicate)", "src1 (data)"))
    mask = to_u32(read_elems(st, pred_r), dp) != 0
    data = read_elems(st, data_r)
    if inst.opcode == Op.COPY_PREDICATED:  # a bit copy (dtype_hi == out_dtype is legality's)
        if data_r.size != dst.size:
            raise Fault(f"COPY_PREDICATED: {dtype_name(dv)} and {dtype_name(dout)} differ in size")
        new = data.astype(f"<u{dst.size}", copy=False)
    else:
        new, ctx.lanes = cast_bits(st, data, dv, dout, data_r.p0, mask, region=data_r)
    write_elems(st, dst, np.where(mask, new, read_elems(st, dst)))


# -- TENSOR_SCALAR family (S3D3_TS, isa-facts §6.4) ----------------------------------------
_BITVEC_TS = frozenset({Op.TENSOR_SCALAR_BITVEC_OP, Op.TENSOR_SCALAR_PTR_BITVEC_OP})
_CACHE_TS = frozenset({Op.TENSOR_SCALAR_CACHE_REDUCE, Op.TENSOR_SCALAR_CACHE_CUMULATIVE})


def _apply(op: int, x: np.ndarray, s: np.ndarray, swap: bool) -> np.ndarray:
    return alu_vec(op, s, x) if swap else alu_vec(op, x, s)


def tensor_scalar(ctx: Context, inst: Instruction) -> None:
    """out = (in op0 imm0) op1 imm1; the CACHE_REDUCE form folds op1 into the accumulator,
    CACHE_CUMULATIVE also writes the running prefix."""
    f: Fields = inst.fields
    st = ctx.state
    code = inst.opcode
    din, dout, nac = f["in_dtype"], f["out_dtype"], f["nac"]
    src = operand(st, f, "src", din, nac, ctx.engine)
    dst = operand(st, f, "dst", dout, nac, ctx.engine)
    same_count(src, dst, "TENSOR_SCALAR src/dst")
    rows = slice(src.p0, src.p1)
    op0, op1, rev = f["op0"], f["op1"], f["reverse_operands"]
    imm0 = scalar_operand(ctx, f["imm0_src"], f["imm0"], rows, "imm0")
    imm1 = scalar_operand(ctx, f["imm1_src"], f["imm1"], rows, "imm1")
    bitvec = code in _BITVEC_TS
    for op in (op0, op1):
        kind = vector_kind(op)
        if bitvec and kind != "bits" and op != AluOp.BYPASS:
            raise Fault(f"{inst.mnemonic}: op {op:#x} is not a bitvec op")
    try:
        if bitvec:
            t = _apply(op0, to_u32(read_elems(st, src), din), imm0, rev in (RevOps.FIRST, 3))
            out = from_u32(_apply(op1, t, imm1, rev in (RevOps.SECOND, 3)), dst.size)
            write_elems(st, dst, out)
            return
        for op in (op0, op1):
            if vector_kind(op) not in ("fp", None) and op != AluOp.BYPASS:
                raise Fault(f"TENSOR_SCALAR arith op {op:#x} is not an arith op")
        x = to_f32(st, read_elems(st, src), din)
        t = _apply(op0, x, imm0.view(np.float32), rev in (RevOps.FIRST, RevOps.BOTH))
        if code in _CACHE_TS:
            if op1 not in _FOLD:
                raise Fault(f"accumulating op1 {op1:#x} must be ADD, SUBTRACT, MULT, MAX or MIN")
            seed = _acc_seed(st, f["accumulator_cmd"], op1, rows, imm1, "TENSOR_SCALAR")
            if seed is None:
                raise Fault("TENSOR_SCALAR_CACHE_*: accumulator_cmd IDLE (must be 2, 3 or 4)")
            run = _running(op1, seed, t)
            st.write_array("acc", rows, run[:, -1] if run.shape[1] else seed)
            out = run if code == Op.TENSOR_SCALAR_CACHE_CUMULATIVE else t
        else:
            out = _apply(op1, t, imm1.view(np.float32), rev in (RevOps.SECOND, RevOps.BOTH))
    except AluFault as e:
        raise Fault(f"TENSOR_SCALAR: {e}") from None
    write_elems(st, dst, from_f32(st, out, dout))


# -- RANGE_SELECT (S2D2_RS, isa-facts §6.4) --------------------------------------------------
_CMP = {AluOp.IS_EQUAL: np.equal, AluOp.IS_GT: np.greater, AluOp.IS_GE: np.greater_equal,
        AluOp.IS_LE: np.less_equal, AluOp.IS_LT: np.less}


def range_select(ctx: Context, inst: Instruction) -> None:
    """out = (x cmp0 b0 && x cmp1 b1) ? x : fill_val; acc = max(acc, out) when reducing."""
    f: Fields = inst.fields
    st = ctx.state
    pair = f["in_out_dtype"]
    din, dout, nac = pair_lo(pair), pair_hi(pair), f["nac"]
    src = operand(st, f, "src", din, nac, ctx.engine)
    dst = operand(st, f, "dst", dout, nac, ctx.engine)
    same_count(src, dst, "RANGE_SELECT src/dst")
    rows = slice(src.p0, src.p1)
    cmps = []
    for k in (0, 1):
        op = f[f"comp_op{k}"]
        if op not in _CMP:
            raise Fault(f"RANGE_SELECT comp_op{k} {op:#x} must be IS_EQUAL..IS_LT")
        bound = scalar_operand(ctx, f[f"bound{k}_src"], f[f"bound{k}"], rows, f"bound{k}")
        cmps.append((_CMP[AluOp(op)], bound.view(np.float32)))
    x = to_f32(st, read_elems(st, src), din)
    fill = np.array([f["fill_val"]], np.uint32).view(np.float32)[0]
    with np.errstate(all="ignore"):
        keep = cmps[0][0](x, cmps[0][1]) & cmps[1][0](x, cmps[1][1])
    out = np.where(keep, x, fill).astype(np.float32)
    _reduce_max(st, f["reduce_cmd"], rows, out, "RANGE_SELECT")
    write_elems(st, dst, from_f32(st, out, dout))


def _reduce_max(st: MachineState, cmd: int, rows: slice, out: np.ndarray, what: str) -> None:
    if cmd == AccumCmd.LOAD_ACCUMULATE:
        raise Fault(f"{what}: LOAD_ACCUMULATE is not available (both immediate slots are used)")
    seed = _acc_seed(st, cmd, AluOp.MAX, rows, None, what)
    if seed is None:
        return
    if cmd == AccumCmd.ZERO:
        st.write_array("acc", rows, seed)
        return
    with np.errstate(all="ignore"):
        st.write_array("acc", rows, np.maximum(seed, out.max(axis=1, initial=-np.inf)))


# -- SELECT_REDUCE (S2S2D2_STT; ref 004 select_reduce) -------------------------------------
def select_reduce(ctx: Context, inst: Instruction) -> None:
    """out = pred ? on_true : on_false (imm0); reverse_operands != 0 inverts pred; acc = max."""
    f: Fields = inst.fields
    st = ctx.state
    pair = f["in0_in1_dtype"]
    dp, dv, dout, nac = pair_lo(pair), pair_hi(pair), f["out_dtype"], f["nac"]
    pred_r = operand(st, f, "src0", dp, nac, ctx.engine, "src0 (predicate)")
    true_r = operand(st, f, "src1", dv, nac, ctx.engine, "src1 (on_true)")
    dst = operand(st, f, "dst", dout, nac, ctx.engine)
    same_count(pred_r, true_r, "SELECT_REDUCE src0/src1")
    same_count(pred_r, dst, "SELECT_REDUCE src/dst")
    rows = slice(pred_r.p0, pred_r.p1)
    pred = to_u32(read_elems(st, pred_r), dp) != 0
    if f["reverse_operands"]:
        pred = ~pred
    on_true = to_f32(st, read_elems(st, true_r), dv)
    raw = scalar_operand(ctx, f["imm0_src"], f["imm0"], rows, "imm0 (on_false)")
    imm_dtype = f["imm0_dtype"] or Dtype.FP32
    on_false = to_f32(st, raw.astype(f"<u{max(1, _size(imm_dtype))}"), imm_dtype)
    out = np.where(pred, on_true, on_false).astype(np.float32)
    _reduce_max(st, f["accumulator_cmd"], rows, out, "SELECT_REDUCE")
    write_elems(st, dst, from_f32(st, out, dout))


def _size(dtype: int) -> int:
    from neurondbg.machine.dtypes import dtype_bytes

    s = dtype_bytes(dtype)
    if s is None or s < 1:
        raise Fault(f"imm0_dtype {dtype_name(dtype)} is not a whole-byte dtype")
    return int(s)


# -- DVE_READ_ACCUMULATOR (D1_RD) --------------------------------------------------------------
def read_accumulator(ctx: Context, inst: Instruction) -> None:
    """dst (one element per partition) = acc, negated when `negated` is 1."""
    f: Fields = inst.fields
    st = ctx.state
    dst: Region = operand(st, f, "dst", f["dtype"], f["nac"], ctx.engine)
    acc = st.acc[dst.p0:dst.p1].astype(np.float32)
    if f["negated"]:
        acc = -acc
    values = np.repeat(acc[:, None], dst.count, axis=1)
    write_elems(st, dst, from_f32(st, values, f["dtype"]))


# -- DVE_READ_INDICES (D4_MR, isa-facts §6.2) ------------------------------------------------
def read_indices(ctx: Context, inst: Instruction) -> None:
    """dst (8 elements per partition, u16 or u32) = the 8 index registers of each lane.

    Nothing modelled fills them yet (MAX8 / FIND_INDEX8 / MATCH_REPLACE8 are not), so
    they read as their current values (0 after reset).
    """
    f: Fields = inst.fields
    st = ctx.state
    dst = operand(st, f, "dst", f["dtype"], f["nac"], ctx.engine)
    if dst.count != st.idx.shape[1]:
        raise Fault(f"DVE_READ_INDICES: dst holds {dst.count} elements per partition; "
                    f"the index registers are {st.idx.shape[1]}")
    write_elems(st, dst, from_u32(st.idx[dst.p0:dst.p1], dst.size))


HANDLERS: dict[Op, Handler] = {
    Op.DVE_READ_INDICES: read_indices, Op.COPY_PREDICATED: predicated,
    Op.CAST_PREDICATED: predicated, Op.TENSOR_SCALAR_ARITH_OP: tensor_scalar,
    Op.TENSOR_SCALAR_BITVEC_OP: tensor_scalar,
    Op.TENSOR_SCALAR_PTR_ARITH_OP: tensor_scalar,  # legacy PTR forms: same struct
    Op.TENSOR_SCALAR_PTR_BITVEC_OP: tensor_scalar,
    Op.TENSOR_SCALAR_CACHE_REDUCE: tensor_scalar, Op.TENSOR_SCALAR_CACHE_CUMULATIVE: tensor_scalar,
    Op.RANGE_SELECT: range_select, Op.SELECT_REDUCE: select_reduce,
    Op.DVE_READ_ACCUMULATOR: read_accumulator,
}
