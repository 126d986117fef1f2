"""`set` edits as data, and the one bounds check every console command shares.

`check(what, state, count)` judges a machine.expr Target (register, memory element or
range, sem/shape slot, accumulator, index register) or a PC (an int): the same rule and
message for `watch`, `break pc:`, `set`, `print`, `x` and `goto`.

An edit stores a value into one target. Decisions (the specification leaves them open):
- The value is a machine.expr expression, evaluated on the current state.
- Integer targets (R5, sem[N], shape[N], idx[P, K], memory without a format or with an
  integer one) take integers only; an integral float such as 1e3 is that integer, and
  `set R5 = 1.5` is refused: write `R5:fp32 = 1.5` to store fp32 bits in a register.
  Without a format the target is raw bits: -2**(w-1) .. 2**w - 1 are accepted (two's
  complement); with an integer format, exactly that format's range.
- Float targets (`:fp32`, `:bf16`, `:fp16`, fp8 formats, `acc[P]`) round to nearest even,
  like numpy's astype; the report gives the value stored and says when it was rounded.
- `set PC = X` needs a record address inside the program.
An `Edit` keeps the bits stored (hex), so replaying it is exact whatever the format.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from neurondbg.machine.convert.formats import FloatFormat, IntFormat, parse_format
from neurondbg.machine.engines.record import decode_values
from neurondbg.machine.state import (
    NUM_INDEX_REGS,
    NUM_REGS,
    NUM_SEMS,
    NUM_SHAPE_REGS,
    RECORD_BYTES,
    MachineState,
)

if TYPE_CHECKING:  # machine.expr imports this module
    from neurondbg.machine.expr import Target

SETTABLE = "R5, R5:fp32, PC, sb[P, BYTE]:FMT, psum[P, BYTE]:FMT, sem[N], shape[N], acc[P], " \
    "idx[P, K]"


@dataclass(frozen=True)
class Edit:
    """One `set`: made when the step count was `step`; `value` is the stored bits (hex)."""

    step: int
    target: str  # canonical: "R5", "R5:fp32", "PC", "sbuf[0, 16]:fp32", "sem[3]", "acc[2]"
    value: str  # e.g. "0x3fc00000"


# -- bounds ---------------------------------------------------------------------------------
def pc_error(pc: int, base: int, count: int, allow_end: bool = False) -> str | None:
    """Why `pc` is not a record address of a `count`-record program at `base`, or None.

    `allow_end` admits the address just past the last record (falling off the end)."""
    i, rem = divmod(pc - base, RECORD_BYTES)
    last = count if allow_end else count - 1
    if rem or not 0 <= i <= last:
        return (f"PC {pc:#x} is not a record address of the program (expected {base:#x} + "
                f"64*i for i in 0..{last})")
    return None


def bounds_error(t: Target, state: MachineState) -> str | None:
    """Why target `t` (machine.expr.Target) does not exist on `state`, or None."""
    k = t.kind
    parts = state.config.partitions
    if k == "reg" and not 0 <= t.index < NUM_REGS:
        return f"register R{t.index} does not exist (R0..R{NUM_REGS - 1})"
    if k in ("sem", "shape"):
        n = NUM_SEMS if k == "sem" else NUM_SHAPE_REGS
        if not 0 <= t.index < n:
            return f"{k}[{t.index}] does not exist ({k}[0]..{k}[{n - 1}])"
    if k in ("acc", "idx") and not 0 <= t.index < parts:
        return f"{k}[{t.index}]: partition {t.index} does not exist (0..{parts - 1})"
    if k == "idx" and not 0 <= t.k < NUM_INDEX_REGS:
        return f"idx[{t.index}, {t.k}]: index register {t.k} does not exist (0..7)"
    if k == "mem":
        mem = state.memory(t.space)
        p, b = mem.shape
        if not (0 <= t.index < t.p1 <= p):
            return (f"{t.space} partition {t.index}" + (f"..{t.p1 - 1}" if t.p1 > t.index + 1
                                                         else "") +
                    f" does not exist (0..{p - 1})")
        if not (0 <= t.b0 < t.b1 <= b):
            return (f"{t.space} bytes {t.b0}..{t.b1 - 1} are outside the partition "
                    f"(0..{b - 1})")
    return None


def check(what: Target | int, state: MachineState, count: int) -> None:
    """ValueError naming the problem if `what` (a Target, or a PC int) is out of bounds."""
    if isinstance(what, int):
        why = pc_error(what, state.config.base, count)
    else:
        why = bounds_error(what, state)
    if why:
        raise ValueError(why)


# -- values ---------------------------------------------------------------------------------
def target_text(t: Target) -> str:
    """The canonical spelling of a settable target (a machine.expr.Target, which spells
    itself: round-trips through parse_target)."""
    return t.settable


def value_format(t: Target) -> tuple[str, bool]:
    """(format name, raw): the format a value is stored in; raw = bits without a format."""
    if t.kind == "acc":
        return "fp32", False
    if t.kind == "mem":
        return (t.fmt, False) if t.fmt else ("uint8", True)
    if t.kind == "reg" and t.fmt:
        if parse_format(t.fmt).bits != 32:
            raise ValueError(f"R{t.index}:{t.fmt}: a register holds 32 bits; use int32, "
                             f"uint32 or fp32")
        return t.fmt, False
    return "uint32", True  # reg, sem, shape, idx


def encode(t: Target, v: int | float) -> tuple[int, str]:
    """(bits to store, what was stored, for the report) or ValueError saying why not."""
    name, raw = value_format(t)
    f = parse_format(name)
    if f.bits < 8:
        raise ValueError(f"{name} packs two values per byte; set the byte as uint8 instead")
    where = target_text(t)
    if isinstance(f, IntFormat):
        if isinstance(v, float):
            if not (math.isfinite(v) and v.is_integer()):
                hint = f" (write {where}:fp32 = {v!r} to store fp32 bits)" if t.kind == "reg" \
                    else ""
                raise ValueError(f"{where} holds integers; {v!r} is not one{hint}")
            v = int(v)
        lo = -(1 << (f.bits - 1)) if raw else f.min_value
        hi = (1 << f.bits) - 1 if raw else f.max_value
        if not lo <= v <= hi:
            raise ValueError(f"{v} does not fit {where} ({name}: {lo}..{hi})")
        bits = v & ((1 << f.bits) - 1)
        shown = str(v if not raw else bits)
        return bits, f"{shown} ({bits:#0{f.bits // 4 + 2}x})"
    if not isinstance(f, FloatFormat) or f.ml_dtype is None:
        raise ValueError(f"set does not encode {name} values; write the bits with an "
                         f"integer format of the same width")
    enc = _to_format(float(v), f.ml_dtype).view(f.container)
    bits = int(enc[0])
    stored = float(decode_values(enc, name)[0])
    shown = repr(stored)
    note = "" if stored == v or (math.isnan(stored) and math.isnan(v)) else \
        f"; rounded from {v!r}"
    return bits, f"{shown} ({bits:#0{f.bits // 4 + 2}x}{note})"


def _to_format(v: float, dtype: np.dtype) -> np.ndarray:
    """[`v`] rounded once (nearest even) into `dtype`. numpy / ml_dtypes go through fp32
    from a float64 and round twice (1.0039063 -> bf16 1.0, not 1.0078125); rounding to fp32
    by round-to-odd first keeps the second rounding exact for every narrower format."""
    with np.errstate(all="ignore"):
        f = np.array([v], np.float32)
        if dtype == np.float32 or not math.isfinite(v):
            return f.astype(dtype)
        if float(f[0]) != v:
            if abs(float(f[0])) > abs(v):  # RNE went away from zero: take the truncation
                f = np.nextafter(f, np.float32(0))
            f = (f.view(np.uint32) | np.uint32(1)).view(np.float32)  # odd
        return f.astype(dtype)


def width(t: Target) -> int:
    """Bytes a target's value takes (registers, sem, shape, idx, acc: 4)."""
    return parse_format(value_format(t)[0]).bits // 8


