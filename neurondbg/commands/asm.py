"""`neurondbg asm SOURCE -o OUT.bin`: assemble text into 64-byte records (+ data sidecar).

OUT and OUT.data.npz are checked before assembling (neither may be SOURCE, through
symlinks, `..` or hard links; the folder must be writable) and written atomically:
both go to temporaries first, the sidecar is renamed into place, then the records.
A stale sidecar (the new program has no data) is removed after the records land.

A SOURCE with `.engine` sections is a kernel: `-o` then names the manifest to write
and must end in `.toml` (anything else is a usage error: a kernel is several files).
Beside it go one `<stem>.<engine>.bin` per section, each with its section's data in
`<stem>.<engine>.bin.data.npz`; the data before the first `.engine` goes with the first
engine's stream (ENGINE_ORDER). Every output is checked against SOURCE first, written
to a temporary, and renamed into place sidecars first, then streams, the manifest
last, so a manifest never names a stream that is not there yet. Existing outputs are
replaced, as `asm` replaces OUT.bin; stale sidecars are removed.

An existing output of another kind (an assembly source where the program goes, a
session where the manifest goes, ...: sessions.atomic.sniff_kind) is refused before
assembling, in one line, unless `--force`; one of the same kind (the last build) is
replaced. A stale sidecar is removed only when it holds data.

A SOURCE of more than LARGE_BYTES shows, on a terminal, a bar of the lines assembled
out of the source's lines on stderr (neurondbg.progress.counted, fed by the
assembler's `progress`: a line counts in parts as each of its three passes is done,
each part its pass's share of the time, so the time remaining holds). The bar's block
starts before the source is read, so it shows 0.3 s into the work as the README says;
the long steps before the first pass (decoding, the `.engine` scan, splitting lines)
go CHUNK_BYTES at a time so that no C call keeps its thread from drawing.
Smaller sources assemble in well under the bar's delay anyway. Ctrl+C while a large
source assembles is one line saying nothing was written (exit 130): outputs are
written only once the whole source has assembled.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from neurondbg.errors import InputError
from neurondbg.force import force_option
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.params import GEN
from neurondbg.progress import Report

if TYPE_CHECKING:
    from neurondbg.machine.asm import Assembly
    from neurondbg.machine.asm.sections import SectionedAssembly
    from neurondbg.sessions.atomic import FileKind

# A source of more bytes than this shows a progress bar on a terminal (about 10,000
# short lines; smaller ones assemble well within the bar's 0.3 s delay, and skip
# importing rich for it)
LARGE_BYTES = 128 * 1024


class AsmInputError(InputError):
    """Like InputError, but keeps the source line and caret under the message."""

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"neurondbg: error: {self.message}", err=True, file=file)


def _check(path: Path, source: str, what: str, kind: FileKind | None = None) -> Path:
    """The resolved target of output `path`; InputError if it is SOURCE or unwritable,
    or holds another kind of file than `kind` (unless --force)."""
    from neurondbg.sessions.atomic import check_output
    from neurondbg.sessions.errors import SessionError

    try:
        return check_output(path, [("the source", source)], what=what, kind=kind)
    except SessionError as e:
        raise InputError(str(e)) from None


def _read_source(source: str) -> bytes:
    from neurondbg.machine.files import MAX_ASSEMBLY_BYTES, InputFileError, read_file

    try:  # read_file words a missing or unreadable file too: one line each
        return read_file(source, what="assembly source", max_bytes=MAX_ASSEMBLY_BYTES)
    except InputFileError as e:
        raise InputError(str(e)) from None


CHUNK_BYTES = 1 << 22  # decoded / searched at a time: no long C call starves the bar


def _decode(source: str, raw: bytes) -> str:
    """`raw` as UTF-8, decoded CHUNK_BYTES at a time, each piece ending after a `\n`
    (never inside a character), so the bar's thread can draw meanwhile."""
    pieces: list[str] = []
    at, n = 0, len(raw)
    try:
        while at < n:
            cut = raw.find(b"\n", at + CHUNK_BYTES)
            stop = n if cut < 0 else cut + 1
            pieces.append((raw[at:stop] if at or stop < n else raw).decode("utf-8"))
            at = stop
    except UnicodeDecodeError as e:
        raise InputError(f"{source}: offset {at + e.start}: expected UTF-8 assembly "
                         "text") from None
    return "".join(pieces)


