"""fp32 -> binary float formats on uint32 bit arithmetic (ieee / ascend profiles).

The same rounding as _round.round_float, specialised to a 24-bit source
significand so every step is a 32-bit integer operation on the whole array.
Lanes that are not plain finite results (NaN, inf, overflow) take their codes
from the generic path applied to one representative per (case, sign), so the
special-value rules live in one place (_policy). That is sound because every
such result depends on the case, the sign, the mode and the flags only.
e8m0, fp32 itself and hybrid take the generic path (see fast32_applies).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from neurondbg.machine.convert._exact import decode
from neurondbg.machine.convert.formats import FORMATS, FloatFormat, Format
from neurondbg.machine.convert.modes import Mode
from neurondbg.machine.convert.options import Options

I32 = np.int32


CHUNK = 1 << 15  # lanes per pass: the temporaries stay in cache


def fast32_applies(dst: Format, mode: str) -> bool:
    """Formats and modes this kernel handles (e8m0, fp32 itself and hybrid: generic path)."""
    return (dst.is_float and dst.man_bits > 0 and not dst.is_fp32
            and mode != Mode.HYBRID)


def fp32_to_float(b: np.ndarray, opt: Options,
                  generic: Callable[..., np.ndarray]) -> np.ndarray:
    """fp32 encodings -> dst encodings; `generic(lanes, opt, raw)` supplies the special codes."""
    dst = opt.dst
    assert dst.is_float and fast32_applies(dst, opt.mode)
    flat = np.ascontiguousarray(b).reshape(-1)
    out = np.empty(flat.shape, dtype=dst.container)
    table = _special_table(opt, generic)
    for i in range(0, flat.size, CHUNK):
        out[i:i + CHUNK] = _chunk(flat[i:i + CHUNK], dst, opt.mode, table)
    return out.reshape(np.shape(b))


def _chunk(b: np.ndarray, dst: FloatFormat, mode: str, table: np.ndarray) -> np.ndarray:
    mt = dst.man_bits
    a = (b & np.uint32(0x7FFF_FFFF)).view(I32)
    big_e = a >> 23
    sig = a & I32(0x7F_FFFF)
    sig |= (a >= I32(0x80_0000)).view(np.int8).astype(I32) << 23  # hidden bit of normals
    e_eff = np.maximum(big_e, 1)
    # Quantum: (23 - mt) bits below the target lsb, more below the target's normal range.
    if dst.subnormals:
        shift = np.maximum(I32(dst.emin + 127 + 23 - mt) - e_eff, I32(23 - mt))
        np.minimum(shift, I32(25), out=shift)
    else:
        shift = np.full(b.shape, 23 - mt, dtype=I32)
    kept = sig >> shift
    rem = sig - (kept << shift)
    base = np.maximum(e_eff + I32(dst.bias - 128), 0)
    base <<= mt
    enc = base
    enc += kept
    inc = _increment(mode, rem, shift, enc, b)
    if inc is not None:
        enc += inc
    enc = enc.view(np.uint32)
    if dst.pad_bits:
        enc <<= np.uint32(dst.pad_bits)
    sign = (b >> np.uint32(32 - dst.bits)) & np.uint32(1 << (dst.bits - 1))
    out: np.ndarray = (enc | sign).astype(dst.container)
    # Specials: class 1 overflow, 2 inf, 3 NaN; their codes depend on the sign only, so
    # they come from a 4 x 2 table built by the generic rules (_policy).
    limit = (dst.max_code >> dst.pad_bits) << dst.pad_bits
    over = (enc > np.uint32(limit)) | (big_e == 255)
    if over.any():
        idx = np.flatnonzero(over)
        sub_b = b[idx]
        kind = np.where(big_e[idx] == 255,
                        np.where((sub_b & np.uint32(0x7F_FFFF)) != 0, 3, 2), 1)
        out[idx] = table[kind, sub_b >> np.uint32(31)]
    return out


_SPECIAL_INPUTS = np.array([[0x7F7F_FFFF, 0xFF7F_FFFF],  # overflow: fp32 max (any mode)
                            [0x7F80_0000, 0xFF80_0000],  # inf
                            [0x7FC0_0000, 0xFFC0_0000]], dtype=np.uint32)  # NaN


def _special_table(opt: Options, generic: Callable[..., np.ndarray]) -> np.ndarray:
    """Codes for [normal, overflow, inf, nan] x [positive, negative]."""
    res = generic(decode(_SPECIAL_INPUTS, FORMATS["fp32"]), opt, _SPECIAL_INPUTS)
    return np.concatenate([np.zeros((1, 2), res.dtype), res])


def _increment(mode: str, rem: np.ndarray, shift: np.ndarray, enc: np.ndarray,
               b: np.ndarray) -> np.ndarray | None:
    """One quantum or zero per lane (int32), the rule of _round.increment."""
    if mode == Mode.TRUNC:
        return None
    if mode in (Mode.FLOOR, Mode.CEIL):
        neg = (b >> np.uint32(31)).view(I32)
        toward = neg if mode == Mode.FLOOR else 1 - neg
        inc: np.ndarray = (rem != 0).view(np.int8) * toward
    elif mode == Mode.ODD:
        inc = (rem != 0).view(np.int8) & (~enc & 1)
    elif mode == Mode.ROUND:
        inc = (rem >= I32(1) << (shift - 1)).view(np.int8).astype(I32)
    else:  # rint: up when above half, or exactly half with an odd lsb
        inc = ((rem + (enc & 1)) > I32(1) << (shift - 1)).view(np.int8).astype(I32)
    return inc
