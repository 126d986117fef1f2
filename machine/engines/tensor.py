"""Element conversions shared by the tensor engines: dtype <-> convert format, the fp32 hub.

Cast is `in -> fp32 -> out` with the neuron profile (ref 000 §6, DESIGN.md);
FP8_EXP4 follows the machine's FP8 configuration (isa-facts §8.2), as does
saturation of narrowing conversions.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from neurondbg.machine.convert import convert
from neurondbg.machine.convert.kernels import NumpyCast, cast_rows, convert_into, numpy_cast
from neurondbg.machine.convert.options import Options, resolve
from neurondbg.machine.dtypes import Dtype, Gen, dtype_format, dtype_name
from neurondbg.machine.engines.ap import read_elems
from neurondbg.machine.engines.record import Fault, Lanes
from neurondbg.machine.state import MachineState, Region, Write

# A direct CAST writing this many bytes or more moves plain memory into a memfd (see
# cast_into). Below, the scratch block it saves costs a few microseconds; at 1 MiB it is
# ~15% of the step. Moving costs once: ~6 ms for the default SBUF, and moved memory is
# made resident when read in full (machine.memfd), so small casts do not ask for it.
MOVE_MIN_BYTES = 1 << 18

_SIGNED = {Dtype.INT8: np.int8, Dtype.INT16: np.int16, Dtype.INT32: np.int32,
           Dtype.INT64: np.int64}


def fmt_of(state: MachineState, dtype: int) -> str:
    """The convert format of a dtype code under the machine's configuration."""
    return _fmt(dtype, state.config.gen, state.fp8_exp4)


def _fmt(dtype: int, gen: Gen, fp8_exp4: str) -> str:
    if dtype == Dtype.FP8_EXP4:
        return fp8_exp4
    fmt = _format(dtype, gen)
    if fmt is None:
        raise Fault(f"dtype {dtype_name(dtype)} has no conversion model")
    return fmt


@lru_cache(maxsize=256)
def _format(dtype: int, gen: Gen) -> str | None:
    return dtype_format(dtype, gen)


def cast_bits(state: MachineState, bits: np.ndarray, src: int, dst: int, p0: int = 0,
              mask: np.ndarray | None = None, region: Region | None = None
              ) -> tuple[np.ndarray, Lanes]:
    """Cast element bit patterns from dtype `src` to `dst`; returns (out bits, lanes).

    When `bits` is a view of memory at `region`, the lanes keep the view and the
    state copies it only if that memory is about to change (MachineState.views).
    """
    s, d = fmt_of(state, src), fmt_of(state, dst)
    out = _convert(bits, s, d, state.fp8_sat)
    view = region is not None and np.may_share_memory(bits, state.memory(region.space))
    lanes = Lanes(s, d, state.fp8_sat, p0, bits, out, mask, source=region if view else None)
    if view:
        lanes.watch(state)
    return out, lanes


def cast_into(state: MachineState, src: Region, dst: Region, src_dtype: int, dst_dtype: int
              ) -> Lanes | None:
    """Cast `src` elements straight into the memory of `dst` (a journaled write); the lanes.

    Returns None, having done nothing, unless the direct path applies (`direct_cast`);
    else `cast_direct` of its plan.
    """
    plan = direct_cast(state, src, dst, src_dtype, dst_dtype)
    return None if plan is None else cast_direct(state, plan)


@dataclass(slots=True, eq=False)
class DirectCast:
    """What a direct CAST (`cast_direct`) needs, resolved once per distinct CAST under a
    configuration (machine.engines.pool keeps one per record): its operands, formats,
    options, dst container, whether it moves memory into a memfd, and the numpy cast
    it is, if one (machine.convert.kernels.numpy_cast). `views` are its views of memory,
    made by its first step and kept while memory is the same arrays."""

    src: Region
    dst: Region
    src_fmt: str
    dst_fmt: str
    sat: bool
    opt: Options
    container: np.dtype
    move: bool
    cast: NumpyCast | None
    views: _Views | None = None


@dataclass(slots=True)
class _Views:
    """A direct CAST's views of memory: valid while `sbuf` and `psum` are the state's
    arrays (moving memory into a memfd replaces them). `bits` is the source's view, or
    None where its elements are gathered (a copy: read afresh at each step)."""

    sbuf: np.ndarray
    psum: np.ndarray
    bits: np.ndarray | None
    view: np.ndarray  # dst's bytes in memory()
    out: np.ndarray  # the same as dst's container
    target: np.ndarray  # what the convert writes: `out`, or the same bytes via the alias


def direct_cast(state: MachineState, src: Region, dst: Region, src_dtype: int,
                dst_dtype: int) -> DirectCast | None:
    """The plan of a direct CAST, or None where the direct path does not apply: `dst` is
    a slice per partition, disjoint from `src` (an overlapping cast would read what it
    has already written), and the dst format's container is the element size. A pair
    machine.convert refuses is a Fault. Pure in its arguments and the state's
    configuration (gen, fp8_exp4, fp8_sat): a plan may be kept under those."""
    if not isinstance(dst.byte_index, slice) or src.overlaps(dst):
        return None
    s, d, opt, container = _cast_plan(src_dtype, dst_dtype, state.config.gen, state.fp8_exp4,
                                      state.fp8_sat)
    if container.itemsize != dst.size:
        return None
    move = (dst.p1 - dst.p0) * dst.count * dst.size >= MOVE_MIN_BYTES
    return DirectCast(src, dst, s, d, state.fp8_sat, opt, container, move, numpy_cast(opt))


