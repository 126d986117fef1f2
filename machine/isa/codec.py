"""bytes <-> instructions: one record at a time, or a whole program in bulk.

Decoding never rejects bytes (DESIGN.md "ISA and legality"): an opcode without a
documented struct decodes as RAW (header + events + raw bytes) and legality
judges the values later. Bulk decode is one `np.frombuffer` plus one
structured view per struct group.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from neurondbg.machine.isa.opcodes import OPCODES, mnemonic, struct_name_of
from neurondbg.machine.isa.spec import RECORD_BYTES, Field, Struct
from neurondbg.machine.isa.structs import STRUCTS

FieldValue = int | tuple[int, ...]


class IsaFormatError(ValueError):
    """A program whose bytes cannot be split into 64-byte records."""


def struct_for(opcode: int) -> Struct:
    """The struct an opcode byte decodes with."""
    return STRUCTS[struct_name_of(opcode)]


@dataclass(frozen=True)
class Instruction:
    """One decoded 64-byte record."""

    index: int
    offset: int  # byte offset of the record in the program
    opcode: int
    mnemonic: str
    struct: Struct
    fields: dict[str, FieldValue]
    raw: bytes

    def field_bytes(self, name: str) -> bytes:
        f = self.struct.field(name)
        return self.raw[f.offset:f.end]

    def table(self) -> list[FieldRow]:
        """The Struct pane's rows: every field with offset, size, raw bytes, value, enum name."""
        return [field_row(f, self.fields[f.name], self.raw) for f in self.struct.fields]


@dataclass(frozen=True)
class FieldRow:
    name: str
    offset: int
    size: int
    raw: bytes
    value: FieldValue
    enum_name: str | tuple[str | None, ...] | None
    confidence: str
    doc: str
    source: str


def _enum_label(f: Field, v: int) -> str | None:
    if f.role == "opcode":
        return mnemonic(v)
    if f.enum is None:
        return None
    from neurondbg.machine.isa.enums import enum_name
    return enum_name(f.enum, v)


def field_row(f: Field, value: FieldValue, raw: bytes) -> FieldRow:
    if isinstance(value, tuple):
        label: str | tuple[str | None, ...] | None = (
            tuple(_enum_label(f, v) for v in value) if f.enum else None)
    elif f.role == "dtype_pair":
        from neurondbg.machine.dtypes import dtype_name
        label = f"{dtype_name(value & 0xF)}/{dtype_name(value >> 4)}"
    else:
        label = _enum_label(f, value)
    return FieldRow(f.name, f.offset, f.size, raw[f.offset:f.end], value, label,
                    f.confidence, f.doc, f.source)


def record_fields(struct: Struct, record: np.void) -> dict[str, FieldValue]:
    """Python values of one structured record: ints, tuples for arrays (every field is
    an integer or a 1-D array of integers: `tolist` gives Python ints, in one call)."""
    arrays = _ARRAY_FIELDS.get(struct.name)
    if arrays is None:
        arrays = _ARRAY_FIELDS[struct.name] = frozenset(
            f.name for f in struct.fields if f.count > 1)
    values = record.tolist()
    names = record.dtype.names or ()
    if not arrays:
        return dict(zip(names, values, strict=True))
    return {name: tuple(v.tolist()) if name in arrays else v
            for name, v in zip(names, values, strict=True)}


_ARRAY_FIELDS: dict[str, frozenset[str]] = {}  # struct name -> its array fields


def decode(raw64: bytes, offset: int = 0, index: int = 0) -> Instruction:
    """Decode one 64-byte record (any opcode; unknown ones as RAW)."""
    raw = bytes(raw64)
    if len(raw) != RECORD_BYTES:
        raise IsaFormatError(f"a record is {RECORD_BYTES} bytes, got {len(raw)}")
    code = raw[0]
    struct = struct_for(code)
    rec = np.frombuffer(raw, dtype=struct.dtype)[0]
    return Instruction(index, offset, code, mnemonic(code), struct,
                       record_fields(struct, rec), raw)


