"""A plain PROGRAM runs on a core with one queue (`Core.of_program`): random single-queue
programs, breakpoints and run commands give the same stops (reason, PC, detail, steps,
breakpoints, record), registers, memory and digest through the core as through the
Machine's own run control, forward; in reverse the same stops (reason, step, PC,
breakpoints). The core then speaks as the program: no engine named, HALT, faults.

tests/core/data/program_runs.json holds what the Machine's own run control did on 48
fixed generated programs (each with breakpoints of every kind a program takes, run by
`continue` in random budgets, then `reverse-continue` back to the start): each stop
and, after it, the step count, PC and the first 16 hex digits of the state's digest.
The core must do exactly the same, so the comparison stands without that run control.
One difference is recorded as the core's: a fault stop lists the `fault` breakpoints
(the Machine named none there; `run` runs on the core and always has)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine
from neurondbg.machine.isa.programs import counted_loop
from neurondbg.machine.stops import Stop
from tests.core.conftest import copies
from tests.machine.helpers import machine, put

ENDS = ("halt", "fault", "invalid")
CAST = ("CAST in_dtype=FP32 out_dtype=BF16 nac=4 src=sb[0, 0] step=[1,0,0,0] "
        "num=[8,1,1,1] dst=sb[0, 64] step=[1,0,0,0] num=[8,1,1,1]")
SEM_UP = "EVENT_SEMAPHORE events_extended.update_mode=SEM_INC_READ events_extended.update_idx=2"

line = st.one_of(
    st.just("NOP"),
    st.integers(0, 9).map(lambda k: f"MOVE R1={k}"),
    st.integers(0, 3).map(lambda k: f"MOVE R3={k}"),
    st.just(CAST),
    st.just(SEM_UP),
    # met once SEM_UP ran; else the lone queue's wait faults (nothing else signals it)
    st.integers(1, 2).map(lambda v: f"NOP wait_mode=SEM_GE_IMM wait_idx=2 semaphore_value={v}"),
    copies,
    st.integers(1, 3).map(lambda n: counted_loop(n, 2).replace("HALT\n", "").rstrip()
                          .replace("loop", "LABEL")),
)
SPECS = ["op:NOP", "op:COPY", "op:ALU_OP", "op:CAST", "pc:0x40", "pc:0x80", "watch:R1",
         "change:R1", "if:R1 > 4", "watch:sb[0, 0x120:0x130]", "op:MOVE if R1 > 2",
         "change:R3", "change:sem[2]", "tie", "inf", "saturate", "nan", "label:loop0",
         "pc:0x40 if R3 == 1"]
BUDGETS = st.lists(st.one_of(st.none(), st.integers(1, 7)), min_size=1, max_size=12)


def program(lines: list[str]) -> str:
    """The lines, each loop's label made its own, then HALT."""
    return "\n".join(t.replace("LABEL", f"loop{i}") for i, t in enumerate(lines)) + "\nHALT\n"


def loaded(text: str) -> Machine:
    """The program on a small machine, SBUF seeded so its CAST meets ties and infinities."""
    m = machine(text)
    put(m, slice(0, 4), 0, np.array([1, 1 + 2.0**-8, 3.4e38, -2, 0.1, 7, 8, 9], np.float32))
    return m


def seen(stop: Stop) -> tuple:
    """Everything a stop tells a user, and which step record it carries."""
    rec = stop.record
    return (stop.reason, stop.pc, stop.detail, stop.steps, stop.engine,
            [b.id for b in stop.breakpoints], None if rec is None else (rec.step, rec.pc))


def state_of(m: Machine) -> tuple:
    st = m.state
    return (list(st.R), st.pc, list(st.sem), st.halted, st.steps, st.sbuf.tobytes(),
            st.psum.tobytes(), st.digest())


