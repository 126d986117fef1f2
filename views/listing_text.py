"""The Program listing's lines: machine.isa.listing's compact form, with the header
events written as the disassembler writes them.

    listing_lines_with_events(program, Gen.CAYMAN, {0x40: "loop"})
    # ['CAST signal=sem[0]++@complete FP32→BF16 sb[0,0x0]×16 → sb[0,0x100]×16', 'HALT']

One declaration of the events' text: it is machine.asm.disasm.events_tokens (the
`wait=` / `signal=` shorthand where it round-trips, else the fields, as `neurondbg
disasm` prints them). The compact form is built from the records with those fields
zeroed, so it spells none of them itself (it spelled them `update_mode=... update_idx=...`),
and the events go right after the mnemonic, where the disassembler puts them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from machine.asm.disasm import EVENT_FIELDS, events_tokens
from machine.dtypes import Gen
from machine.isa import listing, listing_lines
from machine.isa.codec import Instruction, Program, decode_bytes
from machine.isa.structs import STRUCTS


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
