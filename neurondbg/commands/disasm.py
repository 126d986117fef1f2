"""`neurondbg disasm PROGRAM [--json]`: records -> assembly text (or JSON)."""

from __future__ import annotations

import json
import sys

import click

from neurondbg.errors import InputError


@click.command("disasm")
@click.argument("program", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print the DESIGN.md JSON shape")
@click.option("--gen", default="cayman", show_default=True,
              help="generation for sb[]/psum[] address shorthands")
def command(program: str, as_json: bool, gen: str) -> None:
    """Disassemble PROGRAM (binary or assembly); the text re-assembles to identical bytes."""
    from machine.asm import AsmError, disassemble, load_any, to_json
    from machine.dtypes import parse_gen

    try:
        g = parse_gen(gen)
    except ValueError as e:
        raise InputError(f"--gen: {e}") from None
    try:
        prog, data = load_any(program, g)
    except AsmError as e:
        raise InputError(e.one_line) from None
    except OSError as e:
        raise InputError(f"{program}: cannot read: {e.strerror or e}") from None
    except ValueError as e:
        raise InputError(str(e)) from None
    if as_json:
        json.dump(to_json(prog), sys.stdout, separators=(",", ":"))
        sys.stdout.write("\n")
    else:
        sys.stdout.write(disassemble(prog, g, data))
