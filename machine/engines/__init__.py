"""Engines: execute one decoded instruction on the state.

A program is one engine's queue (DESIGN.md "Machine"). SEQ control runs on
every engine (ref 001 §7.2); a data instruction runs only where machine.isa's
opcode table places it (ref 000 §2.2, §7). `handler_for` says which Python
function executes an opcode on an engine, or why none does (the fault text).
"""

from __future__ import annotations

from typing import Any

from machine.dtypes import Gen
from machine.engines import dve, pool, seq
from machine.engines.context import Context
from machine.engines.record import Fault, Lanes, StepRecord
from machine.engines.seq import Handler
from machine.isa.opcodes import OPCODES, QUEUE_ENGINES, Opcode

ENGINES: tuple[str, ...] = QUEUE_ENGINES
# Every modelled opcode's handler, keyed by Opcode (one entry per opcode in the
# engine module that implements it; an opcode is in one module only).
HANDLERS: dict[Opcode, Handler] = {**seq.HANDLERS, **pool.HANDLERS, **dve.HANDLERS}
assert len(HANDLERS) == len(seq.HANDLERS) + len(pool.HANDLERS) + len(dve.HANDLERS)

__all__ = ["ENGINES", "HANDLERS", "Context", "Fault", "Lanes", "StepRecord", "execute",
           "handler_for"]


def handler_for(opcode: int, engine: str, gen: Gen) -> tuple[Handler | None, str]:
    """(handler, "") or (None, why this opcode cannot execute on `engine` under `gen`)."""
    info = OPCODES.get(opcode)
    if info is None:
        return None, f"opcode {opcode:#04x} is not in the opcode table"
    if gen not in info.gens:
        return None, f"{info.name} ({opcode:#04x}) is not in the {gen.label} opcode table"
    if "seq" not in info.engines and engine not in info.engines:
        where = ", ".join(sorted(info.engines)) or "no modelled engine"
        return None, f"{info.name} does not run on the {engine} engine (it runs on: {where})"
    h = HANDLERS.get(opcode)
    if h is None:
        return None, f"{info.name} ({opcode:#04x}) is decoded but not modelled yet"
    return h, ""


def execute(ctx: Context, inst: Any, handler: Handler) -> int | None:
    """Run the header's event wait, the handler, then the header's event update.

    Returns the next PC when the instruction branches, else None. Raises Fault.
    """
    f = inst.fields
    st = ctx.state
    wait = f.get("events.wait_mode", 0)
    if wait:
        seq.wait_events(st, wait, f["events.wait_idx"], f["events.semaphore_value"], "events")
    nxt = handler(ctx, inst)
    update = f.get("events.update_mode", 0)
    if update:
        seq.update_events(st, update, f["events.update_idx"], f["events.semaphore_value"],
                          "events")
    return nxt
