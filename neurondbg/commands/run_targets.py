"""What `neurondbg run` runs: a PROGRAM (or program session) or a KERNEL (or kernel
session), opened and offered to run.py's one run loop through `RunTarget`.

`open_target` decides which (sessions.kernel_kind), checks every output against every
input before anything runs (not one of the inputs, through symlinks, `..` or hard
links; its folder writable; not a folder or device), and opens it: a session replays
to its saved step (`SessionInterrupted` when Ctrl+C stops that). Every bad input is
an `InputError` (one line naming the file).

A PROGRAM runs on a `machine.core.Core` with one queue (`Core.of_program`); a KERNEL on one
`machine.core.Core` (every engine's queue, `--schedule`, race detection unless
`--races off`). The loop in run.py asks a target for nothing else than this
module's `RunTarget` methods.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np
from click.core import ParameterSource

from neurondbg.errors import InputError
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.stops import Stop, StopReason
from neurondbg.sessions.atomic import FileKind

if TYPE_CHECKING:
    from neurondbg.commands.race_check import RaceMode
    from neurondbg.machine.core.core import CoreStep
    from neurondbg.machine.core.explore import Exploration
    from neurondbg.machine.core.kernel import Kernel
    from neurondbg.sessions.cli_support import Opened, OpenedKernel
    from neurondbg.sessions.schema import SessionSpec

_OUTPUT_KINDS = {"--save-session": FileKind.SESSION, "--trace": FileKind.TRACE,
                 "--dump-sbuf": FileKind.SBUF_IMAGE}  # what each output holds (--force)


@dataclass(frozen=True)
class RunOptions:
    """`run`'s options that decide how a target opens (the others drive the loop)."""

    gen: Gen
    engine: str
    sbuf_in: Path | None
    outputs: dict[str, Path | None]  # option -> path (None: not asked for)
    execute_invalid: bool
    schedule: str
    races: RaceMode
    given: frozenset[str]  # the options the user gave (not their defaults)


class RunTarget(Protocol):
    """A program or a kernel, opened for `run` (run.py's loop)."""

    warnings: list[str]

    @property
    def opened(self) -> Opened | OpenedKernel:
        """What it was opened from: what --save-session saves (sessions.cli_support)."""

    @property
    def interrupt(self) -> threading.Event:
        """Set: the run stops at the next step boundary."""

    def steps(self) -> int:
        """Steps taken so far (a kernel: global scheduler steps)."""

    def add_breakpoint(self, spec: str) -> None:
        """ValueError (one line, with the column) for a bad `--break` spec."""

    def cont(self, budget: int) -> Stop:
        """Run to the next stop, at most `budget` steps."""

    def stop_before_start(self) -> Stop:
        """The stop of a run Ctrl+C ended before its first step."""

    def trace(self, path: Path | None) -> contextlib.AbstractContextManager[None]:
        """While the block runs, one JSON line per step into `path` (atomic)."""

    def sbuf(self) -> np.ndarray:
        """The SBUF where the run stopped (--dump-sbuf)."""

    def json(self, stop: Stop) -> dict[str, object]:
        """The `run --json` document (neurondbg.commands.run_report)."""

    def text(self, stop: Stop) -> str:
        """The text summary."""

    def interrupted_line(self, stop: Stop) -> str:
        """What stderr says when Ctrl+C stopped the run."""

    def failed(self, stop: Stop) -> bool:
        """Is the program wrong (exit 1): an invalid instruction, a fault; for a kernel
        also a deadlock or any race found (by the run or by `--races explore`)."""

    def explore_interrupted(self) -> str | None:
        """What stderr says when Ctrl+C cut `--races explore` short (None: it did not)."""


