"""ADDR4 operand words and per-generation SBUF/PSUM geometry (isa-facts §2.2, §2.4).

An ADDR4 is a u32: bit 31 = register mode (GP register in byte 0), bit 30 =
shape-register mode, bit 29 = indirect; bits 28..0 are a byte address in the
unified on-chip map: SBUF from 0 (partition = addr / stride), PSUM from
0x2000000. Decoding never fails: an address outside both is space None.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.enums import Addr4Marker

REGISTER_BIT = 1 << 31
SHAPE_BIT = 1 << 30
INDIRECT_BIT = 1 << 29
ADDRESS_MASK = 0x1FFFFFFF
MARKER_MASK = 0xE0  # the three mode bits of the top byte; the rest are address bits
PSUM_BASE = 0x2000000
KIB = 1024


# The records here are NamedTuples, not dataclasses: as immutable, compared and
# hashed by value, and far cheaper to declare (a dataclass execs its methods at import,
# ~0.3 ms each, on `validate --summary`'s start-up path).
class Geometry(NamedTuple):
    """On-chip memory of one generation (isa-facts §2.4)."""

    gen: Gen
    partitions: int
    sbuf_stride: int  # bytes between partitions in the address map
    sbuf_bytes: int  # active bytes per partition
    psum_base: int
    psum_stride: int  # 0 when the generation has no PSUM
    psum_bytes: int
    psum_banks: int
    psum_bank_bytes: int
    confidence: str = "HIGH"

    @property
    def sbuf_span(self) -> int:
        """Size of the SBUF window of the address map (STATE_BUF_SZ)."""
        return self.partitions * self.sbuf_stride

    @property
    def psum_span(self) -> int:
        return self.partitions * self.psum_stride


_GEOMETRY: dict[Gen, Geometry] = {
    # SUNDA PSUM: 32 KiB stride, 16 KiB active, 16 x 1 KiB banks [MED, isa-facts §9].
    Gen.SUNDA: Geometry(Gen.SUNDA, 128, 256 * KIB, 192 * KIB, PSUM_BASE, 32 * KIB, 16 * KIB,
                        16, 1 * KIB, "MED"),
    Gen.CAYMAN: Geometry(Gen.CAYMAN, 128, 256 * KIB, 224 * KIB, PSUM_BASE, 16 * KIB, 16 * KIB,
                         8, 2 * KIB),
    Gen.MARIANA: Geometry(Gen.MARIANA, 128, 256 * KIB, 256 * KIB, PSUM_BASE, 16 * KIB,
                          16 * KIB, 8, 2 * KIB),
    # MAVERICK: STATE_BUF_SZ 0x8000000, PSUM_BUF_SZ = 0 in the header (isa-facts §9).
    Gen.MAVERICK: Geometry(Gen.MAVERICK, 128, 1024 * KIB, 512 * KIB, PSUM_BASE, 0, 0, 0, 0,
                           "LOW"),
}


def geometry(gen: Gen) -> Geometry:
    return _GEOMETRY[gen]


class Addr4(NamedTuple):
    """The meaning of one ADDR4 word."""

    word: int
    mode: str  # "immediate" | "register" | "shape" | "register+shape" | "indirect" | ...
    marker: int  # top-byte mode bits (word >> 24) & 0xE0
    register: int | None  # GP register number in register modes
    address: int | None  # bits 28..0 outside register modes
    space: str | None  # "sbuf" | "psum" | None (off-chip / register mode)
    partition: int | None
    offset: int | None  # byte offset within the partition

    @property
    def marker_name(self) -> str | None:
        try:
            return Addr4Marker(self.marker).name
        except ValueError:
            return None


_MODES = {
    0x00: "immediate", 0x80: "register", 0x40: "shape", 0xC0: "register+shape",
    0x20: "indirect", 0xA0: "indirect+register", 0x60: "indirect+shape",
    0xE0: "indirect+register+shape",
}


def locate(address: int, gen: Gen) -> tuple[str | None, int | None, int | None]:
    """(space, partition, offset) of a byte address in the unified map."""
    g = geometry(gen)
    if 0 <= address < g.sbuf_span:
        return "sbuf", address // g.sbuf_stride, address % g.sbuf_stride
    if g.psum_stride and g.psum_base <= address < g.psum_base + g.psum_span:
        rel = address - g.psum_base
        return "psum", rel // g.psum_stride, rel % g.psum_stride
    return None, None, None


def decode_addr4(word: int, gen: Gen) -> Addr4:
    """Decode one ADDR4 word under `gen`'s partition strides (never raises)."""
    word = int(word) & 0xFFFFFFFF
    marker = (word >> 24) & MARKER_MASK
    mode = _MODES[marker]
    if word & REGISTER_BIT:
        return Addr4(word, mode, marker, word & 0xFF, None, None, None, None)
    address = word & ADDRESS_MASK
    space, partition, offset = locate(address, gen)
    return Addr4(word, mode, marker, None, address, space, partition, offset)


