"""A second Ctrl+C (KeyboardInterrupt, raised wherever the main thread is) never cuts the
model's undo-and-redo in half nor leaves a view of the journal that blocks its resizing
(machine.sigint.deferred, Journal.drop_oldest, Machine.refresh_last)."""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

import numpy as np
import pytest

from neurondbg.machine import sigint
from neurondbg.machine.isa.programs import counted_loop
from neurondbg.machine.journal import Journal

from .helpers import (
    machine,
    use_core,
)


def ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)


@pytest.fixture(autouse=True)
def python_sigint_handler() -> Any:
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_sigint_in_a_deferred_block_is_raised_once_it_ends() -> None:
    done: list[int] = []
    with pytest.raises(KeyboardInterrupt):
        with sigint.deferred():
            ctrl_c()
            for k in range(1000):  # many bytecodes: the handler would have run here
                done.append(k)
    assert done == list(range(1000))
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_each_deferred_sigint_goes_to_the_handler_in_place_as_it_ends() -> None:
    seen: list[str] = []

    def first(signum: int, frame: Any) -> None:  # as a command line's first Ctrl+C
        seen.append("first")
        signal.signal(signal.SIGINT, second)

    def second(signum: int, frame: Any) -> None:
        seen.append("second")

    signal.signal(signal.SIGINT, first)
    with sigint.deferred():
        ctrl_c()
        ctrl_c()
        assert seen == []
    assert seen == ["first", "second"]


def test_a_block_without_a_sigint_changes_nothing() -> None:
    with sigint.deferred():
        x = sum(range(10))
    assert x == 45 and signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_off_the_main_thread_the_block_just_runs() -> None:
    out: list[object] = []

    def work() -> None:
        with sigint.deferred():
            out.append(signal.getsignal(signal.SIGINT))

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert out == [signal.default_int_handler]


def journal(steps: int) -> Journal:
    j = Journal()
    for s in range(steps):
        j.begin(64 * s)
        j.reg(s % 8, s)
        j.other("scalar", "sem", s % 4, s)
        j.end()
    return j


def test_a_ctrl_c_inside_drop_oldest_leaves_the_journal_resizable(monkeypatch) -> None:
    j = journal(10)
    real = np.frombuffer

    def and_ctrl_c(*args: Any, **kw: Any) -> np.ndarray:
        out = real(*args, **kw)
        ctrl_c()  # raised in this frame, which the traceback then keeps, `out` with it
        return out

    monkeypatch.setattr(np, "frombuffer", and_ctrl_c)
    interrupted = False
    try:
        j.drop_oldest(4)
    except KeyboardInterrupt:  # while its traceback lives, as in a run's `finally`
        monkeypatch.undo()
        interrupted = True
        # nothing was dropped, and every container can still shrink (no BufferError)
        assert (j.origin, len(j.steps), len(j.regs), len(j.others)) == (0, 10, 10, 10)
        pc, regs, undos = j.pop_step()
    assert interrupted
    assert (pc, regs, [u.old for u in undos]) == (64 * 9, [(1, 9)], [9])
    j.drop_oldest(4)
    assert (j.origin, len(j.steps), len(j.regs), len(j.others)) == (4, 5, 5, 5)


def test_a_ctrl_c_inside_the_last_steps_refresh_leaves_it_whole(monkeypatch) -> None:
    clean = machine(counted_loop(10**6))
    use_core(clean).cont(max_steps=100_000)
    clean.refresh_last()
    m = machine(counted_loop(10**6))
    use_core(m).cont(max_steps=100_000)  # fast steps: no record kept
    st = m.state
    undo = st.undo_step

    def undo_then_ctrl_c() -> int:
        pc = undo()
        ctrl_c()  # between the undo and the redo of the last fast step
        return pc

    monkeypatch.setattr(st, "undo_step", undo_then_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        m.refresh_last()
    assert st.steps == clean.state.steps == 100_000
    assert st.digest() == clean.state.digest()
    rec, want = m.last, clean.last
    assert rec is not None and want is not None and rec.pc == want.pc  # the record was redone