def check_outputs(outputs: dict[str, Path | None], inputs: list[tuple[str, Path]]) -> None:
    """Refuse, before the run, an output that is an input or another output, or that
    cannot be written."""
    from neurondbg.sessions.atomic import check_output
    from neurondbg.sessions.errors import SessionError

    seen: list[tuple[str, Path]] = []
    for option, path in outputs.items():
        if path is None:
            continue
        try:
            check_output(path, [*inputs, *((f"the {o} output", p) for o, p in seen)],
                         what=option, kind=_OUTPUT_KINDS.get(option))
        except SessionError as e:
            raise InputError(str(e)) from None
        seen.append((option, path))


def open_target(path: Path, options: RunOptions, stopping: threading.Event) -> RunTarget:
    """The program or kernel at `path` (or a session of either), ready to run; its
    outputs checked first. InputError on bad input; SessionInterrupted when `stopping`
    is set while a session replays to its step."""
    from neurondbg.sessions.kernel_kind import opens_as_kernel

    if opens_as_kernel(path):
        return _open_kernel(path, options, stopping)
    return _open_program(path, options, stopping)


# -- a program --------------------------------------------------------------------------
def _program_inputs(program: Path, sbuf_in: Path | None) -> list[tuple[str, Path]]:
    """Every file a program run reads, labelled for the refusal message."""
    from neurondbg.machine.asm.data import data_path
    from neurondbg.sessions.cli_support import is_session_file
    from neurondbg.sessions.errors import SessionError
    from neurondbg.sessions.store import read_session

    found: list[tuple[str, Path]] = []
    if is_session_file(program):
        found.append(("the session", program))
        try:
            spec = read_session(program)
        except SessionError as e:
            raise InputError(str(e)) from None
        found.append(("the program the session names", spec.program_path))
        found += [("a data image of the session", spec.resolve(d.file)) for d in spec.data]
        program = spec.program_path
    else:
        found.append(("the program", program))
    found.append(("the program's data", data_path(program)))
    if sbuf_in is not None:
        found.append(("the --sbuf input", sbuf_in))
    return found


def _open_program(program: Path, o: RunOptions, stopping: threading.Event) -> ProgramRun:
    from neurondbg.commands._npy import load_sbuf
    from neurondbg.sessions.cli_support import open_program_or_session
    from neurondbg.sessions.errors import SessionError, SessionInterrupted

    check_outputs(o.outputs, _program_inputs(program, o.sbuf_in))
    sbuf = load_sbuf(o.sbuf_in) if o.sbuf_in is not None else None
    try:
        opened = open_program_or_session(program, o.gen, o.engine,
                                         execute_invalid=o.execute_invalid,
                                         interrupt=stopping, journal_budget=0)
    except SessionInterrupted:
        raise
    except SessionError as e:
        raise InputError(str(e)) from None
    _refuse_empty(opened)
    if sbuf is not None:
        try:
            opened.machine.load_sbuf(sbuf)
        except ValueError as e:
            raise InputError(f"{o.sbuf_in}: {e}") from None
    return ProgramRun(opened)


def _refuse_empty(opened: Opened) -> None:
    """InputError for a program of no record (validate's line): a run would fault at
    pc 0 and blame the machine for the file."""
    source = opened.source
    if source is not None and len(source.program) == 0:
        from neurondbg.commands.validate import empty_program

        raise empty_program(source.path, source.lines is not None)


