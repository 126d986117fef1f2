"""Operand references used by clause factories: tensors, dtypes, address columns.

A clause about "the src tensor" needs its field prefix, its rank, which dtype
governs its element size, and whether it is written. `Tensor` bundles that so
the shared predicates of isa-facts §2.3 (tensorNd_valid,
tensor_start_addr_valid, start_addr_active_channels, tt_valid_partitions) are
declared once and instantiated per operand.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa import addr as isa_addr
from neurondbg.machine.legality.wire.clause import Mask, Rows, Values, as_mask

U32 = npt.NDArray[np.uint32]
I32 = npt.NDArray[np.int32]


class DtypeRef(NamedTuple):
    """Where an operand's dtype comes from: a whole byte, or a DTYPE_PAIR nibble (a
    NamedTuple, as Tensor: compared by value, a subclass's instances included)."""

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


class Tensor(NamedTuple):
    """One tensor operand of a struct (a NamedTuple: declared far cheaper than a frozen
    dataclass; immutable and compared by value all the same)."""

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


class AddrCols:
    """Decoded ADDR4 words (isa-facts §2.2), one entry per record.

    Each column is computed when a clause first reads it and kept (a clause group reads
    most, but not all, of them; `offset` only messages read). The address tests are done
    on the word with its SHAPE and INDIRECT bits cleared and its REGISTER bit kept: a
    register-mode word is then above every on-chip range, so one unsigned compare per
    range also excludes it. Read only: the arrays are shared by the clauses.
    """

    def __init__(self, word: U32, gen: Gen) -> None:
        self.word = word  # uint32
        self.gen = gen
        self._g = isa_addr.geometry(gen)

    @cached_property
    def register(self) -> Mask:
        """Bit 31: the address is in a GP register."""
        return self.word >= np.uint32(isa_addr.REGISTER_BIT)

    @cached_property
    def shape(self) -> Mask:
        """Bit 30: the shape is in the shape registers."""
        return as_mask((self.word & np.uint32(isa_addr.SHAPE_BIT)) != 0)

    @cached_property
    def indirect(self) -> Mask:
        """Bit 29: an INDIRECT descriptor."""
        return as_mask((self.word & np.uint32(isa_addr.INDIRECT_BIT)) != 0)

    @cached_property
    def immediate(self) -> Mask:
        """Neither register nor shape mode: bits 31 and 30 clear."""
        return self.word < np.uint32(isa_addr.SHAPE_BIT)

    @cached_property
    def plain(self) -> Mask:
        """Immediate and not indirect: bits 31..29 clear."""
        return self.word < np.uint32(isa_addr.INDIRECT_BIT)

    @cached_property
    def _kept(self) -> U32:
        return self.word & np.uint32(isa_addr.REGISTER_BIT | isa_addr.ADDRESS_MASK)

    @cached_property
    def _in_sbuf(self) -> Mask:
        return self._kept < np.uint32(self._g.sbuf_span)

    @cached_property
    def _rel(self) -> U32:
        return self._kept - np.uint32(self._g.psum_base)  # wraps below the base: out of range

    @cached_property
    def _in_psum(self) -> Mask | None:
        """None when no word is in PSUM (the PSUM columns are then skipped)."""
        if not self._g.psum_stride:
            return None
        in_psum = self._rel < np.uint32(self._g.psum_span)
        return in_psum if in_psum.any() else None

    @cached_property
    def space(self) -> npt.NDArray[np.int8]:
        """int8 OFF_CHIP / SBUF / PSUM of the immediate byte address."""
        # the in-range masks are disjoint: OFF_CHIP plus each range's distance from it
        space = self._in_sbuf.view(np.int8) * np.int8(SBUF - OFF_CHIP)
        space += np.int8(OFF_CHIP)
        if self._in_psum is not None:
            space += self._in_psum.view(np.int8) * np.int8(PSUM - OFF_CHIP)
        return space

    @cached_property
    def partition(self) -> I32:
        """int32 partition, -1 off-chip."""
        g = self._g
        part = _pick(self._in_sbuf, _div(self._kept, g.sbuf_stride).view(np.int32), None)
        if self._in_psum is not None:
            part = _pick(self._in_psum, _div(self._rel, g.psum_stride).view(np.int32), part)
        return part

    @cached_property
    def offset(self) -> I32:
        """int32 byte offset within the partition, -1 off-chip."""
        g = self._g
        off = _pick(self._in_sbuf, _mod(self._kept, g.sbuf_stride).view(np.int32), None)
        if self._in_psum is not None:
            off = _pick(self._in_psum, _mod(self._rel, g.psum_stride).view(np.int32), off)
        return off

    @cached_property
    def backed(self) -> Mask:
        """The offset lies within the partition's active bytes (isa-facts §2.4)."""
        g = self._g
        backed = self._in_sbuf
        if g.sbuf_bytes < g.sbuf_stride:
            backed = backed & (_mod(self._kept, g.sbuf_stride) < np.uint32(g.sbuf_bytes))
        if self._in_psum is not None:
            psum = self._in_psum
            if g.psum_bytes < g.psum_stride:
                psum = psum & (_mod(self._rel, g.psum_stride) < np.uint32(g.psum_bytes))
            backed = backed | psum
        return backed


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
    uint32 arithmetic with shifts, column by column on first use: legality decodes
    millions of operands.
    """
    return AddrCols(np.ascontiguousarray(words, dtype=np.uint32), gen)


def _pick(cond: Mask, value: I32, other: I32 | None) -> I32:
    """np.where(cond, value, other) for int32 columns below 2**30 in magnitude (-1 when
    `other` is None), in arithmetic: other + (value - other) * cond. np.where branches per
    element, and on records of random bytes the condition is a coin toss (several times
    slower than these three passes)."""
    if other is None:
        out = value + np.int32(1)
        out *= cond
        out -= np.int32(1)
        return out
    out = value - other
    out *= cond
    out += other
    return out


def _div(x: U32, d: int) -> U32:
    return x >> np.uint32(d.bit_length() - 1) if d & (d - 1) == 0 else x // np.uint32(d)


def _mod(x: U32, d: int) -> U32:
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
