"""`neurondbg run PROGRAM|KERNEL|SESSION`: execute headless until a stop reason (DESIGN.md CLI).

PROGRAM is assembly or 64-byte records; a `.toml` SESSION continues from its saved
step exactly as `run PROGRAM` would from there (sessions.cli_support). Exit 0 on
halt, max-steps or a requested breakpoint; 1 when the machine stops on an invalid
instruction or a fault; 2 on bad input (one line naming the file); 130 on Ctrl+C.

A KERNEL (a manifest, or assembly with `.engine` sections; machine.core) runs every
engine's queue on one Core under `--schedule` (rr, in-order, random:SEED) with race
detection unless `--races off`; `--max-steps` counts global scheduler steps (all
engines). Exit codes for a kernel (decided, as a thread sanitizer reports): a deadlock
or any race found is a defect of the program, exit 1 like a fault, whatever the stop
(a `--break race` stop included); otherwise as for a PROGRAM. `--engine` names the
queue of a one-queue PROGRAM and is refused for a kernel, which names its own; a
plain PROGRAM ignores `--schedule` / `--races` (one queue: nothing to interleave) and
keeps exactly the output it always had. A kernel's `--gen` wins over the manifest's
`[kernel] gen` or the file's `.gen`; without it theirs applies.

Nothing the user has is lost: every output path is checked before the run (not one
of the inputs, through symlinks, `..` or hard links; its folder writable; not a
folder or device), and each is written atomically. The trace streams into a
temporary file beside its target that is renamed into place when the run ends
(a killed run leaves the previous trace intact; the next write removes the
leftover). Ctrl+C stops at a step boundary: where it stopped is printed, and the
outputs asked for (--save-session, --dump-sbuf, --trace) are written for that state.
A second Ctrl+C abandons the run at once (outputs not yet written keep their old
contents).

On a terminal, stderr shows a progress bar while the run goes (neurondbg.progress): the
steps taken, out of --max-steps when it is given (else a pulse with the count; the
default budget is a safety net, not a length), for a kernel the global steps. It reads
the step counter from its own thread, so the run's loop pays nothing for it.
"""

from __future__ import annotations

import contextlib
import json
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import numpy as np

from machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.commands._npy import load_sbuf
from neurondbg.commands.race_check import RACES, RaceMode
from neurondbg.errors import EXIT_INTERRUPTED, InputError
from neurondbg.force import force_option
from neurondbg.params import DEFAULT_ENGINE, ENGINE, GEN
from neurondbg.params_core import SCHEDULE
from sessions.atomic import FileKind


def _summary(m: Any, stop: Any, source: str | None) -> str:
    st = m.state
    at = f" ({source})" if source else ""
    lines = [f"stop: {stop.reason} at pc {stop.pc:#x}{at}: {stop.detail}"]
    if stop.reason == "invalid" and stop.record is not None and stop.record.verdict is not None:
        from neurondbg.commands.validate import failing_clause_lines

        lines += failing_clause_lines(stop.record.verdict)  # the same text as `validate`
    lines += [f"steps: {st.steps}  pc: {st.pc:#x}  gen: {m.config.gen.label}  "
              f"engine: {m.config.engine}"]
    regs = [f"R{i}={v:#x}" for i, v in enumerate(st.R) if v]
    lines.append("registers: " + (" ".join(regs) if regs else "all zero"))
    return "\n".join(lines)


@contextlib.contextmanager
def ctrl_c_stops(*events: threading.Event) -> Iterator[list[threading.Event]]:
    """While the block runs, the first Ctrl+C sets `events` and those appended to the
    list it yields (a machine's `interrupt`: it stops at the next step boundary); a
    second one raises KeyboardInterrupt as usual."""
    targets = list(events)
    if threading.current_thread() is not threading.main_thread():
        yield targets  # signals can only be caught on the main thread
        return

    def first(signum: int, frame: Any) -> None:
        for e in targets:
            e.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    previous = signal.signal(signal.SIGINT, first)
    try:
        yield targets
    finally:
        signal.signal(signal.SIGINT, previous)


def _refuse_empty(opened: Any) -> None:
    """InputError for a program of no record (validate's line): a run would fault at
    pc 0 and blame the machine for the file."""
    source = opened.source
    if source is not None and len(source.program) == 0:
        from neurondbg.commands.validate import empty_program

        raise empty_program(source.path, source.lines is not None)


def _inputs(program: Path, sbuf_in: Path | None) -> list[tuple[str, Path]]:
    """Every file this run reads, labelled for the refusal message."""
    from machine.asm.data import data_path
    from sessions.cli_support import is_session_file
    from sessions.errors import SessionError
    from sessions.store import read_session

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


_OUTPUT_KINDS = {"--save-session": FileKind.SESSION, "--trace": FileKind.TRACE,
                 "--dump-sbuf": FileKind.SBUF_IMAGE}  # what each output holds (--force)