def encode_address(space: str, partition: int, offset: int, gen: Gen) -> int:
    """The immediate ADDR4 word for (space, partition, byte offset); ValueError if out of range."""
    g = geometry(gen)
    if space == "sbuf":
        base, stride = 0, g.sbuf_stride
    elif space == "psum":
        if not g.psum_stride:
            raise ValueError(f"{gen.label} has no PSUM")
        base, stride = g.psum_base, g.psum_stride
    else:
        raise ValueError(f"unknown space {space!r}")
    if not 0 <= partition < g.partitions:
        raise ValueError(f"partition {partition} out of range 0..{g.partitions - 1}")
    if not 0 <= offset < stride:
        raise ValueError(f"offset {offset} out of range 0..{stride - 1} for {space}")
    return base + partition * stride + offset


def encode_register(reg: int) -> int:
    """The register-mode ADDR4 word naming GP register `reg` (marker 0x80)."""
    if not 0 <= reg <= 0xFF:
        raise ValueError(f"register {reg} out of range 0..255")
    return REGISTER_BIT | reg


SPACE_NONE, SPACE_SBUF, SPACE_PSUM = -1, 0, 1


class Addr4Array(NamedTuple):
    """Vectorized ADDR4 decode for legality: one entry per word."""

    marker: np.ndarray  # uint8 top-byte mode bits
    is_register: np.ndarray  # bool: bit 31
    is_shape: np.ndarray  # bool: bit 30
    is_indirect: np.ndarray  # bool: bit 29
    register: np.ndarray  # uint8 byte 0 (meaningful where is_register)
    address: np.ndarray  # int64 bits 28..0
    space: np.ndarray  # int8: SPACE_SBUF / SPACE_PSUM / SPACE_NONE (always NONE in reg mode)
    partition: np.ndarray  # int64, -1 where space is NONE
    offset: np.ndarray  # int64, -1 where space is NONE


def decode_addr4_array(words: np.ndarray, gen: Gen) -> Addr4Array:
    """Decode an array of ADDR4 words (any integer dtype) in a few numpy operations."""
    g = geometry(gen)
    w = np.asarray(words).astype(np.uint32, copy=False).astype(np.int64)
    is_reg = (w & REGISTER_BIT) != 0
    address = w & ADDRESS_MASK
    in_sbuf = ~is_reg & (address < g.sbuf_span)
    in_psum = ~is_reg & (g.psum_stride > 0) & (address >= g.psum_base) & (
        address < g.psum_base + g.psum_span)
    space = np.full(w.shape, SPACE_NONE, dtype=np.int8)
    space[in_sbuf] = SPACE_SBUF
    space[in_psum] = SPACE_PSUM
    partition = np.full(w.shape, -1, dtype=np.int64)
    offset = np.full(w.shape, -1, dtype=np.int64)
    partition[in_sbuf] = address[in_sbuf] // g.sbuf_stride
    offset[in_sbuf] = address[in_sbuf] % g.sbuf_stride
    if g.psum_stride:
        rel = address[in_psum] - g.psum_base
        partition[in_psum] = rel // g.psum_stride
        offset[in_psum] = rel % g.psum_stride
    return Addr4Array(
        marker=((w >> 24) & MARKER_MASK).astype(np.uint8),
        is_register=is_reg,
        is_shape=(w & SHAPE_BIT) != 0,
        is_indirect=(w & INDIRECT_BIT) != 0,
        register=(w & 0xFF).astype(np.uint8),
        address=address,
        space=space,
        partition=partition,
        offset=offset,
    )
