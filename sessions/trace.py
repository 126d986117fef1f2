"""Trace export: one JSON line per step (pc, opcode, mnemonic, verdict, writes with old/new),
of a program or of a kernel.

    with open("run.jsonl", "w") as fp:
        core.on_step = trace_hook(fp)           # a program's core; or write_trace(records, fp)
    with trace_core(path, opened): opened.core.cont()   # a kernel, into an atomic file

A line is `StepRecord.to_dict()` (so a `run --trace` file replays too) with every
write made comparable: registers and scalars keep their old/new values; memory
writes add offset and length (bytes per partition) and the old/new bytes as hex
when small, else their sha256; accumulator rows likewise.

The first line is a header (`trace_header`): the settings a replay needs. A kernel's
trace is the same format with one line per global step naming its engine:

    {"neurondbg_trace": 1, "gen": "cayman", "engine": "pool", "execute_invalid": false,
     "engines": ["pool", "dve"], "schedule": "rr"}                  # the header
    {"step": 0, "engine": "pool", "engine_step": 0, "pc": 0, ...}   # StepRecord lines

A kernel line is the engine's StepRecord line with `step` the global step number (a
trace exported mid-session starts where it was, as for a program), `engine` the
engine that took it and `engine_step` that engine's own step. The header keeps the
program header's keys (`engine` is the kernel's first engine) and adds `engines` and
`schedule`, so `replay` knows it holds a kernel's schedule.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from neurondbg.machine.engines.record import StepRecord
from neurondbg.machine.state import MachineConfig, Write, WriteValue

if TYPE_CHECKING:  # a program's trace does not import the core
    from neurondbg.machine.core.core import CoreStep
    from neurondbg.sessions.cli_support import OpenedKernel

HEX_LIMIT = 32  # bytes: larger blocks are written as "sha256:<hex>"


def blob(data: WriteValue) -> str:
    """Bytes of an array as hex (small) or `sha256:...` (large): compact and comparable."""
    raw = np.ascontiguousarray(data).tobytes()
    if len(raw) <= HEX_LIMIT:
        return raw.hex()
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def write_to_json(w: Write) -> dict[str, Any]:
    """`Write.to_dict()` (the keys `run --trace` writes) plus comparable old/new values."""
    d = w.to_dict()
    if w.region is not None:
        new = np.asarray(w.new)
        d.update(offset=w.region.start, length=int(new.shape[-1]), old=blob(w.old),
                 new=blob(new))
    elif isinstance(w.new, np.ndarray):  # acc / idx rows
        d.update(old=blob(w.old), new=blob(w.new))
    else:
        d.update(old=_scalar(w.old), new=_scalar(w.new))
    return d


def _scalar(v: object) -> bool | int | float | str | None:
    if isinstance(v, bool | int | str) or v is None:
        return v
    if isinstance(v, float):
        return v if np.isfinite(v) else repr(v)  # JSON has no inf/nan
    if isinstance(v, np.generic):
        return _scalar(v.item())
    return repr(v)


def step_to_json(rec: StepRecord) -> dict[str, Any]:
    """One trace line (a dict; see the module docstring)."""
    d = rec.to_dict()
    d["writes"] = [write_to_json(w) for w in rec.writes]
    return d


HEADER_KEY = "neurondbg_trace"  # the first line of a trace: how the run was configured


def trace_header(config: MachineConfig) -> dict[str, Any]:
    """The header line: the settings a replay needs to re-run the same way."""
    return {HEADER_KEY: 1, "gen": config.gen.label, "engine": config.engine,
            "execute_invalid": bool(config.execute_invalid)}


def write_header(config: MachineConfig, fp: TextIO) -> None:
    fp.write(json.dumps(trace_header(config), separators=(",", ":")) + "\n")


def write_trace(records: Iterable[StepRecord], fp: TextIO) -> int:
    """Write one JSON line per record; returns how many."""
    n = 0
    for rec in records:
        fp.write(json.dumps(step_to_json(rec), separators=(",", ":")) + "\n")
        n += 1
    return n


def trace_hook(fp: TextIO) -> Callable[[CoreStep], None]:
    """A program core's `Core.on_step` callback writing each step to `fp` as it happens
    (a program's lines: its one queue's records)."""

    def on_step(cs: CoreStep) -> None:
        if cs.record is not None:
            fp.write(json.dumps(step_to_json(cs.record), separators=(",", ":")) + "\n")

    return on_step


# -- a kernel ------------------------------------------------------------------------
def kernel_header(opened: OpenedKernel) -> dict[str, Any]:
    """The header line of a kernel trace."""
    core = opened.core
    head = trace_header(opened.config)
    head.update(engine=core.engines[0], engines=list(core.engines), schedule=core.schedule)
    return head


def core_step_to_json(cs: CoreStep, step: int, comparable: bool = False) -> dict[str, Any]:
    """One trace line of the Core step `cs` (a CoreStep) taken as global step `step`;
    `comparable`: memory writes with their old/new bytes, as replay compares them."""
    if cs.record is None:  # the engine was made to issue but its wait held it back
        d: dict[str, Any] = {"step": step, "engine": cs.engine}
        if cs.waited is not None:
            d["waiting"] = {"pc": cs.waited.pc, "semaphore": cs.waited.semaphore,
                            "condition": cs.waited.condition}
        return d
    line = step_to_json(cs.record) if comparable else cs.record.to_dict()
    own = line.pop("step")
    return {"step": step, "engine": cs.engine, "engine_step": own, **line}


@contextlib.contextmanager
def trace_core(path: Path | None, opened: OpenedKernel) -> Iterator[None]:
    """Stream one JSON line per global step into an atomic file committed when the block
    ends (OSError if it cannot be written; discarded if the block raises)."""
    if path is None:
        yield
        return
    from neurondbg.sessions.atomic import atomic_open

    core = opened.core
    with atomic_open(path, "w") as fh:
        write_line(fh, kernel_header(opened))

        def on_step(cs: CoreStep) -> None:
            # the core counts a step once it executed; a refused one (fault) took none
            taken = cs.record is not None and cs.record.executed
            write_line(fh, core_step_to_json(cs, core.steps - taken))
        core.on_step = on_step
        try:
            yield
        finally:
            core.on_step = None


def write_line(fh: TextIO, d: dict[str, Any]) -> None:
    fh.write(json.dumps(d, separators=(",", ":")) + "\n")
