"""`--races explore` against a brute-force oracle on small random kernels of every event
mode (machine/core/explore.py): the races over every interleaving, one by one."""

from __future__ import annotations

import threading

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from neurondbg.machine.core.core import Core
from neurondbg.machine.core.explore import Exploration, explore, race_key
from neurondbg.machine.core.kernel import Kernel
from neurondbg.machine.core.schedule import parse_policy, seq_text
from neurondbg.machine.isa.enums import UpdateMode, WaitMode
from neurondbg.machine.state import MachineConfig
from tests.core.conftest import SMALL, kernel

ENGINES = ("pool", "dve", "act")
WAITS = [m.name for m in WaitMode if m not in (WaitMode.NONE, WaitMode.UNORDERED,
                                               WaitMode.INVALID) and not m & 0x80]
UPDATES = [m.name for m in UpdateMode if m not in (UpdateMode.NONE, UpdateMode.INVALID)
           and not m & 0x80]
TILES = (0x100, 0x108, 0x110)
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
EQ0_RACE = {
    "pool": ".fill sb[0:2, 0] fp32 count=4 start=1.0 step=0.25 pstep=0.5\n"
            "NOP events.update_mode=SEM_INC_COMPLETE events.update_idx=0\n"
            "COPY in_dtype=FP32 out_dtype=FP32 nac=2 src=sb[0, 0] step=[1,0,0,0] "
            "num=[4,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[4,1,1,1]\n"
            "NOP events.update_mode=SEM_DEC_COMPLETE events.update_idx=0\nHALT\n",
    "dve": "COPY in_dtype=FP32 out_dtype=FP32 nac=2 src=sb[0, 0x40] step=[1,0,0,0] "
           "num=[4,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[4,1,1,1] "
           "events.wait_mode=SEM_EQ_IMM events.wait_idx=0 events.semaphore_value=0\nHALT\n"}


@st.composite
def instruction(draw: st.DrawFn) -> str:
    """A NOP or a Copy between overlapping tiles, with any wait and any update."""
    if draw(st.booleans()):
        src, dst = draw(st.sampled_from(TILES)), draw(st.sampled_from(TILES))
        text = (f"COPY in_dtype=FP32 out_dtype=FP32 nac=2 src=sb[0, {src:#x}] "
                f"step=[1,0,0,0] num=[2,1,1,1] dst=sb[0, {dst:#x}] step=[1,0,0,0] "
                "num=[2,1,1,1]")
    else:
        text = "NOP"
    value = draw(st.integers(0, 2))
    if draw(st.integers(0, 2)):
        text += (f" events.wait_mode={draw(st.sampled_from(WAITS))} "
                 f"events.wait_idx={draw(st.integers(0, 1))}")
    if draw(st.integers(0, 2)):
        text += (f" events.update_mode={draw(st.sampled_from(UPDATES))} "
                 f"events.update_idx={draw(st.integers(0, 1))}")
    return text + f" events.semaphore_value={value}"


@st.composite
def kernels(draw: st.DrawFn) -> dict[str, str]:
    n = draw(st.integers(2, 3))
    sizes = [draw(st.integers(1, 3 if n == 2 else 2)) for _ in range(n)]
    assume(sum(sizes) <= 6)
    return {ENGINES[e]: "\n".join(draw(st.lists(instruction(), min_size=k, max_size=k)))
            + "\nHALT\n" for e, k in enumerate(sizes)}


def _core(k: Kernel, schedule: str = "rr") -> Core:
    return Core(k, MachineConfig(**SMALL), schedule=schedule, races=True, journal_budget=0)


def oracle(k: Kernel) -> set:
    """Every race the detector reports under some interleaving: each maximal
    interleaving replayed from a fresh core, one forced step at a time."""
    found: set = set()

    def visit(prefix: list[int], here: Core) -> None:
        run = here.runnable()
        for n, i in enumerate(run):
            # the core at `prefix` serves its last branch; the others replay it afresh
            c = here if n == len(run) - 1 else _core_after(k, prefix)
            rec = c.step(c.names[i]).record
            found.update(race_key(r) for r in c.races)
            if rec is not None and rec.executed:  # a fault or an invalid record ends it
                visit([*prefix, i], c)

    visit([], _core(k))
    return found


def _core_after(k: Kernel, prefix: list[int]) -> Core:
    c = _core(k)
    for i in prefix:
        c.step(c.names[i])
    return c


def _explore(k: Kernel, n: int) -> Exploration:
    return explore(lambda s: _core(k, s), n, max_steps=100, interrupt=threading.Event())


@SETTINGS
@given(kernels())
def test_explore_finds_exactly_the_races_of_every_interleaving(queues: dict[str, str]
                                                               ) -> None:
    k = kernel(**queues)
    ex = _explore(k, 5000)
    assert ex.complete
    assert {race_key(f.race) for f in ex.found} == oracle(k)


@SETTINGS
@given(kernels(), st.integers(1, 6))
def test_each_race_reruns_under_the_schedule_named_with_it(queues: dict[str, str],
                                                           n: int) -> None:
    k = kernel(**queues)
    ex = _explore(k, n)
    assert len(ex.tried) <= n
    for f in ex.found:
        c = _core(k, f.schedule)
        c.cont(max_steps=100)
        assert race_key(f.race) in {race_key(r) for r in c.races}, f.schedule
    assert sum(t.races > 0 for t in ex.tried) >= bool(ex.found)


def test_the_eq0_race_is_found_though_rr_and_in_order_miss_it() -> None:
    k = kernel(**EQ0_RACE)
    for s in ("rr", "in-order"):
        c = _core(k, s)
        c.cont()
        assert c.races == []
    ex = _explore(k, 16)
    assert ex.complete
    assert [(f.race.a.engine, f.race.b.engine, f.schedule) for f in ex.found] == [
        ("dve", "pool", "seq:1")]
    assert [t.schedule for t in ex.tried][:2] == ["rr", "seq:1"]


def test_an_interrupt_ends_the_exploration_with_what_it_tried() -> None:
    stop = threading.Event()
    stop.set()
    ex = explore(lambda s: _core(kernel(**EQ0_RACE), s), 16, max_steps=100, interrupt=stop)
    assert ex.interrupted and not ex.complete
    assert [(t.end, t.steps) for t in ex.tried] == [("interrupt", 0)]


@pytest.mark.parametrize("n", [0, 100_001])
def test_the_number_of_schedules_is_bounded(n: int) -> None:
    with pytest.raises(ValueError, match=r"1\.\.100000"):
        _explore(kernel(**EQ0_RACE), n)


@given(st.binary(min_size=1, max_size=40).map(lambda b: bytes(x % 5 for x in b)))
def test_seq_text_round_trips(picks: bytes) -> None:
    assert parse_policy("seq:" + seq_text(picks)).picks == picks


@pytest.mark.parametrize("text", ["seq:", "seq:x", "seq:1*0", "seq:256", "seq:-1", "seq:1*"])
def test_a_bad_seq_schedule_is_one_line(text: str) -> None:
    with pytest.raises(ValueError, match="expected ENGINE or ENGINE\\*COUNT"):
        parse_policy(text)
