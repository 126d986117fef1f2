"""Open a NEFF subgraph as a kernel for the TUI (and `serve`): the Core of
machine.neff.core, wrapped as the OpenedKernel a kernel session works on.

    opened = open_neff_kernel("model.neff", subgraph=None, schedule="rr")  # SessionError
    opened.core.names          # ("pool", "dve", "act", "pe", "sp", "qSPIO0", ...)
    opened.neff.dma            # the DMA model: FIFOs, entries, DRAM
    opened.roles.role(9)       # "qSPIO0[1]"
    opened.dma_line("qSPIO0")  # the entry at the head of a queue, in one line

The subgraph is `subgraph`, else the first that has work; the generation is the one
`kelf-0.json` `target` names. Every reader warning (an unverifiable header hash) and
every loading note (inputs that start as zeros) is in `warnings`. `inputs` are (name,
`.npy` path) pairs, read and checked as `run --input` reads them
(machine.neff.data.read_input); an input not given starts as zeros, and the warnings
say so. `opened.inputs` keeps the pairs (a saved session records the files).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurondbg.machine.neff.container import NeffError
from neurondbg.machine.neff.core import NeffCore, neff_core
from neurondbg.machine.neff.data import TensorError, read_input
from neurondbg.machine.neff.dma import DmaError
from neurondbg.machine.neff.events import updates, waits
from neurondbg.machine.neff.lower import lower_subgraph
from neurondbg.machine.neff.model import DmaEntry, Engine, gen_of_target
from neurondbg.machine.neff.reader import Neff, open_neff
from neurondbg.machine.neff.roles import SemaphoreRoles, semaphore_roles
from neurondbg.machine.neff.stale import SPACES, stale_note
from neurondbg.machine.state import MachineConfig
from neurondbg.sessions.cli_support import OpenedKernel
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.kernel_kind import is_neff

__all__ = ["OpenedNeffKernel", "is_neff", "open_neff_kernel"]


@dataclass
class OpenedNeffKernel(OpenedKernel):
    """An OpenedKernel whose Core runs a NEFF subgraph, with the NEFF's own state."""

    neff: NeffCore | None = None
    file: Neff | None = None
    roles: SemaphoreRoles | None = None
    inputs: tuple[tuple[str, Path], ...] = ()  # (tensor name, the .npy it came from)

    def valid(self, engine: str) -> np.ndarray | None:
        """Each record of `engine`'s lowered stream valid as a NEFF record (a trigger is
        not refused for a dispatch table's engine_has_opcode: machine.neff.verdicts)."""
        if self.neff is None:
            return None
        got = {e.value: v for e, v in self.neff.low.valid.items()}.get(engine)
        return None if got is None else np.asarray(got, bool)

    def stale_notes(self) -> tuple[tuple[str, str], ...]:
        """(space, note) for SBUF and PSUM where an instruction the model cannot compute
        may have written: "values may be stale: MATMUL at pe 0x40 may have written psum
        and is not modelled" (machine.neff.stale)."""
        st = self.core.state()
        return tuple((sp, n) for sp in SPACES if (n := stale_note(st, sp)) is not None)

    def sem_set(self, engine: str) -> frozenset[int] | None:
        """Every semaphore `engine`'s stream waits on or updates (both waits of an
        EVENT_SEMAPHORE), read from the records' bytes at once (machine.neff.events);
        None for a name that is not one of the five engines."""
        if self.neff is None or engine not in {e.value for e in self.neff.low.programs}:
            return None
        raw = np.asarray(self.neff.low.programs[Engine(engine)].raw)
        return frozenset(int(x) for x in np.unique(np.concatenate(
            [waits(raw).sem, updates(raw).sem])))

    def entry_at_head(self, queue: str) -> DmaEntry | None:
        """The entry queue `queue` completes next (None: idle, or no such queue)."""
        if self.neff is None or queue not in self.neff.dma.index:
            return None
        got = self.neff.dma.queued(self.neff.dma.index[queue])
        return got[0] if got else None

    def entry_done(self, queue: str, k: int) -> DmaEntry | None:
        """The entry queue `queue` completed as its `k`-th completion (from 0: a queue's
        PC counts them), or None when it has not (or no such queue)."""
        if self.neff is None or queue not in self.neff.dma.index:
            return None
        dma = self.neff.dma
        q = dma.index[queue]
        got = dma.order.get((q, k)) if 0 <= k < dma.head[q] else None
        return None if got is None else dma.entries[got]

    def dma_progress(self, queue: str) -> tuple[int, int] | None:
        """(entries completed, entries triggered) of queue `queue` (None: no such queue)."""
        if self.neff is None or queue not in self.neff.dma.index:
            return None
        q = self.neff.dma.index[queue]
        return self.neff.dma.head[q], self.neff.dma.tail[q]

    def dma_line(self, queue: str) -> str:
        """`qSPIO0#3 (I-10-0) -> sem[11]: X[+0x0 512B] -> SB[p0..127 +0x0 4B/p] copy
        float32 (+1 more descriptor); 1 more queued` or `no entry queued`."""
        x = self.entry_at_head(queue)
        if x is None or self.neff is None:
            return "no entry queued"
        left = self.neff.dma.pending(self.neff.dma.index[queue]) - 1
        text = f"{x.label}" + (f" ({x.comment})" if x.comment else "") + f" -> sem[{x.semaphore}]"
        if x.descriptors:
            d = x.descriptors
            text += f": {d[0].summary()}" + (f" (+{len(d) - 1} more descriptor"
                                             f"{'s' if len(d) > 2 else ''})" if len(d) > 1
                                             else "")
        nbytes = sum(d.src_bytes for d in x.descriptors)
        text += f", {nbytes:,} bytes"
        if left:
            text += f"; {left} more queued"
        return text


def open_neff_kernel(path: str | Path, subgraph: str | None = None, *,
                     schedule: str = "rr", races: bool = True,
                     inputs: Sequence[tuple[str, Path]] = ()) -> OpenedNeffKernel:
    """The NEFF at `path` on a Core (module docstring); SessionError, one line, on bad
    input."""
    p = Path(path)
    try:
        neff = open_neff(p)
        sub = neff.subgraph(subgraph)
    except NeffError as e:
        raise SessionError(str(e)) from None
    gen = gen_of_target(neff.info.target)
    if gen is None:
        raise SessionError(f"{p}: kelf-0.json target {neff.info.target!r} names no "
                           "generation neurondbg knows (run, validate and disasm take --gen)")
    try:
        given = {name: read_input(sub, name, file) for name, file in inputs}
    except TensorError as e:
        raise SessionError(str(e)) from None
    try:
        nc = neff_core(lower_subgraph(sub, gen), p, given, schedule=schedule, races=races)
    except (DmaError, TensorError) as e:
        raise SessionError(f"{p}: {e}") from None
    core = nc.core
    return OpenedNeffKernel(core, core.kernel, MachineConfig(gen=gen),
                            warnings=[*neff.warnings, *nc.notes], neff=nc, file=neff,
                            roles=semaphore_roles(sub), inputs=tuple(inputs))
