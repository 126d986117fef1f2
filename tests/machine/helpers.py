"""Build small machines from assembly text for the machine tests."""

from __future__ import annotations

import numpy as np

from neurondbg.machine.asm import assemble
from neurondbg.machine.debugger import Machine
from neurondbg.machine.history import JOURNAL_BUDGET
from neurondbg.machine.state import MachineConfig

SMALL = {"sbuf_bytes": 4096, "psum_bytes": 2048}


def machine(text: str, engine: str = "pool", journal_budget: int = JOURNAL_BUDGET,
            **config) -> Machine:
    """A Machine on the assembled `text`, SMALL memories unless `config` says otherwise."""
    a = assemble(text, "<test>")
    cfg = MachineConfig(engine=engine, **{**SMALL, **config})
    return Machine(a.program(), cfg, data=a.data, labels=a.labels,
                   journal_budget=journal_budget)


def fault(text: str, engine: str = "pool", **config) -> str:
    """Run `text` with invalid records executed: it must stop on a fault; that fault's
    detail (the model never raises: a fault is machine state)."""
    stop = machine(text, engine, execute_invalid=True, **config).cont()
    assert stop.reason == "fault", stop
    return stop.detail


def put(m: Machine, partitions: slice, offset: int, values: np.ndarray) -> None:
    v = np.ascontiguousarray(values)
    raw = v.view(np.uint8).reshape(v.shape[0], -1) if v.ndim == 2 else v.view(np.uint8)
    m.state.sbuf[partitions, offset:offset + raw.shape[-1]] = raw


def get(m: Machine, partition: int, offset: int, dtype, count: int) -> np.ndarray:
    size = np.dtype(dtype).itemsize
    return m.state.sbuf[partition, offset:offset + size * count].view(dtype)
