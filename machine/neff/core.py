"""A NEFF subgraph loaded on the core (machine.core.core.Core): its five engine queues
plus one actor per DMA queue that has entries (machine.neff.actor), the DMA state and
DRAM shared by all of them, the constants and inputs loaded.

    nc = neff_core(lower(open_neff("k.neff")), inputs={"a": arr}, races=True)
    nc.core.cont()                  # CoreStop: halt (complete), deadlock, race, ...
    nc.core.names                   # ("pool", "dve", "act", "pe", "sp", "qSPIO0", ...)

Everything the core does for a kernel works here (the scheduler, waits and deadlocks,
races, reverse and replay, breakpoints and checkpoints): the DMA queues are actors it
schedules like the engines. Each engine's records are judged as NEFF records
(machine.neff.verdicts), so a trigger is not refused for the dispatch table's
engine_has_opcode clause.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from neurondbg.machine.core.actor import ActorKind
from neurondbg.machine.core.core import Core
from neurondbg.machine.core.kernel import Kernel, make_kernel, make_queue
from neurondbg.machine.history import JOURNAL_BUDGET
from neurondbg.machine.neff.actor import DmaQueueActor, TriggerFeeder
from neurondbg.machine.neff.data import load_constants, load_inputs
from neurondbg.machine.neff.deadlock import deadlock_lines
from neurondbg.machine.neff.dma import DmaModel
from neurondbg.machine.neff.lower import Lowered
from neurondbg.machine.neff.model import ENGINES, Engine
from neurondbg.machine.state import MachineConfig, MachineState


@dataclass
class NeffCore:
    """The core running a NEFF subgraph, its DMA state, and what loading it noted."""

    core: Core
    dma: DmaModel
    low: Lowered
    notes: list[str] = field(default_factory=list)

    def deadlock_lines(self) -> list[str]:
        """Each blocked engine, with what could still raise its semaphore, DMA entries
        by queue (machine.neff.deadlock)."""
        states = {e: self.core.machines[e.value].state for e in ENGINES}
        blocked = {}
        for a in self.core.actors:
            if a.kind == ActorKind.ENGINE and a.rest() is None:
                w = a.blocked()
                if w is not None:
                    blocked[Engine(a.name)] = w
        return deadlock_lines(self.low, self.dma, states, blocked)

    def keep_writes(self, keep: bool) -> None:
        """Whether each DMA step's record lists its writes (on by default: watches, the
        TUI); a run that reads no step's record (`Core.needs_records` False) turns it
        off, and each entry's bytes move in merged copies, as the headless runner's."""
        for a in self.core.actors:
            if isinstance(a, DmaQueueActor):
                a.keep_writes = keep

    def queue_actor(self, name: str) -> DmaQueueActor:
        for a in self.core.actors:
            if isinstance(a, DmaQueueActor) and a.name == name:
                return a
        raise KeyError(f"no DMA queue {name!r} (queues: {', '.join(self.dma.names)})")


def neff_kernel(low: Lowered, path: str | Path) -> Kernel:
    """The lowered streams as a Kernel: one queue per engine (ENGINE_ORDER)."""
    from neurondbg.machine.asm.loader import ProgramFile

    p = Path(path)
    queues = [make_queue(e.value, ProgramFile(p, low.programs[e], [], gen=low.gen), p)
              for e in ENGINES]
    return make_kernel(low.gen, queues, [], {}, p)


def neff_core(low: Lowered, path: str | Path = "<neff>",
              inputs: Mapping[str, np.ndarray] | None = None, *, schedule: str = "rr",
              races: bool = True, journal_budget: int = JOURNAL_BUDGET) -> NeffCore:
    """`low` on a Core (module docstring); ValueError (from the core) for a bad
    schedule; machine.neff.data.TensorError for an input that does not fit."""
    made: dict[str, DmaModel] = {}
    notes: list[str] = []

    def actors(shared: MachineState) -> list[DmaQueueActor]:
        cfg = shared.config
        dma = made["dma"] = DmaModel(low.sub, cfg.partitions, cfg.sbuf_bytes)
        for st in (shared.peers or {cfg.engine: shared}).values():
            dma.attach(st)
        notes.extend(load_constants(dma, low.sub))
        notes.extend(load_inputs(dma, low.sub, inputs or {}))
        busy = [q for q, name in enumerate(dma.names)
                if any(x.queue == name for x in dma.entries)]
        return [DmaQueueActor(dma, q, shared, k == 0) for k, q in enumerate(busy)]

    core = Core(neff_kernel(low, path), MachineConfig(gen=low.gen), schedule=schedule,
                races=races, journal_budget=journal_budget, extra_actors=actors)
    for e in ENGINES:
        core.machines[e.value]._valid = low.valid[e]  # NEFF records (module docstring)
    dma = made["dma"]
    if core._feeder is not None:  # triggers hand their clock to their entries
        core._feeder = TriggerFeeder(core._feeder, dma)
    return NeffCore(core, dma, low, [*low.notes, *notes])
