"""The core feeds the race detector: handshakes, a missing wait, `_READ` where
`_COMPLETE` was needed, a double-buffered pipeline; rewinding with reverse."""

from __future__ import annotations

import pytest

from neurondbg.machine.core.core import Core
from neurondbg.machine.dtypes import Gen
from tests.core.conftest import core
from tests.core.test_core import CONSUMER, COPY, PRODUCER

POLICIES = ["rr", "in-order", "random:3", "random:11"]
NO_WAIT = CONSUMER.replace("wait_mode=SEM_GE_IMM wait_idx=3 semaphore_value=1", "")
READ_UPDATE = PRODUCER.replace("SEM_INC_COMPLETE", "SEM_INC_READ")


def run(schedule: str, **queues: str) -> Core:
    c = core(schedule, **queues)
    assert c.cont().reason == "halt"
    return c


def pipeline() -> dict[str, str]:
    """POOL fills tiles A and B, DVE drains them; each refill waits for the drain."""
    a, b = 0x100, 0x180
    w = "wait_mode=SEM_GE_IMM wait_idx={} semaphore_value={}"
    inc = "update_mode=SEM_INC_COMPLETE update_idx={}"
    pool = f"""
.data sb[0:4, 0] fp32 1.0 2.0 3.0 4.0
.data sb[0:4, 0x40] fp32 5.0 6.0 7.0 8.0
    {COPY.format(src=0, dst=a)} {inc.format(1)}
    {COPY.format(src=0x40, dst=b)} {inc.format(2)}
    {COPY.format(src=0x40, dst=a)} {w.format(3, 1)} {inc.format(1)}
    {COPY.format(src=0, dst=b)} {w.format(4, 1)} {inc.format(2)}
    HALT
"""
    dve = f"""
    {COPY.format(src=a, dst=0x200)} {w.format(1, 1)} {inc.format(3)}
    {COPY.format(src=b, dst=0x240)} {w.format(2, 1)} {inc.format(4)}
    {COPY.format(src=a, dst=0x280)} {w.format(1, 2)}
    {COPY.format(src=b, dst=0x2C0)} {w.format(2, 2)}
    HALT
"""
    return {"pool": pool, "dve": dve}


@pytest.mark.parametrize("schedule", POLICIES)
def test_handshake_and_pipeline_are_race_free(schedule: str) -> None:
    assert run(schedule, pool=PRODUCER, dve=CONSUMER).races == []
    c = run(schedule, **pipeline())
    assert c.races == []
    got = [c.state().sbuf[0, o:o + 4].view("<f4")[0] for o in (0x200, 0x240, 0x280, 0x2C0)]
    assert got == [1.0, 5.0, 5.0, 1.0]


@pytest.mark.parametrize("schedule", POLICIES)
def test_missing_wait_is_a_race_whatever_the_order(schedule: str) -> None:
    c = run(schedule, pool=PRODUCER, dve=NO_WAIT)
    if schedule in ("rr", "in-order"):
        assert c.taken()[1][0] == "pool"  # the producer happened to write first
    assert len(c.races) == 1
    d = c.races[0].to_dict()
    assert {d["a"]["engine"], d["b"]["engine"]} == {"pool", "dve"}
    assert {d["a"]["access"], d["b"]["access"]} == {"read", "write"}
    assert (d["space"], d["partitions"], d["bytes"]) == ("sbuf", [0, 4], [256, 272])
    assert c.to_json()["races"] == [d]


@pytest.mark.parametrize("schedule", POLICIES)
def test_read_update_races_with_the_producers_writes(schedule: str) -> None:
    c = run(schedule, pool=READ_UPDATE, dve=CONSUMER)
    assert len(c.races) == 1
    r = c.races[0]
    assert (r.a.engine, r.a.kind, r.b.engine, r.b.kind) == ("pool", "write", "dve", "read")
    assert "use SEM_INC_COMPLETE instead of SEM_INC_READ in POOL at 0x0" in r.missing


def test_reverse_forgets_races_and_forward_finds_them_again() -> None:
    c = run("rr", pool=PRODUCER, dve=NO_WAIT)
    found = [r.to_dict() for r in c.races]
    assert c.reverse(1).steps == 1 and c.reverse(c.steps).reason == "start"
    assert c.races == []
    assert c.cont().reason == "halt" and [r.to_dict() for r in c.races] == found


def test_races_off_records_nothing() -> None:
    c = core(races=False, pool=PRODUCER, dve=NO_WAIT)
    seen = []
    c.on_step = lambda cs: seen.append(c.state(cs.engine).reads)
    assert c.cont().reason == "halt"
    assert c.detector is None and c.races == [] and c.to_json()["races"] == []
    assert seen and all(r is None for r in seen)


IDS = "evt_sem_ids=[{},0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]"
REGS = "value_registers=[{},0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]"
SIGNALS = {  # (producer's signal after its COPY, consumer's wait before its COPY)
    "event_semaphore": (
        "EVENT_SEMAPHORE events_extended.update_mode=SEM_INC_READ events_extended.update_idx=2",
        "EVENT_SEMAPHORE events_extended.wait_mode=SEM_GE_IMM events_extended.wait_idx=2 "
        "events_extended.sem_wait_value=1"),
    "event_then_clear": (
        "NOP update_mode=EVT_SET_READ update_idx=2",
        "NOP wait_mode=EVT_SET_THEN_CLEAR wait_idx=2"),
    "test_event_sem_poll": (
        f"MOVE R4=1\nTEST_EVENT_SEM mode=UPDATE_SEM num_evt_sem=1 {IDS.format(2)} "
        f"{REGS.format(4)}",
        f"poll:\nTEST_EVENT_SEM mode=READ_SEM num_evt_sem=1 {IDS.format(2)} {REGS.format(5)}\n"
        "COMPARE_BRANCH cmp_op=EQ_IMM dtype=INT32 cmp_reg0=R5 cmp_immediate=0 target=poll"),
}


@pytest.mark.parametrize("signal", sorted(SIGNALS))
@pytest.mark.parametrize("schedule", ["rr", "in-order", "random:5"])
def test_semaphore_instructions_order_accesses(signal: str, schedule: str) -> None:
    """EVENT_SEMAPHORE, an event cleared as the wait passes, and TEST_EVENT_SEM polling
    order the consumer after the producer: no race; without the consumer's wait, one."""
    give, take = SIGNALS[signal]
    pool = PRODUCER.replace(" update_mode=SEM_INC_COMPLETE update_idx=3", "").replace(
        "    HALT", f"{give}\n    HALT")
    dve = NO_WAIT.replace("    COPY", f"{take}\n    COPY", 1)
    cfg = {"gen": Gen.MARIANA, "execute_invalid": True}
    c = core(schedule, config=cfg, pool=pool, dve=dve)
    assert c.cont(max_steps=10_000).reason == "halt"
    assert c.races == [] and sbuf_at(c, 0x200) == [1.0, 2.0, 3.0, 4.0]
    if signal == "event_then_clear":
        assert c.state().sem[2] == 0  # the wait cleared it as it passed
    c = core(schedule, config=cfg, pool=pool, dve=NO_WAIT)
    assert c.cont(max_steps=10_000).reason == "halt" and len(c.races) == 1


def sbuf_at(c: Core, offset: int) -> list[float]:
    return c.state().sbuf[0, offset:offset + 16].view("<f4").tolist()
