"""`neurondbg validate PROGRAM|KERNEL [--gen] [--engine] [--json | --summary]` (DESIGN.md).

Exit 0 when every instruction is valid, 1 when any is invalid, 2 on bad input.

A KERNEL (machine.core.kernel.is_kernel_source) has each queue judged on its own
engine (machine.core.validate); `--engine` and `--fix` are refused, an explicit `--gen`
wins over the kernel's own. Program and kernel documents share one top-level shape
(docs/legality.md "validate --json"): `gen`, `engine` (None for a kernel), `count`,
`invalid`, and `instructions` for `--json` (a kernel's rows each name their `engine`)
or `failures` / `notes` for `--summary`; a kernel adds `engines`, engine -> that
queue's one-program document. The text lists each engine's invalid instructions (with
file:line:column for assembly) and its count line.
Binary programs are memory-mapped (np.frombuffer over the page cache, no copy):
whole for the per-instruction outputs, a block of CHUNK records at a time for
`--summary` (its memory stays bounded however long the file); assembly goes through
machine.asm.load_any. This module is imported only
when the command runs; the assembler only for assembly input.

On a terminal, stderr shows progress (neurondbg.progress): a bar counting the records
judged against their total (fed by machine.legality.wire.bulk.validate_raw's `progress`;
a binary `--summary`, judged block by block, counts the records of each block judged),
then, for `--json` into a file or pipe, a bar counting the rows written (most of a
large file's time; on the terminal the rows themselves show it).
"""

from __future__ import annotations

import json
import mmap
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, BinaryIO, TypedDict

import click
import numpy as np

from neurondbg.documents import Kind, stamp
from neurondbg.errors import InputError
from neurondbg.force import force_option
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen, parse_gen
from neurondbg.machine.files import (
    BINARY_SUFFIXES,
    MAX_PROGRAM_BYTES,
    InputFileError,
    looks_like_text,
    open_stream,
)
from neurondbg.machine.isa import RECORD_BYTES
from neurondbg.machine.isa.queues import QUEUE_ENGINES
from neurondbg.machine.words import plural
from neurondbg.params import DEFAULT_ENGINE, GEN, EngineType  # run's default queue too
from neurondbg.progress import Advance, counting, progress

if TYPE_CHECKING:
    from neurondbg.machine.asm.loader import ProgramFile
    from neurondbg.machine.core.validate import KernelDocument
    from neurondbg.machine.legality.result import Verdict
    from neurondbg.machine.legality.wire.bulk import BulkResult, Summary

ENGINES = QUEUE_ENGINES
ANY_ENGINE = "any"  # no dispatch-table check: the wire-level predicates only



def empty_program(path: str | Path, text: bool) -> InputError:
    """The one line for a program without a record (`run` and `validate` alike): the
    words `asm` uses for a source without an instruction, or for binary records the
    0-byte file. Judging nothing and saying "0 instructions" would pass a mistake."""
    if text:
        return InputError(f"{path}:1:1: empty program: no instruction or .raw record "
                          "(comments, labels and data directives alone make none)")
    return InputError(f"{path}: empty program: 0 bytes; expected at least one 64-byte record")


def load(path_text: str, gen: str | Gen = DEFAULT_GEN) -> np.ndarray:
    """The program's (N, 64) uint8 records; InputError (exit 2) on anything unreadable."""
    return load_with_source(path_text, gen)[0]


def load_with_source(path_text: str, gen: str | Gen = DEFAULT_GEN
                     ) -> tuple[np.ndarray, ProgramFile | None]:
    """(records, ProgramFile or None): for assembly, the source map that gives each
    invalid instruction its `file:line:column`."""
    path = Path(path_text)
    try:  # a FIFO or device is refused before it is opened (machine.files)
        with open_stream(path, what="program", max_bytes=MAX_PROGRAM_BYTES) as f:
            head = f.read(4096)
            if not looks_like_text(path, head):
                raw = _records(_read_all(f), path_text)
                if not len(raw):
                    raise empty_program(path_text, False)
                return raw, None
    except InputFileError as e:
        raise InputError(str(e)) from None
    except OSError as e:  # fstat / seek of the open file (opening and reads: InputFileError)
        raise InputError(f"{path_text}: cannot read: {e.strerror or e}") from None
    from neurondbg.sessions.errors import SessionError
    from neurondbg.sessions.program import read_program

    try:
        source = read_program(path, parse_gen(gen))
    except SessionError as e:  # one line: file:line:column: what was expected
        raise InputError(str(e)) from None
    if not len(source.program.raw):
        raise empty_program(path_text, True)
    return source.program.raw, source