# -- reading and writing the bits of a target -------------------------------------------------
def read_bits(t: Target, state: MachineState) -> int:
    """The bits a settable target holds now (PC: the address)."""
    k = t.kind
    if k == "reg":
        return state.R[t.index]
    if k == "pc":
        return state.pc
    if k == "mem":
        return int.from_bytes(state.memory(t.space)[t.index, t.b0:t.b0 + width(t)].tobytes(),
                              "little")
    if k == "acc":
        return int(state.acc[t.index:t.index + 1].view(np.uint32)[0])
    if k == "idx":
        return int(state.idx[t.index, t.k])
    return (state.sem if k == "sem" else state.shape)[t.index]


def write_bits(t: Target, state: MachineState, bits: int) -> None:
    """Store `bits` into a settable target (bounds already checked)."""
    k = t.kind
    if k == "reg":
        state.R[t.index] = bits
    elif k == "pc":
        state.pc = bits
    elif k == "mem":
        state.release_views()  # conversion lanes viewing this memory keep what they showed
        n = width(t)
        state.memory(t.space)[t.index, t.b0:t.b0 + n] = np.frombuffer(
            bits.to_bytes(n, "little"), np.uint8)
    elif k == "acc":
        state.acc[t.index:t.index + 1].view(np.uint32)[0] = bits
    elif k == "idx":
        state.idx[t.index, t.k] = bits
    else:
        (state.sem if k == "sem" else state.shape)[t.index] = bits
