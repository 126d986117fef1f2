"""`neurondbg run KERNEL`: every engine's queue on one Core (machine.core; see run.py).

The kernel branch of `run`: the options mean what they mean for a PROGRAM (one-line
errors, outputs checked before the run and written atomically, Ctrl+C stops at a step
boundary and writes them), with the Core's stop reasons and the exit codes run.py's
docstring decides. A session file whose `[kernel]` table names a kernel continues from
its saved global step.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import click
import numpy as np
from click.core import ParameterSource

from machine.dtypes import Gen
from neurondbg.commands.race_check import RaceMode
from neurondbg.errors import InputError

EXIT_DEFECT = 1  # a deadlock or a race: the program is wrong, as for a fault


def is_kernel_run(path: Path) -> bool:
    """Does `run` take `path` as a kernel: a manifest, an `.engine` file, or a session
    of one (a `.toml` with `schema` and `[kernel]`: machine.core.manifest tells it from
    a manifest)? Anything unreadable is left to the PROGRAM path, which reports it."""
    from sessions.kernel_kind import opens_as_kernel

    return opens_as_kernel(path)


def _given(name: str) -> bool:
    ctx = click.get_current_context()
    return ctx.get_parameter_source(name) is not ParameterSource.DEFAULT


def _inputs(kernel: Any, session: Path | None, sbuf_in: Path | None,
            spec: Any = None) -> list[tuple[str, Path]]:
    """Every file a kernel run reads, labelled for the refusal message."""
    from machine.asm.data import data_path

    found: list[tuple[str, Path]] = []
    if session is not None:
        found.append(("the session", session))
        found += [("a data image of the session", spec.resolve(d.file)) for d in spec.data]
    found.append(("the kernel", Path(kernel.path)))
    for q in kernel.queues:
        found.append((f"the {q.engine} stream", Path(q.path)))
        found.append((f"the {q.engine} stream's data", data_path(Path(q.path))))
    named = {p for _, p in found}
    # Kernel.inputs lists every file the kernel was read from; the rest are [data] images
    found += [("a data image of the kernel", p) for p in kernel.inputs if p not in named]
    if sbuf_in is not None:
        found.append(("the --sbuf input", sbuf_in))
    return found


def _session_wins(spec: Any) -> list[str]:
    """Warnings for options a kernel session decides itself (its saved schedule, race
    checking, generation and legality setting continue it exactly)."""
    k = spec.kernel
    saved = {"schedule": k.schedule, "races": "on" if k.races else "off",
             "gen": spec.config.gen.label,
             "execute_invalid": "on" if spec.config.execute_invalid else "off"}
    return [f"--{name.replace('_', '-')}: the session's {value} applies"
            for name, value in saved.items() if _given(name)]


def _open(program: Path, gen: Gen, sbuf_in: Path | None, sbuf: np.ndarray | None,
          outputs: dict[str, Path | None], execute_invalid: bool, schedule: str, races: bool,
          stopping: threading.Event) -> Any:
    """The OpenedKernel (a session replayed to its step); outputs checked first."""
    from machine.core.kernel import is_kernel_source
    from neurondbg.commands.run import _check_outputs
    from sessions.cli_support import is_session_file
    from sessions.errors import SessionError
    from sessions.kernel_open import Image, open_kernel, read_kernel
    from sessions.kernel_store import load_kernel_session
    from sessions.store import read_session

    try:
        if is_session_file(program) and not is_kernel_source(program):  # not a manifest
            if sbuf is not None:  # its memory is its own step-0 images
                raise InputError(f"--sbuf {sbuf_in}: a kernel session keeps its own memory "
                                 f"images; give --sbuf with the kernel source")
            spec = read_session(program)
            who = str(program)
            _check_outputs(outputs, _inputs(read_kernel(spec.program_path, spec.config.gen,
                                                        who), program, sbuf_in, spec))
            opened = load_kernel_session(spec, interrupt=stopping, history=False)
            opened.warnings += _session_wins(spec)
            return opened
        images = [] if sbuf is None else [Image("sbuf", 0, 0, sbuf, f"--sbuf {sbuf_in}")]
        opened = open_kernel(program, gen if _given("gen") else None, schedule=schedule,
                             races=races, execute_invalid=execute_invalid, history=False,
                             images=images)
        _check_outputs(outputs, _inputs(opened.kernel, None, sbuf_in))
        return opened
    except SessionError as e:
        raise InputError(str(e)) from None


def run_kernel(program: Path, gen: Gen, engine: str, max_steps: int | None,
               breaks: tuple[str, ...], sbuf_in: Path | None, dump_sbuf: Path | None,
               as_json: bool, trace_out: Path | None, save_session: Path | None,
               execute_invalid: bool, schedule: str, races: RaceMode) -> None:
    """`run` of a kernel or kernel session (the arguments are run's options)."""
    from neurondbg.commands._npy import load_sbuf
    from neurondbg.commands.race_check import (
        check_explore,
        explore_races,
        race_check_json,
        race_check_lines,
    )
    from neurondbg.commands.run import EXIT_INTERRUPTED, ctrl_c_stops, steps_bar, write_outputs
    from sessions.cli_support import DEFAULT_MAX_STEPS
    from sessions.errors import SessionInterrupted
    from sessions.kernel_report import result_json, summary
    from sessions.kernel_store import save_kernel_session
    from sessions.trace import trace_core

    if _given("engine"):
        raise InputError(f"{program}: --engine {engine}: a kernel names the engine of each "
                         "queue (--engine is for a one-queue PROGRAM)")
    outputs = {"--save-session": save_session, "--trace": trace_out, "--dump-sbuf": dump_sbuf}
    sbuf = load_sbuf(sbuf_in) if sbuf_in is not None else None
    stopping = threading.Event()
    with ctrl_c_stops(stopping) as interrupts:
        try:
            opened = _open(program, gen, sbuf_in, sbuf, outputs, execute_invalid, schedule,
                           races.check, stopping)
        except SessionInterrupted as e:
            click.echo(f"neurondbg: {e}", err=True)
            raise SystemExit(EXIT_INTERRUPTED) from None
        check_explore(opened, races)
        core = opened.core
        interrupts.append(core.interrupt)
        for w in opened.warnings:
            click.echo(f"neurondbg: warning: {w}", err=True)
        for spec in breaks:
            try:
                core.add_breakpoint(spec)
            except ValueError as e:
                raise InputError(f"--break {spec!r}: {e}") from None
        budget = DEFAULT_MAX_STEPS if max_steps is None else max_steps
        try:
            with trace_core(trace_out, opened), steps_bar(f"run {program.name}",
                                                          lambda: core.steps, max_steps):
                stop = _interrupted(core) if stopping.is_set() else core.cont(max_steps=budget)
        except OSError as e:
            raise InputError(f"{trace_out}: cannot write: {e.strerror or e}") from None
        explored = explore_races(opened, races, budget, stopping, stop)
    first = core.machines[core.engines[0]]  # the one shared SBUF
    write_outputs(first.state.sbuf, dump_sbuf, save_session,
                  lambda path: save_kernel_session(path, opened, stop))
    if as_json:
        click.echo(json.dumps({**result_json(opened, stop),
                               **race_check_json(opened, explored)}))
    else:
        click.echo("\n".join([summary(opened, stop, _why(stop)),
                              *race_check_lines(opened, explored)]))
    if stop.reason == "interrupt":
        source = opened.where(stop.engine, stop.pc)
        at = "" if stop.pc is None else f" (engine {stop.engine}, pc {stop.pc:#x}" + (
            f", {source})" if source else ")")
        click.echo(f"neurondbg: interrupted at step {core.steps}{at}", err=True)
        raise SystemExit(EXIT_INTERRUPTED)
    if explored is not None and explored.interrupted:
        click.echo(f"neurondbg: interrupted while exploring schedules "
                   f"({len(explored.tried)} tried)", err=True)
        raise SystemExit(EXIT_INTERRUPTED)
    if stop.reason in ("invalid", "fault", "deadlock") or core.races or (
            explored is not None and explored.found):
        raise SystemExit(EXIT_DEFECT)


def _why(stop: Any) -> list[str]:
    """The failing clauses of an invalid stop, in `validate`'s words."""
    rec = stop.record
    if stop.reason != "invalid" or rec is None or rec.verdict is None:
        return []
    from neurondbg.commands.validate import failing_clause_lines

    return failing_clause_lines(rec.verdict)


def _interrupted(core: Any) -> Any:
    """The stop of a run that Ctrl+C ended before its first step."""
    from machine.stops import Stop, StopReason

    e = core.focus
    return Stop(StopReason.INTERRUPT, core.state(e).pc, "interrupted", 0, engine=e)