def _read_all(f: BinaryIO) -> np.ndarray:
    """The whole (regular) file as uint8, memory-mapped read-only: the page cache is used
    in place (no 64 MB copy into freshly faulted memory); an empty file is read."""
    try:
        return np.frombuffer(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ), dtype=np.uint8)
    except (OSError, ValueError):  # empty, or no mmap here
        f.seek(0)
        return np.frombuffer(f.read(), dtype=np.uint8)


def _summarize_file(path_text: str, gen: Gen, queue: str | None) -> Summary:
    """`--summary`'s counts (machine.legality.wire.bulk.Summary). A binary program is
    judged block by block, CHUNK records at a time, each block memory-mapped on its own
    (`_blocks`: memory stays bounded however long the file); assembly is loaded whole."""
    from neurondbg.cli import frozen_imports
    from neurondbg.machine.legality.wire.bulk import (
        CHUNK,
        load_tables,
        summarize_chunks,
        summarize_raw,
    )

    path = Path(path_text)
    try:
        with open_stream(path, what="program", max_bytes=MAX_PROGRAM_BYTES) as f:
            if not looks_like_text(path, f.read(4096)):
                size = os.fstat(f.fileno()).st_size
                if not size:
                    raise empty_program(path_text, False)
                if size % RECORD_BYTES:
                    f.seek(0)
                    _records(np.frombuffer(f.read(), dtype=np.uint8), path_text)  # its error
                f.seek(0)
                if size:  # records to judge: the tables are imported as the command was
                    with frozen_imports():
                        load_tables()
                with progress(size // RECORD_BYTES, f"validate {path.name}",
                              "instructions") as advance:
                    return summarize_chunks(counting(_blocks(f, size, path_text, CHUNK),
                                                     advance), gen, queue)
    except InputFileError as e:
        raise InputError(str(e)) from None
    except OSError as e:  # fstat / seek of the open file (opening and reads: InputFileError)
        raise InputError(f"{path_text}: cannot read: {e.strerror or e}") from None
    raw, _ = load_with_source(path_text, gen)
    with progress(None, f"validate {path.name}: {len(raw):,} instructions"):
        return summarize_raw(raw, gen, queue)