def _check_value(f: Field, v: int) -> int:
    lo, hi = f.bounds
    if isinstance(v, bool) or not isinstance(v, int | np.integer):
        raise ValueError(f"{f.name}: expected an integer, got {v!r}")
    v = int(v)
    # Accept the unsigned spelling of a signed field and vice versa (same bits).
    bits = 8 * f.itemsize
    if f.signed and hi < v < (1 << bits):
        v -= 1 << bits
    elif not f.signed and lo - hi - 1 <= v < 0:
        v += 1 << bits
    if not lo <= v <= hi:
        raise ValueError(f"{f.name}: {v} does not fit {f.size // f.count} byte(s)")
    return v


def encode(struct: Struct, fields: Mapping[str, FieldValue]) -> bytes:
    """64 bytes from field values; missing fields are 0. ValueError names a bad field."""
    rec = np.zeros(1, dtype=struct.dtype)
    for name, value in fields.items():
        f = struct.field(name)
        if f.count > 1:
            vals = tuple(value) if not isinstance(value, int) else None
            if vals is None or len(vals) != f.count:
                raise ValueError(f"{name}: expected {f.count} values")
            rec[name][0] = [_check_value(f, v) for v in vals]
        else:
            if not isinstance(value, int | np.integer):
                raise ValueError(f"{name}: expected one integer")
            rec[name][0] = _check_value(f, value)
    return rec.tobytes()


