"""Forward/reverse symmetry of a NeuronCore's stops: for random kernels and random
breakpoints, the breakpoint hits `continue` meets from step 0 are exactly the ones
`reverse-continue` meets from the end, in reverse order (machine/core/core.py).

A hit is (the global step it is about, breakpoint id): a static kind (op, pc, label)
is about the step its engine is about to take; an after-step kind (watch, change, if,
race, wait) about the step that met it, -1 for engines blocked from the start. Forward
stops after that step, reverse before it (as a reverse watch stops before the write).
Static hits at step 0 are left out: `continue` from the loaded state steps over the
first instruction's breakpoints, as `continue` does wherever no stop reported them.
A `deadlock` breakpoint names the run's last stop (where reverse starts), so it is
checked there and is no hit to meet on the way.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.machine.breakpoints import STATIC_KINDS
from neurondbg.machine.core.core import Core
from tests.core.conftest import copies, core

ENGINES = ("pool", "dve", "act")
ENDS = ("halt", "deadlock", "fault", "invalid")

instruction = st.one_of(
    st.just("NOP"),
    st.integers(1, 9).map(lambda k: f"MOVE R1={k}"),
    st.integers(0, 1).map(lambda s: f"NOP update_mode=SEM_INC_READ update_idx={s}"),
    st.tuples(st.integers(0, 1), st.integers(1, 2)).map(
        lambda t: f"NOP wait_mode=SEM_GE_IMM wait_idx={t[0]} semaphore_value={t[1]}"),
    copies,
)


@st.composite
def kernels(draw: st.DrawFn) -> dict[str, str]:
    n = draw(st.integers(2, 3))
    return {e: "\n".join(draw(st.lists(instruction, min_size=1, max_size=5))) + "\nmid:\nHALT"
            for e in ENGINES[:n]}


def specs(engines: list[str]) -> st.SearchStrategy[list[str]]:
    e = st.sampled_from(engines)
    one = st.one_of(
        st.sampled_from(["op:NOP", "op:COPY", "op:MOVE", "race", "wait", "change:R1",
                         "if:sem[0] > 0", "if:sem[1] >= 2", "change:sem[1]",
                         "watch:sb[0, 0x120:0x130]", "op:NOP if sem[0] > 0", "deadlock",
                         "label:mid", "deadlock if sem[1] == 0"]),
        e.map(lambda x: f"op:NOP@{x}"), e.map(lambda x: f"pc:0x40@{x}"),
        e.map(lambda x: f"watch:R1@{x}"), e.map(lambda x: f"race@{x}"),
        e.map(lambda x: f"wait@{x}"), e.map(lambda x: f"change:sem[0]@{x}"),
        e.map(lambda x: f"label:mid@{x}"),
    )
    return st.lists(one, min_size=1, max_size=4, unique=True)


def hits_of(stop: object, position: int, forward: bool) -> list[tuple[int, int]]:
    out = []
    for bp in stop.breakpoints:  # type: ignore[attr-defined]
        if bp.kind in STATIC_KINDS:
            at = position
        elif bp.kind == "wait" and position == 0 and re.search(
                rf"#{bp.id} {re.escape(bp.text)}: \w+ waits at", stop.detail):  # type: ignore[attr-defined]
            at = -1  # blocked from the start
        else:
            at = position - 1 if forward else position
        if not (bp.kind in STATIC_KINDS and at == 0):
            out.append((at, bp.id))
    return sorted(out)


def build(queues: dict[str, str], schedule: str, bps: list[str]) -> Core:
    c = core(schedule, **queues)
    for spec in bps:
        try:
            c.add_breakpoint(spec)
        except ValueError:
            pass  # e.g. pc:0x40 of a one-record queue
    return c


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels(), st.sampled_from(["rr", "in-order", "random:3", "random:99"]), st.data())
def test_continue_and_reverse_continue_meet_the_same_hits(
        queues: dict[str, str], schedule: str, data: st.DataObject) -> None:
    bps = data.draw(specs(list(queues)))
    fwd = build(queues, schedule, bps)
    forward: list[list[tuple[int, int]]] = []
    for _ in range(200):
        stop = fwd.cont()
        if stop.reason in ENDS:
            break
        forward.append(hits_of(stop, fwd.steps, True))
    else:
        raise AssertionError("no end in 200 stops")
    if stop.reason == "deadlock":  # `deadlock` names the end (its condition read there)
        named = [b.text for b in stop.breakpoints]
        assert ("deadlock" in named) == ("deadlock" in bps)
    end = fwd.steps
    # the same breakpoints on a core run to the end without them, then reversed
    back = build(queues, schedule, [])
    assert back.cont().reason == stop.reason and back.steps == end
    for spec in bps:
        try:
            back.add_breakpoint(spec)
        except ValueError:
            pass
    reverse: list[list[tuple[int, int]]] = []
    for _ in range(200):
        stop = back.reverse_continue()
        if stop.reason == "start":
            break
        reverse.append(hits_of(stop, back.steps, False))
    flat_forward = [h for hs in forward for h in hs]
    flat_reverse = [h for hs in reverse for h in hs]
    # in step order going forward, in reverse step order going back (within one step
    # a forward run may report a static hit and an after-step hit in two stops)
    assert [a for a, _ in flat_forward] == sorted(a for a, _ in flat_forward)
    assert [a for a, _ in flat_reverse] == sorted((a for a, _ in flat_reverse), reverse=True)
    assert sorted(flat_reverse) == sorted(flat_forward)
    assert back.steps == 0


def test_continue_from_the_starts_wait_stop_then_a_static_stop_reaches_the_end() -> None:
    """The start's `wait` stop and a static stop at step 0 are each reported once."""
    c = build({"pool": "NOP\nHALT", "dve": "NOP\nHALT",
               "act": "NOP wait_mode=SEM_GE_IMM wait_idx=0 semaphore_value=1\nHALT"},
              "rr", ["op:NOP", "wait@act"])
    reasons = [(c.cont().reason, c.steps) for _ in range(4)]
    assert reasons == [("wait", 0), ("breakpoint", 0), ("breakpoint", 1), ("deadlock", 4)]


def test_a_random_schedule_meets_the_same_hits_both_ways() -> None:
    queues = {"pool": "NOP\nNOP\nNOP\nNOP\nNOP wait_mode=SEM_GE_IMM wait_idx=0 "
              "semaphore_value=1\nHALT", "dve": "NOP\nHALT", "act": "NOP\nHALT"}
    fwd = build(queues, "random:3", ["op:NOP"])
    forward = []
    while (stop := fwd.cont()).reason not in ENDS:
        forward += hits_of(stop, fwd.steps, True)
    back = build(queues, "random:3", [])
    back.cont()
    back.add_breakpoint("op:NOP")
    reverse = []
    while (stop := back.reverse_continue()).reason != "start":
        reverse += hits_of(stop, back.steps, False)
    assert sorted(reverse) == sorted(forward)
