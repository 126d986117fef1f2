"""The wait plans an engine queue keeps (by record bytes, and the one at its PC) give the
runs a plan worked out afresh at every question gives: the same stops, steps, races and
state, on random small kernels whose waits use every immediate relation (the `>=` ones
take the direct check), with and without history, and after record edits at the PC a
queue stands on.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.machine.core.actor import EngineQueue
from neurondbg.machine.core.core import Core
from neurondbg.machine.core.events import NO_PLAN, Plan, plan_of
from tests.core.conftest import core
from tests.core.test_core_props import kernels

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
RELATIONS = ("SEM_GE_IMM", "SEM_EQ_IMM", "SEM_LT_IMM", "SEM_LE_IMM", "SEM_GT_IMM")


def _fresh(self: EngineQueue) -> Plan:
    """EngineQueue.plan without its caches."""
    m = self.machine
    k = m.index_of(m.state.pc)
    return NO_PLAN if k is None else plan_of(m.instruction(k))


@contextmanager
def _uncached() -> Iterator[None]:
    with patch.object(EngineQueue, "plan", _fresh):
        yield


@st.composite
def mixed(draw: st.DrawFn) -> dict[str, str]:
    """test_core_props' kernels, some `>=` waits turned into another relation."""
    queues = draw(kernels())
    out = {}
    for engine, text in queues.items():
        lines = []
        for line in text.splitlines():
            if "SEM_GE_IMM" in line:
                line = line.replace("SEM_GE_IMM", draw(st.sampled_from(RELATIONS)))
            lines.append(line)
        out[engine] = "\n".join(lines) + "\n"
    return out


def _outcome(c: Core, steps: int) -> tuple[object, ...]:
    stop = c.cont(max_steps=steps)
    return (stop.reason, stop.detail, stop.steps, c.steps, c.digest(),
            [r.to_dict() for r in c.races],
            {e: (str(c.status(e)), c.waiting(e)) for e in c.names})


@SETTINGS
@given(mixed(), st.sampled_from(("rr", "in-order", "random:7")), st.sampled_from((0, None)))
def test_cached_plans_run_as_fresh_ones(queues: dict[str, str], schedule: str,
                                        budget: int | None) -> None:
    cached = _outcome(core(schedule, journal_budget=budget, **queues), 300)
    with _uncached():
        fresh = _outcome(core(schedule, journal_budget=budget, **queues), 300)
    assert cached == fresh


@SETTINGS
@given(mixed(), st.integers(0, 12), st.data())
def test_plans_follow_record_edits(queues: dict[str, str], first: int,
                                   data: st.DataObject) -> None:
    """Part-way, each engine's record at its PC is replaced by another record of its
    queue (a wait added, removed or changed where a plan is kept): the runs agree."""
    def run(c: Core, picks: list[int]) -> tuple[object, ...]:
        c.cont(max_steps=first)
        for e, pick in zip(c.engines, picks, strict=True):
            m = c.machines[e]
            k = m.index_of(m.state.pc)
            if k is not None and not m.state.halted:
                c.edit_record(k, m.program.record(pick % m.count), e)
        return _outcome(c, 300)

    picks = [data.draw(st.integers(0, 20)) for _ in queues]
    cached = run(core("rr", **queues), picks)
    with _uncached():
        fresh = run(core("rr", **queues), picks)
    assert cached == fresh