class Program:
    """A whole instruction stream: N x 64 raw bytes viewed per struct group.

    No Program's records ever change. `edited(i, record)` is the same program with record
    i replaced, made in O(edits so far), not O(records): it shares the records it came from
    and keeps the replaced ones aside (a Machine's record edits, the TUI's "apply fix", at
    10**6 records). Reads of one record (`record`, `opcode`, `instruction`) see the
    replacement at once; `raw` (and the views built on it) of an edited program is one
    read-only copy, built on the first read and kept. `changed_from(other)` names the
    records two programs of one lineage differ in without comparing all of them.
    """

    def __init__(self, raw: np.ndarray, name: str = "<bytes>") -> None:
        self.name = name
        self._base = raw  # (N, 64) uint8, from one np.frombuffer; shared by edited copies
        self._edits: dict[int, bytes] = {}  # record index -> its 64 bytes, where not _base's
        self._raw: np.ndarray | None = raw  # None until an edited program's is built
        self._opcodes: np.ndarray | None = None
        self._groups: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        # each distinct record decoded once, shared by edited copies (`instruction`)
        self._decoded: dict[bytes, Instruction] = {}
        self.decoded_kept = DECODED_KEPT  # at most this many in `_decoded`

    def __len__(self) -> int:
        return int(self._base.shape[0])

    def __repr__(self) -> str:
        return f"Program({self.name!r}, {len(self)} records, {len(self._edits)} edited)"

    @property
    def raw(self) -> np.ndarray:
        """(N, 64) uint8: every record (an edited program's: a copy, built once)."""
        if self._raw is None:
            raw = np.array(self._base, dtype=np.uint8, copy=True)
            for i, rec in self._edits.items():
                raw[i] = np.frombuffer(rec, dtype=np.uint8)
            raw.flags.writeable = False
            self._raw = raw
        return self._raw

    @property
    def opcodes(self) -> np.ndarray:
        if self._raw is not None:
            return self._raw[:, 0]
        if self._opcodes is None:  # N bytes, not the N x 64 of `raw`
            ops = self._base[:, 0].copy()
            for i, rec in self._edits.items():
                ops[i] = rec[0]
            ops.flags.writeable = False
            self._opcodes = ops
        return self._opcodes

    def record(self, i: int) -> bytes:
        """The 64 bytes of record i (0 <= i < len)."""
        rec = self._edits.get(i)
        return self._base[i].tobytes() if rec is None else rec

    def opcode(self, i: int) -> int:
        """The opcode byte of record i (0 <= i < len)."""
        rec = self._edits.get(i)
        return int(self._base[i, 0]) if rec is None else rec[0]

    def edited(self, index: int, record: bytes) -> Program:
        """This program with record `index` replaced by the 64 bytes `record` (a new
        Program; this one is unchanged). O(edits), not O(records)."""
        rec = bytes(record)
        if not 0 <= index < len(self) or len(rec) != RECORD_BYTES:
            raise ValueError(f"record {index}: expected a record of 0..{len(self) - 1} and "
                             f"{RECORD_BYTES} bytes, found {len(rec)}")
        new = Program(self._base, self.name)
        new._edits = dict(self._edits)
        new._decoded = self._decoded
        new.decoded_kept = self.decoded_kept
        if rec == self._base[index].tobytes():
            new._edits.pop(index, None)  # back to the shared record
        else:
            new._edits[index] = rec
        new._raw = None if new._edits else self._base  # no edit left: no copy to build
        return new

    def changed_from(self, other: Program) -> list[int] | None:
        """The records (ascending) in which this program and `other` differ when one was
        made from the other by `edited` (O(edits)); None when they share no records."""
        if other._base is not self._base:
            return None
        keys = self._edits.keys() | other._edits.keys()
        return sorted(k for k in keys if self._edits.get(k) != other._edits.get(k))

    @cached_property
    def struct_codes(self) -> np.ndarray:
        """Index into STRUCT_ORDER per record (which struct each record decodes with)."""
        codes: np.ndarray = _OPCODE_STRUCT_INDEX[self.opcodes]
        return codes

    def struct_names(self) -> list[str]:
        """Struct names that occur in the program, in STRUCT_ORDER."""
        present = np.unique(self.struct_codes)
        return [STRUCT_ORDER[i] for i in present]

    def records_for(self, struct_name: str) -> tuple[np.ndarray, np.ndarray]:
        """(indices, structured records) of every record that decodes with `struct_name`."""
        if struct_name not in self._groups:
            code = STRUCT_ORDER.index(struct_name)
            idx = np.flatnonzero(self.struct_codes == code)
            recs = np.ascontiguousarray(self.raw[idx]).view(STRUCTS[struct_name].dtype)
            self._groups[struct_name] = (idx, recs.reshape(-1))
        return self._groups[struct_name]

    def view_as(self, struct_name: str) -> np.ndarray:
        """Every record viewed as `struct_name` regardless of opcode (for legality sweeps)."""
        return self.raw.view(STRUCTS[struct_name].dtype).reshape(-1)

    def instruction(self, i: int) -> Instruction:
        """Record i decoded. Records with the same bytes share one decode (their
        `fields`, read-only): a stream of 10**6 NOPs decodes one record; at most
        `decoded_kept` (DECODED_KEPT) distinct records are kept."""
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"instruction {i} out of range 0..{n - 1}")
        i %= n
        rec = self.record(i)
        d = self._decoded.get(rec)
        if d is None:
            if len(self._decoded) >= self.decoded_kept:
                self._decoded.clear()
            d = self._decoded[rec] = decode(rec, offset=i * RECORD_BYTES, index=i)
        if d.index == i:
            return d
        return Instruction(i, i * RECORD_BYTES, d.opcode, d.mnemonic, d.struct, d.fields, d.raw)

    def tobytes(self) -> bytes:
        return self.raw.tobytes()


DECODED_KEPT = 1 << 16  # distinct records a Program keeps decoded (then it starts afresh)


