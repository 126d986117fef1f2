"""`neurondbg disasm PROGRAM [--json]`: records -> assembly text (or JSON).

A kernel (a manifest, or assembly with `.engine` sections) prints in the `.engine`
form: `.gen` unless the default, the kernel-wide data, then one section per engine in
ENGINE_ORDER with its own data and records; `asm` of that text gives the same records
per engine. `--json` of a kernel is `{"engines": {"pool": [...], ...}}`, each list the
one-program shape. `--gen` defaults to the kernel's generation (its manifest's
`[kernel] gen` or `.gen` line), for a program to cayman.

A binary program is printed a block of records at a time as it is read
(machine.asm.disasm_file), before anything reads the whole file: a 1 GiB program
starts printing at once, holds one block in memory, and stops within a block's work
on Ctrl+C (exit 130).
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO

import click

from neurondbg.documents import Kind, key_text, stamp, stamp_rows
from neurondbg.errors import InputError
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.params import GEN


@click.command("disasm")
@click.argument("program", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print the DESIGN.md JSON shape")
@click.option("--gen", type=GEN, default=None,
              help="generation for sb[]/psum[] address shorthands  [default: a kernel's "
                   f"own, else {DEFAULT_GEN.label}]")
@click.option("--subgraph", default=None, metavar="sgNN",
              help="a NEFF's subgraph  [default: the first that has work]")
def command(program: str, as_json: bool, gen: Gen | None, subgraph: str | None) -> None:
    """Disassemble PROGRAM (binary or assembly); the text re-assembles to identical bytes."""
    from neurondbg.machine.neff.sniff import is_neff_file
    if is_neff_file(program):  # a NEFF: its subgraph as a sectioned kernel, with its DMAs
        from neurondbg.commands.neff_disasm import disasm_neff_command
        return disasm_neff_command(program, subgraph, gen, as_json)
    if subgraph is not None:
        raise click.UsageError("--subgraph applies to a NEFF only")
    from neurondbg.machine.asm import AsmError
    from neurondbg.machine.asm.disasm_file import open_records

    try:
        records = open_records(program)  # before any whole-file read (module docstring)
        if records is not None:
            with records:
                return _stream(program, records, as_json, gen)
        out = _render(program, as_json, gen)
    except AsmError as e:
        raise InputError(e.one_line) from None
    except OSError as e:
        raise InputError(f"{program}: cannot read: {e.strerror or e}") from None
    except ValueError as e:
        raise InputError(str(e)) from None
    sys.stdout.write(out)


def _stream(program: str, records: IO[bytes], as_json: bool, gen: Gen | None) -> None:
    """Print binary PROGRAM a block of records at a time as it is read."""
    from neurondbg.machine.asm.disasm_file import disassembly_blocks, json_blocks, load_sidecar

    # each row of json_blocks begins `{"index":` (to_json's first key; no nested object
    # does: fields are named "header.opcode", ...), so the key goes in ahead of it there
    row = "{" + key_text(Kind.DISASM, ":") + ',"index":'
    pieces = ((p.replace('{"index":', row) for p in json_blocks(records, program)) if as_json else
              disassembly_blocks(records, program, DEFAULT_GEN if gen is None else gen,
                                 load_sidecar(program)))
    try:
        for piece in pieces:
            sys.stdout.write(piece)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader has gone (`disasm BIG | head`): it has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit


def _render(program: str, as_json: bool, gen: Gen | None) -> str:
    """The text `disasm` prints for PROGRAM (a kernel in its `.engine` form)."""
    from neurondbg.machine.asm import disassemble, load_any, to_json
    from neurondbg.machine.core.kernel import (
        disassemble_kernel,
        is_kernel_source,
        kernel_json,
        load_kernel,
    )

    if is_kernel_source(program):
        kernel = load_kernel(program, gen)
        if as_json:
            doc = stamp(Kind.DISASM, kernel_json(kernel))
            return json.dumps(doc, separators=(",", ":")) + "\n"
        return disassemble_kernel(kernel)
    g = DEFAULT_GEN if gen is None else gen
    prog, data = load_any(program, g)
    if as_json:
        rows = stamp_rows(Kind.DISASM, to_json(prog))
        return json.dumps(rows, separators=(",", ":")) + "\n"
    return disassemble(prog, g, data)
