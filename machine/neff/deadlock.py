"""What a deadlocked NEFF waits for, in words that name DMA queues (neff-facts §5.4):

    DVE waits at #1 for sem[9] >= 32 (now 16): only qSPIO0 entries 1 and 17 can raise
    it, and qSPIO0#17 is never triggered

For each blocked engine: its record, the wait that does not hold, the semaphore's value,
and what could still raise it: engines whose remaining records update it ("updates by
DVE"), and the DMA entries on it, by queue; entries no trigger still ahead of its
engine's PC would start are named as never triggered.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from neurondbg.machine.core.events import WaitSpec, update_targets
from neurondbg.machine.isa.spec import RECORD_BYTES
from neurondbg.machine.neff.dma import DmaModel
from neurondbg.machine.neff.lower import Lowered
from neurondbg.machine.neff.model import ENGINES, DmaEntry, Engine
from neurondbg.machine.neff.roles import engine_label
from neurondbg.machine.neff.triggers import trigger_rows, trigger_targets
from neurondbg.machine.state import MachineState
from neurondbg.machine.words import plural


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _index(st: MachineState) -> int:
    return (st.pc - st.config.base) // RECORD_BYTES


def later_triggers(low: Lowered, dma: DmaModel, states: Mapping[Engine, MachineState]
                   ) -> set[int]:
    """Entries a trigger at or after its engine's PC would still queue."""
    out: set[int] = set()
    for e in ENGINES:
        st = states[e]
        if st.halted:
            continue
        raw = low.sub.stream(e)[_index(st):]
        names, ids = trigger_targets(raw, trigger_rows(raw))
        out.update(x for q, n in zip(names, ids, strict=True)
                   if (x := dma.lookup.get((e, q, n))) is not None)
    return out


def sources(low: Lowered, dma: DmaModel, states: Mapping[Engine, MachineState], sem: int,
            later: set[int]) -> str:
    """"only updates by DVE and qSPIO0 entries 1 and 17 can raise it, and ..."."""
    updaters = [engine_label(e) for e in ENGINES if not states[e].halted
                and sem in update_targets(np.asarray(low.programs[e].raw)[_index(states[e]):])]
    triggered = {k for k in dma.order.values() if k is not None}
    by_queue: dict[str, list[tuple[int, DmaEntry]]] = {}
    for k, x in enumerate(dma.entries):
        if x.semaphore == sem:
            by_queue.setdefault(x.queue, []).append((k, x))
    parts = [f"updates by {', '.join(updaters)}"] if updaters else []
    never: list[DmaEntry] = []
    for q, xs in by_queue.items():
        ids = sorted(x.id for _, x in xs)
        parts.append(f"{q} {plural(len(ids), 'entry', 'entries')} "
                     + _and([str(n) for n in ids]))
        never += [x for k, x in xs if k not in triggered and k not in later]
    if not parts:
        return "nothing can raise it"
    text = "only " + _and(parts) + " can raise it"
    if never:
        text += (f", and {_and([x.label for x in never])} "
                 f"{plural(len(never), 'is', 'are')} never triggered")
    return text


def deadlock_lines(low: Lowered, dma: DmaModel, states: Mapping[Engine, MachineState],
                   blocked: Mapping[Engine, WaitSpec]) -> list[str]:
    """One line per blocked engine (module docstring), in engine order."""
    later = later_triggers(low, dma, states)
    out = []
    for e in ENGINES:
        w = blocked.get(e)
        if w is None:
            continue
        st = states[e]
        out.append(f"{engine_label(e)} waits at #{_index(st)} for {w.condition(st)} "
                   f"(now {st.sem[w.idx]}): " + sources(low, dma, states, w.idx, later))
    return out
