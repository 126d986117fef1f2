"""A plain PROGRAM runs on a core with one queue (`Core.of_program`) as it ran on its
Machine's own run control, which is gone: tests/core/data/program_runs.json holds what
that run control did on 48 fixed generated programs (each with breakpoints of every
kind a program takes, run by `continue` in random budgets, then `reverse-continue` back
to the start): each stop and, after it, the step count, PC and the first 16 hex digits
of the state's digest. The core must do exactly the same. One difference is recorded as
the core's: a fault stop lists the `fault` breakpoints (the Machine named none there;
`run` runs on the core and always has). The core then speaks as the program: no engine
named, HALT, faults."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine
from tests.machine.helpers import machine, put

CAST = ("CAST in_dtype=FP32 out_dtype=BF16 nac=4 src=sb[0, 0] step=[1,0,0,0] "
        "num=[8,1,1,1] dst=sb[0, 64] step=[1,0,0,0] num=[8,1,1,1]")


def loaded(text: str) -> Machine:
    """The program on a small machine, SBUF seeded so its CAST meets ties and infinities."""
    m = machine(text)
    put(m, slice(0, 4), 0, np.array([1, 1 + 2.0**-8, 3.4e38, -2, 0.1, 7, 8, 9], np.float32))
    return m

RUNS = Path(__file__).parent / "data" / "program_runs.json"


def brief(m: Machine) -> list:
    """What the recorded runs keep of the state after each stop."""
    st = m.state
    return [st.steps, st.pc, st.digest()[:16]]


def test_fixed_programs_stop_on_their_one_queue_core_as_they_did_on_their_machine(
        ) -> None:
    cases = json.loads(RUNS.read_text())["cases"]
    assert len(cases) == 48
    for n, case in enumerate(cases):
        m = loaded(case["program"])
        c = Core.of_program(m, Path("<test>"))
        for spec in case["breakpoints"]:
            if isinstance(spec, list):  # refused, in the program's words
                try:
                    c.add_breakpoint(spec[0])
                except ValueError as e:
                    assert str(e) == spec[1], n
                else:
                    raise AssertionError(f"case {n}: the core took {spec[0]!r}")
            else:
                c.add_breakpoint(spec)
        for budget, want in zip(case["budgets"], case["forward"], strict=True):
            stop = c.cont(max_steps=budget)
            assert stop.engine is None
            rec = stop.record
            assert [str(stop.reason), stop.pc, stop.detail, stop.steps,
                    [b.id for b in stop.breakpoints],
                    None if rec is None else [rec.step, rec.pc]] == want["stop"], (n, budget)
            assert brief(m) == want["state"], (n, budget)
        for want in case["reverse"]:
            stop = c.reverse_continue()
            assert [str(stop.reason), stop.pc, stop.steps, [b.id for b in stop.breakpoints]] \
                == want["stop"], n
            assert brief(m) == want["state"], n


def on_core(text: str, specs: list[str]) -> Core:
    """The program on its one-queue core, with the breakpoints of `specs`."""
    c = Core.of_program(loaded(text), Path("<test>"))
    for spec in specs:
        c.add_breakpoint(spec)
    return c


def test_a_program_on_a_core_speaks_as_the_program() -> None:
    text = f"MOVE R1=3\n{CAST}\nNOP wait_mode=SEM_GE_IMM wait_idx=2 semaphore_value=1\nHALT"
    c = on_core(text, ["tie"])
    stop = c.cont()
    assert (stop.reason, stop.engine) == ("breakpoint", None)
    assert stop.detail == "#1 tie: CAST at 0x40: tie: 4 lane(s) of CAST; first: partition 0, " \
                          "element 1"
    stop = c.cont()  # an unmet wait on a lone queue is a fault, not a deadlock
    assert (stop.reason, stop.engine, stop.pc) == ("fault", None, 0x80)
    assert stop.detail.startswith("events: waits on sem[2] = 0")
    c = on_core("MOVE R1=3\nHALT", [])
    assert (c.cont().detail, c.cont().detail) == ("HALT", "the machine is halted")
    c = on_core("MOVE R1=3\nHALT", [])
    for spec, error in (("op:NOP@dve", "column 8: no dve queue here (this program runs on "
                                       "pool)"),
                        ("label:nowhere", "column 7: unknown label 'nowhere'; labels: none")):
        try:
            c.add_breakpoint(spec)
        except ValueError as e:
            assert str(e) == error
        else:
            raise AssertionError(spec)
