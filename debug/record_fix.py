"""Record edits as the TUI makes them, for a program and for any engine of a kernel:
`fix_record` (the console's `fix`, the Legality pane's F) and `relist` (the listing
lines of the records an edit, or a reverse past one, changed).

The fix is the wire verdict's smallest checked edit set (Verdict.fix_fields: the whole
predicate passes on this generation and engine); a valid record is left alone and says
so. The edit itself goes through the core's journaled `edit_record`, so `reverse`
undoes it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from neurondbg.debug.listing_text import Listing, listing_with_events
from neurondbg.debug.program_line import ProgramLine
from neurondbg.machine.asm.disasm import format_instruction
from neurondbg.machine.debugger import Machine
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.codec import Program

# Stores 64 bytes as record N of the queue the fix was judged on (journaled).
RecordWriter = Callable[[int, bytes], object]


def _value(record: np.ndarray, name: str) -> int | tuple[int, ...]:
    """Field `name` of a one-record structured array, as the decoder gives it."""
    v = record[name][0]
    return tuple(int(x) for x in v) if np.ndim(v) else int(v)


def fix_record(m: Machine, index: int | None, write: RecordWriter) -> str:
    """Apply the checked fix of record `index` of `m`'s queue (None: the one at its PC)
    through `write`; what changed, e.g. "record 3: dst.start_addr 0x00001001 ->
    0x00001000; now valid". ValueError (one line) when there is no record or no fix."""
    from neurondbg.machine.isa.structs import STRUCTS
    from neurondbg.machine.legality.explain import predicate_of
    from neurondbg.machine.legality.wire.repair import apply, describe

    i = m.index_of(m.state.pc) if index is None else index  # None: not a record
    if i is None or not 0 <= i < m.count:
        raise ValueError(f"fix: no record at pc {m.state.pc:#x}" if index is None
                         else f"fix: record {i} does not exist (0..{m.count - 1})")
    verdict = m.verdict(i)
    if verdict.valid:
        return f"record {i}: {verdict.predicate} passes: nothing to fix"
    if verdict.fix_fields is None:
        raise ValueError(f"record {i}: no fix: {verdict.no_fix or 'no checked edit'}")
    inst = m.instruction(i)
    struct = STRUCTS[predicate_of(inst).struct]  # the fix names the predicate's fields
    before = np.frombuffer(inst.raw, dtype=struct.dtype).copy()
    after = apply(struct, before, verdict.fix_fields)
    write(i, after.tobytes())

    def shown(name: str, value: int | tuple[int, ...]) -> str:
        return describe({name: value}, struct).partition(" = ")[2]  # "set NAME = VALUE"

    changes = ", ".join(f"{name} {shown(name, _value(before, name))} -> "
                        f"{shown(name, _value(after, name))}"
                        for name in verdict.fix_fields)
    now = m.verdict(i)
    state = "now valid" if now.valid else f"still invalid: {', '.join(now.failed)}"
    return f"record {i}: {changes}; {state}"


def relist(m: Machine, listed: Program, lines: Listing, labels: dict[str, int],
           gen: Gen) -> Listing | None:
    """The listing of `m.program` when `lines` list `listed` (an older program of the
    same queue): a new list with the changed records listed and judged afresh, or None
    when nothing changed. Only the records that differ are listed again (a whole
    program takes seconds at 10**5 records)."""
    now = m.program
    if now is listed:
        return None
    changed = now.changed_from(listed)  # O(edits): both come from one load
    if changed is None:  # another program altogether: compare every record
        changed = np.flatnonzero((np.asarray(now.raw) != np.asarray(listed.raw))
                                 .any(axis=1)).tolist()
    if not changed:
        return None
    out = lines.copy()
    by_offset = {off: name for name, off in labels.items()}
    for i in changed:
        inst = m.instruction(i)
        out[i] = ProgramLine(i, i * 64, format_instruction(inst, gen).strip(), m.valid(i),
                             by_offset.get(i * 64),
                             listing=listing_with_events(inst, gen, by_offset))
    return out
