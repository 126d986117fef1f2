"""Operand references used by clause factories: tensors, dtypes, address columns.

A clause about "the src tensor" needs its field prefix, its rank, which dtype
governs its element size, and whether it is written. `Tensor` bundles that so
the shared predicates of isa-facts §2.3 (tensorNd_valid,
tensor_start_addr_valid, start_addr_active_channels, tt_valid_partitions) are
declared once and instantiated per operand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from machine.dtypes import Gen
from machine.isa import addr as isa_addr
from machine.legality.wire.clause import Rows, Values


@dataclass(frozen=True)
class DtypeRef:
    """Where an operand's dtype comes from: a whole byte, or a DTYPE_PAIR nibble."""

    field: str  # the struct field holding it
    nibble: str | None = None  # None, "lo" (bits 3..0) or "hi" (bits 7..4), isa-facts §5.1
    fixed: int | None = None  # a constant dtype (e.g. RANGE_SELECT bounds are fp32)

    @property
    def label(self) -> str:
        if self.fixed is not None:
            return "fixed"
        return self.field if self.nibble is None else f"{self.field}.{self.nibble}"

    @property
    def fields(self) -> tuple[str, ...]:
        return () if self.fixed is not None else (self.field,)

    def column(self, rows: Rows) -> np.ndarray:
        if self.fixed is not None:
            return np.full(len(rows), self.fixed, dtype=np.uint8)
        raw = rows[self.field]
        if self.nibble == "lo":
            return raw & 0x0F
        if self.nibble == "hi":
            return raw >> 4
        return raw

    def value(self, v: Values) -> int:
        if self.fixed is not None:
            return self.fixed
        raw = int(v[self.field])
        if self.nibble == "lo":
            return raw & 0x0F
        if self.nibble == "hi":
            return raw >> 4
        return raw

    def edit(self, v: Values, code: int) -> dict[str, int] | None:
        """The field edit that makes this dtype `code` (None: fixed, or a nibble too small)."""
        if self.fixed is not None or (self.nibble is not None and code > 0xF):
            return None
        raw = int(v[self.field])
        if self.nibble == "lo":
            return {self.field: (raw & 0xF0) | code}
        if self.nibble == "hi":
            return {self.field: (raw & 0x0F) | (code << 4)}
        return {self.field: code}


@dataclass(frozen=True)
class Tensor:
    """One tensor operand of a struct."""

    label: str  # the operand's name in clause names: "src", "dst", "src0"
    prefix: str  # field prefix: "src_mem_pattern"
    ndim: int  # 1..4 (TENSOR1D..TENSOR4D)
    dtype: DtypeRef
    write: bool = False
    allow_psum: bool = True
    allow_sbuf: bool = True
    # first generation on which the operand is a MEM_PATTERN (may be INDIRECT)
    mem_pattern_from: Gen | None = None

    @property
    def addr_field(self) -> str:
        return f"{self.prefix}.start_addr"

    @property
    def num_field(self) -> str:
        return f"{self.prefix}.num_elem"

    @property
    def fields(self) -> tuple[str, ...]:
        return (self.addr_field, self.num_field)


@dataclass(frozen=True)
class AddrCols:
    """Decoded ADDR4 words (isa-facts §2.2), one entry per record."""

    word: np.ndarray  # uint32
    register: np.ndarray  # bit 31: address from a GP register
    shape: np.ndarray  # bit 30: shape from shape registers
    indirect: np.ndarray  # bit 29
    space: np.ndarray  # OFF_CHIP / SBUF / PSUM of the immediate byte address
    partition: np.ndarray  # -1 off-chip
    offset: np.ndarray  # byte offset within the partition, -1 off-chip
    backed: np.ndarray  # the offset lies within the partition's active bytes (isa-facts §2.4)

    @property
    def immediate(self) -> np.ndarray:
        return ~(self.register | self.shape)


# isa-facts §2.2: the address map's PSUM window is PSUM_BUF_SZ = 0x400000 bytes from
# 0x2000000; the generation's geometry (isa-facts §2.4) backs only part of it.
PSUM_WINDOW = 0x400000

OFF_CHIP, SBUF, PSUM = isa_addr.SPACE_NONE, isa_addr.SPACE_SBUF, isa_addr.SPACE_PSUM
SPACE_NAMES = {OFF_CHIP: "off-chip", SBUF: "SBUF", PSUM: "PSUM"}


def addr_cols(rows: Rows, field: str) -> AddrCols:
    """The decoded address column of `field`, memoised per group."""
    return rows.memo(("addr", field), lambda: decode_words(rows[field], rows.ctx.gen))


def decode_words(words: np.ndarray, gen: Gen) -> AddrCols:
    """Vectorized ADDR4 decode with machine.isa.addr's bits and geometry.

    The same meaning as isa_addr.decode_addr4_array (tested against it), in
    uint32 arithmetic with shifts: legality decodes millions of operands.
    """
    w = np.ascontiguousarray(words, dtype=np.uint32)
    g = isa_addr.geometry(gen)
    register = w >= np.uint32(isa_addr.REGISTER_BIT)
    shape = (w & np.uint32(isa_addr.SHAPE_BIT)) != 0
    indirect = (w & np.uint32(isa_addr.INDIRECT_BIT)) != 0
    address = w & np.uint32(isa_addr.ADDRESS_MASK)
    in_sbuf = ~register & (address < np.uint32(g.sbuf_span))
    partition = _div(address, g.sbuf_stride).astype(np.int32)
    offset = _mod(address, g.sbuf_stride).astype(np.int32)
    space = np.where(in_sbuf, np.int8(SBUF), np.int8(OFF_CHIP))
    backed = in_sbuf & (offset < g.sbuf_bytes)
    if g.psum_stride:
        rel = address - np.uint32(g.psum_base)  # wraps below the base: out of range
        in_psum = ~register & (rel < np.uint32(g.psum_span))
        if in_psum.any():
            partition = np.where(in_psum, _div(rel, g.psum_stride), partition)
            offset = np.where(in_psum, _mod(rel, g.psum_stride), offset)
            space[in_psum] = PSUM
            backed |= in_psum & (offset < g.psum_bytes)
    on_chip = space != OFF_CHIP
    partition = np.where(on_chip, partition, -1)
    offset = np.where(on_chip, offset, -1)
    return AddrCols(word=w, register=register, shape=shape, indirect=indirect, space=space,
                    partition=partition, offset=offset, backed=backed)


def _div(x: np.ndarray, d: int) -> np.ndarray:
    return x >> np.uint32(d.bit_length() - 1) if d & (d - 1) == 0 else x // np.uint32(d)


def _mod(x: np.ndarray, d: int) -> np.ndarray:
    return x & np.uint32(d - 1) if d & (d - 1) == 0 else x % np.uint32(d)


def element_count(rows: Rows, t: Tensor) -> np.ndarray:
    """Product of num_elem over the operand's dims (int64), memoised."""
    def count() -> np.ndarray:
        num = rows[t.num_field]
        out = num.astype(np.int64) if num.ndim == 1 else num[:, 0].astype(np.int64)
        for k in range(1, 1 if num.ndim == 1 else num.shape[1]):
            out *= num[:, k]  # column products: much faster than np.prod over a short axis
        return out
    return rows.memo(("count", t.prefix), count)


def value_count(v: Values, t: Tensor) -> int:
    num = v[t.num_field]
    if isinstance(num, int):
        return num
    out = 1
    for n in num:
        out *= int(n)
    return out


ColumnFn = Callable[[Rows], np.ndarray]
