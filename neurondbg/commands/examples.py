"""`neurondbg examples [--copy DIR]`: list the bundled examples, or copy them out.

The examples ship inside the package (sessions/examples), so a regular install has
them: programs and sessions at the top, the multi-engine example kernels in
`kernels/`. The example NEFF is not shipped but made at copy time by neurondbg's own
NEFF writer, with its input tensors (the same bytes every time). `--copy DIR` writes
every file into DIR (kernels into DIR/kernels, the NEFF and its inputs into DIR/neff;
created if missing) so it can be edited and run; a file already there with other
contents is never overwritten (the copy refuses before writing anything) unless
`--force`, one with the same contents is skipped. Telling them apart reads no more
than it must: a size that differs settles it unread, and equal sizes are compared
CHUNK bytes at a time up to the first difference (a 2 GiB file in the way costs a
stat, not 2 GiB of memory).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO

import click

from neurondbg.errors import InputError
from neurondbg.force import force_option

CHUNK = 64 * 1024  # bytes compared at a time against a file already in the way


@click.command("examples")
@click.option("--copy", "copy_to", type=click.Path(file_okay=False), default=None,
              metavar="DIR", help="copy the bundled examples into DIR for editing")
@force_option
def command(copy_to: str | None) -> None:
    """List the bundled example programs and sessions, or copy them out (--copy DIR)."""
    from neurondbg.sessions import examples

    files = examples.files()
    kernels = examples.kernels()
    if copy_to is None:
        click.echo(f"bundled examples (in {examples.folder()}):")
        for stem in sorted({p.name.split(".")[0] for p in files}):
            names = " ".join(p.name for p in files if p.name.split(".")[0] == stem)
            click.echo(f"  {stem:<20} {examples.DESCRIPTIONS.get(stem, '')}")
            click.echo(f"  {'':<20} {names}")
        click.echo("example kernels (one .engine section per engine; `neurondbg run` them):")
        for p in kernels:
            click.echo(f"  {p.stem:<20} {examples.KERNEL_DESCRIPTIONS.get(p.stem, '')}")
            click.echo(f"  {'':<20} kernels/{p.name}")
        click.echo("example NEFF (made by neurondbg's own NEFF writer; validate, run or tui it):")
        for stem, text in examples.NEFF_DESCRIPTIONS.items():
            click.echo(f"  {stem:<20} {text}")
            click.echo(f"  {'':<20} "
                       + " ".join(f"{examples.NEFF_FOLDER}/{n}" for n in examples.NEFF_LISTED))
        click.echo("copy them out for editing: neurondbg examples --copy DIR")
        return
    root = examples.folder()
    bundled = [(p.read_bytes(), p.relative_to(root)) for p in files + kernels]
    made = [(data, Path(rel)) for rel, data in examples.neff_files().items()]
    _copy(bundled + made, Path(copy_to))


def _copy(files: list[tuple[bytes, Path]], dest: Path) -> None:
    """Write each (contents, path relative to `dest`), refusing before any write."""
    from neurondbg.sessions.atomic import replacing_forced, write_atomic

    force = replacing_forced()
    if dest.exists() and not dest.is_dir():
        raise InputError(f"{dest}: expected a folder to copy the examples into")
    todo = []
    for data, rel in files:
        target = dest / rel
        if target.parent != dest and (target.parent.is_symlink()
                                      or (target.parent.exists() and not target.parent.is_dir())):
            raise InputError(f"{target.parent}: exists and is not a folder; nothing copied")
        if target.is_symlink() or target.exists():
            if not target.is_file():
                raise InputError(f"{target}: exists and is not a regular file; nothing copied")
            if _same(target, data):
                continue
            if not force:
                raise InputError(f"{target}: exists with other contents; nothing copied "
                                 "(move it away, copy into another folder, or --force)")
        todo.append((target, data))
    try:
        dest.mkdir(parents=True, exist_ok=True)
        for target, data in todo:
            target.parent.mkdir(exist_ok=True)  # kernels/, neff/
            write_atomic(target, data)
    except OSError as e:
        raise InputError(f"{dest}: cannot write: {e.strerror or e}") from None
    skipped = len(files) - len(todo)
    click.echo(f"copied {len(todo)} file(s) into {dest}"
               + (f" ({skipped} already there, unchanged)" if skipped else ""))


def _open_existing(path: Path) -> IO[bytes]:
    """`path` opened for reading, refused if it is not a regular file (never blocks)."""
    from neurondbg.machine.files import open_input

    return open_input(path, what="file", max_bytes=sys.maxsize)


def same_contents(path: Path, data: bytes) -> bool:
    """Does the file at `path` hold exactly `data`? Its size first, then CHUNK bytes at
    a time, stopping at the first chunk that differs."""
    with _open_existing(path) as fh:
        if os.fstat(fh.fileno()).st_size != len(data):
            return False
        for at in range(0, len(data), CHUNK):
            if fh.read(CHUNK) != data[at:at + CHUNK]:
                return False
        return fh.read(1) == b""  # nothing appended since the size was taken


def _same(target: Path, data: bytes) -> bool:
    """same_contents, with a file that cannot be read as one InputError line."""
    from neurondbg.machine.files import InputFileError

    try:
        return same_contents(target, data)
    except InputFileError as e:
        raise InputError(f"{e}; nothing copied") from None
    except OSError as e:
        raise InputError(f"{target}: cannot read: {e.strerror or e}; nothing copied") from None
