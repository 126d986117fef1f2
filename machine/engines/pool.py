"""POOL (GPSIMD) data instructions; DVE runs the same opcodes with PSUM allowed.

COPY is a bit-exact move, CAST converts through the fp32 hub (ref 000 §6), MEMSET
fills, TENSOR_REDUCE folds along the op_dim axes, TENSOR_TENSOR combines two
tensors elementwise. Operands are 4-D (3-D for TT) access patterns on every active
partition, gathered and scattered with numpy in one go.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from neurondbg.machine.dtypes import dtype_name
from neurondbg.machine.engines.alu import FOLD_UFUNCS, AluFault, VectorKind, alu_vec, vector_kind
from neurondbg.machine.engines.ap import ADDR_MARKERS, operand, read_elems, same_count, write_elems
from neurondbg.machine.engines.context import Context, Fields
from neurondbg.machine.engines.record import Fault
from neurondbg.machine.engines.seq import Handler
from neurondbg.machine.engines.tensor import (
    DirectCast,
    cast_bits,
    cast_direct,
    direct_cast,
    from_f32,
    from_u32,
    to_f32,
    to_u32,
)
from neurondbg.machine.isa.enums import AluOp, TensorSubdim
from neurondbg.machine.isa.opcodes import Opcode as Op
from neurondbg.machine.isa.structs import pair_hi, pair_lo
from neurondbg.machine.state import MachineState, Region, Write

if TYPE_CHECKING:
    from neurondbg.machine.isa.codec import Instruction

SRC, DST = "src_mem_pattern", "dst_mem_pattern"


def src_dst(ctx: Context, inst: Instruction) -> tuple[Region, Region]:
    """The src and dst operands of a one-source instruction (COPY, CAST, TENSOR_REDUCE,
    TENSOR_CUMULATIVE), each of its own dtype, src resolved (and faulting) first."""
    f: Fields = inst.fields
    nac = f["num_active_channels"]
    return (operand(ctx.state, f, SRC, f["in_dtype"], nac, ctx.engine, "src"),
            operand(ctx.state, f, DST, f["out_dtype"], nac, ctx.engine, "dst"))


def pair_operands(ctx: Context, inst: Instruction, what: str, labels: tuple[str | None, str | None]
                  = (None, None)) -> tuple[tuple[int, int, int], tuple[Region, Region, Region]]:
    """((dtype of src0, of src1, of dst), (src0, src1, dst)) of a two-source instruction
    whose source dtypes share the `in0_in1_dtype` byte (TENSOR_TENSOR, the predicated
    COPY / CAST), in that order, the element counts checked equal (`what` names it)."""
    f: Fields = inst.fields
    st = ctx.state
    nac = f["num_active_channels"]
    pair = f["in0_in1_dtype"]
    d0, d1, dout = pair_lo(pair), pair_hi(pair), f["out_dtype"]
    s0 = operand(st, f, "src0", d0, nac, ctx.engine, labels[0])
    s1 = operand(st, f, "src1", d1, nac, ctx.engine, labels[1])
    dst = operand(st, f, "dst", dout, nac, ctx.engine)
    same_count(s0, s1, f"{what} src0/src1")
    same_count(s0, dst, f"{what} src/dst")
    return (d0, d1, dout), (s0, s1, dst)


def copy(ctx: Context, inst: Instruction) -> None:
    f: Fields = inst.fields
    st = ctx.state
    src, dst = src_dst(ctx, inst)
    same_count(src, dst, "COPY src/dst")
    if src.size != dst.size:
        raise Fault(f"COPY in_dtype {dtype_name(f['in_dtype'])} and out_dtype "
                    f"{dtype_name(f['out_dtype'])} differ in size; a bit copy cannot move them")
    write_elems(st, dst, read_elems(st, src))


def cast(ctx: Context, inst: Instruction) -> None:
    f: Fields = inst.fields
    st = ctx.state
    key = (inst.raw, st.fp8_exp4, st.fp8_sat)
    plan = st.plans.get(key)
    if plan is None:
        plan = _cast_plan(ctx, inst)
        if not (f[f"{SRC}.start_addr"] | f[f"{DST}.start_addr"]) & ADDR_MARKERS:
            if len(st.plans) >= MAX_PLANS:
                st.plans.clear()  # a program has a few CASTs; edits add one per change
            st.plans[key] = plan
    src, dst, direct = plan
    if direct is not None:  # converted straight into a contiguous, disjoint destination
        ctx.lanes = cast_direct(st, direct)
        return
    out, ctx.lanes = cast_bits(st, read_elems(st, src), f["in_dtype"], f["out_dtype"], src.p0,
                               region=src)
    write_elems(st, dst, out)


MAX_PLANS = 256
CastPlan = tuple[Region, Region, DirectCast | None]


def _cast_plan(ctx: Context, inst: Instruction) -> CastPlan:
    """A CAST's operands (checked) and its direct plan (tensor.direct_cast), or its Fault.

    Pure in the record's bytes and the state's configuration (gen, geometry, engine,
    fp8_exp4, fp8_sat) while neither operand is in register mode (its address is then a
    register's value): `cast` keeps it per state under the record's bytes and the FP8
    settings, so an edited record or a changed FP8 setting is planned afresh, and a
    Fault (raised, never kept) is raised again by the next step.
    """
    f: Fields = inst.fields
    src, dst = src_dst(ctx, inst)
    same_count(src, dst, "CAST src/dst")
    return src, dst, direct_cast(ctx.state, src, dst, f["in_dtype"], f["out_dtype"])


def memset(ctx: Context, inst: Instruction) -> None:
    """Every dst element = set_value's low bytes (an encoding of `dtype`)."""
    f: Fields = inst.fields
    st = ctx.state
    dst = operand(st, f, "dst", f["dtype"], f["nac"], ctx.engine, "dst")
    value = np.array([f["set_value"]], np.uint32).astype(f"<u{dst.size}")
    write_elems(st, dst, np.broadcast_to(value, (1, dst.count)))


Direct = Callable[[MachineState], None]


def memset_direct(state: MachineState, inst: Instruction, engine: str) -> Direct | None:
    """MEMSET's write as one numpy assignment for a headless step (machine.debugger):
    the operand resolved once, the value's bytes made once; None when the operand is in
    register mode or faults, or when its elements hold more bytes than a partition
    (the step then takes `memset`). What it writes is what `memset` writes: every
    element of dst gets the same bytes, so one slice or strided assignment gives them
    whatever the order (or overlap) of the elements. While the
    step's writes are recorded (`state.writes` a list: a race feed), it appends the
    Write `memset` makes, its `new` the same bytes (one row, broadcast), no old ones."""
    f: Fields = inst.fields
    if f["dst.start_addr"] & ADDR_MARKERS:
        return None
    try:
        dst = operand(state, f, "dst", f["dtype"], f["nac"], engine, "dst")
    except Exception:  # a faulting operand: the step's own path reports it
        return None
    value = np.array([f["set_value"]], np.uint32).astype(f"<u{dst.size}").view(np.uint8)
    space, rows = dst.space, slice(dst.p0, dst.p1)
    if dst.count * dst.size > state.memory(space).shape[1]:
        return None  # overlapping elements, more of them than a partition has bytes
    line = np.tile(value, dst.count)
    new = np.broadcast_to(line, (dst.p1 - dst.p0, line.size))  # read-only: one row's bytes
    if dst.contiguous:
        cols = dst.byte_index

        def write_slice(st: MachineState) -> None:
            st.protect(dst)
            st.memory(space)[rows, cols] = line
            if st.writes is not None:
                st.writes.append(Write(space, None, new, region=dst))
        return write_slice
    if dst.strided(state.memory(space)) is None:
        return None

    def write_strided(st: MachineState) -> None:
        st.protect(dst)
        view = dst.strided(st.memory(space))
        assert view is not None  # bounds checked by `operand`; the geometry never changes
        view[...] = value.view(view.dtype)  # one element's bytes, to every element
        if st.writes is not None:
            st.writes.append(Write(space, None, new, region=dst))
    return write_strided


# opcodes whose handler changes the state once, by its last act, one `write_elems` (a
# fault comes before it): a headless step makes that write without keeping old bytes
# (MachineState.journal_memory)
WRITES_LAST: frozenset[int] = frozenset({
    Op.COPY, Op.MEMSET, Op.TENSOR_TENSOR_ARITH_OP, Op.TENSOR_TENSOR_BITVEC_OP,
    Op.TENSOR_REDUCE_ARITH_OP, Op.TENSOR_REDUCE_BITVEC_OP, Op.TENSOR_CUMULATIVE_ARITH_OP,
    Op.TENSOR_CUMULATIVE_BITVEC_OP})

# builders of a headless step's direct write, by opcode (machine.debugger `_headless`)
DIRECT: dict[int, Callable[[MachineState, Instruction, str], Direct | None]] = {
    Op.MEMSET: memset_direct}


def _fold(op: int, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Sequential left fold of `x` over `axes` (in order: innermost first)."""
    for ax in sorted(axes, reverse=True):
        ufunc = FOLD_UFUNCS.get(op)
        if ufunc is not None and vector_kind(op) != "int":
            with np.errstate(all="ignore"):  # accumulate folds in element order, like hardware
                x = np.take(ufunc.accumulate(x, axis=ax, dtype=x.dtype), -1, axis=ax)
            continue
        acc = np.take(x, 0, axis=ax)
        for k in range(1, x.shape[ax]):  # loop over the reduced axis only; lanes are vectorized
            acc = alu_vec(op, acc, np.take(x, k, axis=ax))
        x = acc
    return x


_SUBDIM_AXES = {TensorSubdim.UNUSED: 1, TensorSubdim.X: 1, TensorSubdim.XY: 2,
                TensorSubdim.XYZ: 3, TensorSubdim.XYZW: 4}


def _fold_operands(ctx: Context, inst: Instruction, bitvec_opcode: Op
                   ) -> tuple[Fields, MachineState, int, VectorKind | None, int, Region, Region]:
    """The shared prologue of TENSOR_REDUCE / TENSOR_CUMULATIVE: the op's kind (bitvec
    opcodes take bit ops, arith ones fp/int ops), the op_dim axis count, and the operands."""
    f: Fields = inst.fields
    st = ctx.state
    op = f["op"]
    kind = vector_kind(op)
    bitvec = inst.opcode == bitvec_opcode
    if kind not in (("bits",) if bitvec else ("fp", "int")):
        raise Fault(f"{inst.mnemonic}: op {op:#x} is not a modelled "
                    f"{'bitvec' if bitvec else 'arith'} op")
    naxes = _SUBDIM_AXES.get(f["op_dim"])
    if naxes is None:
        raise Fault(f"{inst.mnemonic}: op_dim {f['op_dim']} is not a TENSOR_SUBDIM code")
    src, dst = src_dst(ctx, inst)
    return f, st, op, kind, naxes, src, dst


def tensor_reduce(ctx: Context, inst: Instruction) -> None:
    """Fold the innermost op_dim axes (X = dim 0, ... XYZW = all four) with `op`."""
    f, st, op, kind, naxes, src, dst = _fold_operands(ctx, inst, Op.TENSOR_REDUCE_BITVEC_OP)
    nums = src.nums  # dim 0 innermost; the array below is (P, n3, n2, n1, n0)
    if dst.count * int(np.prod(nums[:naxes])) != src.count:
        raise Fault(f"TENSOR_REDUCE: dst holds {dst.count} elements; reducing {naxes} axes of "
                    f"src {list(nums)} leaves {src.count // int(np.prod(nums[:naxes]))}")
    bits = read_elems(st, src)
    shaped = bits.reshape((bits.shape[0], *reversed(nums)))
    axes = tuple(range(5 - naxes, 5))
    try:
        if kind == "fp":
            r = _fold(op, to_f32(st, shaped, f["in_dtype"]), axes)
            out = from_f32(st, r, f["out_dtype"])
        else:  # bit patterns; the int band folds on them as 32-bit integers
            r = _fold(op, to_u32(shaped, f["in_dtype"]), axes)
            out = from_u32(r, dst.size)
    except AluFault as e:
        raise Fault(f"TENSOR_REDUCE: {e}") from None
    write_elems(st, dst, out.reshape(bits.shape[0], -1))


def _scan(op: int, x: np.ndarray) -> np.ndarray:
    """Inclusive prefix fold along the last axis, in element order."""
    ufunc = FOLD_UFUNCS.get(op)
    if ufunc is not None and vector_kind(op) != "int":
        with np.errstate(all="ignore"):
            return ufunc.accumulate(x, axis=-1, dtype=x.dtype)
    out = x.copy()
    for k in range(1, x.shape[-1]):  # loop over the scanned axis only
        out[..., k] = alu_vec(op, out[..., k - 1], x[..., k])
    return out


def tensor_cumulative(ctx: Context, inst: Instruction) -> None:
    """dst = running fold of src over its op_dim axes (flattened, dimension 0 fastest)."""
    f, st, op, kind, naxes, src, dst = _fold_operands(ctx, inst, Op.TENSOR_CUMULATIVE_BITVEC_OP)
    same_count(src, dst, f"{inst.mnemonic} src/dst")
    bits = read_elems(st, src)
    inner = int(np.prod(src.nums[:naxes]))
    shaped = bits.reshape(bits.shape[0], -1, inner)
    try:
        if kind == "fp":
            out = from_f32(st, _scan(op, to_f32(st, shaped, f["in_dtype"])), f["out_dtype"])
        else:
            out = from_u32(_scan(op, to_u32(shaped, f["in_dtype"])), dst.size)
    except AluFault as e:
        raise Fault(f"{inst.mnemonic}: {e}") from None
    write_elems(st, dst, out.reshape(bits.shape[0], -1))


def tensor_tensor(ctx: Context, inst: Instruction) -> None:
    """dst = src0 OP src1 elementwise; arith in fp32 (int band on 32-bit ints), bitvec on bits."""
    f: Fields = inst.fields
    st = ctx.state
    (d0, d1, dout), (s0, s1, dst) = pair_operands(ctx, inst, "TENSOR_TENSOR")
    op = f["op"]
    kind = vector_kind(op) or ("fp" if op == AluOp.BYPASS else None)
    bitvec = inst.opcode == Op.TENSOR_TENSOR_BITVEC_OP
    if bitvec and op == AluOp.BYPASS:
        kind = "bits"
    if kind is None or bitvec != (kind == "bits"):
        what = "bitvec" if bitvec else "arith"
        raise Fault(f"{inst.mnemonic}: op {op:#x} is not a modelled {what} op")
    a, b = read_elems(st, s0), read_elems(st, s1)
    try:
        if kind == "fp":
            out = from_f32(st, alu_vec(op, to_f32(st, a, d0), to_f32(st, b, d1)), dout)
        else:
            out = from_u32(alu_vec(op, to_u32(a, d0), to_u32(b, d1)), dst.size)
    except AluFault as e:
        raise Fault(f"TENSOR_TENSOR: {e}") from None
    write_elems(st, dst, out)


HANDLERS: dict[Op, Handler] = {
    Op.COPY: copy, Op.CAST: cast, Op.MEMSET: memset,
    Op.TENSOR_REDUCE_ARITH_OP: tensor_reduce, Op.TENSOR_REDUCE_BITVEC_OP: tensor_reduce,
    Op.TENSOR_CUMULATIVE_ARITH_OP: tensor_cumulative,
    Op.TENSOR_CUMULATIVE_BITVEC_OP: tensor_cumulative,
    Op.TENSOR_TENSOR_ARITH_OP: tensor_tensor, Op.TENSOR_TENSOR_BITVEC_OP: tensor_tensor,
}