# A kernel's `.engine` line holds this text (in any case): a source without it has no
# sections, found in a tenth of a second on 100 MB where the exact line pattern
# (machine.asm.sections.has_sections) scans for seconds.
_ENGINE_WORD = re.compile(r"\.(?i:engine)")


def _has_sections(text: str) -> bool:
    from neurondbg.machine.asm.sections import has_sections

    word = len(".engine") - 1  # a match across two windows is found by the first
    found = any(_ENGINE_WORD.search(text, at, at + CHUNK_BYTES + word) is not None
                for at in range(0, len(text), CHUNK_BYTES))
    return found and has_sections(text)


def _size(source: str) -> int:
    """The size of SOURCE in bytes; 0 when it cannot be told (reading it says why)."""
    try:
        return os.stat(source).st_size
    except (OSError, ValueError):
        return 0


def _assembling(source: str, size: int) -> contextlib.AbstractContextManager[Report | None]:
    """The progress bar of assembling a source of `size` bytes over LARGE_BYTES (module
    docstring), yielding the assembler's `progress` callback; else nothing, yielding
    None. Told by the size, before the source is read: the bar's block (and its 0.3 s
    delay) starts with the command's work, reading and decoding included."""
    if size <= LARGE_BYTES:
        return contextlib.nullcontext()
    return _bar(source)


@contextlib.contextmanager
def _bar(source: str) -> Iterator[Report]:
    """The bar of assembling `source`; Ctrl+C under it is one line and exit 130."""
    from neurondbg.errors import exit_interrupted
    from neurondbg.progress import counted

    try:
        with counted(f"asm {Path(source).name}", "lines") as report:
            yield report
    except KeyboardInterrupt:
        exit_interrupted(f"neurondbg: interrupted: {source} was not assembled; "
                         "nothing was written")


@click.command("asm")
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="binary output file; data directives go to OUTPUT.data.npz (a source "
                   "with .engine sections: the manifest NAME.toml, streams beside it)")
@click.option("--gen", type=GEN, default=DEFAULT_GEN.label, show_default=True,
              help="generation for sb[]/psum[] addresses (a .gen line overrides it)")
@force_option
def command(source: str, output: str, gen: Gen) -> None:
    """Assemble SOURCE into OUTPUT (64-byte records)."""
    from neurondbg.machine.asm import AsmError, Assembly, assemble, data_path
    from neurondbg.machine.asm.sections import assemble_sections
    from neurondbg.machine.core.manifest import MANIFEST_SUFFIX
    from neurondbg.sessions.atomic import FileKind

    out = Path(output)
    side = data_path(out)
    _check(out, source, "-o")
    with _assembling(source, _size(source)) as report:
        raw = _read_source(source)
        text = _decode(source, raw)
        del raw  # the text is what is kept: a source may be 256 MiB
        kernel = _has_sections(text)
        if kernel and out.suffix.lower() != MANIFEST_SUFFIX:
            raise InputError(f"{out}: {source} has .engine sections, so -o names the kernel "
                             f"manifest to write and must end in {MANIFEST_SUFFIX} (its "
                             "streams go beside it as <stem>.<engine>.bin)")
        if not kernel:
            _check(out, source, "-o", FileKind.PROGRAM)
            _check(side, source, "the data sidecar of -o")
        try:
            done = (assemble_sections(text, source, gen, report) if kernel
                    else assemble(text, source, gen, report))
        except AsmError as e:
            raise AsmInputError(str(e)) from None
    _check_not_empty(source, done)
    if isinstance(done, Assembly):
        if done.data:  # a sidecar is written only for data
            _check(side, source, "the data sidecar of -o", FileKind.DATA)
        _write_program(source, done, out, side, output)
    else:
        _kernel(source, done, out)


