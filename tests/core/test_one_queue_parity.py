"""A program is a kernel with one queue: random single-queue programs reach the same
stops (reason, step, PC, breakpoints), registers and memory through a kernel's Core of
one queue as through the program's own (lone) core, forward and in reverse
(docs/architecture.md "One debugger")."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.machine.isa.programs import counted_loop
from tests.core.conftest import copies, core
from tests.machine.helpers import core_of

ENDS = ("halt", "fault", "invalid")

line = st.one_of(
    st.just("NOP"),
    st.integers(0, 9).map(lambda k: f"MOVE R1={k}"),
    st.integers(0, 3).map(lambda k: f"MOVE R3={k}"),
    copies,
    st.integers(1, 3).map(lambda n: counted_loop(n, 2).replace("HALT\n", "").rstrip()
                          .replace("loop", "LABEL")),
)
SPECS = ["op:NOP", "op:COPY", "op:ALU_OP", "pc:0x40", "pc:0x80", "watch:R1", "change:R1",
         "if:R1 > 4", "watch:sb[0, 0x120:0x130]", "op:MOVE if R1 > 2", "change:R3"]


def program(lines: list[str]) -> str:
    """The lines, each loop's label made its own, then HALT."""
    return "\n".join(t.replace("LABEL", f"loop{i}") for i, t in enumerate(lines)) + "\nHALT\n"


def summary(stop: object, steps: int, pc: int) -> tuple:
    return (str(stop.reason), steps, pc,  # type: ignore[attr-defined]
            sorted(b.id for b in stop.breakpoints))  # type: ignore[attr-defined]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line, min_size=1, max_size=6), st.lists(st.sampled_from(SPECS), max_size=3,
                                                       unique=True))
def test_a_program_runs_the_same_as_a_kernel_of_one_queue(lines: list[str],
                                                          specs: list[str]) -> None:
    text = program(lines)
    m = core_of(text)
    c = core(pool=text)
    for spec in specs:
        try:
            m.add_breakpoint(spec)
        except ValueError:
            continue
        c.add_breakpoint(spec)
    forward_m, forward_c = [], []
    for _ in range(100):
        sm, sc = m.cont(), c.cont()
        forward_m.append(summary(sm, m.steps, m.state().pc))
        forward_c.append(summary(sc, c.steps, c.state().pc))
        assert forward_c == forward_m
        if sm.reason in ENDS:
            break
    st_m, st_c = m.state(), c.state()
    assert st_c.R == st_m.R and st_c.pc == st_m.pc and st_c.sem == st_m.sem
    assert (st_c.sbuf == st_m.sbuf).all() and (st_c.psum == st_m.psum).all()
    for _ in range(100):
        sm, sc = m.reverse_continue(), c.reverse_continue()
        assert summary(sc, c.steps, c.state().pc) == summary(sm, m.steps, m.state().pc)
        if sm.reason == "start":
            break
    assert c.steps == m.steps == 0


def test_reverse_continue_on_one_queue_judges_change_and_if_as_forward_does() -> None:
    """A write that keeps R1's value is no `change:`; `if:` stops where it became true."""
    m = core_of("MOVE R1=5\nMOVE R1=5\nMOVE R1=7\nNOP\nHALT")
    assert m.cont().reason == "halt"
    bp = m.add_breakpoint("change:R1")
    stop = m.reverse_continue()
    assert (stop.reason, m.state().steps, m.state().R[1]) == ("breakpoint", 2, 5)
    stop = m.reverse_continue()  # the second MOVE R1=5 changed nothing
    assert (stop.reason, m.state().steps, bp.hits) == ("breakpoint", 0, 2)
    m.delete_breakpoint(bp.id)
    assert m.cont().reason == "halt"
    cond = m.add_breakpoint("if:R1 > 6")
    stop = m.reverse_continue()
    assert (stop.breakpoint, m.state().steps, m.state().R[1]) == (cond, 2, 5)
    assert m.reverse_continue().reason == "start"
