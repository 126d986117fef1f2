"""`neurondbg validate PROGRAM --fix OUT`: write the program with every checked fix applied.

Each invalid instruction's smallest checked edit set (machine.legality.explain:
applied to a copy of the record, the whole predicate re-judged on the same
generation and engine) is applied; one line per instruction lists the edits, or
why no edit exists. OUT has the input's form: 64-byte records for a binary
program (its `.data.npz` sidecar copied beside OUT), assembly for assembly, where
only the repaired instructions' lines change (label and comment kept, `fixed:
...` added to the comment) and the new text is re-assembled to check that it
gives exactly the repaired records. The write is atomic and never over PROGRAM.

An instruction with a clause no edit fixes (the engine's dispatch table, the
generation's opcode set) still gets the checked edits of its other clauses ("partly
fixed"), and the line says why the rest has no fix.

Which fix is chosen (docs/legality.md "Fixes"): the fewest fields changed; among
those, one that keeps the opcode; an invalid wait or update mode becomes NONE (never
a synchronising mode); a dtype becomes the nearest of the same kind and width first
(FP4 -> FP8, not INT8); an access pattern changes only its wrong dimensions.

Decision (the reference is silent): the exit code describes OUT, the program the user
runs next: 0 when every instruction of OUT is valid, 1 when some have no fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from neurondbg.errors import InputError

if TYPE_CHECKING:
    from neurondbg.machine.asm.loader import ProgramFile
    from neurondbg.machine.dtypes import Gen
    from neurondbg.machine.legality.wire.bulk import BulkResult


def output_target(out: str, program: str) -> Path:
    """The resolved OUT; InputError (exit 2) when it is PROGRAM or cannot be written, or
    holds another kind of file than PROGRAM (OUT has its form) and --force is not given."""
    from neurondbg.sessions.atomic import check_output, sniff_kind
    from neurondbg.sessions.errors import SessionError

    try:
        return check_output(out, [("the program", program)], what="--fix output",
                            kind=sniff_kind(program))
    except SessionError as e:
        raise InputError(str(e)) from None


def repair(raw: np.ndarray, result: BulkResult
           ) -> tuple[np.ndarray, list[str], dict[int, str], int]:
    """(repaired records, one line per invalid instruction, {changed index: its edits},
    instructions without a fix)."""
    from neurondbg.machine.isa.structs import STRUCTS
    from neurondbg.machine.legality.explain import explain
    from neurondbg.machine.legality.wire.registry import predicate_for
    from neurondbg.machine.legality.wire.repair import apply, describe

    fixed = raw.copy()
    lines: list[str] = []
    changed: dict[int, str] = {}
    unfixed = 0
    cache: dict[bytes, tuple[bytes | None, str, bool]] = {}
    for i in np.flatnonzero(~result.valid).tolist():
        record = raw[i].tobytes()
        if record not in cache:
            v = explain(record, result.gen, result.engine)
            struct = STRUCTS[predicate_for(record[0]).struct]
            rec = np.frombuffer(record, dtype=struct.dtype).copy()
            if v.fix_fields is not None:
                cache[record] = (apply(struct, rec, v.fix_fields).tobytes(),
                                 describe(v.fix_fields, struct), True)
            elif v.partial_fix is not None:  # the fixable clauses fixed, the rest said
                cache[record] = (apply(struct, rec, v.partial_fix).tobytes(),
                                 f"partly fixed: {describe(v.partial_fix, struct)}; "
                                 f"no fix for the rest: {v.no_fix}", False)
            else:
                cache[record] = (None, f"no fix: {v.no_fix}", False)
        new, text, whole = cache[record]
        lines.append(f"#{i} @0x{i * 64:06x}: {text}")
        if not whole:
            unfixed += 1
        if new is not None:
            fixed[i] = np.frombuffer(new, dtype=np.uint8)
            changed[i] = text
    return fixed, lines, changed, unfixed


def assembly_text(source: ProgramFile, fixed: np.ndarray, edits: dict[int, str], gen: Gen
                  ) -> str:
    """The source text with each changed instruction's line rewritten from its record."""
    from neurondbg.machine.asm.disasm import format_instruction
    from neurondbg.machine.isa.codec import decode

    lines = source.text.splitlines(keepends=True)
    line_of = source.lines
    assert line_of is not None, "assembly: each record has its source line"
    for i in edits:
        n = line_of[i] - 1
        old = lines[n]
        head, hash_, comment = old.rstrip("\n").partition("#")
        label, colon, _ = head.partition(":")
        prefix = label + ": " if colon and " " not in label.strip() else ""
        body = format_instruction(decode(fixed[i].tobytes(), i * 64, i), gen)
        ending = "\n" if old.endswith("\n") else ""
        kept = f"{comment.strip()}; " if hash_ and comment.strip() else ""
        lines[n] = f"{prefix}{body}  # {kept}fixed: {edits[i]}{ending}"
    return "".join(lines)


def write(program: str, target: Path, raw: np.ndarray, source: ProgramFile | None,
          result: BulkResult) -> tuple[list[str], int]:
    """Repair, write OUT atomically in the input's form; (edit lines, instructions unfixed)."""
    fixed, lines, changed, unfixed = repair(raw, result)
    try:
        _write(program, target, fixed, changed, source, result)
    except OSError as e:
        raise InputError(f"{target}: cannot write: {e.strerror or e}") from None
    return lines, unfixed


def _write(program: str, target: Path, fixed: np.ndarray, changed: dict[int, str],
           source: ProgramFile | None, result: BulkResult) -> None:
    """Write the repaired program to `target`: records (+ sidecar) or assembly text."""
    from neurondbg.machine.asm.data import data_path
    from neurondbg.sessions.atomic import atomic_open

    if source is None:  # binary: the records, and the data sidecar beside them
        side = data_path(program)
        with atomic_open(target, "wb") as fh:
            fh.write(fixed.tobytes())
        if side.exists():
            with atomic_open(data_path(target), "wb") as fh:
                fh.write(side.read_bytes())
        return
    from neurondbg.machine.asm.loader import from_text

    text = assembly_text(source, fixed, changed, result.gen)
    again = from_text(target, text, result.gen).program.raw
    if again.shape != fixed.shape or not np.array_equal(again, fixed):
        raise InputError(f"{target}: the repaired assembly does not re-assemble to the "
                         "repaired records; nothing was written")
    with atomic_open(target, "w") as fh:
        fh.write(text)
