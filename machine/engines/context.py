"""What a handler sees while executing one instruction."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from neurondbg.machine.engines.record import Lanes
from neurondbg.machine.state import RECORD_BYTES, MachineState

# A decoded record's fields (machine.isa.codec.Instruction.fields) as a handler reads
# them: by name, each an int, or a tuple of ints for an array field. The struct the
# handler executes says which, so the values stay Any rather than narrowed at each read.
Fields = Mapping[str, Any]


@dataclass
class Context:
    state: MachineState
    engine: str  # the queue the program runs on: pool, dve, act, pe, sp
    pc: int = 0  # address of the executing instruction
    lanes: Lanes | None = None  # set by conversion handlers

    @property
    def next_pc(self) -> int:
        return self.pc + RECORD_BYTES
