"""The engines an opcode runs on, and the queues a program runs on (isa-facts §7).

Declared apart from the opcode table (machine.isa.opcodes re-exports them): a command
that only names a queue (`--engine`, `validate --summary`) imports these tuples without
building the table and its `Opcode` enum.
"""

from __future__ import annotations

ENGINES: tuple[str, ...] = ("pool", "dve", "act", "pe", "sp", "seq")
# The engines a program can run on ("seq" marks control opcodes that run on all of them).
QUEUE_ENGINES: tuple[str, ...] = tuple(e for e in ENGINES if e != "seq")
# The queue a program runs on unless told otherwise (MachineConfig.engine, `run --engine`
# and `validate --engine` defaults): declared here, where the queues are, so that a command
# names it without importing the machine model.
DEFAULT_ENGINE = "pool"