def _check_outputs(outputs: dict[str, Path | None], inputs: list[tuple[str, Path]]) -> None:
    """Refuse, before the run, an output that is an input or another output, or that
    cannot be written."""
    from sessions.atomic import check_output
    from sessions.errors import SessionError

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


@click.command("run")
@click.argument("program", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--gen", type=GEN, default=DEFAULT_GEN.label, show_default=True,
              help="Hardware generation.")
@click.option("--engine", type=ENGINE, default=DEFAULT_ENGINE, show_default=True,
              help="The engine queue the program runs on.")
@click.option("--max-steps", type=click.IntRange(min=0), default=None,
              help="Stop after this many steps (default 10,000,000), counted from where the "
                   "run starts (for a session: its saved step; for a kernel: all engines).")
@click.option("--break", "breaks", multiple=True, metavar="SPEC",
              help="Breakpoint: op:CAST, pc:0x80, label:loop, invalid, fault, if:EXPR, "
                   "watch:R5, change:sb[0,0:64], saturate, tie, nan, inf; for a kernel also "
                   "op:CAST@dve (any spec @ENGINE), race, deadlock, wait.")
@click.option("--sbuf", "sbuf_in", type=click.Path(path_type=Path, dir_okay=False),
              help="uint8 .npy (partitions, bytes) loaded into SBUF at partition 0, byte 0.")
@click.option("--dump-sbuf", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the whole SBUF as a uint8 .npy where the run stopped.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--trace", "trace_out", type=click.Path(path_type=Path, dir_okay=False),
              help="Write one JSON line per step.")
@click.option("--save-session", type=click.Path(path_type=Path, dir_okay=False),
              help="Save a session file (TOML) where the run stopped.")
@click.option("--execute-invalid", is_flag=True,
              help="Execute instructions that fail legality instead of stopping.")
@click.option("--schedule", type=SCHEDULE, default="rr", show_default=True,
              help="Kernel: how the engines interleave (rr, in-order, random:SEED, "
                   "seq:PICKS as --races explore names them).")
@click.option("--races", type=RACES, default="on", show_default=True,
              help="Kernel: check for races between engines (off skips the cost; "
                   "explore[:N] also tries N schedules, default 16).")
@click.option("--subgraph", default=None, metavar="sgNN",
              help="NEFF: the subgraph to run (default: the first with work).")
@click.option("--input", "neff_inputs", multiple=True, metavar="NAME=FILE.npy",
              help="NEFF: an input tensor (tensor_map.json name; shape and dtype checked).")
@click.option("--output", "neff_outputs", multiple=True, metavar="NAME=FILE.npy",
              help="NEFF: write an output tensor where the run stopped.")
