"""The Core's run entries keep the interrupt contract (machine/core/core.py):
an interrupt set before a run stops it at once and is consumed; a run that ends for
another reason leaves the flag alone."""

from __future__ import annotations

from neurondbg.machine.core.core import Core
from neurondbg.machine.isa.programs import handshake_loops
from tests.core.conftest import core


def loops(n: int = 40) -> Core:
    return core(pool=handshake_loops(n, 3), dve=handshake_loops(n + 7, 5))


def test_interrupt_set_before_cont_stops_it_at_once_and_is_consumed() -> None:
    c = loops()
    c.interrupt.set()
    stop = c.cont(max_steps=500)  # bounded: the old contract cleared the flag and ran on
    assert (stop.reason, stop.steps, c.steps) == ("interrupt", 0, 0)
    assert not c.interrupt.is_set()
    assert c.cont(max_steps=30).reason == "max-steps" and c.steps == 30


def test_run_to_and_replay_stop_on_an_interrupt_set_before() -> None:
    c = loops()
    c.interrupt.set()
    assert c.run_to(0x40, "pool").reason == "interrupt" and c.steps == 0
    c.interrupt.set()
    stop = c.replay(25)
    assert stop is not None and stop.reason == "interrupt" and c.steps == 0
    assert not c.interrupt.is_set()
    assert c.replay(25) is None and c.steps == 25


def test_reverse_entries_stop_on_an_interrupt_set_before_and_consume_it() -> None:
    c = loops()
    c.cont()
    end = c.steps
    c.add_breakpoint("op:HALT")
    for run in (c.reverse_continue, lambda: c.reverse(10**6)):
        c.interrupt.set()
        stop = run()
        assert stop.reason == "interrupt" and stop.steps == 0 and c.steps == end
        assert not c.interrupt.is_set()
    assert c.reverse(5).reason == "max-steps" and c.steps == end - 5


def test_a_run_ending_otherwise_leaves_the_flag_alone() -> None:
    c = loops()

    def late_esc(cs: object) -> None:  # an Esc on the last step: after the final check
        if c.steps == 10:
            c.interrupt.set()
    c.on_step = late_esc
    assert c.cont(max_steps=10).reason == "max-steps" and c.interrupt.is_set()
    assert c.cont().reason == "interrupt" and c.steps == 10  # the next run sees it
