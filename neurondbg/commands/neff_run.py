"""`neurondbg run FILE.neff`: run a NEFF subgraph to its end (machine.neff).

    neurondbg run model.neff --input a=a.npy --input b=b.npy --output out=out.npy
    neurondbg run model.neff --races off          # headless runner, no race check: fastest
    neurondbg run model.neff --break dma:qSPIO0 --json

The subgraph (`--subgraph`, else the first with work) runs on the core: its five
engines and one actor per DMA queue (`--schedule`, race detection unless `--races
off`). Without a breakpoint the headless runner (machine.neff.runner) takes it, with the
same semantics and no history, when races are off or the schedule is the default `rr`
(it then checks races as the core does under `rr`: machine.neff.racecheck). Inputs
named in tensor_map.json load from `.npy` files (shape and dtype checked); inputs not
given are zeros, and the run says so. `--output NAME=FILE.npy` writes an output tensor
where the run stopped; `--dump-sbuf` the SBUF. Where an instruction the model cannot
compute (MATMUL, ACTIVATE) or a DMA transpose may have written, values may be stale:
each output says so on stderr, naming that instruction.

Exit 0 when every engine reached the end of its stream (DMA queues empty); 1 on a
deadlock, a fault, an invalid record or any race; 2 for bad input; 130 on Ctrl+C.
Outputs are checked before the run (never an input, never one another) and written
atomically.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import click
import numpy as np

from neurondbg.commands.neff_open import open_for_command, warn
from neurondbg.documents import Kind, stamp
from neurondbg.errors import InputError, exit_interrupted
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.neff.data import TensorError, outputs_of, read_input, read_output
from neurondbg.machine.neff.dma import DmaError
from neurondbg.machine.neff.lower import Lowered, lower_subgraph
from neurondbg.machine.neff.roles import semaphore_roles
from neurondbg.machine.neff.stale import stale_note
from neurondbg.machine.state import MachineState


def pairs(items: tuple[str, ...], option: str) -> list[tuple[str, Path]]:
    """`--input a=a.npy` options as (name, path) pairs; InputError for a malformed one."""
    out = []
    for item in items:
        name, sep, file = item.partition("=")
        if not sep or not name or not file:
            raise InputError(f"{option} {item!r}: expected NAME=FILE.npy")
        out.append((name, Path(file)))
    return out


def _check_outputs(outputs: dict[str, Path], program: Path,
                   inputs: list[tuple[str, Path]]) -> None:
    from neurondbg.sessions.atomic import check_output
    from neurondbg.sessions.errors import SessionError

    reads = [("the NEFF", program), *((f"the --input {n}", p) for n, p in inputs)]
    seen: list[tuple[str, Path]] = []
    for option, path in outputs.items():
        try:
            check_output(path, [*reads, *seen], what=option)
        except SessionError as e:
            raise InputError(str(e)) from None
        seen.append((f"the {option} output", path))


def _write_npy(path: Path, arr: np.ndarray) -> None:
    from neurondbg.sessions.atomic import atomic_open

    try:
        with atomic_open(path, "wb") as fh:
            np.save(fh, arr)
    except OSError as e:
        raise InputError(f"{path}: cannot write: {e.strerror or e}") from None


def run_neff(program: Path, gen: Gen | None, subgraph: str | None, max_steps: int | None,
             breaks: tuple[str, ...], dump_sbuf: Path | None, as_json: bool,
             schedule: str, races: bool, input_specs: tuple[str, ...],
             output_specs: tuple[str, ...]) -> None:
    """The `run` command for a NEFF (module docstring); raises SystemExit / InputError."""
    opened = open_for_command(str(program), subgraph, gen)
    low = lower_subgraph(opened.sub, opened.gen)
    ins = pairs(input_specs, "--input")
    outs = pairs(output_specs, "--output")
    known = outputs_of(low.sub)
    for name, path in outs:
        if name not in known:
            raise InputError(f"--output {name}={path}: no output tensor {name!r} (outputs: "
                             f"{', '.join(known) or 'none'})")
    targets = {f"--output {n}": p for n, p in outs}
    if dump_sbuf is not None:
        targets["--dump-sbuf"] = dump_sbuf
    _check_outputs(targets, program, ins)
    try:
        given = {name: read_input(low.sub, name, path) for name, path in ins}
    except TensorError as e:
        raise InputError(str(e)) from None
    stopping = threading.Event()
    from neurondbg.commands.run import ctrl_c_stops

    with ctrl_c_stops(stopping) as interrupts:
        try:
            # the headless runner checks races as the core does under `rr`; another
            # schedule, or a breakpoint, takes the core
            result = (_headless(low, given, max_steps, interrupts, races)
                      if not breaks and (not races or schedule == "rr") else
                      _on_core(low, program, given, max_steps, breaks, schedule, races,
                               interrupts))
        except (TensorError, DmaError) as e:
            raise InputError(f"{program}: {e}") from None
    for note in result["notes"]:
        warn(f"{program}: {note}")
    state: MachineState = result.pop("_state")
    dma = result.pop("_dma")
    if dump_sbuf is not None:
        _write_npy(dump_sbuf, np.array(state.sbuf))
        note = stale_note(state, "sbuf")
        if note:
            warn(f"--dump-sbuf {dump_sbuf}: {note}")
    for name, path in outs:
        _write_npy(path, read_output(dma, low.sub, name))
        note = stale_note(state, name) or stale_note(state, "sbuf")
        if note:
            warn(f"--output {name}={path}: {note} (the output's bytes came through SBUF)")
    if as_json:
        click.echo(json.dumps(stamp(Kind.RUN_NEFF, result)))
    else:
        click.echo(_text(result))
    if result["reason"] == "interrupt":
        exit_interrupted(f"neurondbg: interrupted at step {result['steps']}")
    if result["reason"] != "complete" or result["races"]:
        raise SystemExit(1)


def _headless(low: Lowered, given: dict[str, np.ndarray], max_steps: int | None,
              interrupts: list[threading.Event], races: bool) -> dict[str, Any]:
    from neurondbg.machine.neff.runner import NeffRun

    r = NeffRun(low, given, races=races)
    interrupts.append(r.interrupt)
    out = r.run(max_steps)
    reason = {"interrupted": "interrupt", "limit": "max-steps"}.get(out.status, out.status)
    detail = out.detail.split(": ", 1)[1] if out.detail.startswith(out.status + ": ") \
        else out.detail
    stopped = out.actor if out.status in ("fault", "invalid") else None  # as the core says
    engines = {e.value: {"pc": m.state.pc, "status": "halted" if m.state.halted else (
        "faulted" if e.value == stopped else
        "waiting" if r.blocked(i) is not None else "running")}
        for i, (e, m) in enumerate(r.machines.items())}
    return _doc(low, reason, detail, out.steps, engines,
                dict(zip(r.dma.names, r.completions, strict=True)), r.state,
                [x.to_dict() for x in r.race_check.races] if r.race_check is not None else [],
                out.blocked, r.notes, r.dma, r.race_check is not None)


def _on_core(low: Lowered, program: Path, given: dict[str, np.ndarray],
             max_steps: int | None, breaks: tuple[str, ...], schedule: str, races: bool,
             interrupts: list[threading.Event]) -> dict[str, Any]:
    from neurondbg.machine.neff.core import neff_core

    nc = neff_core(low, program, given, schedule=schedule, races=races, journal_budget=0)
    c = nc.core
    interrupts.append(c.interrupt)
    for spec in breaks:
        try:
            c.add_breakpoint(spec)
        except ValueError as e:
            raise InputError(f"--break {spec!r}: {e}") from None
    nc.keep_writes(c.needs_records())  # nothing reads a DMA step's writes: merged copies
    stop = c.cont(max_steps=max_steps) if max_steps is not None else c.cont()
    reason = "complete" if stop.reason == "halt" else str(stop.reason)
    detail = stop.detail if reason != "complete" else (
        f"every engine at the end of its stream, {sum(nc.dma.head):,} DMA "
        f"{'entry' if sum(nc.dma.head) == 1 else 'entries'} completed")
    engines = {e: {"pc": c.state(e).pc, "status": str(c.status(e))} for e in c.engines}
    blocked = nc.deadlock_lines() if stop.reason == "deadlock" else []
    return _doc(low, reason, detail, c.steps, engines,
                dict(zip(nc.dma.names, nc.dma.head, strict=True)), c.state(),
                [r.to_dict() for r in c.races], blocked, nc.notes, nc.dma, races)


def _doc(low: Lowered, reason: str, detail: str, steps: int, engines: dict[str, Any],
         completed: dict[str, int], state: MachineState, races: list[dict[str, Any]],
         blocked: list[str], notes: list[str], dma: Any, checked: bool) -> dict[str, Any]:
    roles = semaphore_roles(low.sub)
    stale = {k: v for k, v in (getattr(state, "stale", None) or {}).items() if v}
    return {"reason": reason, "detail": detail, "steps": steps, "subgraph": low.sub.name,
            "gen": low.gen.label, "engines": engines, "dma": completed,
            "semaphores": {str(i): {"value": v, "role": roles.role(i)}
                           for i, v in enumerate(state.sem) if v},
            "races": races, "races_checked": checked, "deadlock": blocked, "stale": stale,
            "notes": notes,
            "_state": state, "_dma": dma}


def _text(doc: dict[str, Any]) -> str:
    lines = [f"stop: {doc['reason']}: {doc['detail']}"]
    lines += [f"  {b}" for b in doc["deadlock"]]
    lines.append(f"steps: {doc['steps']:,}  subgraph: {doc['subgraph']}  gen: {doc['gen']}")
    lines.append("engines: " + "  ".join(f"{e} {v['status']} at {v['pc']:#x}"
                                          for e, v in doc["engines"].items()))
    if doc["dma"]:
        lines.append("dma: " + "  ".join(f"{q} {n} done" for q, n in doc["dma"].items()))
    if not doc["races_checked"]:
        lines.append("races: not checked (--races off)")
    elif not doc["races"]:
        lines.append("races: none")
    for r in doc["races"]:
        a, b = r["a"], r["b"]
        lines.append(f"race: {a['engine']} {a['opcode']} ({a['access']}) and {b['engine']} "
                     f"{b['opcode']} ({b['access']}) on {r['space']} partitions "
                     f"{r['partitions'][0]}..{r['partitions'][1] - 1} bytes "
                     f"{r['bytes'][0]:#x}..{r['bytes'][1]:#x}")
    for where, who in doc["stale"].items():
        lines.append(f"stale: {where}: {who} may have written it (not modelled)")
    return "\n".join(lines)


def refuse_options(**given: object) -> None:
    """A usage error naming the first option a NEFF run does not take."""
    names = {"sbuf_in": "--sbuf", "trace_out": "--trace", "save_session": "--save-session",
             "execute_invalid": "--execute-invalid"}
    for key, value in given.items():
        if value:
            raise click.UsageError(f"{names[key]} does not apply to a NEFF (its data comes "
                                   "from --input; sessions and traces of a NEFF are not "
                                   "written yet)")