@force_option
def command(program: Path, gen: Gen, engine: str, max_steps: int | None,
            breaks: tuple[str, ...], sbuf_in: Path | None, dump_sbuf: Path | None,
            as_json: bool, trace_out: Path | None, save_session: Path | None,
            execute_invalid: bool, schedule: str, races: RaceMode, subgraph: str | None,
            neff_inputs: tuple[str, ...], neff_outputs: tuple[str, ...]) -> None:
    """Run PROGRAM (assembly or binary records) until it stops, or continue a
    SESSION.toml from its saved step to the next stop (its breakpoints and watches
    apply; --gen/--engine come from the session).

    A KERNEL (manifest or `.engine` assembly) runs every engine on one core: see
    --schedule and --races; a deadlock or a race exits 1.

    Ctrl+C stops at the current step, prints where (step, engine, PC), writes the
    outputs asked for and exits 130. No output may name an input.

    A NEFF runs its subgraph's engines and DMA queues: see --input, --output,
    --subgraph (neurondbg.commands.neff_run)."""
    from machine.neff.sniff import is_neff_file
    from neurondbg.commands.run_kernel import is_kernel_run, run_kernel

    if is_neff_file(program):
        from neurondbg.commands.neff_run import refuse_options, run_neff

        refuse_options(sbuf_in=sbuf_in, trace_out=trace_out, save_session=save_session,
                       execute_invalid=execute_invalid)
        if races.explore is not None:
            raise InputError(f"{program}: --races {races.text} applies to a kernel source, "
                             "not a NEFF")
        run_neff(program, gen if _gen_given() else None, subgraph, max_steps, breaks,
                 dump_sbuf, as_json, schedule, races.check, neff_inputs, neff_outputs)
        return
    if subgraph is not None or neff_inputs or neff_outputs:
        raise click.UsageError("--subgraph, --input and --output apply to a NEFF only")

    if is_kernel_run(program):
        run_kernel(program, gen, engine, max_steps, breaks, sbuf_in, dump_sbuf, as_json,
                   trace_out, save_session, execute_invalid, schedule, races)
        return
    from sessions.cli_support import (
        open_program_or_session,
        result_json,
        run_opened,
        where,
    )
    from sessions.errors import SessionError, SessionInterrupted

    _check_outputs({"--save-session": save_session, "--trace": trace_out,
                    "--dump-sbuf": dump_sbuf}, _inputs(program, sbuf_in))
    sbuf = load_sbuf(sbuf_in) if sbuf_in is not None else None
    stopping = threading.Event()
    with ctrl_c_stops(stopping) as interrupts:
        try:
            opened = open_program_or_session(program, gen, engine,
                                             execute_invalid=execute_invalid,
                                             interrupt=stopping, history=False)
        except SessionInterrupted as e:
            click.echo(f"neurondbg: {e}", err=True)
            raise SystemExit(EXIT_INTERRUPTED) from None
        except SessionError as e:
            raise InputError(str(e)) from None
        m = opened.machine
        _refuse_empty(opened)
        interrupts.append(m.interrupt)
        for w in opened.warnings:
            click.echo(f"neurondbg: warning: {w}", err=True)
        if sbuf is not None:
            try:
                m.load_sbuf(sbuf)
            except ValueError as e:
                raise InputError(f"{sbuf_in}: {e}") from None
        for spec in breaks:
            try:
                m.add_breakpoint(spec)
            except ValueError as e:
                raise InputError(f"--break {spec!r}: {e}") from None
        try:
            with _trace_to(trace_out, m), steps_bar(f"run {program.name}",
                                                    lambda: m.state.steps, max_steps):
                if stopping.is_set():  # Ctrl+C came before the run began
                    from machine.stops import Stop

                    stop = Stop("interrupt", m.state.pc, "interrupted", 0, record=m.last)
                else:
                    stop = run_opened(opened, max_steps)
        except OSError as e:  # only the trace is written during the run
            raise InputError(f"{trace_out}: cannot write: {e.strerror or e}") from None
    from sessions.cli_support import save_after_run

    write_outputs(m.state.sbuf, dump_sbuf, save_session,
                  lambda path: save_after_run(path, opened, stop))
    source = where(opened, stop)
    if as_json:
        click.echo(json.dumps(result_json(opened, stop)))
    else:
        click.echo(_summary(m, stop, source))
    if stop.reason == "interrupt":
        click.echo(f"neurondbg: interrupted at step {m.state.steps} (engine "
                   f"{m.config.engine}, pc {m.state.pc:#x}"
                   f"{', ' + source if source else ''})", err=True)
        raise SystemExit(EXIT_INTERRUPTED)
    if stop.reason in ("invalid", "fault"):
        raise SystemExit(1)


def _gen_given() -> bool:
    from click.core import ParameterSource

    return click.get_current_context().get_parameter_source("gen") is not \
        ParameterSource.DEFAULT


@contextlib.contextmanager
def _trace_to(path: Path | None, m: Any) -> Iterator[None]:
    """Stream one JSON line per step into an atomic file committed when the block ends
    (OSError if it cannot be written; discarded if the block raises)."""
    if path is None:
        yield
        return
    from sessions.atomic import atomic_open
    from sessions.trace import write_header

    with atomic_open(path, "w") as fh:
        write_header(m.config, fh)  # so `replay` re-runs with the same gen / engine

        def write_step(rec: Any) -> None:
            fh.write(json.dumps(rec.to_dict()) + "\n")
        m.on_step = write_step
        try:
            yield
        finally:
            m.on_step = None


def write_outputs(sbuf: np.ndarray, dump_sbuf: Path | None, save_session: Path | None,
                  save: Callable[[Path], None]) -> None:
    """Where a run stopped (a program's or a kernel's): `sbuf` to --dump-sbuf (atomic)
    and `save(path)` the session to --save-session; InputError (one line) if either
    cannot be written."""
    from sessions.atomic import atomic_open
    from sessions.errors import SessionError

    if dump_sbuf is not None:
        try:
            with atomic_open(dump_sbuf, "wb") as fh:
                np.save(fh, sbuf)
        except OSError as e:
            raise InputError(f"{dump_sbuf}: cannot write: {e.strerror or e}") from None
    if save_session is not None:
        try:
            save(save_session)
        except (SessionError, OSError) as e:
            raise InputError(f"{save_session}: cannot save the session: {e}") from None


def steps_bar(label: str, steps: Callable[[], int],
              max_steps: int | None) -> contextlib.AbstractContextManager[Any]:
    """The progress bar of a run (neurondbg.progress): the steps taken since it began,
    read from `steps()`, out of --max-steps when given (else a pulse with the count)."""
    from neurondbg.progress import progress

    start = steps()
    return progress(max_steps, label, "steps", poll=lambda: steps() - start)
