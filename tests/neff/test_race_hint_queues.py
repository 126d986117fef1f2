"""A race with a DMA queue entry on one side or both: the hint (`missing`) puts the wait on
an engine, never on a queue (a queue runs no code: it completes what it is given). A wait
ordering an entry's access after something goes on the engine whose trigger enqueued the
entry, before that trigger (its pc); a wait ordering something after an entry's access
waits for the semaphore its completion raises, to the value it raises it to. Applied,
each hint gives a race-free run."""

from __future__ import annotations

import pytest

from neurondbg.machine.core.races import Race
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.neff.core import neff_core
from neurondbg.machine.neff.lower import lower_subgraph
from neurondbg.machine.neff.model import (
    DmaEntry,
    DmaQueue,
    Engine,
    Subgraph,
    Tensor,
    Var,
)
from neurondbg.machine.stops import StopReason
from tests.neff.kernels import PARTS, ROW, SP_Q, SP_SEMS, inc, load, store, streams, tt_add, wait
from tests.neff.test_spill_race import BASE, RELOAD_Q, RELOAD_SEMS, RUN, SAVE_Q, spill_kernel

DVE_Q, DVE_SEMS = "qDVEIO0", tuple(range(40, 56))
BASE_AT = BASE + RUN + 16  # inside the spill save's second run
SCHEDULES = ["rr", "in-order", "random:1", "random:2", "random:3"]


