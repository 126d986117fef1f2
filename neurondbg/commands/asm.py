"""`neurondbg asm SOURCE -o OUT.bin`: assemble text into 64-byte records (+ data sidecar).

OUT and OUT.data.npz are checked before assembling (neither may be SOURCE, through
symlinks, `..` or hard links; the folder must be writable) and written atomically:
both go to temporaries first, the sidecar is renamed into place, then the records.
A stale sidecar (the new program has no data) is removed after the records land.
"""

from __future__ import annotations

from pathlib import Path

import click

from machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.errors import InputError
from neurondbg.params import GEN


class AsmInputError(InputError):
    """Like InputError, but keeps the source line and caret under the message."""

    def show(self, file=None) -> None:
        click.echo(f"neurondbg: error: {self.message}", err=True, file=file)


@click.command("asm")
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="binary output file; data directives go to OUTPUT.data.npz")
@click.option("--gen", type=GEN, default=DEFAULT_GEN.label, show_default=True,
              help="generation for sb[]/psum[] addresses (a .gen line overrides it)")
def command(source: str, output: str, gen: Gen) -> None:
    """Assemble SOURCE into OUTPUT (64-byte records)."""
    from machine.asm import AsmError, assemble, data_path, save_data
    from machine.files import MAX_ASSEMBLY_BYTES, InputFileError, read_input
    from sessions.atomic import atomic_open, atomic_path, check_output
    from sessions.errors import SessionError

    out = Path(output)
    side = data_path(out)
    for what, path in (("-o", out), ("the data sidecar of -o", side)):
        try:
            check_output(path, [("the source", source)], what=what)
        except SessionError as e:
            raise InputError(str(e)) from None
    try:
        text = read_input(source, what="assembly source",
                          max_bytes=MAX_ASSEMBLY_BYTES).decode("utf-8")
    except InputFileError as e:
        raise InputError(str(e)) from None
    except OSError as e:
        raise InputError(f"{source}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{source}: offset {e.start}: expected UTF-8 assembly text") from None
    try:
        asm = assemble(text, source, gen)
    except AsmError as e:
        raise AsmInputError(str(e)) from None
    try:
        with atomic_open(out, "wb") as fh:
            fh.write(asm.records)
            if asm.data:
                with atomic_path(side) as tmp:  # committed just before the records
                    save_data(tmp, asm.data)
        if not asm.data and side.exists():
            side.unlink()  # a stale sidecar would load the wrong data
    except OSError as e:
        raise InputError(f"{output}: cannot write: {e.strerror or e}") from None
    n = len(asm.records) // 64
    click.echo(f"{output}: {n} record{'s' if n != 1 else ''}"
               + (f", {len(asm.data)} data initialisation(s) in {side}" if asm.data else ""),
               err=True)
