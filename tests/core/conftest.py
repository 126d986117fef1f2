"""Build small NeuronCore kernels from assembly text, one text per engine."""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

from neurondbg.machine.asm import assemble
from neurondbg.machine.asm.loader import ProgramFile
from neurondbg.machine.core.core import Core
from neurondbg.machine.core.kernel import Kernel, make_kernel, make_queue
from neurondbg.machine.dtypes import DEFAULT_GEN
from neurondbg.machine.state import MachineConfig

SMALL = {"sbuf_bytes": 4096, "psum_bytes": 2048}
_COPY = ("COPY in_dtype=FP32 out_dtype=FP32 nac=2 src=sb[0, {src}] step=[1,0,0,0] "
         "num=[4,1,1,1] dst=sb[0, {dst}] step=[1,0,0,0] num=[4,1,1,1]")
# a 2-partition Copy of 4 fp32 between overlapping SBUF tiles (random programs' memory traffic)
copies = st.tuples(st.sampled_from([0x100, 0x110]), st.sampled_from([0x100, 0x120])).map(
    lambda t: _COPY.format(src=t[0], dst=t[1]))


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
