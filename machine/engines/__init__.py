"""Engines: execute one decoded instruction on the state.

A program is one engine's queue (DESIGN.md "Machine"). SEQ control runs on
every engine (ref 001 §7.2); a data instruction runs only where machine.isa's
opcode table places it (ref 000 §2.2, §7). `handler_for` says which Python
function executes an opcode on an engine, or why none does (the fault text).

The engine modules (seq, pool, dve and what they import: the ALU, the conversion
kernels) load with the first use of `HANDLERS` or `handler_for`, not with the package:
`machine.engines.record` (a step's data, read by the expressions, the edits and the
UI) and `ENGINES` (the queue names, read by the session schema) need none of them,
so a command that only reads those does not pay for the engines at start-up. The other
names the package exports load on first access too.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.opcodes import OPCODES, QUEUE_ENGINES, Opcode

if TYPE_CHECKING:
    from collections.abc import Callable

    from neurondbg.machine.engines.context import Context, Fields
    from neurondbg.machine.engines.record import Fault, Lanes, StepRecord
    from neurondbg.machine.engines.seq import Handler
    from neurondbg.machine.isa.codec import Instruction
    from neurondbg.machine.state import MachineState

ENGINES: tuple[str, ...] = QUEUE_ENGINES

__all__ = ["ENGINES", "HANDLERS", "Context", "Fault", "Lanes", "StepRecord", "execute",
           "handler_for"]

# The exported names that live in a submodule: imported on first access (__getattr__).
_FROM: dict[str, str] = {"Context": "context", "Fault": "record", "Lanes": "record",
                         "StepRecord": "record", "Handler": "seq"}
_handlers: dict[Opcode, Handler] | None = None


def _all_handlers() -> dict[Opcode, Handler]:
    """Every modelled opcode's handler, keyed by Opcode (one entry per opcode in the
    engine module that implements it; an opcode is in one module only)."""
    global _handlers
    if _handlers is None:
        from neurondbg.machine.engines import dve, neff, pool, seq

        mods = (seq.HANDLERS, pool.HANDLERS, dve.HANDLERS, neff.HANDLERS)
        table = {k: v for m in mods for k, v in m.items()}
        assert len(table) == sum(map(len, mods))
        _handlers = table
    return _handlers


def __getattr__(name: str) -> Any:
    if name == "HANDLERS":
        return _all_handlers()
    if name in _FROM:
        value = getattr(importlib.import_module(f"neurondbg.machine.engines.{_FROM[name]}"), name)
        globals()[name] = value  # the next access is a plain module attribute
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def handler_for(opcode: int, engine: str, gen: Gen) -> tuple[Handler | None, str]:
    """(handler, "") or (None, why this opcode cannot execute on `engine` under `gen`).
    A PSEUDO_* opcode that has a handler (machine.engines.neff) runs on any engine: a
    NEFF places it on engines no dispatch table lists (neff-facts §0.3)."""
    info = OPCODES.get(opcode)
    if info is None:
        return None, f"opcode {opcode:#04x} is not in the opcode table"
    if gen not in info.gens:
        return None, f"{info.name} ({opcode:#04x}) is not in the {gen.label} opcode table"
    if "seq" not in info.engines and engine not in info.engines and not info.pseudo:
        where = ", ".join(sorted(info.engines)) or "no modelled engine"
        return None, f"{info.name} does not run on the {engine} engine (it runs on: {where})"
    # every key of OPCODES is an Opcode member: `info` was found, so this cannot raise
    h = (_handlers if _handlers is not None else _all_handlers()).get(Opcode(opcode))
    if info.pseudo and "seq" not in info.engines and engine not in info.engines and h is None:
        where = ", ".join(sorted(info.engines)) or "no modelled engine"
        return None, f"{info.name} does not run on the {engine} engine (it runs on: {where})"
    if h is None and info.struct == "RAW":  # no layout: its operands are raw bytes
        return None, f"{info.name} ({opcode:#04x}) is not modelled: no reference gives its layout"
    if h is None:
        return None, f"{info.name} ({opcode:#04x}) is decoded but not modelled yet"
    return h, ""


def direct_for(opcode: int, state: MachineState, inst: Instruction, engine: str
               ) -> Callable[[MachineState], None] | None:
    """A headless step's direct write for `inst` (machine.engines.pool.DIRECT: a closure
    that makes the handler's memory write, and its Write while `state.writes` is a list,
    never raising), or None: the step runs the handler."""
    from neurondbg.machine.engines.pool import DIRECT

    build = DIRECT.get(opcode)
    return None if build is None else build(state, inst, engine)


def writes_last(opcode: int) -> bool:
    """Whether `opcode`'s handler changes the state once, as its last act
    (machine.engines.pool.WRITES_LAST)."""
    from neurondbg.machine.engines.pool import WRITES_LAST

    return opcode in WRITES_LAST


def execute(ctx: Context, inst: Instruction, handler: Handler) -> int | None:
    """Run the header's event wait, the handler, then the header's event update.

    Returns the next PC when the instruction branches, else None. Raises Fault.
    """
    f: Fields = inst.fields
    st = ctx.state
    wait = f.get("events.wait_mode", 0)
    if wait:
        from neurondbg.machine.engines.seq import (
            wait_events,  # loaded with its handler (handler_for)
        )

        wait_events(st, wait, f["events.wait_idx"], f["events.semaphore_value"], "events")
    nxt = handler(ctx, inst)
    update = f.get("events.update_mode", 0)
    if update:
        from neurondbg.machine.engines.seq import update_events

        update_events(st, update, f["events.update_idx"], f["events.semaphore_value"],
                      "events")
    return nxt
