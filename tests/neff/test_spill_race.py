"""A spill save on an engine's own DMA queue against a reload on SP's (neff-facts §5.3,
§7): the shape of the one race a public Trn2 NEFF reports, kept small.

DVE owns a spill queue and saves a whole SB range (a 3-D descriptor and a tail) into a
`virtual` buffer; SP reloads another tile into part of that range, transposing its
partitions as 2 x 64. The save's trigger comes after the reload's trigger in happens-
before (through an SP load whose completion DVE waits for), yet the reload's completion,
where it writes, is ordered with nothing on DVE's side: queues are independent. Only a
wait for the save's own semaphore ahead of the reload's trigger orders the two.
"""

from __future__ import annotations

import pytest

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.neff.core import neff_core
from neurondbg.machine.neff.lower import lower_subgraph
from neurondbg.machine.neff.model import (
    SB,
    Descriptor,
    DmaEntry,
    DmaQueue,
    Engine,
    Subgraph,
    Tensor,
    Var,
)
from neurondbg.machine.stops import StopReason
from tests.neff.kernels import PARTS, ROW, SP_Q, SP_SEMS, load, streams, wait

RELOAD_Q, RELOAD_SEMS = "qSPSpillReload0", tuple(range(40, 56))
SAVE_Q, SAVE_SEMS = "qDVESpillReload0", tuple(range(56, 72))
P = 0x40000  # SB partition step
BASE, RUN, RUNS, TAIL = 0x100, 256, 3, 64  # the save: SB bytes BASE .. BASE + 3 x 256 + 64
SAVED = RUNS * RUN + TAIL  # bytes a partition the save reads
END = BASE + SAVED


def save() -> DmaEntry:
    """SB BASE..END of every partition into `spill`, a partition's bytes back to back:
    the runs as one 3-D descriptor, then the tail (two descriptors, as a compiler
    splits a tensor's spill)."""
    runs = Descriptor(SB, "spill", "float32", "float32", BASE, 0, (RUN, RUNS, PARTS),
                      (RUN, RUNS, PARTS), (1, RUN, P), (1, RUN, SAVED))
    tail = Descriptor(SB, "spill", "float32", "float32", BASE + RUNS * RUN, RUNS * RUN,
                      (TAIL, PARTS), (TAIL, PARTS), (1, P), (1, SAVED))
    return DmaEntry(SAVE_Q, 0, SAVE_SEMS[0], (tail, runs), "save")


def reload(at: int) -> DmaEntry:
    """`w` (64 bytes a partition) into SB bytes at..at+64, partitions as 2 x 64."""
    d = Descriptor("w", SB, "float32", "float32", 0, at, (ROW, 64, 2), (ROW, 64, 2),
                   (1, ROW, 64 * ROW), (1, P, 64 * P))
    return DmaEntry(RELOAD_Q, 0, RELOAD_SEMS[0], (d,), "reload")


def spill_kernel(at: int, sp_waits_for_the_save_first: bool) -> Subgraph:
    """SP triggers the reload (into SB byte `at`) and a load of `a` (qSPIO0#0), or, with
    `sp_waits_for_the_save_first`, the load, then a wait for the save, then the reload.
    DVE waits for the load, then triggers the save."""
    reload_then_load = f"TRIGGER {RELOAD_Q} 0\nTRIGGER {SP_Q} 0"
    sp = (f"TRIGGER {SP_Q} 0\nEVENT_SEMAPHORE {wait(SAVE_SEMS[0], 16)}\nTRIGGER {RELOAD_Q} 0"
          if sp_waits_for_the_save_first else reload_then_load)
    text = {"sp": sp, "dve": f"EVENT_SEMAPHORE {wait(SP_SEMS[0], 16)}\nTRIGGER {SAVE_Q} 0"}
    tensors = {n: Tensor(n, "float32", (PARTS, ROW // 4), "input", False, "NC",
                         f"value_{n}.npy") for n in ("a", "w")}
    variables = {"SB": Var("SB", "state-buffer", 0),
                 "a": Var("a", "input", 1, PARTS * ROW), "w": Var("w", "input", 2, PARTS * ROW),
                 "spill": Var("spill", "virtual", 3, PARTS * SAVED)}
    queues = {SP_Q: DmaQueue(SP_Q, Engine.SP, SP_SEMS),
              RELOAD_Q: DmaQueue(RELOAD_Q, Engine.SP, RELOAD_SEMS, "data"),
              SAVE_Q: DmaQueue(SAVE_Q, Engine.DVE, SAVE_SEMS, "data")}
    entries = {Engine.SP: (DmaEntry(SP_Q, 0, SP_SEMS[0], (load("a", 0x1000),), "load a"),
                           reload(at)),
               Engine.DVE: (save(),)}
    return Subgraph("sg00", streams(**text), queues, entries, variables, tensors)


def races(at: int, sp_waits_for_the_save_first: bool, schedule: str
          ) -> list[tuple[frozenset[tuple[str, str, str]], str, tuple[int, int],
                          tuple[int, int]]]:
    nc = neff_core(lower_subgraph(spill_kernel(at, sp_waits_for_the_save_first), Gen.CAYMAN),
                   schedule=schedule)
    assert nc.core.cont().reason == StopReason.HALT
    return [(frozenset({(r.a.engine, r.a.opcode, r.a.kind), (r.b.engine, r.b.opcode, r.b.kind)}),
             r.space, r.partitions, r.bytes) for r in nc.core.races]


@pytest.mark.parametrize("schedule", ["rr", "in-order", "random:3"])
def test_a_reload_triggered_before_the_saves_trigger_still_races_with_it(schedule: str
                                                                          ) -> None:
    at = BASE + RUN + 16  # inside the save's second run
    pair = frozenset({(RELOAD_Q, f"DMA {RELOAD_Q}#0 (reload)", "write"),
                      (SAVE_Q, f"DMA {SAVE_Q}#0 (save)", "read")})
    assert races(at, False, schedule) == [(pair, "sbuf", (0, PARTS), (at, at + ROW))]


@pytest.mark.parametrize("schedule", ["rr", "in-order", "random:3"])
def test_waiting_for_the_save_before_the_reload_orders_them(schedule: str) -> None:
    assert races(BASE + RUN + 16, True, schedule) == []


@pytest.mark.parametrize("at", [BASE - ROW, END])
def test_a_reload_next_to_the_saved_range_does_not_race(at: int) -> None:
    """The save reads exactly BASE..END (its two descriptors), nothing either side."""
    assert races(at, False, "rr") == []
