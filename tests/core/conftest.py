"""Build small NeuronCore kernels from assembly text, one text per engine."""

from __future__ import annotations

from pathlib import Path

from machine.asm import assemble
from machine.asm.loader import ProgramFile
from machine.core.core import Core
from machine.core.kernel import Kernel, make_kernel, make_queue
from machine.dtypes import DEFAULT_GEN
from machine.state import MachineConfig

SMALL = {"sbuf_bytes": 4096, "psum_bytes": 2048}


def kernel(**queues: str) -> Kernel:
    """A kernel with one queue per keyword (engine = assembly text); data directives of
    every queue are applied in engine order."""
    qs, data = [], []
    for engine, text in queues.items():
        path = Path(f"<{engine}>")
        a = assemble(text, str(path))
        prog = ProgramFile(path, a.program(), list(a.data), dict(a.labels), list(a.lines),
                           text)
        qs.append(make_queue(engine, prog, path))
        data += a.data
    return make_kernel(DEFAULT_GEN, qs, data, {}, Path("<kernel>"))


def core(schedule: str = "rr", races: bool = True, journal_budget: int | None = None,
         config: dict | None = None, **queues: str) -> Core:
    """A Core on a small machine; `config`: more MachineConfig settings (gen, ...)."""
    kw = {} if journal_budget is None else {"journal_budget": journal_budget}
    return Core(kernel(**queues), MachineConfig(**{**SMALL, **(config or {})}),
                schedule=schedule, races=races, **kw)
