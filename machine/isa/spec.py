"""Field specs: one declaration per wire layout, from which everything is derived.

A `Struct` is an ordered tuple of `Field`s covering all 64 bytes of an
instruction record. From it come the numpy structured dtype (bulk decode with
`np.frombuffer(...).view(struct.dtype)`), the Struct pane's field table, the
assembler's field names and the disassembler's output (DESIGN.md "ISA and
legality": one spec, four uses).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property

import numpy as np

from neurondbg.machine.isa import RECORD_BYTES as RECORD_BYTES  # isa-facts §1, re-exported

CTYPES: tuple[str, ...] = ("u1", "i1", "u2", "i2", "u4", "i4", "u8", "i8")


@dataclass(frozen=True)
class Field:
    """One leaf member of a wire struct (scalar or fixed-length array)."""

    name: str  # flat dotted C member path, e.g. "src_mem_pattern.step_elem"
    offset: int  # byte offset in the 64-byte record
    ctype: str  # numpy scalar code of one element ("u1", "i2", "u4", ...)
    count: int = 1  # array length; 1 = scalar
    enum: type[IntEnum] | None = None
    role: str = ""  # "opcode", "dtype", "addr4", "register", "reserved", "enum", ...
    doc: str = ""
    source: str = ""
    confidence: str = "HIGH"

    def __post_init__(self) -> None:
        if self.ctype not in CTYPES:
            raise ValueError(f"field {self.name}: unknown ctype {self.ctype!r}")
        if self.count < 1:
            raise ValueError(f"field {self.name}: count must be >= 1")

    @property
    def itemsize(self) -> int:
        return int(self.ctype[1])

    @property
    def size(self) -> int:
        return self.itemsize * self.count

    @property
    def end(self) -> int:
        return self.offset + self.size

    @property
    def signed(self) -> bool:
        return self.ctype[0] == "i"

    @property
    def is_array(self) -> bool:
        return self.count > 1

    @property
    def np_scalar(self) -> np.dtype:
        return np.dtype("<" + self.ctype)

    @property
    def bounds(self) -> tuple[int, int]:
        """Inclusive (min, max) of one element."""
        bits = 8 * self.itemsize
        if self.signed:
            return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        return 0, (1 << bits) - 1


@dataclass(frozen=True)
class Struct:
    """A 64-byte instruction layout: an ordered tuple of fields."""

    name: str
    fields: tuple[Field, ...]
    doc: str = ""
    source: str = ""
    confidence: str = "HIGH"

    @cached_property
    def dtype(self) -> np.dtype:
        """Flat little-endian structured dtype, itemsize exactly 64."""
        return np.dtype({
            "names": [f.name for f in self.fields],
            "formats": [f.np_scalar if f.count == 1 else (f.np_scalar, (f.count,))
                        for f in self.fields],
            "offsets": [f.offset for f in self.fields],
            "itemsize": RECORD_BYTES,
        })

    @cached_property
    def _by_name(self) -> dict[str, Field]:
        return {f.name: f for f in self.fields}

    def field(self, name: str) -> Field:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"{self.name} has no field {name!r}") from None

    def has(self, name: str) -> bool:
        return name in self._by_name

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def coverage(self) -> np.ndarray:
        """How many fields cover each of the 64 bytes (all ones when well formed)."""
        cover = np.zeros(RECORD_BYTES, dtype=np.int64)
        for f in self.fields:
            cover[f.offset:f.end] += 1
        return cover


def fill_gaps(fields: list[Field] | tuple[Field, ...]) -> tuple[Field, ...]:
    """Sort by offset and name every unclaimed byte run `rsvd<offset>` (u1 array)."""
    ordered = sorted(fields, key=lambda f: f.offset)
    out: list[Field] = []
    pos = 0
    for f in [*ordered, None]:
        end = RECORD_BYTES if f is None else f.offset
        if end > pos:
            out.append(Field(f"rsvd{pos}", pos, "u1", end - pos, role="reserved",
                             doc="bytes the reference does not name", confidence="MED"))
        if f is None:
            break
        if f.offset < pos:
            raise ValueError(f"field {f.name} at {f.offset} overlaps the previous field")
        out.append(f)
        pos = f.end
    return tuple(out)
