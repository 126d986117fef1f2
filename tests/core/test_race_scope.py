"""What a run's race verdict covers (machine/core/scope.py): every schedule for a
monotone kernel, else the schedule that ran, with the first reason why."""

from __future__ import annotations

import pytest
from hypothesis import given

from neurondbg.machine.core.core import Core
from neurondbg.machine.core.scope import scope_of
from tests.core.conftest import core
from tests.core.test_core_props import SETTINGS, kernels
from tests.core.test_race_explore import EQ0_RACE

SCHEDULES = ("rr", "in-order", "random:1", "random:7", "seq:1*3", "seq:2,1,0")

_PRODUCE = ("NOP events.update_mode={mode} events.update_idx=0 events.semaphore_value=1\n"
            "HALT\n")
_CONSUME = ("NOP events.wait_mode={mode} events.wait_idx=0 events.semaphore_value=1\n"
            "HALT\n")


def _pairs(c: Core) -> set[frozenset]:
    return {frozenset({(r.a.engine, r.a.pc, r.a.kind), (r.b.engine, r.b.pc, r.b.kind)})
            for r in c.races}


@SETTINGS
@given(kernels())
def test_monotone_kernels_are_judged_for_every_schedule(queues: dict[str, str]) -> None:
    verdicts = set()
    for s in SCHEDULES:
        if s.startswith("seq") and len(queues) < 3 and "2" in s:
            continue
        c = core(s, **queues)
        assert scope_of(c).every_schedule, scope_of(c).reason
        c.cont(max_steps=200)
        verdicts.add(frozenset(_pairs(c)))
    assert len(verdicts) == 1


@pytest.mark.parametrize(("produce", "consume", "reason"), [
    ("SEM_INC_COMPLETE", "SEM_GE_IMM", None),
    ("SEM_ADD_IMM_READ", "SEM_GT_IMM", None),
    ("SEM_INC_COMPLETE", "SEM_EQ_IMM", "dve waits with SEM_EQ_IMM at 0x0, not a >= / > wait"),
    ("SEM_INC_COMPLETE", "EVT_SET_THEN_CLEAR",
     "dve waits with EVT_SET_THEN_CLEAR at 0x0, not a >= / > wait"),
    ("SEM_WR_IMM_COMPLETE", "SEM_GE_IMM",
     "sem[0], waited on by dve at 0x0: pool updates it with SEM_WR_IMM_COMPLETE at 0x0, "
     "so its values do not only go up"),
    ("SEM_DEC_READ", "SEM_GE_IMM",
     "sem[0], waited on by dve at 0x0: pool updates it with SEM_DEC_READ at 0x0, "
     "so its values do not only go up"),
])
def test_the_scope_names_the_first_thing_that_breaks_it(produce: str, consume: str,
                                                        reason: str | None) -> None:
    s = scope_of(core(pool=_PRODUCE.format(mode=produce), dve=_CONSUME.format(mode=consume)))
    assert s.every_schedule is (reason is None)
    assert s.reason == (reason or "every wait is >= / > on a semaphore that one queue only "
                                  "increases")


def test_two_producers_of_a_waited_semaphore_depend_on_the_schedule() -> None:
    p = _PRODUCE.format(mode="SEM_INC_COMPLETE")
    s = scope_of(core(pool=p, act=p, dve=_CONSUME.format(mode="SEM_GE_IMM")))
    assert not s.every_schedule
    assert s.reason == ("sem[0], waited on by dve at 0x0, is updated by act and pool: which "
                        "update a wait meets depends on the schedule")


def test_the_eq0_race_kernel_is_schedule_dependent_and_race_checking_off_covers_none() -> None:
    assert scope_of(core(**EQ0_RACE)).reason == ("dve waits with SEM_EQ_IMM at 0x0, not a "
                                                 ">= / > wait")
    off = scope_of(core(races=False, **EQ0_RACE))
    assert (off.every_schedule, off.reason) == (False, "race checking is off")
