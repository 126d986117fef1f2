"""seq.wait_holds: a wait checked without side effects (the NeuronCore, before issue)."""

from __future__ import annotations

import pytest

from neurondbg.machine.engines.seq import wait_holds
from neurondbg.machine.isa.enums import WaitMode as W
from neurondbg.machine.state import MachineConfig, MachineState


@pytest.fixture
def st() -> MachineState:
    s = MachineState.create(MachineConfig(sbuf_bytes=64, psum_bytes=64))
    s.sem[3] = 2
    s.R[5] = 2
    return s


@pytest.mark.parametrize(("mode", "value", "want"), [
    (W.SEM_GE_IMM, 2, True), (W.SEM_GE_IMM, 3, False), (W.SEM_EQ_IMM, 2, True),
    (W.SEM_LT_IMM, 2, False), (W.SEM_LE_IMM, 2, True), (W.SEM_GT_IMM, 1, True),
    (W.EVT_SET, 0, True), (W.EVT_CLEAR, 0, False), (W.SEM_GE_REG, 5, True),
    (W.SEM_GT_REG, 5, False), (W.NONE, 0, True), (W.UNORDERED, 0, True),
])
def test_conditions(st: MachineState, mode: int, value: int, want: bool) -> None:
    assert wait_holds(st, mode, 3, value) is want


def test_no_side_effects_and_refused_modes_issue(st: MachineState) -> None:
    assert wait_holds(st, W.EVT_SET_THEN_CLEAR, 3, 0) and st.sem[3] == 2  # not cleared
    assert len(st.journal) == 0
    # modes and registers the execution refuses "hold": the instruction issues and faults
    assert wait_holds(st, W.INVALID, 3, 0) and wait_holds(st, 0x42, 3, 0)
    assert wait_holds(st, W.SEM_GE_REG, 3, 200)
