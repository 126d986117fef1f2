"""Record edits on a kernel (Core.edit_record): any engine's queue, journaled at the
global step they were made, so reverse undoes them and a replay from a checkpoint
makes them again at the same step."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.machine.asm import assemble
from neurondbg.machine.core.core import Core
from neurondbg.machine.stops import StopReason
from tests.core.conftest import core

TEXT = {
    "pool": "MOVE R1=1\nNOP update_mode=SEM_INC_READ update_idx=0\nMOVE R2=R1\nHALT",
    "dve": "NOP wait_mode=SEM_GE_IMM wait_idx=0 semaphore_value=1\nMOVE R1=5\n"
           "NOP update_mode=SEM_INC_READ update_idx=1\nHALT",
}


def record(text: str) -> bytes:
    """The 64 bytes of one assembled instruction."""
    return bytes(assemble(text, "<r>").program().record(0))


MOVE_7 = record("MOVE R1=7")
NO_SIGNAL = record("NOP")  # dve's record 2 without its semaphore update


def test_a_record_of_the_second_engine_is_replaced_and_reverse_puts_it_back() -> None:
    c = core(**TEXT)
    before = c.machines["dve"].program.record(1)
    # MOVE R1=5 -> MOVE R1=7: the immediate's one byte
    assert c.edit_record(1, MOVE_7, "dve") == "record 1 at 0x40: 1 byte changed, now valid"
    assert c.machines["dve"].program.record(1) == MOVE_7
    assert c.machines["pool"].program.record(1) != MOVE_7  # the other queue is untouched
    assert [e.text for e in c.edits] == ["dve.record[1]"]
    assert c.cont().reason == StopReason.HALT
    assert c.state("dve").R[1] == 7
    assert c.reverse(c.steps).reason == StopReason.START
    assert c.machines["dve"].program.record(1) == MOVE_7  # made at step 0: it stays
    assert c.reverse_step() and c.edits == []
    assert c.machines["dve"].program.record(1) == before
    assert c.cont().reason == StopReason.HALT and c.state("dve").R[1] == 5


def test_reversing_past_a_record_edit_made_mid_run_restores_the_record() -> None:
    c = core(**TEXT)
    c.cont(max_steps=2)
    at = c.steps
    before = c.machines["dve"].program.record(2)
    c.edit_record(2, NO_SIGNAL, "dve")
    assert c.cont().reason == StopReason.HALT and c.state().sem[1] == 0
    c.reverse(c.steps - at)
    assert c.machines["dve"].program.record(2) == NO_SIGNAL  # made at step `at`: kept
    c.reverse(1)
    assert c.edits == [] and c.machines["dve"].program.record(2) == before
    assert c.cont().reason == StopReason.HALT and c.state().sem[1] == 1


def test_the_wait_plan_follows_the_edited_record() -> None:
    """A record that no longer waits: the engine is no longer blocked on it."""
    c = core(**TEXT)
    assert c.waiting("dve") is not None
    c.edit_record(0, record("NOP"), "dve")
    assert c.waiting("dve") is None
    c.reverse_step()
    assert c.waiting("dve") is not None


@pytest.mark.parametrize(("args", "message"), [
    ((9, MOVE_7, "dve"), "record 9 does not exist"),
    ((0, MOVE_7[:10], "dve"), "expected 64 bytes, found 10"),
    ((0, MOVE_7, "act"), "no act queue"),
    (("0", MOVE_7, "dve"), "expected a record number"),
])
def test_bad_record_edits_say_why_in_one_line(args: tuple, message: str) -> None:
    c = core(**TEXT)
    with pytest.raises(ValueError, match=message) as err:
        c.edit_record(*args)
    assert "\n" not in str(err.value) and c.edits == []


EDITS = st.sampled_from([("dve", 1, MOVE_7), ("dve", 2, NO_SIGNAL), ("pool", 0, MOVE_7),
                         ("pool", 1, record("NOP"))])
OPS = st.lists(st.one_of(
    st.tuples(st.just("cont"), st.integers(1, 3)),
    st.tuples(st.just("edit"), EDITS),
    st.tuples(st.just("reverse"), st.integers(1, 4)),
    st.tuples(st.just("back"), st.just(0)),
), min_size=1, max_size=12)


def forward_only(schedule: str, c: Core) -> tuple[str, list[bytes]]:
    """What a fresh core reaches by running forward and making `c`'s edits at their
    steps: its digest and every queue's records."""
    fresh = core(schedule, journal_budget=0, **TEXT)
    for e in c.edits:
        if e.step > fresh.steps:
            fresh.cont(max_steps=e.step - fresh.steps)
        assert isinstance(e.target, int)
        fresh.edit_record(e.target, e.bits.to_bytes(64, "big"), e.engine)
    if c.steps > fresh.steps:
        fresh.cont(max_steps=c.steps - fresh.steps)
    assert fresh.steps == c.steps
    return fresh.digest(), records(fresh)


def records(c: Core) -> list[bytes]:
    return [m.program.raw.tobytes() for m in c.machines.values()]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS, st.sampled_from(["rr", "in-order", "random:4"]))
def test_reverse_and_replay_agree_with_running_forward(ops: list[tuple], schedule: str
                                                       ) -> None:
    """After each command the state and the records are those a fresh core reaches by
    running forward and making the same record edits at the same steps (reverse pops
    steps or restores the step-0 checkpoint and replays, whichever is shorter)."""
    c = core(schedule, **TEXT)
    for kind, arg in ops:
        if kind == "cont":
            c.cont(max_steps=arg)
        elif kind == "edit":
            engine, index, raw = arg
            c.edit_record(index, raw, engine)
        elif kind == "reverse":
            c.reverse(arg)
        else:
            c.reverse_step()
        assert (c.digest(), records(c)) == forward_only(schedule, c), (kind, arg)
