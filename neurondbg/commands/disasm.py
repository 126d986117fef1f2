"""`neurondbg disasm PROGRAM [--json]`: records -> assembly text (or JSON)."""

from __future__ import annotations

import json
import sys

import click

from machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.errors import InputError
from neurondbg.params import GEN


@click.command("disasm")
@click.argument("program", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print the DESIGN.md JSON shape")
@click.option("--gen", type=GEN, default=DEFAULT_GEN.label, show_default=True,
              help="generation for sb[]/psum[] address shorthands")
def command(program: str, as_json: bool, gen: Gen) -> None:
    """Disassemble PROGRAM (binary or assembly); the text re-assembles to identical bytes."""
    from machine.asm import AsmError, disassemble, load_any, to_json

    try:
        prog, data = load_any(program, gen)
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
        sys.stdout.write(disassemble(prog, gen, data))
