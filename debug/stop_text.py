"""One line for what a step or a stop did: the Console and the title bar print them."""

from __future__ import annotations

from neurondbg.machine.engines.record import StepRecord
from neurondbg.machine.stops import Stop


def at_pc(pc: int | None) -> str:
    """` at pc 0x40`, or why the PC is not known (history past the journal budget is
    folded into checkpoints, which keep state, not each step's PC)."""
    return " (its pc is in folded history)" if pc is None else f" at pc {pc:#x}"


def describe_record(rec: StepRecord) -> str:
    """One step's outcome as one line: the instruction and its PC (the Registers pane
    marks what it wrote)."""
    where = f"{rec.mnemonic or 'record'} at pc {rec.pc:#x}"
    if rec.fault:
        return f"fault: {rec.fault}" if rec.mnemonic is None or rec.mnemonic in rec.fault \
            else f"fault in {where}: {rec.fault}"
    if rec.invalid:
        failed = ", ".join(rec.verdict.failed) if rec.verdict is not None else "legality"
        return f"invalid: {where} refused (fails {failed}); the machine stays before it"
    if rec.halted:
        return "halt" if rec.executed else "the machine is halted"
    flags = ""
    if rec.lanes is not None:
        counts = {k: v for k, v in rec.lanes.counts().items() if v}
        flags = "  lanes: " + (", ".join(f"{k} {v}" for k, v in counts.items()) or "exact")
    return f"stepped {where}{flags}"


def describe_stop(stop: Stop | None) -> str:
    """A stop as one line: why, which breakpoints (all that matched), the instruction
    that caused it (opcode, PC; for watches old -> new, in the machine's detail),
    and where the machine now is."""
    if stop is None:
        return ""
    text: str = stop.reason
    if stop.detail:
        text += f": {stop.detail}"
    rec = stop.record
    if stop.reason == "fault" and rec is not None and rec.mnemonic and \
            rec.mnemonic not in stop.detail:
        text = f"fault in {rec.mnemonic} at pc {rec.pc:#x}: {stop.detail}"
    return f"{text} (pc {stop.pc:#x})"