def kernel(text: dict[str, str], entries: dict[Engine, tuple[DmaEntry, ...]]) -> Subgraph:
    """Engines' records `text`; inputs `a`, `b` and output `out`, 128 x 64 bytes each; a
    queue on SP and one on DVE."""
    tensors = {n: Tensor(n, "float32", (PARTS, ROW // 4), k, False, "NC", f"value_{n}.npy")
               for n, k in (("a", "input"), ("b", "input"), ("out", "output"))}
    variables = {"SB": Var("SB", "state-buffer", 0),
                 **{n: Var(n, t.kind or "", i + 1, PARTS * ROW)
                    for i, (n, t) in enumerate(tensors.items())}}
    queues = {SP_Q: DmaQueue(SP_Q, Engine.SP, SP_SEMS),
              DVE_Q: DmaQueue(DVE_Q, Engine.DVE, DVE_SEMS)}
    return Subgraph("sg00", streams(**text), queues, entries, variables, tensors)


def run(sg: Subgraph, schedule: str) -> list[Race]:
    nc = neff_core(lower_subgraph(sg, Gen.CAYMAN), schedule=schedule)
    assert nc.core.cont().reason == StopReason.HALT
    return nc.core.races


def engines(r: Race) -> tuple[str, str]:
    """The two sides, in the order the schedule ran them."""
    return r.a.engine, r.b.engine


# -- an engine and a queue its own trigger fed ------------------------------------------------
def own_load(add_waits: bool) -> Subgraph:
    """DVE triggers a load of `a` into SB 0.. on its own queue, then adds SB 0.. (and b's
    bytes) without waiting for it (or, `add_waits`, waiting for the load's semaphore);
    the add signals a semaphore nobody waits on."""
    events = f"{wait(DVE_SEMS[0], 16)} {inc(6)}" if add_waits else inc(6)
    return kernel({"dve": f"TRIGGER {DVE_Q} 0\n{tt_add(0, ROW, 2 * ROW, events)}"},
                  {Engine.DVE: (DmaEntry(DVE_Q, 0, DVE_SEMS[0], (load("a", 0),), "load a"),)})


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_an_engine_reading_what_its_own_trigger_loads_waits_for_the_load(schedule: str
                                                                         ) -> None:
    """Whichever ran first, the wait goes before the add, for the load's completion: a
    wait before the trigger, for the add, would wait for what comes after it."""
    (r,) = run(own_load(False), schedule)
    assert set(engines(r)) == {"dve", DVE_Q}
    assert r.missing == (f"DVE should wait for sem[{DVE_SEMS[0]}] >= 16 before 0x80 "
                         f"(the completion of {DVE_Q}#0 raises sem[{DVE_SEMS[0]}] to 16)")
    assert r.fix is None


def test_both_orders_of_an_engine_and_its_own_load_are_seen() -> None:
    """The schedules above run the add before the load completes and after it."""
    orders = {engines(run(own_load(False), s)[0]) for s in SCHEDULES}
    assert orders == {("dve", DVE_Q), (DVE_Q, "dve")}


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_applying_the_hint_to_an_engine_and_its_own_load_is_race_free(schedule: str
                                                                      ) -> None:
    assert run(own_load(True), schedule) == []


# -- an engine and a queue another engine's trigger fed ---------------------------------------
def unordered_store(trigger_waits: bool) -> Subgraph:
    """DVE adds into SB 2*ROW.. (and signals sem 6, which nothing waits on); SP triggers
    the store of those bytes without waiting (or, `trigger_waits`, the trigger waits for
    sem[6] >= 1)."""
    trigger = f"TRIGGER {SP_Q} 0" + (" 6 1" if trigger_waits else "")
    return kernel({"dve": tt_add(0, ROW, 2 * ROW, inc(6)), "sp": trigger},
                  {Engine.SP: (DmaEntry(SP_Q, 0, SP_SEMS[0], (store(2 * ROW, "out"),),
                                        "store"),)})


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_a_store_of_another_engines_result_waits_before_its_trigger(schedule: str) -> None:
    """The producer signals a semaphore nobody waits on: the trigger should wait for it
    (the store's queue cannot), whichever ran first."""
    (r,) = run(unordered_store(False), schedule)
    assert set(engines(r)) == {"dve", SP_Q}
    assert r.missing == ("SP should wait for sem[6] (reaching the value DVE's update gives) "
                         f"before its trigger of {SP_Q}#0 at 0x40 (DVE's instruction at 0x40 "
                         "signals sem[6] with SEM_INC_COMPLETE and nothing waits on it)")


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_applying_the_hint_to_the_store_is_race_free(schedule: str) -> None:
    assert run(unordered_store(True), schedule) == []


def unsignalled() -> Subgraph:
    """SP loads `a` into SB 0..; DVE adds SB 0.. and signals nothing: no intent either
    way, so the hint follows the order the schedule took."""
    return kernel({"dve": tt_add(0, ROW, 2 * ROW), "sp": f"TRIGGER {SP_Q} 0"},
                  {Engine.SP: (DmaEntry(SP_Q, 0, SP_SEMS[0], (load("a", 0),), "load a"),)})


def test_an_engine_first_then_a_queue_waits_before_the_trigger() -> None:
    # in-order: the engines run until they block or halt before any queue does
    (r,) = run(unsignalled(), "in-order")
    assert engines(r) == ("dve", SP_Q)
    assert r.missing == (f"a semaphore update in DVE after 0x40 waited on by SP before "
                         f"its trigger of {SP_Q}#0 at 0x40")


def test_a_queue_first_then_an_engine_waits_for_its_completion() -> None:
    names = neff_core(lower_subgraph(unsignalled(), Gen.CAYMAN)).core.names
    sp, queue = names.index("sp"), names.index(SP_Q)
    # SP's first record and its trigger, then the load completes, then the rest
    (r,) = run(unsignalled(), f"seq:{sp}*2,{queue}")
    assert engines(r) == (SP_Q, "dve")
    assert r.missing == (f"DVE should wait for sem[{SP_SEMS[0]}] >= 16 before 0x40 "
                         f"(the completion of {SP_Q}#0 raises sem[{SP_SEMS[0]}] to 16)")


# -- two queues ----------------------------------------------------------------------------
@pytest.mark.parametrize("schedule", ["rr", "in-order", "random:3"])
def test_two_queues_wait_on_the_later_entrys_trigger_engine(schedule: str) -> None:
    """The spill shape (tests/neff/test_spill_race.py): the reload completes first; the
    engine that triggers the save, DVE, should wait for the reload's semaphore before
    that trigger."""
    (r,) = run(spill_kernel(BASE_AT, False), schedule)
    assert engines(r) == (RELOAD_Q, SAVE_Q)
    assert r.missing == (f"DVE should wait for sem[{RELOAD_SEMS[0]}] >= 16 before its "
                         f"trigger of {SAVE_Q}#0 at 0x80 (the completion of {RELOAD_Q}#0 "
                         f"raises sem[{RELOAD_SEMS[0]}] to 16)")


@pytest.mark.parametrize("schedule", ["rr", "in-order", "random:3"])
def test_applying_the_two_queue_hint_is_race_free(schedule: str) -> None:
    sg = spill_kernel(BASE_AT, False)
    dve = streams(dve=f"EVENT_SEMAPHORE {wait(SP_SEMS[0], 16)}\n"
                      f"TRIGGER {SAVE_Q} 0 {RELOAD_SEMS[0]} 16")[Engine.DVE]
    sg.streams[Engine.DVE] = dve
    assert run(sg, schedule) == []


def store_then_reload() -> Subgraph:
    """SP triggers a store of SB 0.. to `out` on one queue, then a load of `a` into the
    same bytes on another, with no wait between: two entries of one engine's triggers
    that nothing orders (their queues are independent)."""
    sg = kernel({"sp": f"TRIGGER {SP_Q} 0\nTRIGGER {RELOAD_Q} 0"},
                {Engine.SP: (DmaEntry(SP_Q, 0, SP_SEMS[0], (store(0, "out"),), "store"),
                             DmaEntry(RELOAD_Q, 0, RELOAD_SEMS[0], (load("a", 0),),
                                      "reload"))})
    sg.queues[RELOAD_Q] = DmaQueue(RELOAD_Q, Engine.SP, RELOAD_SEMS, "data")
    return sg


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_two_queues_one_engine_fed_wait_before_the_later_trigger(schedule: str) -> None:
    """Whichever entry completed first, the wait goes before the later trigger (the
    reload's), for the earlier-triggered entry's completion (the store's): a wait before
    the store's trigger, for the reload, would wait for what comes after it."""
    (r,) = run(store_then_reload(), schedule)
    assert set(engines(r)) == {SP_Q, RELOAD_Q}
    assert r.missing == (f"SP should wait for sem[{SP_SEMS[0]}] >= 16 before its trigger "
                         f"of {RELOAD_Q}#0 at 0x80 (the completion of {SP_Q}#0 raises "
                         f"sem[{SP_SEMS[0]}] to 16)")
