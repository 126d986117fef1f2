"""`neurondbg run PROGRAM|KERNEL|SESSION`: execute headless until a stop reason (DESIGN.md CLI).

One loop for every input (neurondbg.commands.run_targets opens it as a `RunTarget`):
open, add the `--break` specs, run under the progress bar with `--trace` streaming,
write `--dump-sbuf` / `--save-session` where it stopped, print (run_report: text or
`--json`), exit. PROGRAM is assembly or 64-byte records; a `.toml` SESSION continues
from its saved step exactly as `run PROGRAM` would from there (sessions.cli_support).
Exit 0 on halt, a requested breakpoint or the `--max-steps N` given; 1 when the
machine stops on an invalid instruction or a fault; 2 on bad input (one line naming
the file); 3 when no `--max-steps` was given and the default budget (10,000,000
steps) ran out first (said on stderr: the program did not stop by itself, which 0
would hide); 130 on Ctrl+C.

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

Nothing the user has is lost: every output path is checked before the run, and each
is written atomically. The trace streams into a temporary file beside its target that
is renamed into place when the run ends (a killed run leaves the previous trace
intact; the next write removes the leftover). Ctrl+C stops at a step boundary: where
it stopped is printed, and the outputs asked for (--save-session, --dump-sbuf,
--trace) are written for that state; Ctrl+C while a session replays to its saved step
prints one line and exits 130 too. A second Ctrl+C abandons the run at once (outputs
not yet written keep their old contents).

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
from types import FrameType
from typing import TYPE_CHECKING

import click
import numpy as np

from neurondbg.commands.race_check import RACES, RaceMode
from neurondbg.documents import Kind, stamp
from neurondbg.errors import InputError, exit_interrupted
from neurondbg.force import force_option
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.machine.stops import StopReason
from neurondbg.params import DEFAULT_ENGINE, ENGINE, GEN
from neurondbg.params_core import SCHEDULE

if TYPE_CHECKING:
    from neurondbg.progress import Advance

EXIT_FAILED = 1  # the program is wrong: invalid, a fault; a kernel's deadlock or race
EXIT_STEP_LIMIT = 3  # no --max-steps, and the default budget ran out before a stop


@contextlib.contextmanager
def ctrl_c_stops(*events: threading.Event) -> Iterator[list[threading.Event]]:
    """While the block runs, the first Ctrl+C sets `events` and those appended to the
    list it yields (a machine's `interrupt`: it stops at the next step boundary); a
    second one raises KeyboardInterrupt as usual."""
    targets = list(events)
    if threading.current_thread() is not threading.main_thread():
        yield targets  # signals can only be caught on the main thread
        return

    def first(signum: int, frame: FrameType | None) -> None:
        # the next Ctrl+C raises, even one that lands while this handler still runs:
        # entered again inside `Event.set`, it would wait forever on that Event's lock
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for e in targets:
            e.set()

    previous = signal.signal(signal.SIGINT, first)
    try:
        yield targets
    finally:
        signal.signal(signal.SIGINT, previous)


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
    from neurondbg.machine.neff.sniff import is_neff_file

    if is_neff_file(str(program)):
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

    from neurondbg.commands.run_targets import RunOptions, given_options, open_target
    from neurondbg.sessions.cli_support import DEFAULT_MAX_STEPS, save_opened
    from neurondbg.sessions.errors import SessionInterrupted

    outputs = {"--save-session": save_session, "--trace": trace_out, "--dump-sbuf": dump_sbuf}
    options = RunOptions(gen, engine, sbuf_in, outputs, execute_invalid, schedule, races,
                         given_options(("gen", "engine", "schedule", "races",
                                        "execute_invalid")))
    stopping = threading.Event()
    with ctrl_c_stops(stopping) as interrupts:
        try:
            target = open_target(program, options, stopping)
        except SessionInterrupted as e:  # Ctrl+C while a session replayed to its step
            exit_interrupted(f"neurondbg: {e}")
        interrupts.append(target.interrupt)
        for w in target.warnings:
            click.echo(f"neurondbg: warning: {w}", err=True)
        for spec in breaks:
            try:
                target.add_breakpoint(spec)
            except ValueError as e:
                raise InputError(f"--break {spec!r}: {e}") from None
        budget = DEFAULT_MAX_STEPS if max_steps is None else max_steps
        try:
            with target.trace(trace_out), steps_bar(f"run {program.name}", target.steps,
                                                    max_steps):
                stop = target.stop_before_start() if stopping.is_set() else \
                    target.cont(budget)
        except OSError as e:  # only the trace is written during the run
            raise InputError(f"{trace_out}: cannot write: {e.strerror or e}") from None
    write_outputs(target.sbuf(), dump_sbuf, save_session,
                  lambda path: save_opened(path, target.opened, stop))
    click.echo(json.dumps(stamp(Kind.RUN, target.json(stop))) if as_json
               else target.text(stop))
    if stop.reason == StopReason.INTERRUPT:
        exit_interrupted(target.interrupted_line(stop))
    explore_cut = target.explore_interrupted()
    if explore_cut is not None:
        exit_interrupted(explore_cut)
    limited = stop.reason == StopReason.MAX_STEPS and max_steps is None
    if limited:
        click.echo(f"neurondbg: warning: stopped at the default limit of {budget:,} steps "
                   "before the program stopped; give --max-steps N to run longer", err=True)
    if target.failed(stop):
        raise SystemExit(EXIT_FAILED)
    if limited:
        raise SystemExit(EXIT_STEP_LIMIT)


def _gen_given() -> bool:
    from click.core import ParameterSource

    return click.get_current_context().get_parameter_source("gen") is not \
        ParameterSource.DEFAULT


def write_outputs(sbuf: np.ndarray, dump_sbuf: Path | None, save_session: Path | None,
                  save: Callable[[Path], object]) -> None:
    """Where a run stopped (a program's or a kernel's): `sbuf` to --dump-sbuf (atomic)
    and `save(path)` the session to --save-session; InputError (one line) if either
    cannot be written."""
    from neurondbg.sessions.atomic import atomic_open
    from neurondbg.sessions.errors import SessionError

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
              max_steps: int | None) -> contextlib.AbstractContextManager[Advance]:
    """The progress bar of a run (neurondbg.progress): the steps taken since it began,
    read from `steps()`, out of --max-steps when given (else a pulse with the count)."""
    from neurondbg.progress import progress

    start = steps()
    return progress(max_steps, label, "steps", poll=lambda: steps() - start)
