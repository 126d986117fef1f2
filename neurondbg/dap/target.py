"""What the adapter debugs: one Core, of a kernel or kernel session (one thread per
engine queue) or of a PROGRAM or program session (a core with one queue: one thread).

Every run command returns a `Halt`: the model's stop in the adapter's terms. The DAP
reason is decided here (gdb-like, decided where the specification is silent):
- a breakpoint on a source line or PC -> "breakpoint" / "instruction breakpoint";
  a watch -> "data breakpoint"; `pause` -> "pause"; a step -> "step";
- a fault, an instruction failing legality (its failing clauses in `text`), a race,
  a newly blocked semaphore wait (the `wait` filter)
  or a deadlock -> "exception", as a debugger reports a signal: the state stays
  there, so the user can look and step back;
- every engine halted -> `exited` (the adapter then ends the session as gdb does when
  the inferior exits). Reverse commands that reach step 0 stop with "entry".
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from neurondbg.machine.asm.loader import ProgramFile
from neurondbg.machine.breakpoints import Breakpoint
from neurondbg.machine.core.core import Core, race_text
from neurondbg.machine.core.kernel import ENGINE_ORDER
from neurondbg.machine.debugger import Machine
from neurondbg.machine.engines.record import StepRecord
from neurondbg.machine.state import MachineState
from neurondbg.machine.stops import Stop, StopReason

ADDRESS_SHIFT = 48  # an address is (engine's place in ENGINE_ORDER << 48) | PC (PCs < 2**48)


def address(engine: str, pc: int) -> int:
    """The one number an editor sees for `engine`'s instruction at `pc` (disassembly,
    instruction breakpoints): queues share PCs, so the engine is in the high bits."""
    return (ENGINE_ORDER.index(engine) << ADDRESS_SHIFT) | pc


def split_address(value: int) -> tuple[str, int]:
    """(engine, PC) of an `address`; ValueError when it names no engine."""
    k = value >> ADDRESS_SHIFT
    if not 0 <= k < len(ENGINE_ORDER):
        raise ValueError(f"address {value:#x}: expected an engine number 0..{len(ENGINE_ORDER) - 1}"
                         f" in bits {ADDRESS_SHIFT} and up")
    return ENGINE_ORDER[k], value & ((1 << ADDRESS_SHIFT) - 1)


@dataclass
class Halt:
    """Why a command returned, in DAP terms (module docstring)."""

    reason: str  # a StoppedEvent reason, or "exited"
    engine: str
    description: str
    text: str = ""
    breakpoints: list[Breakpoint] = field(default_factory=list)


def _reason(stop_reason: str, bps: list[Breakpoint]) -> str:
    if stop_reason in ("fault", "invalid", "race", "deadlock", "wait"):
        return "exception"
    if stop_reason == "interrupt":
        return "pause"
    if stop_reason == "start":
        return "entry"
    if stop_reason == "halt":
        return "exited"
    if stop_reason in ("breakpoint", "wait") and bps:
        kind = bps[0].kind
        return "data breakpoint" if kind in ("watch", "change") else "breakpoint"
    return "step"


def _clauses(record: StepRecord | None) -> str:
    """The failing clauses of an `invalid` stop, one per line (as `validate` prints them)."""
    if record is None or record.verdict is None:
        return ""
    from neurondbg.commands.validate import failing_clause_lines

    return "\n".join(failing_clause_lines(record.verdict))


class Target:
    """What the adapter drives: a Core. A kernel's (or kernel session's) has one thread per
    engine queue, in ENGINE_ORDER; a PROGRAM's (or program session's, `Core.of_program`)
    one thread, its engine, and the core speaks as the program (no engine in its words)."""

    def __init__(self, core: Core, path: Path) -> None:
        self.core = core
        self.path = path
        self.engines = core.engines

    @property
    def is_kernel(self) -> bool:
        """Several queues' names in the editor (`dve.R3`); a program's have none."""
        return not self.core.lone

    @property
    def interrupt(self) -> threading.Event:
        return self.core.interrupt

    def machine(self, engine: str) -> Machine:
        return self.core.machines[engine]

    def program(self, engine: str) -> ProgramFile:
        return self.core.kernel.queue(engine).program

    def state(self, engine: str) -> MachineState:
        return self.core.machines[engine].state

    def status(self, engine: str) -> str:
        return self.core.status(engine)

    def add_breakpoint(self, spec: str) -> Breakpoint:
        return self.core.add_breakpoint(spec)

    def delete_breakpoint(self, bp_id: int) -> None:
        self.core.delete_breakpoint(bp_id)

    def _halt(self, stop: Stop, stepping: bool = False) -> Halt:
        engine = stop.engine or self.core.focus
        if stepping and stop.reason == StopReason.MAX_STEPS:
            return Halt("step", engine, "step")
        text = stop.detail
        if stop.reason == StopReason.INVALID:
            text = _clauses(stop.record) or text
        elif stop.races:
            text = "\n".join(race_text(r) for r in stop.races)
        return Halt(_reason(stop.reason, stop.breakpoints), engine, stop.detail, text,
                    list(stop.breakpoints))

    def cont(self) -> Halt:
        return self._halt(self.core.cont())

    def step(self, engine: str) -> Halt:
        """One instruction of `engine` (the TUI's `step` on the focused engine; the
        others wait, as gdb's scheduler-locking `step` does). A program's step is a run
        of one step: a watch or `if:` it meets stops it as a breakpoint."""
        if self.core.lone:
            return self._halt(self.core.cont(max_steps=1), stepping=True)
        self.core.focus = engine
        cs = self.core.step(engine)
        rec = cs.record
        if cs.races:
            return Halt("exception", engine, "race",
                        "\n".join(race_text(r) for r in cs.races))
        if rec is None:
            why = cs.waited.describe() if cs.waited is not None else f"{engine} cannot run"
            return Halt("step", engine, why, why)
        if rec.fault:
            return Halt("exception", engine, f"{engine}: {rec.fault}", rec.fault)
        if rec.invalid:
            v = rec.verdict
            detail = (f"{engine}: {rec.mnemonic} at {rec.pc:#x} fails "
                      f"{v.predicate if v is not None else 'legality'}")
            return Halt("exception", engine, detail, _clauses(rec) or detail)
        if all(self.core.status(e) == "halted" for e in self.engines):
            return Halt("exited", engine, "every engine halted")
        return Halt("step", engine, "step")

    def reverse_step(self) -> Halt:
        if self.core.reverse_step():
            return Halt("step", self.core.focus, "stepped back")
        return Halt("entry", self.core.focus, "at the start of history")

    def reverse_continue(self) -> Halt:
        return self._halt(self.core.reverse_continue())

    # -- edits (the console's `set`, journaled: reverse undoes them) ---------------------
    def set_value(self, engine: str, target: str, value: str) -> str:
        """`set TARGET = VALUE` on `engine`'s state; what was stored ("R5 = 1 (0x1)").
        ValueError (one line) when it cannot be stored."""
        # The core reads an unprefixed register as the focused engine's: focus the thread
        # the editor names for the edit, as the console does with `ENGINE.R3`.
        focus = self.core.focus
        self.core.focus = engine
        try:
            return self.core.edit(target, value)
        finally:
            self.core.focus = focus

    def write_record(self, engine: str, index: int, raw: bytes) -> str:
        """Replace record `index` of `engine`'s queue by the 64 bytes `raw`, journaled."""
        return self.core.edit_record(index, raw, engine)

    def edit_count(self) -> int:
        """How many edits the journal holds (a group of them is undone as one)."""
        return len(self.core.edits)

    def undo_events(self, n: int) -> int:
        """Undo the last `n` events (steps and edits); how many were undone."""
        undone = 0
        while undone < n and self.core.reverse_step():
            undone += 1
        return undone

    def race_count(self) -> int:
        """Races the detector has found so far (a kernel's; a program has none)."""
        return len(self.core.races)