def _check_not_empty(source: str, done: Assembly | SectionedAssembly) -> None:
    """InputError for a source without a record to write: a program of no instruction
    (only comments, labels or data) is a mistake, not an empty output file."""
    from neurondbg.machine.asm import Assembly

    if isinstance(done, Assembly):
        if not done.records:
            raise InputError(f"{source}:1:1: empty program: no instruction or .raw record "
                             "(comments, labels and data directives alone make none)")
    elif not any(s.assembly.records for s in done.sections):
        raise InputError(f"{source}:1:1: empty program: no .engine section holds an "
                         "instruction")


def _write_program(source: str, asm: Assembly, out: Path, side: Path, output: str) -> None:
    """Write the records to `out` and the data (if any) to its sidecar `side`."""
    from neurondbg.machine.asm import save_data
    from neurondbg.sessions.atomic import atomic_open, atomic_path

    try:
        with atomic_open(out, "wb") as fh:
            fh.write(asm.records)
            if asm.data:
                with atomic_path(side) as tmp:  # committed just before the records
                    save_data(tmp, asm.data)
        _remove_stale_sidecar(side, bool(asm.data))
    except OSError as e:
        raise InputError(f"{output}: cannot write: {e.strerror or e}") from None
    n = len(asm.records) // 64
    click.echo(f"{output}: {n} record{'s' if n != 1 else ''}"
               + (f", {len(asm.data)} data initialisation(s) in {side}" if asm.data else ""),
               err=True)


def _remove_stale_sidecar(side: Path, has_data: bool) -> None:
    """Remove `side` when the program just written has no data: a stale sidecar would load
    the wrong data. Only a data file is removed: another file under that name stays."""
    from neurondbg.sessions.atomic import FileKind, sniff_kind

    if not has_data and sniff_kind(side) is FileKind.DATA:
        side.unlink()


def _kernel(source: str, sa: SectionedAssembly, out: Path) -> None:
    """Write the manifest `out` and one stream (+ sidecar) per `.engine` section."""
    from neurondbg.machine.asm import data_path, save_data
    from neurondbg.machine.core.kernel import ENGINE_ORDER
    from neurondbg.machine.core.manifest import manifest_text
    from neurondbg.sessions.atomic import FileKind, atomic_open, atomic_path

    sections = sorted(sa.sections, key=lambda s: ENGINE_ORDER.index(s.engine))
    # a symlinked manifest: streams go beside its target
    target = _check(out, source, "-o", FileKind.MANIFEST)
    plan = []  # (section, stream path, its data)
    for i, s in enumerate(sections):
        stream = target.with_name(f"{target.stem}.{s.engine}.bin")
        data = (sa.data if i == 0 else []) + s.assembly.data
        _check(stream, source, f"the {s.engine} stream of -o", FileKind.PROGRAM)
        _check(data_path(stream), source, f"the {s.engine} stream's data sidecar",
               FileKind.DATA)
        plan.append((s, stream, data))
    streams = {s.engine: stream.name for s, stream, _ in plan}
    try:
        with contextlib.ExitStack() as stack:  # unwinds in reverse: the manifest lands last
            fh = stack.enter_context(atomic_open(out, "w"))
            fh.write(manifest_text(sa.gen, streams, Path(source).name))
            for s, stream, _ in plan:
                stack.enter_context(atomic_open(stream, "wb")).write(s.assembly.records)
            for _, stream, data in plan:
                if data:
                    save_data(stack.enter_context(atomic_path(data_path(stream))), data)
        for _, stream, data in plan:
            _remove_stale_sidecar(data_path(stream), bool(data))
    except OSError as e:
        raise InputError(f"{out}: cannot write: {e.strerror or e}") from None
    parts = ", ".join(f"{s.engine} {len(s.assembly.records) // 64}" for s, _, _ in plan)
    ndata = sum(len(d) for _, _, d in plan)
    click.echo(f"{out}: kernel manifest; records per engine: {parts}"
               + (f"; {ndata} data initialisation(s) in the streams' sidecars" if ndata else ""),
               err=True)
