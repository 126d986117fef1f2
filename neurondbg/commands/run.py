"""`neurondbg run PROGRAM|SESSION`: execute headless until a stop reason (DESIGN.md CLI).

PROGRAM is assembly or 64-byte records; a `.toml` SESSION resumes at its saved
step (sessions.cli_support). Exit 0 on halt, max-steps or a requested breakpoint;
1 when the machine stops on an invalid instruction or a fault; 2 on bad input
(one line naming the file).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

import click
import numpy as np

from machine.engines import ENGINES as ENGINE_CHOICES  # the engine names, declared once
from neurondbg.commands._npy import load_sbuf
from neurondbg.errors import InputError


def _summary(m: Any, stop: Any) -> str:
    st = m.state
    lines = [f"stop: {stop.reason} at pc {stop.pc:#x}: {stop.detail}",
             f"steps: {st.steps}  pc: {st.pc:#x}  gen: {m.config.gen.label}  "
             f"engine: {m.config.engine}"]
    regs = [f"R{i}={v:#x}" for i, v in enumerate(st.R) if v]
    lines.append("registers: " + (" ".join(regs) if regs else "all zero"))
    return "\n".join(lines)


@click.command("run")
@click.argument("program", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--gen", default="cayman", show_default=True, help="Hardware generation.")
@click.option("--engine", type=click.Choice(ENGINE_CHOICES), default="pool", show_default=True,
              help="The engine queue the program runs on.")
@click.option("--max-steps", type=click.IntRange(min=0), default=None,
              help="Stop after this many steps (default 10,000,000; for a session, counted "
                   "from the program start).")
@click.option("--break", "breaks", multiple=True, metavar="SPEC",
              help="Breakpoint: op:CAST, pc:0x80, label:loop, invalid, fault, if:EXPR, "
                   "watch:R5, change:sb[0,0:64], saturate, tie, nan, inf.")
@click.option("--sbuf", "sbuf_in", type=click.Path(path_type=Path, dir_okay=False),
              help="uint8 .npy (partitions, bytes) loaded into SBUF at partition 0, byte 0.")
@click.option("--dump-sbuf", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the whole SBUF as a uint8 .npy at the end.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--trace", "trace_out", type=click.Path(path_type=Path, dir_okay=False),
              help="Write one JSON line per step.")
@click.option("--save-session", type=click.Path(path_type=Path, dir_okay=False),
              help="Save a session file (TOML) where the run stopped.")
@click.option("--execute-invalid", is_flag=True,
              help="Execute instructions that fail legality instead of stopping.")
def command(program: Path, gen: str, engine: str, max_steps: int | None,
            breaks: tuple[str, ...], sbuf_in: Path | None, dump_sbuf: Path | None,
            as_json: bool, trace_out: Path | None, save_session: Path | None,
            execute_invalid: bool) -> None:
    """Run PROGRAM (assembly or binary records) or a SESSION.toml until it stops."""
    from sessions.cli_support import (
        open_program_or_session,
        result_json,
        run_opened,
        save_after_run,
    )
    from sessions.errors import SessionError

    try:
        opened = open_program_or_session(program, gen, engine,
                                         execute_invalid=execute_invalid)
    except SessionError as e:
        raise InputError(str(e)) from None
    for w in opened.warnings:
        click.echo(f"neurondbg: warning: {w}", err=True)
    m = opened.machine
    if sbuf_in is not None:
        try:
            m.load_sbuf(load_sbuf(sbuf_in))
        except ValueError as e:
            raise InputError(f"{sbuf_in}: {e}") from None
    for spec in breaks:
        try:
            m.add_breakpoint(spec)
        except ValueError as e:
            raise InputError(f"--break {spec!r}: {e}") from None
    trace_file: TextIO | None = None
    if trace_out is not None:
        try:
            trace_file = trace_out.open("w", encoding="utf-8")
        except OSError as e:
            raise InputError(f"{trace_out}: cannot write: {e.strerror or e}") from None
        tf = trace_file
        from sessions.trace import write_header

        write_header(m.config, tf)  # so `replay` re-runs with the same gen / engine

        def write_step(rec: Any) -> None:
            tf.write(json.dumps(rec.to_dict()) + "\n")
        m.on_step = write_step
    try:
        stop = run_opened(opened, max_steps)
    finally:
        if trace_file is not None:
            trace_file.close()
            m.on_step = None
    if dump_sbuf is not None:
        try:
            with dump_sbuf.open("wb") as fh:
                np.save(fh, m.state.sbuf)
        except OSError as e:
            raise InputError(f"{dump_sbuf}: cannot write: {e.strerror or e}") from None
    if save_session is not None:
        try:
            save_after_run(save_session, opened, stop)
        except (SessionError, OSError) as e:
            raise InputError(f"{save_session}: cannot save the session: {e}") from None
    if as_json:
        click.echo(json.dumps(result_json(opened, stop)))
    else:
        click.echo(_summary(m, stop))
    if stop.reason in ("invalid", "fault"):
        raise SystemExit(1)