def pair(text: str, specs: list[str]) -> tuple[Machine, Core, Machine]:
    """(the program on its Machine, the same program on a one-queue core, that core's
    Machine), each with the breakpoints of `specs` the program takes."""
    m, inner = loaded(text), loaded(text)
    c = Core.of_program(inner, Path("<test>"))
    for spec in specs:
        try:
            m.add_breakpoint(spec)
        except ValueError as e:
            try:
                c.add_breakpoint(spec)
            except ValueError as f:
                assert str(f) == str(e)  # refused in the program's words
            else:
                raise AssertionError(f"the core took {spec!r}") from None
            continue
        c.add_breakpoint(spec)
    return m, c, inner


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line, min_size=1, max_size=6),
       st.lists(st.sampled_from(SPECS), max_size=4, unique=True), BUDGETS)
def test_a_program_stops_on_its_one_queue_core_as_on_its_machine(
        lines: list[str], specs: list[str], budgets: list[int | None]) -> None:
    m, c, inner = pair(program(lines), specs)
    for budget in budgets:
        sm, sc = m.cont(max_steps=budget), c.cont(max_steps=budget)
        assert seen(sc) == seen(sm)
        assert state_of(inner) == state_of(m)
    # past the end: "the machine is halted" (or the same fault again), 0 steps
    assert seen(c.cont()) == seen(m.cont()) or m.state.steps != inner.state.steps
    for _ in range(60):  # reverse: the same stops, back to the start
        sm, sc = m.reverse_continue(), c.reverse_continue()
        assert (sc.reason, sc.pc, sc.steps, [b.id for b in sc.breakpoints]) == \
            (sm.reason, sm.pc, sm.steps, [b.id for b in sm.breakpoints])
        assert state_of(inner) == state_of(m)
        if sm.reason == "start":
            break


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


def test_a_program_on_a_core_speaks_as_the_program() -> None:
    text = f"MOVE R1=3\n{CAST}\nNOP wait_mode=SEM_GE_IMM wait_idx=2 semaphore_value=1\nHALT"
    _, c, _ = pair(text, ["tie"])
    stop = c.cont()
    assert (stop.reason, stop.engine) == ("breakpoint", None)
    assert stop.detail == "#1 tie: CAST at 0x40: tie: 4 lane(s) of CAST; first: partition 0, " \
                          "element 1"
    stop = c.cont()  # an unmet wait on a lone queue is a fault, not a deadlock
    assert (stop.reason, stop.engine, stop.pc) == ("fault", None, 0x80)
    assert stop.detail.startswith("events: waits on sem[2] = 0")
    _, c, _ = pair("MOVE R1=3\nHALT", [])
    assert (c.cont().detail, c.cont().detail) == ("HALT", "the machine is halted")
    _, c, _ = pair("MOVE R1=3\nHALT", [])
    for spec, error in (("op:NOP@dve", "column 8: no dve queue here (this program runs on "
                                       "pool)"),
                        ("label:nowhere", "column 7: unknown label 'nowhere'; labels: none")):
        try:
            c.add_breakpoint(spec)
        except ValueError as e:
            assert str(e) == error
        else:
            raise AssertionError(spec)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 400), st.integers(1, 300), st.sampled_from([0, 4096, 1 << 20]),
       st.booleans())
def test_a_core_taking_a_program_over_mid_run_reverses_past_where_it_took_it(
        before: int, after: int, budget: int, record_edit: bool) -> None:
    """A session's program comes with its steps, edits and history: every step and edit
    back to the start undoes as on the Machine (a small budget folds it to checkpoints)."""
    text = counted_loop(200, 2)
    kw = {"journal_budget": budget} if budget else {}
    ref, m = machine(text, **kw), machine(text, **kw)
    for x in (ref, m):
        x.cont(max_steps=before)
        x.edit("R1", "R1 + 5")
        if record_edit:  # the loop's ADD becomes a record of zeros
            x.edit_record(1, bytes(64))
        x.cont(max_steps=after // 2)
        x.edit("sem[1]", "2")
    c = Core.of_program(m, Path("<test>"), **kw)
    assert (c.steps, len(c.edits)) == ref.position  # its global steps are the program's
    assert seen(c.cont(max_steps=after)) == seen(ref.cont(max_steps=after))
    while True:
        assert state_of(m) == state_of(ref) and m.program.raw.tobytes() == \
            ref.program.raw.tobytes()
        back, back_ref = c.reverse_step(), ref.reverse_step()
        assert back == back_ref
        if not back:
            break
    assert ref.position == (0, 0) == (c.steps, len(c.edits))