class ProgramRun:
    """A program (or program session) on its one-queue core (`Opened.core`): what is
    reported reads that queue's machine."""

    def __init__(self, opened: Opened) -> None:
        self.opened = opened
        self.machine = opened.machine
        self.core = opened.core
        self.warnings = opened.warnings

    @property
    def interrupt(self) -> threading.Event:
        return self.core.interrupt

    def steps(self) -> int:
        return self.machine.state.steps  # a session's saved steps included

    def add_breakpoint(self, spec: str) -> None:
        self.core.add_breakpoint(spec)

    def cont(self, budget: int) -> Stop:
        return self.core.cont(max_steps=budget)

    def stop_before_start(self) -> Stop:
        m = self.machine
        return Stop(StopReason.INTERRUPT, m.state.pc, "interrupted", 0, record=m.last)

    @contextlib.contextmanager
    def trace(self, path: Path | None) -> Iterator[None]:
        if path is None:
            yield
            return
        from neurondbg.sessions.atomic import atomic_open
        from neurondbg.sessions.trace import write_header

        core = self.core
        with atomic_open(path, "w") as fh:
            write_header(self.machine.config, fh)  # so `replay` re-runs with the same gen / engine

            def write_step(cs: CoreStep) -> None:
                assert cs.record is not None  # a step the core took has its record
                fh.write(json.dumps(cs.record.to_dict()) + "\n")
            core.on_step = write_step
            try:
                yield
            finally:
                core.on_step = None

    def sbuf(self) -> np.ndarray:
        return self.machine.state.sbuf

    def json(self, stop: Stop) -> dict[str, object]:
        from neurondbg.commands.run_report import program_json

        return program_json(self.opened, stop)

    def text(self, stop: Stop) -> str:
        from neurondbg.commands.run_report import program_text

        return program_text(self.opened, stop)

    def interrupted_line(self, stop: Stop) -> str:
        from neurondbg.commands.run_report import program_interrupted

        return program_interrupted(self.opened, stop)

    def failed(self, stop: Stop) -> bool:
        return stop.reason in (StopReason.INVALID, StopReason.FAULT)

    def explore_interrupted(self) -> str | None:
        return None  # a program has one queue: no schedules to explore


# -- a kernel ---------------------------------------------------------------------------
def _kernel_inputs(kernel: Kernel, session: Path | None, sbuf_in: Path | None,
                   spec: SessionSpec | None = None) -> list[tuple[str, Path]]:
    """Every file a kernel run reads, labelled for the refusal message."""
    from neurondbg.machine.asm.data import data_path

    found: list[tuple[str, Path]] = []
    if session is not None and spec is not None:
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


def _session_wins(spec: SessionSpec, given: frozenset[str]) -> list[str]:
    """Warnings for options a kernel session decides itself (its saved schedule, race
    checking, generation and legality setting continue it exactly)."""
    k = spec.kernel
    assert k is not None
    saved = {"schedule": k.schedule, "races": "on" if k.races else "off",
             "gen": spec.config.gen.label,
             "execute_invalid": "on" if spec.config.execute_invalid else "off"}
    return [f"--{name.replace('_', '-')}: the session's {value} applies"
            for name, value in saved.items() if name in given]


def _open_kernel(program: Path, o: RunOptions, stopping: threading.Event) -> KernelRun:
    """A kernel source on a fresh Core, or a kernel session replayed to its step."""
    from neurondbg.commands._npy import load_sbuf
    from neurondbg.commands.race_check import check_explore
    from neurondbg.machine.core.kernel import is_kernel_source
    from neurondbg.sessions.cli_support import (
        Image,
        is_session_file,
        open_kernel,
        read_kernel,
    )
    from neurondbg.sessions.errors import SessionError, SessionInterrupted
    from neurondbg.sessions.store import load_kernel_session, read_session

    if "engine" in o.given:
        raise InputError(f"{program}: --engine {o.engine}: a kernel names the engine of each "
                         "queue (--engine is for a one-queue PROGRAM)")
    sbuf = load_sbuf(o.sbuf_in) if o.sbuf_in is not None else None
    try:
        if is_session_file(program) and not is_kernel_source(program):  # not a manifest
            if sbuf is not None:  # its memory is its own step-0 images
                raise InputError(f"--sbuf {o.sbuf_in}: a kernel session keeps its own memory "
                                 f"images; give --sbuf with the kernel source")
            spec = read_session(program)
            if spec.kernel is not None and spec.kernel.neff is not None:  # a NEFF's session
                check_outputs(o.outputs, [("the session", program),
                                          ("the NEFF", spec.program_path)])
            else:
                kernel = read_kernel(spec.program_path, spec.config.gen, str(program))
                check_outputs(o.outputs, _kernel_inputs(kernel, program, o.sbuf_in, spec))
            opened = load_kernel_session(spec, interrupt=stopping, journal_budget=0)
            opened.warnings += _session_wins(spec, o.given)
            check_explore(opened, o.races)
            return KernelRun(opened, o.races, stopping)
        images = [] if sbuf is None else [Image("sbuf", 0, 0, sbuf, f"--sbuf {o.sbuf_in}")]
        opened = open_kernel(program, o.gen if "gen" in o.given else None,
                             schedule=o.schedule, races=o.races.check,
                             execute_invalid=o.execute_invalid, journal_budget=0, images=images)
        check_outputs(o.outputs, _kernel_inputs(opened.kernel, None, o.sbuf_in))
        return KernelRun(opened, o.races, stopping)
    except SessionInterrupted:  # Ctrl+C while the session replayed: an interrupt (130)
        raise
    except SessionError as e:
        raise InputError(str(e)) from None