def _blocks(f: BinaryIO, size: int, path_text: str, records: int) -> Iterator[np.ndarray]:
    """The file's `size` bytes as (n, 64) uint8 blocks of up to `records` records, each
    block memory-mapped on its own (the page cache used in place, no copy) and dropped
    when the next is asked for: at most two blocks are mapped at once, so the memory used
    stays bounded however long the file. A block that cannot be mapped is read."""
    step = records * RECORD_BYTES
    if step % mmap.ALLOCATIONGRANULARITY:  # map offsets must be multiples of it
        step += mmap.ALLOCATIONGRANULARITY - step % mmap.ALLOCATIONGRANULARITY
    for offset in range(0, size, step):
        length = min(step, size - offset)
        data: mmap.mmap | bytes
        try:
            data = mmap.mmap(f.fileno(), length, offset=offset, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # no mmap here, or the file shrank meanwhile
            f.seek(offset)
            data = f.read(length)
            if len(data) != length:
                raise InputError(f"{path_text}: the file changed while it was read "
                                 f"(expected {size} bytes)") from None
        block = np.frombuffer(data, dtype=np.uint8).reshape(-1, RECORD_BYTES)
        del data  # the block alone keeps the mapping: it goes when the caller drops it
        yield block


def _records(raw: np.ndarray, path_text: str) -> np.ndarray:
    """(N, 64) records; the codec's one-line error when the size is not whole records."""
    if raw.size % RECORD_BYTES:
        from neurondbg.machine.isa.codec import IsaFormatError, decode_bytes
        try:  # the codec states the size error (one declaration of the message)
            decode_bytes(raw.tobytes(), path_text)
        except IsaFormatError as e:
            raise InputError(str(e)) from None
    return raw.reshape(-1, RECORD_BYTES)


class SummaryDocument(TypedDict):
    """`validate --summary`'s counts of one program or queue."""

    gen: str
    engine: str | None
    count: int
    invalid: int
    failures: dict[str, int]  # failing instructions per clause, most first
    notes: dict[str, int]  # the same of the note clauses


def _summary(result: Summary | BulkResult) -> SummaryDocument:
    return {"gen": result.gen.label, "engine": result.engine, "count": result.count,
            "invalid": result.invalid, "failures": result.failures,
            "notes": result.note_failures}


class Trees:
    """`tree` of each record (DESIGN "Legality reporting"), by its bytes: identical records
    share one explanation. `prepare` explains a block's new records together
    (machine.legality.explain.explain_many: each clause checked once for all of them, the
    fix search batched); the cache is dropped when it would exceed TREE_CACHE records
    (then holds one block), so an all-distinct file costs time, not memory."""

    def __init__(self, result: BulkResult) -> None:
        self.result = result
        self.cache: dict[bytes, str] = {}

    def prepare(self, records: list[bytes]) -> None:
        """Explain the records not cached yet, FIX_BATCH at a time (their fixes searched
        together, the verdicts built a few at a time)."""
        from neurondbg.machine.legality.explain import FIX_BATCH, iter_explain_many

        new = [r for r in dict.fromkeys(records) if r not in self.cache]
        if len(self.cache) + len(new) > TREE_CACHE:
            self.cache.clear()
        for s in range(0, len(new), FIX_BATCH):
            part = new[s:s + FIX_BATCH]
            raw = np.frombuffer(b"".join(part), dtype=np.uint8).reshape(-1, RECORD_BYTES)
            for record, verdict in zip(part, iter_explain_many(raw, self.result.gen,
                                                               self.result.engine),
                                       strict=True):
                self.cache[record] = verdict.tree_json()

    def json(self, record: bytes) -> str:
        text = self.cache.get(record)
        if text is None:
            from neurondbg.machine.legality.explain import explain
            verdict = explain(record, self.result.gen, self.result.engine)
            text = verdict.tree_json()
            if len(self.cache) >= TREE_CACHE:
                self.cache.clear()
            self.cache[record] = text
        return text


TREE_CACHE = 1 << 12


def _full(result: BulkResult, raw: np.ndarray) -> dict[str, object]:
    """The `--json` document (DESIGN.md) as one dict."""
    from neurondbg.machine.isa.opcodes import mnemonic
    verdicts = result.verdicts()
    trees = Trees(result)
    rows = [{"index": i, "offset": i * RECORD_BYTES, "opcode": op, "mnemonic": mnemonic(op),
             **verdicts[k], "tree": json.loads(trees.json(raw[i].tobytes()))}
            for i, (op, k) in enumerate(zip(raw[:, 0].tolist(), result.column.tolist(),
                                            strict=True))]
    return stamp(Kind.VALIDATE, {"gen": result.gen.label, "engine": result.engine,
                                 "count": result.count, "invalid": result.invalid,
                                 "instructions": rows})


ROWS_PER_WRITE = 1 << 12


def _write_full(result: BulkResult, raw: np.ndarray, out: IO[str],
                advance: Advance | None = None) -> None:
    """Stream the text json.dumps(_full(...)) would give, without building it: each
    distinct verdict is serialized once and each instruction's row is formatted;
    `advance(n)` is told of each block of n rows written."""
    from neurondbg.machine.isa.opcodes import mnemonic
    head = stamp(Kind.VALIDATE, {"gen": result.gen.label, "engine": result.engine,
                                 "count": result.count, "invalid": result.invalid,
                                 "instructions": []})
    text = json.dumps(head)
    out.write(text[:-2])  # the document up to and including its list's "["
    # '"valid": ..., "clauses": {..}' of each column (its closing brace cut: "tree" follows)
    tails = [json.dumps(v)[1:-1] for v in result.verdicts()]
    trees = Trees(result)
    names = {op: json.dumps(mnemonic(op)) for op in np.unique(raw[:, 0]).tolist()}
    ops, cols = raw[:, 0].tolist(), result.column.tolist()
    for s in range(0, result.count, ROWS_PER_WRITE):
        block = range(s, min(s + ROWS_PER_WRITE, result.count))
        records = [raw[i].tobytes() for i in block]
        trees.prepare(records)
        out.write((", " if s else "") + ", ".join(
            f'{{"index": {i}, "offset": {i * RECORD_BYTES}, "opcode": {ops[i]}, '
            f'"mnemonic": {names[ops[i]]}, {tails[cols[i]]}, '
            f'"tree": {trees.json(record)}}}'
            for i, record in zip(block, records, strict=True)))
        if advance is not None:
            advance(min(ROWS_PER_WRITE, result.count - s))
    out.write("]}\n")


TEXT_BLOCK = 1 << 10  # invalid instructions whose new records are explained together


def _text(result: BulkResult, raw: np.ndarray, source: ProgramFile | None = None) -> None:
    """Per invalid instruction: index, offset (and `file:line:column` for assembly),
    mnemonic and each failing clause's message. The invalid instructions are taken
    TEXT_BLOCK at a time and the block's records not yet explained are explained together
    (explain_many: verdict for verdict explain's), so text output of a mostly distinct
    program does not cost one explanation per record."""
    out = sys.stdout
    bad = np.flatnonzero(~result.valid)
    # one explanation per distinct record: by column (copies share one when deduplicated),
    # then by bytes (copies judged separately when the program was mostly distinct)
    explained: dict[int, str] = {}
    by_bytes: dict[bytes, str] = {}
    for s in range(0, len(bad), TEXT_BLOCK):
        block = bad[s:s + TEXT_BLOCK]
        cols = result.column[block].tolist()
        new: dict[bytes, None] = {}  # the block's records not explained yet, in order
        for i, k in zip(block.tolist(), cols, strict=True):
            if k not in explained:
                record = raw[i].tobytes()
                if record in by_bytes:
                    explained[k] = by_bytes[record]
                else:
                    new[record] = None
        by_bytes.update(zip(new, _explain_texts(list(new), result), strict=True))
        lines = []
        for i, k in zip(block.tolist(), cols, strict=True):
            text = explained.get(k)
            if text is None:
                text = explained[k] = by_bytes[raw[i].tobytes()]
            at = source.where(i) if source is not None else None
            lines.append(f"#{i} @0x{i * 64:06x} {at + ': ' if at else ''}{text}")
        out.write("".join(lines))
    engine = f", engine {result.engine}" if result.engine else ""
    out.write(f"{result.count} {plural(result.count, 'instruction')}, {result.invalid} invalid "
              f"({result.gen.label}{engine})\n")


def _explain_texts(records: list[bytes], result: BulkResult) -> list[str]:
    """The text of each invalid record: mnemonic, predicate, each failing clause (and
    fix), the records explained together (machine.legality.explain.explain_many)."""
    if not records:
        return []
    from neurondbg.machine.isa.opcodes import mnemonic
    from neurondbg.machine.legality.explain import explain_many
    raw = np.frombuffer(b"".join(records), dtype=np.uint8).reshape(-1, RECORD_BYTES)
    texts = []
    for record, verdict in zip(records, explain_many(raw, result.gen, result.engine),
                               strict=True):
        op = record[0]
        parts = [f"{mnemonic(op)} (0x{op:02X}): invalid [{verdict.predicate}]"]
        texts.append("\n".join(parts + failing_clause_lines(verdict)) + "\n")
    return texts


def failing_clause_lines(verdict: Verdict) -> list[str]:
    """`  clause › sub-clause › rule: message (fix: ...)` per failing rule, the path from
    the top-level clause down to the failing leaf: `validate` and `run`'s invalid stop
    print the same lines."""
    from neurondbg.machine.legality.result import PATH_SEP

    return [f"  {PATH_SEP.join(path)}: {leaf.message}" + (f" (fix: {leaf.fix})" if leaf.fix
                                                           else "")
            for c in verdict.clauses if not c.passed and not c.note
            for path, leaf in c.failing_paths()]


@click.command("validate")
@click.argument("program", type=click.Path(dir_okay=False))
@click.option("--gen", "gen", type=GEN, default=DEFAULT_GEN.label, show_default=True,
              help="Hardware generation whose rules apply.")
@click.option("--engine", type=EngineType(extra=(ANY_ENGINE,)), default=DEFAULT_ENGINE,
              show_default=True,
              help="Require the opcode in this engine's dispatch table, as `run --engine` "
                   f"does; `{ANY_ENGINE}`: the wire-level predicates only.")
@click.option("--json", "as_json", is_flag=True, help="Every instruction's clauses as JSON.")
@click.option("--summary", is_flag=True, help="Counts only: failing records per clause (JSON).")
@click.option("--fix", "fix_out", type=click.Path(dir_okay=False), default=None,
              metavar="OUT", help="Write PROGRAM with every checked fix applied to OUT "
              "(binary or assembly, as PROGRAM) and list the edits. A fix changes the fewest "
              "fields, keeps the opcode where it can, sets an invalid sync mode to NONE, a "
              "dtype to the nearest of its kind and width, and only the wrong dimensions "
              "(docs/legality.md).")
@click.option("--subgraph", default=None, metavar="sgNN", help="A NEFF's subgraph to judge "
              "[default: the first that has work].")
@force_option
def command(program: str, gen: Gen, engine: str, as_json: bool, summary: bool,
            fix_out: str | None, subgraph: str | None) -> None:
    """Check every instruction of PROGRAM against the wire-level legality predicates and
    the engine's dispatch table (by default POOL's, the queue `run` uses)."""
    if as_json and summary:
        raise click.UsageError("--json and --summary are exclusive")
    if fix_out is not None and (as_json or summary):
        raise click.UsageError("--fix lists its edits as text: not with --json or --summary")
    from neurondbg.machine.neff.sniff import is_neff_file
    if is_neff_file(program):  # a NEFF: each stream on its engine, whole-NEFF checks
        from neurondbg.commands.neff_validate import from_validate
        from_validate(program, gen, as_json, summary, fix_out, subgraph)
    if subgraph is not None:
        raise click.UsageError("--subgraph applies to a NEFF only")
    if Path(program).suffix.lower() not in BINARY_SUFFIXES:  # records by name are never a
        from neurondbg.machine.core.kernel import (
            is_kernel_source,  # kernel: spare the import (~80 ms)
        )
        if is_kernel_source(program):  # each queue on its own engine (machine.core.validate)
            _validate_kernel(program, gen, as_json, summary, fix_out)
    target = None
    if fix_out is not None:
        from neurondbg.commands import validate_fix
        target = validate_fix.output_target(fix_out, program)  # before any work
    queue = None if engine == ANY_ENGINE else engine
    if summary and target is None:  # counts only: bounded memory, one chunk at a time
        counts = _summarize_file(program, gen, queue)
        click.echo(json.dumps(stamp(Kind.VALIDATE_SUMMARY, _summary(counts))))
        sys.exit(1 if counts.invalid else 0)
    raw, source = load_with_source(program, gen)
    from neurondbg.machine.legality.explain import validate
    with progress(len(raw), f"validate {Path(program).name}", "instructions") as advance:
        result = validate(raw, gen, queue, progress=advance)
    if target is not None:
        lines, unfixed = validate_fix.write(program, target, raw, source, result)
        for line in lines:
            click.echo(line)
        click.echo(f"{result.count} {plural(result.count, 'instruction')}, "
                   f"{result.invalid - unfixed} fixed, "
                   f"{unfixed} without a fix; wrote {fix_out}")
        sys.exit(1 if unfixed else 0)
    if summary:
        click.echo(json.dumps(stamp(Kind.VALIDATE_SUMMARY, _summary(result))))
    elif as_json:
        with progress(result.count, f"validate {Path(program).name}: --json",
                      "instructions", prints=True) as advance:
            _write_full(result, raw, sys.stdout, advance)
    else:
        _text(result, raw, source)
    sys.exit(1 if result.invalid else 0)


def several_streams_options(what: str, streams: str, fix_out: str | None) -> bool:
    """For an input of several streams (a kernel, a NEFF) each judged on its own engine:
    refuse `--engine` and `--fix` (one program's options); whether `--gen` was given."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    if ctx.get_parameter_source("engine") is not ParameterSource.DEFAULT:
        raise click.UsageError(f"--engine does not apply to a {what}: each {streams} is "
                               "judged on its own engine")
    if fix_out is not None:
        raise click.UsageError(f"--fix takes one program, not a {what}")
    return ctx.get_parameter_source("gen") is not ParameterSource.DEFAULT


def _validate_kernel(program: str, gen: Gen, as_json: bool, summary: bool,
                     fix_out: str | None) -> None:
    """A kernel: every queue is judged on its own engine, so `--engine` does not apply
    (refused, as `run KERNEL` does); an explicit `--gen` wins over the kernel's own.
    Prints the verdicts (module docstring: the shapes) and exits with validate's code."""
    given = several_streams_options("kernel", "queue", fix_out)
    sys.exit(validate_kernel_command(program, gen, given, as_json, summary))


def validate_kernel_command(program: str, gen: Gen, gen_given: bool, as_json: bool,
                            summary: bool) -> int:
    """Print the verdicts of the kernel at `program`; its exit code. `gen` applies when
    `gen_given` (an explicit --gen wins), else the kernel's own generation does."""
    from neurondbg.machine.asm import AsmError
    from neurondbg.machine.core.kernel import load_kernel
    from neurondbg.machine.core.validate import validate_kernel, validate_queues

    try:
        kernel = load_kernel(program, gen if gen_given else None)
    except AsmError as e:
        raise InputError(e.one_line) from None
    except OSError as e:
        raise InputError(f"{program}: cannot read: {e.strerror or e}") from None
    except ValueError as e:  # KernelError, InputFileError, IsaFormatError: one line each
        raise InputError(str(e)) from None
    judging = f"validate {kernel.path.name}"
    if as_json:
        with progress(None, judging):
            doc = validate_kernel(kernel)
        click.echo(json.dumps(stamp(Kind.VALIDATE, kernel_document(doc))))
        return 1 if doc["invalid"] else 0
    with progress(None, judging):
        results = validate_queues(kernel)
    invalid = sum(r.invalid for r in results.values())
    if summary:
        engines = {e: _summary(r) for e, r in results.items()}
        click.echo(json.dumps(stamp(Kind.VALIDATE_SUMMARY, {
            "gen": kernel.gen.label, "engine": None,
            "count": sum(r.count for r in results.values()), "invalid": invalid,
            "failures": _totals(e["failures"] for e in engines.values()),
            "notes": _totals(e["notes"] for e in engines.values()),
            "engines": engines})))
    else:
        for q in kernel.queues:
            _text(results[q.engine], q.program.program.raw, q.program)
    return 1 if invalid else 0


def kernel_document(doc: KernelDocument) -> dict[str, object]:
    """A kernel's `--json` (machine.core.validate.validate_kernel) in a program's
    top-level shape too: `engine` None (each queue has its own) and `instructions`,
    every queue's rows in engine order, each naming its `engine`; `engines` keeps each
    queue's one-program document."""
    rows = [{"engine": e, **row} for e, d in doc["engines"].items()
            for row in d["instructions"]]
    return {"gen": doc["gen"], "engine": None, "count": doc["count"],
            "invalid": doc["invalid"], "instructions": rows, "engines": doc["engines"]}


def _totals(counts: Iterator[dict[str, int]]) -> dict[str, int]:
    """clause -> count summed over the engines' summaries."""
    out: dict[str, int] = {}
    for c in counts:
        for k, n in c.items():
            out[k] = out.get(k, 0) + n
    return out
