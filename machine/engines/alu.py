"""ALU_OP numeric semantics (isa-facts §3): one scalar form for SEQ, one vector form for tensors.

Rules (isa-facts §3 "Numeric semantics"): integer ops wrap at 32 bits; fp ops
round to nearest even in fp32 (computed in double, then rounded: exact for
+ - * / and sqrt); fp -> int truncates toward zero (saturating, NaN -> 0, as
the neuron Cast, DESIGN.md); MOD is C fmod. Decisions where the reference is
silent (LOW): shift counts use their low 5 bits; integer division and modulo
by zero are a fault; CRC32 is zlib's crc32 of a's 4 little-endian bytes,
seeded with b; the ARG* ops of two scalars give 0 when a wins (ties: a), 1 else;
the integer band (0xC4..0xE1) reads and writes 32-bit integer patterns whatever
`dtype` / `dst_dtype` say (its name fixes the domain).

FP32 decisions (review P6), so that the scalar (SEQ) and vector (tensor) forms agree
bit for bit:
- BYPASS passes src0's bits through untouched (ref 000 §7, isa-facts §3.1 "pass
  through"): a signalling NaN stays signalling, payloads stay.
- A NaN result carries only the bits numpy float32 gives (IEEE 754 §6.2.3: an input
  NaN is propagated quieted, payload kept; an invalid operation gives the host's
  default NaN): the scalar form takes any NaN result from the one-lane vector form
  instead of inventing one (Python's math.nan).
- POW is C powf (numpy): negative bases overflow to -inf for odd integer exponents,
  pow(-0, -1) = -inf. The integer-domain form is C pow in double.
- MAX/MIN are numpy's np.maximum/np.minimum: NaN-propagating (like IEEE 754-2019
  maximum/minimum, not 2008 maxNum/minNum, which drop a quiet NaN); when the
  operands compare equal (+0 and -0) the result is the second operand b (the x86
  MAXSS/MINSS order numpy's loops give, also in the ufunc.accumulate folds).
  SYMMETRIC_CLAMP and RSQRT also come from the vector form (±0 order; RSQRT is
  float32 sqrt then float32 divide there).
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Callable
from typing import Literal, cast

import numpy as np
import numpy.typing as npt

from neurondbg.machine.dtypes import Dtype
from neurondbg.machine.isa.enums import AluOp as A

M32 = 0xFFFFFFFF
_F = struct.Struct("<f")
_I = struct.Struct("<I")


class AluFault(Exception):
    """An ALU condition that stops the machine (integer division by zero)."""


def f32_bits(x: float) -> int:
    """Round a Python float to fp32 (RNE) and return its bits."""
    try:
        return cast(int, _I.unpack(_F.pack(x))[0])  # "<I" unpacks one int
    except OverflowError:  # finite double beyond fp32 range rounds to infinity (RNE)
        return 0xFF800000 if x < 0 else 0x7F800000


def bits_f32(b: int) -> float:
    return cast(float, _F.unpack(_I.pack(b & M32))[0])  # "<f" unpacks one float


def s32(b: int) -> int:
    b &= M32
    return b - (1 << 32) if b & 0x80000000 else b


def f32_to_int_bits(x: float, signed: bool) -> int:
    """fp -> int: truncate toward zero, saturate, NaN -> 0 (neuron profile, ref 003 §3)."""
    if math.isnan(x):
        return 0
    lo, hi = (-(1 << 31), (1 << 31) - 1) if signed else (0, M32)
    v = lo if x == -math.inf else hi if x == math.inf else int(x)
    return min(max(v, lo), hi) & M32


def _idiv(a: int, b: int) -> int:
    if b == 0:
        raise AluFault("integer division by zero")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _imod(a: int, b: int) -> int:
    if b == 0:
        raise AluFault("integer modulo by zero")
    return a - _idiv(a, b) * b


def _fdiv(a: float, b: float) -> float:
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _fmod(a: float, b: float) -> float:
    if b == 0 or math.isinf(a) or math.isnan(a) or math.isnan(b):
        return math.nan
    return math.fmod(a, b)


def _fmax(a: float, b: float) -> float:
    return math.nan if math.isnan(a) or math.isnan(b) else max(a, b)


def _fmin(a: float, b: float) -> float:
    return math.nan if math.isnan(a) or math.isnan(b) else min(a, b)


def _pow(a: float, b: float) -> float:
    """C pow in double (overflow -> signed inf, pow(-0, -1) = -inf), as numpy computes."""
    with np.errstate(all="ignore"):
        return float(np.power(np.float64(a), np.float64(b)))


def _rsqrt(a: float, _b: float) -> float:
    if a == 0:
        return math.copysign(math.inf, a)
    return math.nan if a < 0 or math.isnan(a) else 1.0 / math.sqrt(a)


Num = int | float  # a value in the instruction's domain
# Ops on the value in the instruction's domain (int for INT32/UINT32, float for FP32).
_ARITH: dict[int, Callable[[Num, Num], Num]] = {
    A.BYPASS: lambda a, b: a,
    A.ADD: lambda a, b: a + b, A.SUBTRACT: lambda a, b: a - b, A.MULT: lambda a, b: a * b,
    # both operands are in one domain: the int form when neither is a float
    A.DIVIDE: lambda a, b: (_fdiv(a, b) if isinstance(a, float) or isinstance(b, float)
                            else _idiv(a, b)),
    A.MAX: lambda a, b: _fmax(a, b) if isinstance(a, float) else max(a, b),
    A.MIN: lambda a, b: _fmin(a, b) if isinstance(a, float) else min(a, b),
    A.LOGICAL_AND: lambda a, b: int(bool(a) and bool(b)),
    A.LOGICAL_OR: lambda a, b: int(bool(a) or bool(b)),
    A.LOGICAL_XOR: lambda a, b: int(bool(a) != bool(b)),
    A.IS_EQUAL: lambda a, b: int(a == b), A.IS_NE: lambda a, b: int(a != b),
    A.IS_GT: lambda a, b: int(a > b), A.IS_GE: lambda a, b: int(a >= b),
    A.IS_LE: lambda a, b: int(a <= b), A.IS_LT: lambda a, b: int(a < b),
    A.ABS_DIFF: lambda a, b: abs(a - b), A.ABS_VALUE: lambda a, b: abs(a),
    A.POW: lambda a, b: _pow(float(a), float(b)),
    A.MOD: lambda a, b: (_fmod(a, b) if isinstance(a, float) or isinstance(b, float)
                         else _imod(a, b)),
    A.RSQRT: lambda a, b: _rsqrt(float(a), b),
    A.ABS_MAX: lambda a, b: max(abs(a), abs(b)), A.ABS_MIN: lambda a, b: min(abs(a), abs(b)),
    A.RELU: lambda a, b: a if (a > 0 or a != a) else type(a)(0), A.SQUARE: lambda a, b: a * a,
    A.SYMMETRIC_CLAMP: lambda a, b: min(max(a, -abs(b)), abs(b)),
}
# Ops on raw 32-bit patterns, whatever the dtype.
_BITS: dict[int, Callable[[int, int], int]] = {
    A.BITWISE_NOT: lambda a, b: ~a,
    A.ARITH_SHIFT_LEFT: lambda a, b: a << (b & 31),
    A.ARITH_SHIFT_RIGHT: lambda a, b: s32(a) >> (b & 31),
    A.LOGICAL_SHIFT_LEFT: lambda a, b: a << (b & 31),
    A.LOGICAL_SHIFT_RIGHT: lambda a, b: a >> (b & 31),
    A.BITWISE_AND: lambda a, b: a & b, A.BITWISE_OR: lambda a, b: a | b,
    A.BITWISE_XOR: lambda a, b: a ^ b,
    A.CRC32: lambda a, b: zlib.crc32(_I.pack(a), b),
}
# The integer band: (signed?, op on Python ints) whatever the dtype (isa-facts §3.2).
_INT: dict[int, tuple[bool, Callable[[int, int], int]]] = {
    A.ADD_INT: (True, lambda a, b: a + b), A.MULT_INT: (True, lambda a, b: a * b),
    A.SUB_INT: (True, lambda a, b: a - b), A.DIVIDE_INT: (True, _idiv),
    A.MOD_INT: (True, _imod), A.IS_EQUAL_INT: (True, lambda a, b: int(a == b)),
    A.IS_NE_INT: (True, lambda a, b: int(a != b)),
    A.ABS_MAX_INT: (True, lambda a, b: max(abs(a), abs(b))),
    A.ABS_MIN_INT: (True, lambda a, b: min(abs(a), abs(b))),
    A.ABS_DIFF_INT: (True, lambda a, b: abs(a - b)), A.ABS_VALUE_INT: (True, lambda a, b: abs(a)),
    A.MAX_INT: (True, max), A.MIN_INT: (True, min),
    A.IS_GT_INT: (True, lambda a, b: int(a > b)), A.IS_GE_INT: (True, lambda a, b: int(a >= b)),
    A.IS_LE_INT: (True, lambda a, b: int(a <= b)), A.IS_LT_INT: (True, lambda a, b: int(a < b)),
    A.MAX_UINT: (False, max), A.MIN_UINT: (False, min),
    A.IS_GT_UINT: (False, lambda a, b: int(a > b)), A.IS_GE_UINT: (False, lambda a, b: int(a >= b)),
    A.IS_LE_UINT: (False, lambda a, b: int(a <= b)), A.IS_LT_UINT: (False, lambda a, b: int(a < b)),
    A.MULT_UINT: (False, lambda a, b: a * b), A.DIVIDE_UINT: (False, _idiv),
    A.MOD_UINT: (False, _imod),
    A.ARGMAX_INT: (True, lambda a, b: int(b > a)), A.ARGMIN_INT: (True, lambda a, b: int(b < a)),
    A.ARGMAX_UINT: (False, lambda a, b: int(b > a)),
    A.ARGMIN_UINT: (False, lambda a, b: int(b < a)),
}
SCALAR_DTYPES = (Dtype.INT32, Dtype.UINT32, Dtype.FP32)


def supported(op: int) -> bool:
    return op in _ARITH or op in _BITS or op in _INT


def from_bits(b: int, dtype: int) -> int | float:
    if dtype == Dtype.FP32:
        return bits_f32(b)
    return s32(b) if dtype == Dtype.INT32 else b & M32


def to_bits(v: int | float, dtype: int) -> int:
    """A domain value back to 32 bits in `dtype` (fp -> int truncates and saturates)."""
    if dtype == Dtype.FP32:
        return f32_bits(float(v))
    if isinstance(v, float):
        return f32_to_int_bits(v, dtype == Dtype.INT32)
    return v & M32


def alu32(op: int, a: int, b: int, dtype: int, dst_dtype: int | None = None) -> int:
    """`a OP b` on 32-bit register patterns, computed in `dtype`, result in `dst_dtype`."""
    out = dtype if dst_dtype is None else dst_dtype
    if op in _BITS:
        r = _BITS[op](a & M32, b & M32) & M32
        return r if out == dtype else to_bits(from_bits(r, dtype), out)
    if op in _INT:
        signed, f = _INT[op]
        x, y = (s32(a), s32(b)) if signed else (a & M32, b & M32)
        return f(x, y) & M32  # integer in, integer pattern out, whatever the dtypes say
    if op == A.BYPASS:  # pass-through: the source bits, untouched (no float round trip)
        return a & M32 if out == dtype else to_bits(from_bits(a, dtype), out)
    u, w = from_bits(a, dtype), from_bits(b, dtype)
    if dtype == Dtype.FP32:
        if op in _LANE_OPS or u != u or w != w:  # NaN operands: numpy's NaN bits
            return _lane_result(op, a, b, out)
        v = _ARITH[op](u, w)
        if v != v:  # an invalid operation: the default NaN numpy gives, not math.nan's
            return _lane_result(op, a, b, out)
        return to_bits(bits_f32(f32_bits(float(v))), out)  # every fp result to fp32 first
    return to_bits(_ARITH[op](u, w), out)


# FP32 ops whose scalar result comes from the vector form (see the module docstring).
_LANE_OPS = frozenset({A.POW, A.MAX, A.MIN, A.SYMMETRIC_CLAMP, A.RSQRT})


def _lane_result(op: int, a: int, b: int, out: int) -> int:
    """`a OP b` on one fp32 lane of the vector form, as bits in `out`."""
    lanes = np.array([a & M32, b & M32], dtype=np.uint32).view(np.float32)
    bits = int(alu_vec(op, lanes[:1], lanes[1:]).view(np.uint32)[0])
    return bits if out == Dtype.FP32 else to_bits(bits_f32(bits), out)


M64 = (1 << 64) - 1
_FLOAT_ONLY = {A.POW, A.RSQRT, A.CRC32}


def s64(b: int) -> int:
    b &= M64
    return b - (1 << 64) if b >> 63 else b


def alu64(op: int, a: int, b: int, signed: bool) -> int:
    """`a OP b` on 64-bit patterns (INT64 / UINT64 through lo/hi register pairs), wrapping.

    Shifts use the low 6 bits of b; the integer band keeps its own signedness.
    """
    if op in _FLOAT_ONLY:
        raise AluFault(f"{A(op).name} has no 64-bit integer form")
    a &= M64
    b &= M64
    if op in _BITS:
        n = b & 63
        results: dict[int, int] = {
            A.BITWISE_NOT: ~a, A.ARITH_SHIFT_LEFT: a << n, A.LOGICAL_SHIFT_LEFT: a << n,
            A.ARITH_SHIFT_RIGHT: s64(a) >> n, A.LOGICAL_SHIFT_RIGHT: a >> n,
            A.BITWISE_AND: a & b, A.BITWISE_OR: a | b, A.BITWISE_XOR: a ^ b}
        return results[op] & M64
    if op in _INT:
        sign, f = _INT[op]
        return f(s64(a) if sign else a, s64(b) if sign else b) & M64
    x, y = (s64(a), s64(b)) if signed else (a, b)
    return int(_ARITH[op](x, y)) & M64


# -- vector form (tensor engines) ---------------------------------------------------
I64 = npt.NDArray[np.int64]
VecOp = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _np_int(fn: Callable[[I64, I64], I64], signed: bool) -> VecOp:
    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        t = np.int64
        x = a.view(np.int32).astype(t) if signed else a.view(np.uint32).astype(t)
        y = b.view(np.int32).astype(t) if signed else b.view(np.uint32).astype(t)
        return (fn(x, y) & M32).astype(np.uint32)
    return run


def _vdiv(x: I64, y: I64) -> I64:
    if np.any(y == 0):
        raise AluFault("integer division by zero")
    q = np.abs(x) // np.abs(y)
    return np.where(np.equal(x < 0, y < 0), q, -q)


def _vmod(x: I64, y: I64) -> I64:
    return x - _vdiv(x, y) * y


_VF: dict[int, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    A.BYPASS: lambda a, b: a, A.ADD: np.add, A.SUBTRACT: np.subtract, A.MULT: np.multiply,
    A.DIVIDE: np.divide, A.MAX: np.maximum, A.MIN: np.minimum,
    A.LOGICAL_AND: lambda a, b: ((a != 0) & (b != 0)).astype(np.float32),
    A.LOGICAL_OR: lambda a, b: ((a != 0) | (b != 0)).astype(np.float32),
    A.LOGICAL_XOR: lambda a, b: ((a != 0) ^ (b != 0)).astype(np.float32),
    A.IS_EQUAL: lambda a, b: (a == b).astype(np.float32),
    A.IS_NE: lambda a, b: (a != b).astype(np.float32),
    A.IS_GT: lambda a, b: (a > b).astype(np.float32),
    A.IS_GE: lambda a, b: (a >= b).astype(np.float32),
    A.IS_LE: lambda a, b: (a <= b).astype(np.float32),
    A.IS_LT: lambda a, b: (a < b).astype(np.float32),
    A.ABS_DIFF: lambda a, b: np.abs(a - b), A.ABS_VALUE: lambda a, b: np.abs(a),
    A.POW: np.power, A.MOD: np.fmod,
    A.RSQRT: lambda a, b: np.float32(1) / np.sqrt(a),
    A.ABS_MAX: lambda a, b: np.maximum(np.abs(a), np.abs(b)),
    A.ABS_MIN: lambda a, b: np.minimum(np.abs(a), np.abs(b)),
    A.RELU: lambda a, b: np.maximum(a, np.float32(0)), A.SQUARE: lambda a, b: a * a,
    A.SYMMETRIC_CLAMP: lambda a, b: np.clip(a, -np.abs(b), np.abs(b)),
}
_VB: dict[int, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    A.BYPASS: lambda a, b: a,
    A.BITWISE_NOT: lambda a, b: ~a,
    A.ARITH_SHIFT_LEFT: lambda a, b: a << (b & 31),
    A.ARITH_SHIFT_RIGHT: lambda a, b: (a.view(np.int32) >> (b & 31).astype(np.int32)).view(
        np.uint32),
    A.LOGICAL_SHIFT_LEFT: lambda a, b: a << (b & 31),
    A.LOGICAL_SHIFT_RIGHT: lambda a, b: a >> (b & 31),
    A.BITWISE_AND: np.bitwise_and, A.BITWISE_OR: np.bitwise_or, A.BITWISE_XOR: np.bitwise_xor,
}
_VI: dict[int, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    A.ADD_INT: _np_int(np.add, True), A.MULT_INT: _np_int(np.multiply, True),
    A.SUB_INT: _np_int(np.subtract, True), A.DIVIDE_INT: _np_int(_vdiv, True),
    A.MOD_INT: _np_int(_vmod, True), A.MAX_INT: _np_int(np.maximum, True),
    A.MIN_INT: _np_int(np.minimum, True), A.MAX_UINT: _np_int(np.maximum, False),
    A.MIN_UINT: _np_int(np.minimum, False), A.MULT_UINT: _np_int(np.multiply, False),
    A.DIVIDE_UINT: _np_int(_vdiv, False), A.MOD_UINT: _np_int(_vmod, False),
    A.ABS_DIFF_INT: _np_int(lambda x, y: np.abs(x - y), True),
    A.ABS_VALUE_INT: _np_int(lambda x, y: np.abs(x), True),
    A.IS_EQUAL_INT: _np_int(lambda x, y: (x == y).astype(np.int64), True),
    A.IS_NE_INT: _np_int(lambda x, y: (x != y).astype(np.int64), True),
    A.IS_GT_INT: _np_int(lambda x, y: (x > y).astype(np.int64), True),
    A.IS_GE_INT: _np_int(lambda x, y: (x >= y).astype(np.int64), True),
    A.IS_LE_INT: _np_int(lambda x, y: (x <= y).astype(np.int64), True),
    A.IS_LT_INT: _np_int(lambda x, y: (x < y).astype(np.int64), True),
    A.IS_GT_UINT: _np_int(lambda x, y: (x > y).astype(np.int64), False),
    A.IS_GE_UINT: _np_int(lambda x, y: (x >= y).astype(np.int64), False),
    A.IS_LE_UINT: _np_int(lambda x, y: (x <= y).astype(np.int64), False),
    A.IS_LT_UINT: _np_int(lambda x, y: (x < y).astype(np.int64), False),
}


VectorKind = Literal["fp", "bits", "int"]


def vector_kind(op: int) -> VectorKind | None:
    """"fp" (fp32 values), "bits" (uint32 patterns), "int" (uint32 patterns, int band) or None."""
    if op in _VF and op != A.BYPASS:
        return "fp"
    if op in _VB:
        return "bits"
    if op in _VI:
        return "int"
    return None


# Ops whose sequential left fold numpy computes in one call (ufunc.accumulate is in order).
FOLD_UFUNCS: dict[int, np.ufunc] = {
    A.ADD: np.add, A.SUBTRACT: np.subtract, A.MULT: np.multiply, A.MAX: np.maximum,
    A.MIN: np.minimum, A.BITWISE_AND: np.bitwise_and, A.BITWISE_OR: np.bitwise_or,
    A.BITWISE_XOR: np.bitwise_xor,
}


def alu_vec(op: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise op: float32 arrays for "fp" ops, uint32 arrays for "bits"/"int" ops."""
    if vector_kind(op) is None and op != A.BYPASS:
        raise AluFault(f"ALU op {op:#04x} is not modelled on tensors")
    with np.errstate(all="ignore"):
        if op in _VB:
            return _VB[op](a, b).astype(np.uint32, copy=False)
        if op in _VI:
            return _VI[op](a, b)
        return np.asarray(_VF[op](a, b), dtype=np.float32)