class KernelRun:
    """A kernel (or kernel session) on one Core."""

    def __init__(self, opened: OpenedKernel, races: RaceMode,
                 stopping: threading.Event) -> None:
        self.opened = opened
        self.core = opened.core
        self.warnings = opened.warnings
        self.races = races
        self.stopping = stopping
        self.explored: Exploration | None = None  # --races explore, after the run

    @property
    def interrupt(self) -> threading.Event:
        return self.core.interrupt

    def steps(self) -> int:
        return self.core.steps

    def add_breakpoint(self, spec: str) -> None:
        self.core.add_breakpoint(spec)

    def cont(self, budget: int) -> Stop:
        from neurondbg.commands.race_check import explore_races

        stop = self.core.cont(max_steps=budget)
        self.explored = explore_races(self.opened, self.races, budget, self.stopping, stop)
        return stop

    def stop_before_start(self) -> Stop:
        e = self.core.focus
        return Stop(StopReason.INTERRUPT, self.core.state(e).pc, "interrupted", 0, engine=e)

    def trace(self, path: Path | None) -> contextlib.AbstractContextManager[None]:
        from neurondbg.sessions.trace import trace_core

        return trace_core(path, self.opened)

    def sbuf(self) -> np.ndarray:
        core = self.core
        return core.machines[core.engines[0]].state.sbuf  # the one shared SBUF

    def json(self, stop: Stop) -> dict[str, object]:
        from neurondbg.commands.race_check import race_check_json
        from neurondbg.commands.run_report import kernel_json

        return {**kernel_json(self.opened, stop), **race_check_json(self.opened, self.explored)}

    def text(self, stop: Stop) -> str:
        from neurondbg.commands.race_check import race_check_lines
        from neurondbg.commands.run_report import kernel_text

        return "\n".join([kernel_text(self.opened, stop),
                          *race_check_lines(self.opened, self.explored)])

    def interrupted_line(self, stop: Stop) -> str:
        from neurondbg.commands.run_report import kernel_interrupted

        return kernel_interrupted(self.opened, stop)

    def failed(self, stop: Stop) -> bool:
        # a deadlock or a race is a defect of the program, as a thread sanitizer reports
        return stop.reason in (StopReason.INVALID, StopReason.FAULT,
                               StopReason.DEADLOCK) or bool(self.core.races) or (
            self.explored is not None and bool(self.explored.found))

    def explore_interrupted(self) -> str | None:
        ex = self.explored
        if ex is None or not ex.interrupted:
            return None
        return f"neurondbg: interrupted while exploring schedules ({len(ex.tried)} tried)"


def given_options(names: tuple[str, ...]) -> frozenset[str]:
    """Which of `names` the user gave on the command line (click's current context)."""
    import click

    ctx = click.get_current_context()
    return frozenset(n for n in names if ctx.get_parameter_source(n) is not
                     ParameterSource.DEFAULT)
