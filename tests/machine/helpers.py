"""Build small machines from assembly text for the machine tests, and run them on the
one debugger: a program's one-queue core (`Core.of_program`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from neurondbg.machine.asm import assemble
from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine
from neurondbg.machine.history import JOURNAL_BUDGET
from neurondbg.machine.state import MachineConfig

SMALL = {"sbuf_bytes": 4096, "psum_bytes": 2048}
TEST_PATH = Path("<test>")


def machine(text: str, engine: str = "pool", journal_budget: int = JOURNAL_BUDGET,
            **config) -> Machine:
    """A Machine on the assembled `text`, SMALL memories unless `config` says otherwise."""
    a = assemble(text, "<test>")
    cfg = MachineConfig(engine=engine, **{**SMALL, **config})
    return Machine(a.program(), cfg, data=a.data, labels=a.labels,
                   journal_budget=journal_budget)


def use_core(m: Machine, journal_budget: int = JOURNAL_BUDGET) -> Core:
    """`m` (its data, `load_sbuf`, anything placed before the first step) as the one
    queue of a core: the debugger its breakpoints, runs, edits and reverse go through."""
    return Core.of_program(m, TEST_PATH, journal_budget=journal_budget)


def core_of(text: str, engine: str = "pool", journal_budget: int = JOURNAL_BUDGET,
            **config) -> Core:
    """The assembled `text` on a one-queue core (SMALL memories unless `config` says
    otherwise); its queue's Machine is `queue(core)`."""
    return use_core(machine(text, engine, journal_budget, **config), journal_budget)


def queue(core: Core) -> Machine:
    """A program core's one queue: its records, labels, verdicts and state."""
    return core.machines[core.engines[0]]


def step(core: Core, n: int = 1):  # a Stop
    """`n` steps, stopping early at breakpoints and the other stop reasons (`step N`)."""
    return core.cont(max_steps=n)


def position(core: Core) -> tuple[int, int]:
    """(steps taken, edits in effect): where the core is in its history."""
    return core.steps, len(core.saved_edits())


def rewind(core: Core) -> int:
    """Back to the loaded state, edits made at step 0 undone too; the events undone."""
    before = sum(position(core))
    core.reverse(core.steps)
    while core.reverse_step():
        pass
    return before - sum(position(core))


def clear_breakpoints(core: Core) -> None:
    for bp in list(core.breakpoints):
        core.delete_breakpoint(bp.id)


def edits(core: Core) -> list:
    """The edits leading to the state now, as a session saves them (machine.edits.Edit)."""
    return core.saved_edits()


def fault(text: str, engine: str = "pool", **config) -> str:
    """Run `text` with invalid records executed: it must stop on a fault; that fault's
    detail (the model never raises: a fault is machine state)."""
    stop = core_of(text, engine, execute_invalid=True, **config).cont()
    assert stop.reason == "fault", stop
    return stop.detail


def put(m: Machine, partitions: slice, offset: int, values: np.ndarray) -> None:
    v = np.ascontiguousarray(values)
    raw = v.view(np.uint8).reshape(v.shape[0], -1) if v.ndim == 2 else v.view(np.uint8)
    m.state.sbuf[partitions, offset:offset + raw.shape[-1]] = raw


def get(m: Machine, partition: int, offset: int, dtype, count: int) -> np.ndarray:
    size = np.dtype(dtype).itemsize
    return m.state.sbuf[partition, offset:offset + size * count].view(dtype)


def last(core: Core):  # a StepRecord
    """The record of the newest step: a run's fast steps keep none, so the newest is
    undone and taken again with its record."""
    m = queue(core)
    rec = m.last
    if rec is None or rec.step != m.state.steps - 1:
        core.reverse_step()
        rec = core.step().record
    return rec


def back_to(core: Core, where: tuple[int, int]) -> None:
    """Back to position `where` (steps, edits in effect) in one jump: to its step (a
    checkpoint replay when far), then the edits made at that step after it undone."""
    core.reverse(core.steps - where[0])
    while len(core.saved_edits()) > where[1] and core.reverse_step():
        pass
