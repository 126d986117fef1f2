"""`neurondbg tui [PROGRAM|KERNEL|SESSION|NEFF] [--gen GEN] [--engine ENG] [--lab]`: the
terminal UI (a NEFF also takes `--subgraph sgNN` and `--input NAME=FILE.npy`).

A KERNEL (a manifest, an `.engine` assembly file, or a kernel session) opens in the
NeuronCore layout (neurondbg/screens/arrange.py); its gen and engines are its own, so
--gen and --engine apply to a PROGRAM only."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import click

from neurondbg.errors import InputError
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.params import DEFAULT_ENGINE, ENGINE, GEN


@click.command("tui")
@click.argument("program", required=False, type=click.Path(path_type=Path))
@click.option("--gen", type=GEN, default=DEFAULT_GEN.label, show_default=True,
              help="hardware generation")
@click.option("--engine", type=ENGINE, default=DEFAULT_ENGINE, show_default=True,
              help="the engine queue the program runs on")
@click.option("--lab", is_flag=True, help="open only the Convert Lab")
@click.option("--subgraph", default=None, metavar="sgNN",
              help="a NEFF's subgraph (default: the first that has work)")
@click.option("--input", "input_specs", multiple=True, metavar="NAME=FILE.npy",
              help="NEFF: an input tensor (tensor_map.json name; shape and dtype checked; "
                   "inputs not given start as zeros)")
def command(program: Path | None, gen: Gen, engine: str, lab: bool,
            subgraph: str | None, input_specs: tuple[str, ...]) -> None:
    """Open the debugger UI on PROGRAM (.asm / .bin) or SESSION (.toml), or the bundled
    demo when omitted; a KERNEL (manifest or .engine sections) opens the NeuronCore
    layout. A program that does not load opens with the error in the console."""
    inputs: list[tuple[str, Path]] = []
    if input_specs:  # the NEFF runner's imports are not paid by every other `tui`
        from neurondbg.commands.neff_run import pairs

        inputs = pairs(input_specs, "--input")
    if program is not None:
        refuse_unopenable(program, subgraph, inputs)
    elif subgraph is not None or inputs:
        raise InputError(f"{'--subgraph' if subgraph is not None else '--input'} applies "
                         "to a NEFF only")
    from neurondbg.app import NeurondbgApp

    run_app(NeurondbgApp(program, gen=gen.label, engine=engine, lab_only=lab,
                         subgraph=subgraph, inputs=inputs))


def refuse_unopenable(program: Path, subgraph: str | None = None,
                       inputs: Sequence[tuple[str, Path]] = ()) -> None:
    """InputError (exit 2) for what `run` refuses before any step: a path that is not a
    regular file (a FIFO would block the loader for ever), a NEFF that does not open
    (or names no such subgraph, or an input that is not one of its tensors' or does not
    read as one), and a kernel manifest whose streams or images do not
    load (the same load, so the same line). A PROGRAM or SESSION that does not assemble
    still opens, with the error in the console."""
    from neurondbg.machine.files import MAX_PROGRAM_BYTES, InputFileError, check_input, file_problem

    problem = file_problem(program)  # missing, or a symlink loop: one word for any kind
    if problem is not None:
        raise InputError(f"{program}: {problem}")
    try:
        check_input(program, what="program, kernel or session", max_bytes=MAX_PROGRAM_BYTES)
    except InputFileError as e:
        raise InputError(str(e)) from None
    from neurondbg.machine.neff.sniff import HEADER_BYTES, looks_like_neff

    with program.open("rb") as f:
        neff = looks_like_neff(f.read(HEADER_BYTES + 2))
    if neff:
        _check_neff(program, subgraph, inputs)
        return
    if subgraph is not None or inputs:
        raise InputError(f"{program}: {'--subgraph' if subgraph is not None else '--input'} "
                         "applies to a NEFF only")
    from neurondbg.machine.core.kernel import MANIFEST_SUFFIX, is_kernel_source

    if program.suffix.lower() == MANIFEST_SUFFIX and is_kernel_source(program):
        from neurondbg.sessions.cli_support import read_kernel
        from neurondbg.sessions.errors import SessionError

        try:
            read_kernel(program)
        except SessionError as e:
            raise InputError(str(e)) from None


def _check_neff(program: Path, subgraph: str | None,
                inputs: Sequence[tuple[str, Path]]) -> None:
    """InputError when the NEFF's container, its subgraph, its target or an input is
    refused (the same readers as `run`; opening on the core happens in the App, off the
    UI thread, and reads the inputs again)."""
    from neurondbg.machine.neff.container import NeffError
    from neurondbg.machine.neff.data import TensorError, read_input
    from neurondbg.machine.neff.dma import DmaError, dram_layout
    from neurondbg.machine.neff.model import gen_of_target
    from neurondbg.machine.neff.reader import open_neff

    try:
        neff = open_neff(program)
        sub = neff.subgraph(subgraph)
        for name, file in inputs:
            read_input(sub, name, file)
    except (NeffError, TensorError) as e:
        raise InputError(str(e)) from None
    try:
        dram_layout(sub)
    except DmaError as e:
        raise InputError(f"{program}: {e}") from None
    if gen_of_target(neff.info.target) is None:
        raise InputError(f"{program}: kelf-0.json target {neff.info.target!r} names no "
                         "generation neurondbg knows (run, validate and disasm take --gen)")


class Runnable(Protocol):
    """A Textual App, as far as running one goes."""

    @property
    def return_code(self) -> int | None: ...

    def run(self) -> object: ...


def run_app(app: Runnable) -> None:
    """Run a Textual App; if it died (Textual printed the traceback), exit non-zero."""
    app.run()
    if app.return_code:
        raise SystemExit(app.return_code)
