"""One controller for a program and a kernel: the TUI's session runs a PROGRAM on a
one-queue Core (`Core.of_program`), and its stops are the ones the program's own
Machine run control reached, forward and in reverse (recorded before it went)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neurondbg.debug.session import Session
from neurondbg.machine.core.core import Core
from neurondbg.machine.stops import Stop

EXAMPLES = Path(__file__).parents[2] / "examples"
KERNEL = EXAMPLES / "kernels" / "producer_consumer.asm"
STOPS = Path(__file__).parent / "data" / "program_stops.json"
ENGINE = "dve"  # every example below runs to its end on DVE
# (program, breakpoints): each program stops at several of them on the way
CASES = [
    ("demo.asm", ["op:CAST", "op:ALU_OP", "change:R1"]),
    ("accumulators.asm", ["op:SELECT_REDUCE", "op:DVE_READ_ACCUMULATOR"]),
    ("cast_rounding.asm", ["op:CAST", "watch:sb[0, 0]"]),
    ("loop.asm", ["pc:0x40", "change:R2"]),
]

def test_a_program_and_a_kernel_get_the_same_controller_on_a_core() -> None:
    program, kernel = Session(EXAMPLES / "loop.asm"), Session(KERNEL)
    assert type(program) is type(kernel) is Session
    assert isinstance(program.core, Core) and isinstance(kernel.core, Core)
    assert program.core.lone and not kernel.core.lone
    assert program.core.machines[program.engine] is program.dbg


def test_a_program_steps_through_its_core() -> None:
    s = Session(EXAMPLES / "loop.asm")
    s.step()
    s.step(3)
    assert s.core.steps == s.state.steps == 4
    s.reverse(2)
    assert s.core.steps == 2


def _hits(stop: Stop) -> tuple[str, int, tuple[int, ...]]:
    return (str(stop.reason), stop.pc, tuple(bp.id for bp in stop.breakpoints))


def _machine_stops(name: str) -> tuple[list[tuple[str, int, tuple[int, ...]]],
                                       list[tuple[str, int, tuple[int, ...]]]]:
    """The stops the program's own Machine run control reached (recorded in
    data/program_stops.json): `continue` from the start to the end, then
    `reverse-continue` back to the start (with where each left the machine)."""
    forward, back = json.loads(STOPS.read_text())[name]
    return ([(r, pc, tuple(ids), n) for r, pc, ids, n in forward],  # type: ignore[return-value]
            [(r, pc, tuple(ids), n) for r, pc, ids, n in back])


def _session_stops(path: Path, specs: list[str]) -> tuple[list[tuple[str, int, tuple[int, ...]]],
                                                           list[tuple[str, int, tuple[int, ...]]]]:
    s = Session(path, engine=ENGINE)
    for spec in specs:
        s.add_breakpoint(spec)
    forward, back = [], []
    for kind, out in (("continue", forward), ("reverse-continue", back)):
        while True:
            s.arm(kind)
            s.run()
            stop = s.last_stop
            assert stop is not None
            out.append((*_hits(stop), s.core.steps))
            if stop.reason != "breakpoint":
                break
    return forward, back  # type: ignore[return-value]


@pytest.mark.parametrize(("name", "specs"), CASES)
def test_the_session_stops_where_the_programs_machine_does(name: str, specs: list[str]) -> None:
    path = EXAMPLES / name
    expected = _machine_stops(name)
    forward, back = _session_stops(path, specs)
    assert len(expected[0]) > 1 and len(expected[1]) > 1  # it meets breakpoints both ways
    assert (forward, back) == expected
