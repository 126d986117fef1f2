"""`neurondbg replay TRACE.jsonl PROGRAM|KERNEL`: golden-model diff of a trace against a re-run.

A KERNEL (manifest or `.engine` assembly) replays a kernel's `run --trace`: each line's
engine takes the next step, so the schedule the trace journaled is followed exactly
(sessions.replay.replay_kernel); its `--gen` wins over the kernel's own, `--engine`
does not apply. A kernel's trace against a one-queue PROGRAM (or the reverse) is
refused with one line: they cannot match step for step.

Exit 0 when no step diverges, 1 on the first divergence (step, field, expected vs
actual), 2 on bad input (one line: file:line for a bad trace line), 130 when Ctrl+C
stops it (at a step boundary, saying which step and trace line it reached). On a
terminal, stderr shows a bar of the steps replayed out of the trace's steps
(neurondbg.progress.counted, fed by sessions.replay's `progress`); while the trace's
steps are still being counted, before any step runs, it is a pulse with no count. Each
line is checked as it is replayed, so Ctrl+C stops at once in any phase.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from neurondbg.commands._npy import load_sbuf
from neurondbg.documents import Kind, stamp
from neurondbg.errors import InputError
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen, parse_gen_name
from neurondbg.params import DEFAULT_ENGINE, ENGINE, GEN
from neurondbg.progress import Report

if TYPE_CHECKING:
    from neurondbg.sessions.replay import ReplayResult


@click.command("replay")
@click.argument("trace", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("program", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--gen", type=GEN, default=DEFAULT_GEN.label, show_default=True,
              help="Hardware generation.")
@click.option("--engine", type=ENGINE, default=DEFAULT_ENGINE, show_default=True,
              help="The engine queue the program runs on.")
@click.option("--sbuf", "sbuf_in", type=click.Path(path_type=Path, dir_okay=False),
              help="uint8 .npy (partitions, bytes) loaded into SBUF, as with `run --sbuf`.")
@click.option("--execute-invalid", is_flag=True,
              help="Execute instructions that fail legality (as the traced run did).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def command(trace: Path, program: Path, gen: Gen, engine: str, sbuf_in: Path | None,
            execute_invalid: bool, as_json: bool) -> None:
    """Re-run PROGRAM and report the first step where it diverges from TRACE."""
    if program.suffix.lower() == ".toml":
        raise InputError(f"{program}: expected a program (.asm or .bin), found a session "
                         "file; pass the program the traced run executed")

    from neurondbg.machine.state import MachineConfig
    from neurondbg.sessions.errors import SessionError
    from neurondbg.sessions.replay import read_header, replay

    try:
        header = read_header(trace) or {}
    except SessionError as e:
        raise InputError(str(e)) from None
    ctx = click.get_current_context()

    def given(name: str) -> bool:
        return ctx.get_parameter_source(name) is not ParameterSource.DEFAULT

    from neurondbg.machine.core.kernel import is_kernel_source

    kernel = is_kernel_source(program)
    if kernel != ("engines" in header):
        what = "a kernel's" if "engines" in header else "a one-queue program's"
        want = "the kernel it ran" if "engines" in header else "the program it ran"
        raise InputError(f"{trace}:1: {what} trace cannot replay against {program}; pass "
                         f"{want}")
    if kernel and given("engine"):
        raise InputError(f"{program}: --engine {engine}: a kernel names the engine of each "
                         "queue (--engine is for a one-queue PROGRAM)")
    if kernel:
        _replay_kernel(trace, program, gen if given("gen") else None, sbuf_in, as_json)
        return

    # The trace's header says how the traced run was configured; options given on
    # the command line win over it.
    if header and not given("gen"):
        try:
            gen = parse_gen_name(header["gen"])
        except ValueError as e:
            raise InputError(f"{trace}:1: {e}") from None
    if header and not given("engine"):
        engine = header["engine"]
    if header and not given("execute_invalid"):
        execute_invalid = bool(header.get("execute_invalid", False))
    if engine not in ENGINE.choices:
        raise InputError(f"{trace}:1: engine {engine!r}: expected one of "
                         f"{', '.join(ENGINE.choices)}")
    sbuf = None
    if sbuf_in is not None:
        sbuf = load_sbuf(sbuf_in)
    config = MachineConfig(gen=gen, engine=engine, execute_invalid=execute_invalid)
    _interruptible(lambda stopping, report: replay(trace, program, config=config, sbuf=sbuf,
                                                   interrupt=stopping, progress=report),
                   trace, as_json)


Replay = Callable[[threading.Event, Report], "ReplayResult"]  # run(stopping, report)


def _interruptible(run: Replay, trace: Path, as_json: bool) -> None:
    """`run(stopping, report)` with Ctrl+C setting `stopping` (exit 130, one line) and
    `report` drawing the bar, a SessionError as one line (exit 2), then the report."""
    from neurondbg.commands.run import ctrl_c_stops
    from neurondbg.errors import exit_interrupted
    from neurondbg.progress import counted
    from neurondbg.sessions.errors import SessionError, SessionInterrupted

    stopping = threading.Event()
    try:
        with ctrl_c_stops(stopping), counted(f"replay {trace.name}", "steps") as report:
            result = run(stopping, report)
    except SessionInterrupted as e:
        exit_interrupted(f"neurondbg: {e}")
    except SessionError as e:
        raise InputError(str(e)) from None
    _report(result, trace, as_json)


def _report(result: ReplayResult, trace: Path, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(stamp(Kind.REPLAY, result.to_dict())))
    elif result.divergence is None:
        click.echo(f"no divergence: {result.steps} steps match {trace}")
    else:
        click.echo(f"divergence at {result.divergence.describe()}")
    if result.diverged:
        raise SystemExit(1)


def _replay_kernel(trace: Path, kernel: Path, gen: Gen | None, sbuf_in: Path | None,
                   as_json: bool) -> None:
    """The kernel branch: follow the trace's engines step by step."""
    from neurondbg.sessions.replay import replay_kernel

    sbuf = load_sbuf(sbuf_in) if sbuf_in is not None else None
    _interruptible(lambda stopping, report: replay_kernel(trace, kernel, gen=gen, sbuf=sbuf,
                                                          interrupt=stopping,
                                                          progress=report), trace, as_json)
