"""`neurondbg asm SOURCE -o OUT.bin`: assemble text into 64-byte records (+ data sidecar)."""

from __future__ import annotations

from pathlib import Path

import click

from neurondbg.errors import InputError


class AsmInputError(InputError):
    """Like InputError, but keeps the source line and caret under the message."""

    def show(self, file=None) -> None:
        click.echo(f"neurondbg: error: {self.message}", err=True, file=file)


@click.command("asm")
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="binary output file; data directives go to OUTPUT.data.npz")
@click.option("--gen", default="cayman", show_default=True,
              help="generation for sb[]/psum[] addresses (a .gen line overrides it)")
def command(source: str, output: str, gen: str) -> None:
    """Assemble SOURCE into OUTPUT (64-byte records)."""
    from machine.asm import AsmError, assemble, data_path, save_data
    from machine.dtypes import parse_gen

    try:
        g = parse_gen(gen)
    except ValueError as e:
        raise InputError(f"--gen: {e}") from None
    try:
        text = Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{source}: cannot read: {e}") from None
    try:
        asm = assemble(text, source, g)
    except AsmError as e:
        raise AsmInputError(str(e)) from None
    out = Path(output)
    side = data_path(out)
    try:
        out.write_bytes(asm.records)
        if asm.data:
            save_data(side, asm.data)
        elif side.exists():
            side.unlink()  # a stale sidecar would load the wrong data
    except OSError as e:
        raise InputError(f"{output}: cannot write: {e}") from None
    n = len(asm.records) // 64
    click.echo(f"{output}: {n} record{'s' if n != 1 else ''}"
               + (f", {len(asm.data)} data initialisation(s) in {side}" if asm.data else ""),
               err=True)
