"""What each of a subgraph's 256 semaphores is for (neff-facts §5.1).

- 0 .. runtime_semaphore_count-1 (0..2): the runtime's; the compiler never names them;
- an engine's completion counter: a semaphore only that engine's records raise (ACT 4,
  PE 5, DVE 6 in every corpus NEFF), labelled "ACT done";
- a DMA queue's: the queue's `semaphore_set`; entry `id` raises set[id % 16] by 16 when it
  completes, labelled `qSPIO0[3]` (position 3 of the set);
- anything else: "unassigned".

`semaphore_roles(sub)` computes them once; `role(i)` is the label, `kind(i)` the owner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from neurondbg.machine.neff.events import updates
from neurondbg.machine.neff.model import ENGINES, SEMAPHORES, Engine, Subgraph

RoleKind = Literal["runtime", "engine", "dma", "shared", "unassigned"]


@dataclass(frozen=True)
class SemaphoreRoles:
    """Per semaphore index: its owner kind and a short label."""

    kinds: tuple[RoleKind, ...]
    labels: tuple[str, ...]
    counter_of: dict[int, Engine]  # engine completion counters
    queue_of: dict[int, tuple[str, int]]  # DMA semaphores: (queue, position in its set)

    def role(self, index: int) -> str:
        return self.labels[index]

    def kind(self, index: int) -> RoleKind:
        return self.kinds[index]


def engine_label(engine: Engine) -> str:
    return "Pool" if engine is Engine.POOL else engine.value.upper()


def semaphore_roles(sub: Subgraph) -> SemaphoreRoles:
    """The role of every semaphore of `sub` (module docstring)."""
    kinds: list[RoleKind] = ["unassigned"] * SEMAPHORES
    labels = ["unassigned"] * SEMAPHORES
    queue_of: dict[int, tuple[str, int]] = {}
    for q in sub.queues.values():
        for k, s in enumerate(q.semaphore_set):
            queue_of.setdefault(s, (q.name, k))
    updaters: dict[int, set[Engine]] = {}
    for e in ENGINES:
        sems = np.bincount(updates(sub.stream(e)).sem, minlength=1)  # (np.unique: numpy.ma)
        for s in np.flatnonzero(sems).tolist():
            updaters.setdefault(s, set()).add(e)
    counter_of = {s: next(iter(es)) for s, es in updaters.items()
                  if len(es) == 1 and s not in queue_of and s >= sub.runtime_semaphore_count}
    for s in range(SEMAPHORES):
        if s < sub.runtime_semaphore_count:
            kinds[s], labels[s] = "runtime", "runtime"
        elif s in queue_of:
            name, k = queue_of[s]
            kinds[s], labels[s] = "dma", f"{name}[{k}]"
        elif s in counter_of:
            kinds[s], labels[s] = "engine", f"{engine_label(counter_of[s])} done"
        elif s in updaters:
            kinds[s] = "shared"
            labels[s] = "raised by " + ", ".join(engine_label(e) for e in ENGINES
                                                 if e in updaters[s])
    return SemaphoreRoles(tuple(kinds), tuple(labels), counter_of, queue_of)


def semaphore_role(sub: Subgraph, index: int) -> str:
    """The label of one semaphore of `sub` (semaphore_roles computes all of them at once:
    prefer it when labelling many)."""
    if not 0 <= index < SEMAPHORES:
        raise ValueError(f"semaphore index {index}; expected 0..{SEMAPHORES - 1}")
    return semaphore_roles(sub).role(index)
