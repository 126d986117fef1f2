"""`run --trace` of a kernel: one JSON line per global step, each naming its engine.

    {"neurondbg_trace": 1, "gen": "cayman", "engine": "pool", "execute_invalid": false,
     "engines": ["pool", "dve"], "schedule": "rr"}                  # the header
    {"step": 0, "engine": "pool", "engine_step": 0, "pc": 0, ...}   # StepRecord lines

A line is the engine's `StepRecord.to_dict()` (what a PROGRAM's `run --trace` line
holds; replay compares it with sessions.trace.step_to_json) with `step` the
global step number (so a trace exported mid-session starts where it was, as for a
PROGRAM), `engine` the engine that took it and `engine_step` that engine's own step.
The header keeps the PROGRAM header's keys (`engine` is the kernel's first engine) and
adds `engines` and `schedule`, so `replay` knows it holds a kernel's schedule.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from machine.core.core import CoreStep
from sessions.kernel_open import OpenedKernel
from sessions.trace import step_to_json, trace_header


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
    from sessions.atomic import atomic_open

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