def cast_direct(state: MachineState, plan: DirectCast) -> Lanes:
    """Do a direct CAST's `MachineState.write_block` work without the result temporary
    (MachineState.open_write); the lanes.

    Watchers over `dst` copy first, the old bytes are journaled block by block just
    BEFORE the convert writes each block (undo stays exact; an all-zero destination is
    checked as the write reaches it, in cache), and the step's Write and the lanes'
    out_bits are that view; the lanes are watched, so each side is copied before the
    memory under it changes again (Lanes.watch). The convert writes through
    MachineState.write_alias when memory has one (same bytes); a cast of MOVE_MIN_BYTES
    or more gives memory one first.
    """
    src, dst = plan.src, plan.dst
    v = plan.views
    fresh = v is None or v.sbuf is not state.sbuf or v.psum is not state.psum
    if v is None or fresh:  # (v is None: fresh; said again so the checker narrows v)
        v = plan.views = _bind(state, plan)  # first: it may move memory into a memfd
    view, journaled = state.open_write(dst, v.view)
    if v.bits is not None:  # the source's view of memory, kept
        state.note_read(src)  # what read_elems' read_block records
        bits, on_src = v.bits, True
    else:
        bits = read_elems(state, src)  # a view for a slice pattern, a gathered copy otherwise
        # read_elems viewed memory (else gathered): asked of the arrays (a bounds check),
        # not restated from read_elems' rule; a view is kept with the others
        on_src = fresh and np.may_share_memory(bits, state.memory(src.space))
        if on_src:
            v.bits = bits
    # The lanes are made and watched before the convert, while this Python's data is still
    # in cache (after a bulk convert it runs ~2x slower); nothing watches memory during
    # the convert, which writes it directly. Their `write` is the one made after it.
    lanes = Lanes(plan.src_fmt, plan.dst_fmt, plan.sat, src.p0, bits, v.out, None,
                  source=src if on_src else None, dest=dst)
    lanes.watch(state)
    try:
        if plan.cast is not None:  # one numpy cast, decided with the plan
            cast_rows(bits, v.target, plan.cast, journaled)
        else:
            convert_into(bits, plan.opt, v.target, journaled)
    finally:  # a write stopped part way: rows it never reached are journaled as they are
        journaled.settle()
    lanes.write = write = Write(dst.space, journaled.old, view, region=dst)
    if state.writes is not None:
        state.writes.append(write)
    return lanes


def _bind(state: MachineState, plan: DirectCast) -> _Views:
    """A direct CAST's views of its destination in memory as it is now (the first step
    of its plan, or memory replaced since); the source's view is added by the step."""
    dst, container = plan.dst, plan.container
    # Disjoint (direct_cast): written through the second mapping of memory, numpy's
    # bounds-only overlap guard sees no overlap and casts straight in (no scratch pass).
    # First: its first use moves memory (MachineState.write_alias), for a large cast only.
    alias = state.write_alias(dst, move=plan.move)
    view = state.memory(dst.space)[dst.p0:dst.p1, dst.byte_index]
    out = view.view(container)
    return _Views(state.sbuf, state.psum, None, view, out,
                  out if alias is None else alias.view(container))


@lru_cache(maxsize=256)
def _cast_plan(src_dtype: int, dst_dtype: int, gen: Gen, fp8_exp4: str, sat: bool
               ) -> tuple[str, str, Options, np.dtype]:
    """(src format, dst format, the neuron Cast's resolved options, dst container) of a
    CAST under a machine configuration, computed once per distinct one (a step's Python
    is a fifth of a bulk CAST). A pair machine.convert refuses is a Fault (not cached)."""
    s, d = _fmt(src_dtype, gen, fp8_exp4), _fmt(dst_dtype, gen, fp8_exp4)
    try:
        opt = resolve(s, d, "rint", sat, "neuron")
    except ValueError as e:
        raise Fault(f"cannot convert {s} -> {d}: {e}") from None
    return s, d, opt, opt.dst.container


def to_f32(state: MachineState, bits: np.ndarray, dtype: int) -> np.ndarray:
    """Element values as float32 (through the fp32 hub)."""
    if dtype == Dtype.FP32:
        return bits.astype(np.uint32, copy=False).view(np.float32)
    f = _convert(bits, fmt_of(state, dtype), "fp32", False)
    return f.astype(np.uint32, copy=False).view(np.float32)


def from_f32(state: MachineState, values: np.ndarray, dtype: int) -> np.ndarray:
    """float32 values -> element bits of `dtype` (neuron cast)."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    if dtype == Dtype.FP32:
        return bits
    return _convert(bits, "fp32", fmt_of(state, dtype), state.fp8_sat)


def _convert(bits: np.ndarray, src: str, dst: str, sat: bool) -> np.ndarray:
    """machine.convert's neuron Cast; a pair it refuses (fp32r as a source) is a Fault."""
    try:
        return convert(bits, src, dst, mode="rint", sat=sat, profile="neuron")
    except ValueError as e:
        raise Fault(f"cannot convert {src} -> {dst}: {e}") from None


def to_u32(bits: np.ndarray, dtype: int) -> np.ndarray:
    """Element bits widened to 32-bit patterns (sign-extended for signed integer dtypes)."""
    t = _SIGNED.get(Dtype(dtype)) if dtype in Dtype._value2member_map_ else None
    if t is not None:
        return bits.view(t).astype(np.int32).view(np.uint32)
    return bits.astype(np.uint32)


def from_u32(values: np.ndarray, size: int) -> np.ndarray:
    """32-bit patterns truncated to an element container of `size` bytes (wrap)."""
    return values.astype(f"<u{size}")
