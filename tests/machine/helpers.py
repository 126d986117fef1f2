"""Build small machines from assembly text for the machine tests."""

from __future__ import annotations

import numpy as np

from machine.asm import assemble
from machine.debugger import Machine
from machine.state import MachineConfig

SMALL = {"sbuf_bytes": 4096, "psum_bytes": 2048}


def machine(text: str, engine: str = "pool", **config) -> Machine:
    a = assemble(text, "<test>")
    cfg = MachineConfig(engine=engine, **{**SMALL, **config})
    return Machine(a.program(), cfg, data=a.data, labels=a.labels)


def put(m: Machine, partitions: slice, offset: int, values: np.ndarray) -> None:
    raw = np.ascontiguousarray(values).view(np.uint8)
    m.state.sbuf[partitions, offset:offset + raw.size] = raw


def get(m: Machine, partition: int, offset: int, dtype, count: int) -> np.ndarray:
    size = np.dtype(dtype).itemsize
    return m.state.sbuf[partition, offset:offset + size * count].view(dtype)
