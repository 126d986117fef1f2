"""Value gates as 256-entry lookup tables: dtype gates, register specifiers.

Every gate is a boolean table indexed by the one-byte code, so a gate over a
million records is one fancy-index (`TABLE[codes]`), and the single-record
explanation reads the same table. The dtype codes come from machine.dtypes
(declared once there); this module only states which codes each gate admits
(isa-facts §8.1, ref 000 §6.2, isa-facts §2.3, DESIGN "Gaps decided here").
"""

from __future__ import annotations

from collections.abc import Set
from functools import cache

import numpy as np

from neurondbg.machine.dtypes import DTYPE_INFO, Dtype, Gen, dtype_bytes, dtype_name, dtypes_of

# isa-facts §8.1: is_valid_dtype rejects INVALID, FP32R (unless allowed), the
# 64-bit types, the 4-bit types and the scale types.
# Its sub-rules dtype_4bit_illegal_check / dtype_scale_illegal_check (ref 000 §4 NOTE)
# reject these two sets; `dtype_base_gate` is the rest of the gate.
REJECTED_4BIT = frozenset({Dtype.FP4_EXP2, Dtype.INT4})
REJECTED_SCALE = frozenset({Dtype.SFP8_E8, Dtype.SFP8_E7, Dtype.SFP8_E6, Dtype.SFP8_E5})
_64BIT = frozenset({Dtype.UINT64, Dtype.INT64})

# ref 000 §1 fact 7, §4 NOTE, §6.2: Copy/Cast consume only the plain codes below 0x10
# ("the extended 0x10..0x1F dtypes never reach Copy/Cast"), on every generation.
PLAIN_LIMIT = 0x10

# isa-facts §8.1 / §6.4 (RANGE_SELECT input set): the FP datapath set.
FP_DATAPATH = frozenset({Dtype.FP8_EXP3, Dtype.FP8_EXP4, Dtype.FP8_EXP5, Dtype.FP16,
                         Dtype.BF16, Dtype.FP32})
INT_DATAPATH = frozenset({Dtype.INT8, Dtype.INT16, Dtype.INT32, Dtype.UINT8, Dtype.UINT16,
                          Dtype.UINT32})
# ref 001 §3.3 ctrl_mv_has_valid_dtype: the three full-register dtypes.
MOVE_DTYPES = frozenset({Dtype.UINT32, Dtype.INT32, Dtype.FP32})
# isa-facts §2.3 rule 4: a PSUM write needs a 4-byte dtype (codes 8..11).
FOUR_BYTE = frozenset({Dtype.INT32, Dtype.UINT32, Dtype.FP32, Dtype.FP32R})


def _table(codes: Set[int]) -> np.ndarray:
    t = np.zeros(256, dtype=bool)
    t[list(codes)] = True
    t.flags.writeable = False
    return t


@cache
def dtype_gate(gen: Gen, allow_fp32r: bool = False, allow_64: bool = False,
               plain: bool = False) -> np.ndarray:
    """is_valid_dtype (allow_64=False) / is_valid_dtype_64 as a table for `gen`: the base
    gate without the 4-bit and the scale codes.

    The extension codes count only on the generations whose enum has them
    (isa-facts §8: FP4 and CPTC from mariana, the rest from maverick); codes the
    reference does not reject (FP8_EXP2, CPTC1..7) pass, as isa-facts §8.1 says,
    unless `plain`: Copy/Cast admit no code >= 0x10 (ref 000 §4 NOTE, §6.2).
    """
    return _table({int(c) for c in np.flatnonzero(dtype_base_gate(gen, allow_fp32r, allow_64,
                                                                    plain))}
                  - REJECTED_4BIT - REJECTED_SCALE)


@cache
def dtype_base_gate(gen: Gen, allow_fp32r: bool = False, allow_64: bool = False,
                    plain: bool = False) -> np.ndarray:
    """The dtype gate before its two sub-rules: a code of `gen`'s enum, not INVALID,
    FP32R only where allowed, the 64-bit codes only in the _64 gate, and below 0x10
    when `plain`."""
    ok = set(dtypes_of(gen)) - {Dtype.INVALID}
    if not allow_fp32r:
        ok.discard(Dtype.FP32R)
    if not allow_64:
        ok -= _64BIT
    if plain:
        ok = {code for code in ok if code < PLAIN_LIMIT}
    return _table(ok)


@cache
def set_gate(codes: frozenset[int]) -> np.ndarray:
    """A table admitting exactly `codes`."""
    return _table(codes)


@cache
def describe_gate(gen: Gen, allow_fp32r: bool, allow_64: bool, plain: bool = False,
                  base: bool = False) -> str:
    """The admitted set of a dtype gate (`base`: before its two sub-rules), named, for
    messages (memoised: every explanation of a dtype clause states it)."""
    table = (dtype_base_gate if base else dtype_gate)(gen, allow_fp32r, allow_64, plain)
    return "{" + ", ".join(dtype_name(int(c)) for c in np.flatnonzero(table)) + "}"


@cache
def element_bytes_table() -> np.ndarray:
    """Alignment in bytes per dtype code (isa-facts §2.3 rule 1).

    4-bit codes and codes without a fixed width (CPTC, unassigned) align to 1
    byte: a byte address cannot be misaligned for them (decision; the reference
    lists FP4 in the 1-byte row).
    """
    t = np.ones(256, dtype=np.int64)
    for code, info in DTYPE_INFO.items():
        size = info.size
        if size is not None and size >= 1:
            t[int(code)] = int(size)
    t.flags.writeable = False
    return t


@cache
def align_mask_table() -> np.ndarray:
    """Per dtype code: the low address bits an aligned address has clear (element bytes
    - 1, uint32, the ADDR4 word's type): `word & mask == 0` <=> aligned."""
    t = (element_bytes_table() - 1).astype(np.uint32)
    t.flags.writeable = False
    return t


def element_size(code: int) -> int:
    """Alignment unit of one code (see `element_bytes_table`)."""
    return int(element_bytes_table()[code & 0xFF])


# DESIGN "Gaps decided here": reads accept 0..63, 128 (PC low), 129 (PC high);
# writes accept the same (writes to 128/129 are ignored by the machine, legal).
REGISTER_READ = _table(set(range(64)) | {128, 129})
REGISTER_WRITE = REGISTER_READ


def dtype_label(code: int) -> str:
    """`BF16 (0x6)` — the enum name and the wire value, as messages show a dtype."""
    return f"{dtype_name(code)} (0x{code:X})"


def register_label(spec: int) -> str:
    """`R5`, `PC_LO (128)`, `PC_HI (129)` or `255 (illegal)`."""
    if spec < 64:
        return f"R{spec}"
    if spec == 128:
        return "PC_LO (128)"
    if spec == 129:
        return "PC_HI (129)"
    return f"{spec} (not a register)"


def set_label(codes: frozenset[int]) -> str:
    return "{" + ", ".join(dtype_name(c) for c in sorted(codes)) + "}"


__all__ = ["FOUR_BYTE", "FP_DATAPATH", "INT_DATAPATH", "MOVE_DTYPES", "PLAIN_LIMIT",
           "REGISTER_READ", "REGISTER_WRITE", "REJECTED_4BIT", "REJECTED_SCALE",
           "align_mask_table", "describe_gate", "dtype_base_gate",
           "dtype_bytes", "dtype_gate", "dtype_label", "element_bytes_table", "element_size",
           "register_label", "set_gate", "set_label"]
