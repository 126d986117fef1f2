"""What a handler sees while executing one instruction."""

from __future__ import annotations

from dataclasses import dataclass

from neurondbg.machine.engines.record import Lanes
from neurondbg.machine.state import RECORD_BYTES, MachineState


@dataclass
class Context:
    state: MachineState
    engine: str  # the queue the program runs on: pool, dve, act, pe, sp
    pc: int = 0  # address of the executing instruction
    lanes: Lanes | None = None  # set by conversion handlers

    @property
    def next_pc(self) -> int:
        return self.pc + RECORD_BYTES