@dataclass(frozen=True)
class Twins:
    """Records grouped by their bytes (`twins`): `key[i]` is record i's group (-1: not
    grouped), `members[bounds[k]:bounds[k + 1]]` the records of group k."""

    key: np.ndarray  # (N,) int32
    members: np.ndarray  # int32
    bounds: np.ndarray  # int64, one more than the groups

    def of(self, i: int) -> np.ndarray:
        """The records grouped with record i that still have its key (i among them;
        [i] alone when record i is not grouped)."""
        k = int(self.key[i])
        if k < 0:
            return np.array([i], dtype=np.int32)
        members = self.members[self.bounds[k]:self.bounds[k + 1]]
        found: np.ndarray = members[self.key[members] == k]
        return found


_MIX = ((np.arange(RECORD_BYTES // 8, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        ^ np.uint64(0x632BE59BD9B4E019)) | np.uint64(1)  # odd 64-bit multipliers
_CHUNK = 1 << 16  # records compared at once


def twins(raw: np.ndarray, rows: np.ndarray) -> Twins:
    """The records `rows` (indices into the (N, 64) uint8 `raw`) grouped by their bytes,
    in numpy: each record's eight 64-bit words hashed in one product, the hashes sorted,
    every record then compared byte for byte with its group's first (a collision falls
    back to sorting the records themselves)."""
    n = raw.shape[0]
    rows = np.asarray(rows, dtype=np.int64)
    key = np.full(n, -1, dtype=np.int32)
    if not len(rows):
        return Twins(key, np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.int64))
    words = np.ascontiguousarray(raw).view(np.uint64)  # (N, 8), no copy
    h = (words @ _MIX)[rows]  # wraps modulo 2**64
    order = np.argsort(h)
    hs = h[order]
    members = rows[order]
    new = np.empty(len(rows), dtype=bool)
    new[0] = True
    np.not_equal(hs[1:], hs[:-1], out=new[1:])
    group = np.cumsum(new) - 1  # group of members[j]
    first = members[new]
    same = all(bool((words[members[a:a + _CHUNK]] == words[first[group[a:a + _CHUNK]]]).all())
               for a in range(0, len(rows), _CHUNK))
    if not same:  # two distinct records with one hash: group the bytes themselves
        rec = np.ascontiguousarray(raw[rows]).view(np.dtype((np.void, RECORD_BYTES))).ravel()
        inv = np.unique(rec, return_inverse=True)[1].ravel()
        order = np.argsort(inv, kind="stable")
        members = rows[order]
        inv = inv[order]
        np.not_equal(inv[1:], inv[:-1], out=new[1:])
        group = np.cumsum(new) - 1
    key[members] = group
    bounds = np.append(np.flatnonzero(new), len(rows)).astype(np.int64)
    return Twins(key, members.astype(np.int32), bounds)


STRUCT_ORDER: tuple[str, ...] = tuple(STRUCTS)
_OPCODE_STRUCT_INDEX = np.array([STRUCT_ORDER.index(struct_name_of(c)) for c in range(256)],
                                dtype=np.uint8)
assert all(i.struct in STRUCTS for i in OPCODES.values())


def decode_bytes(data: bytes, name: str = "<bytes>") -> Program:
    """A Program over `data`; IsaFormatError if the size is not a multiple of 64."""
    size = len(data)
    if size % RECORD_BYTES:
        partial = size - size % RECORD_BYTES
        raise IsaFormatError(
            f"{name}: size {size} bytes is not a multiple of {RECORD_BYTES}: "
            f"offset {partial}: partial record of {size - partial} bytes")
    raw = np.frombuffer(data, dtype=np.uint8).reshape(-1, RECORD_BYTES)
    return Program(raw, name)


def load_program(path: str | Path) -> Program:
    """The records of the PROGRAM at `path`, as the one program loader reads it
    (machine.asm.loader.load: the limits of machine.files, binary or assembly, its
    one-line errors); kept for callers that want only the Program, not a second reader."""
    from neurondbg.machine.asm.loader import (
        load,  # the loader is built on this codec: bound at call
    )

    return load(path).program
