"""The Program listing's lines: machine.isa.listing's compact form, with the header
events written as the disassembler writes them, and the listing itself (`Listing`),
whose lines are built as they are read.

    listing_lines_with_events(program, Gen.CAYMAN, {0x40: "loop"})
    # ['CAST signal=sem[0]++@complete FP32→BF16 sb[0,0x0]×16 → sb[0,0x100]×16', 'HALT']
    lines = program_listing(program, labels, gen, "pool")   # nothing built yet
    lines[3].listing                                        # record 3's line, built now

A Program pane shows some fifty lines of a listing that can hold 170,000 records (a
NEFF's PE stream): building every line's two texts up front took seconds, so a
`Listing` judges every record at once (the vectorized validator) and, past EAGER_LINES
records, builds a line's texts the first time the line is read, with the same functions
as one record's (`format_instruction`, `listing_with_events`). A shorter listing is built
at once, with the bulk functions (a fraction of a second), so its pane knows its widest
line.

One declaration of the events' text: it is machine.asm.disasm.events_tokens (the
`wait=` / `signal=` shorthand where it round-trips, else the fields, as `neurondbg
disasm` prints them). The compact form is built from the records with those fields
zeroed, so it spells none of them itself (it spelled them `update_mode=... update_idx=...`),
and the events go right after the mnemonic, where the disassembler puts them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import overload

import numpy as np

from neurondbg.debug.program_line import ProgramLine
from neurondbg.machine.asm.disasm import (
    EVENT_FIELDS,
    disassemble_lines,
    events_tokens,
    format_instruction,
)
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa import listing, listing_lines
from neurondbg.machine.isa.codec import Instruction, Program, decode_bytes
from neurondbg.machine.isa.spec import RECORD_BYTES
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.legality.explain import validate


def _with_events(line: str, events: str) -> str:
    """`events` after the line's mnemonic (a `.raw` line has none: events is "")."""
    if not events:
        return line
    mnemonic, _, rest = line.partition(" ")
    return f"{mnemonic} {events}" + (f" {rest}" if rest else "")


def _without_events(program: Program) -> Program:
    """The same records with their EVENT_FIELDS zeroed (a copy: programs never change)."""
    raw = program.raw.copy()
    for name in program.struct_names():
        idx, _ = program.records_for(name)
        for f in STRUCTS[name].fields:
            if f.name in EVENT_FIELDS:
                raw[idx, f.offset:f.end] = 0
    return Program(raw, program.name)


def listing_lines_with_events(program: Program, gen: Gen,
                              labels: Mapping[int, str] | None = None) -> list[str]:
    """Every record's listing line, in order (labels: byte offset -> label)."""
    events = events_tokens(program)
    if not any(events):
        return listing_lines(program, gen, labels)
    short = listing_lines(_without_events(program), gen, labels)
    return [_with_events(line, ev) for line, ev in zip(short, events, strict=True)]


def listing_with_events(inst: Instruction, gen: Gen,
                        labels: Mapping[int, str] | None = None) -> str:
    """One decoded instruction's listing line."""
    events = events_tokens(decode_bytes(inst.raw))[0]
    if not events:
        return listing(inst, gen, labels)
    quiet = replace(inst, fields={k: 0 if k in EVENT_FIELDS else v
                                  for k, v in inst.fields.items()})
    return _with_events(listing(quiet, gen, labels), events)

EAGER_LINES = 4096  # a listing of up to this many records is built when it is made


class Listing(Sequence[ProgramLine]):
    """A program's listing: one ProgramLine per record, built when first read (module
    docstring). `copy()` and item assignment give an edited listing (debug.record_fix)
    that shares the unedited lines' source."""

    def __init__(self, program: Program, labels: Mapping[int, str], gen: Gen,
                 valid: np.ndarray) -> None:
        self._program, self._labels, self._gen = program, labels, gen
        self._valid = valid
        self._built: dict[int, ProgramLine] = {}

    def __len__(self) -> int:
        return len(self._program)

    @overload
    def __getitem__(self, index: int) -> ProgramLine: ...

    @overload
    def __getitem__(self, index: slice) -> list[ProgramLine]: ...

    def __getitem__(self, index: int | slice) -> ProgramLine | list[ProgramLine]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = index + len(self) if index < 0 else index
        if not 0 <= i < len(self):
            raise IndexError(f"listing index {index} out of range")
        line = self._built.get(i)
        if line is None:
            line = self._built[i] = self._line(i)
        return line

    def __iter__(self) -> Iterator[ProgramLine]:
        return (self[i] for i in range(len(self)))

    def __setitem__(self, index: int, line: ProgramLine) -> None:
        self._built[index] = line

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> Listing:
        """A listing of the same lines that can be edited without changing this one."""
        out = Listing(self._program, self._labels, self._gen, self._valid)
        out._built = dict(self._built)
        return out

    @property
    def built(self) -> bool:
        """Whether every line is built (views.program measures the widest then)."""
        return len(self._built) == len(self)

    def build_all(self) -> None:
        """Build every line not built yet, with the bulk functions."""
        if self.built:
            return
        texts = disassemble_lines(self._program, self._gen)
        short = listing_lines_with_events(self._program, self._gen, self._labels)
        for i in range(len(self)):
            if i not in self._built:
                offset = i * RECORD_BYTES
                self._built[i] = ProgramLine(i, offset, texts[i].strip(), bool(self._valid[i]),
                                             self._labels.get(offset), listing=short[i])

    @property
    def label_width(self) -> int:
        """The widest label of a listed record, plus its colon (0: none)."""
        return max((len(name) + 1 for off, name in self._labels.items()
                    if name and off % RECORD_BYTES == 0 and 0 <= off // RECORD_BYTES < len(self)),
                   default=0)

    def _line(self, i: int) -> ProgramLine:
        inst = self._program.instruction(i)
        offset = i * RECORD_BYTES
        return ProgramLine(i, offset, format_instruction(inst, self._gen).strip(),
                           bool(self._valid[i]), self._labels.get(offset),
                           listing=listing_with_events(inst, self._gen, self._labels))


def program_listing(program: Program, labels: dict[str, int], gen: Gen, engine: str,
                    valid: Iterable[bool] | None = None) -> Listing:
    """The listing of `program` on `engine`, every record judged at once by the
    vectorized validator (or by `valid`, one verdict per record, when given: a NEFF's
    own, machine.neff.verdicts)."""
    by_offset = {off: name for name, off in labels.items()}
    ok = np.fromiter(valid, dtype=bool) if valid is not None else None
    if ok is None or len(ok) != len(program):
        ok = np.asarray(validate(program, gen, engine).valid, bool)
    out = Listing(program, by_offset, gen, ok)
    if len(out) <= EAGER_LINES:
        out.build_all()
    return out

