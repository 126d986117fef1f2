"""The interrupt contract of a program's run entries, on its one-queue core
(docs/architecture.md "Interrupts"):
no entry clears `interrupt` when it starts; a run stopped by it consumes it; a run that
ends for another reason leaves it as it is."""

from __future__ import annotations

import numpy as np

from neurondbg.machine.isa.programs import counted_loop

from .helpers import clear_breakpoints, core_of, step

SPIN = "loop:\nCOMPARE_BRANCH cmp_op=ALWAYS dtype=INT32 target=loop\nHALT"


def test_interrupt_set_before_cont_stops_it_at_once_and_is_consumed() -> None:
    m = core_of(SPIN)
    m.interrupt.set()
    stop = m.cont(max_steps=1000)  # bounded: the old contract cleared the flag and ran on
    assert (stop.reason, stop.steps, m.state().steps) == ("interrupt", 0, 0)
    assert not m.interrupt.is_set()
    assert m.cont(max_steps=10).reason == "max-steps" and m.state().steps == 10


def test_interrupt_set_before_step_n_and_cont_until_stops_them() -> None:
    m = core_of(counted_loop(5))
    m.interrupt.set()
    assert step(m, 3).reason == "interrupt" and m.state().steps == 0
    m.interrupt.set()
    assert m.run_to(0xC0).reason == "interrupt" and m.state().steps == 0
    assert not m.interrupt.is_set()


def test_a_run_ending_otherwise_leaves_the_flag_alone() -> None:
    m = core_of(counted_loop(5))

    def late_esc(rec: object) -> None:  # an Esc on the last step: after the final check
        if m.state().halted:
            m.interrupt.set()
    m.on_step = late_esc
    stop = m.cont()
    assert stop.reason == "halt" and m.interrupt.is_set()  # for the next run to see


def test_reverse_entries_stop_on_an_interrupt_set_before_and_consume_it() -> None:
    m = core_of(counted_loop(50))
    m.cont()
    end = m.state().steps
    m.add_breakpoint("op:HALT")
    for run in (lambda: m.reverse_continue(), lambda: m.reverse(10**6)):
        m.interrupt.set()
        stop = run()
        assert stop.reason == "interrupt" and not m.interrupt.is_set()
        assert m.state().steps == end
    clear_breakpoints(m)
    assert m.reverse(5).reason == "max-steps" and m.state().steps == end - 5


def test_replay_stops_on_an_interrupt_set_before_and_consumes_it() -> None:
    m = core_of(counted_loop(50))
    m.interrupt.set()
    stop = m.replay(20)
    assert stop is not None and stop.reason == "interrupt" and m.state().steps == 0
    assert not m.interrupt.is_set()
    assert m.replay(20) is None and m.state().steps == 20
    ref = core_of(counted_loop(50))
    ref.cont(max_steps=20)
    assert np.array_equal(m.state().R, ref.state().R) and m.state().pc == ref.state().pc


def test_reverse_step_past_the_window_with_an_interrupt_set_undoes_nothing() -> None:
    m = core_of(counted_loop(3000), journal_budget=4096)  # history folds as it runs
    m.cont()
    while m.state().journal.steps:  # pops within the kept window
        m.reverse_step()
    n = m.state().steps
    assert n > 0  # the next undo needs a replay from a checkpoint
    m.interrupt.set()
    assert not m.reverse_step() and m.state().steps == n and not m.interrupt.is_set()
    assert m.reverse_step() and m.state().steps == n - 1
