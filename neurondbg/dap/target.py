"""One interface over what the adapter debugs: a Machine (a PROGRAM or a PROGRAM session:
one thread) or a Core (a kernel or a kernel session: one thread per engine queue).

Every run command returns a `Halt`: the model's stop in the adapter's terms. The DAP
reason is decided here (gdb-like, decided where the issue is silent):
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
from typing import Any

from machine.asm.loader import ProgramFile
from machine.breakpoints import Breakpoint
from machine.core.core import Core, race_text
from machine.core.kernel import ENGINE_ORDER
from machine.debugger import Machine
from machine.state import MachineState

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


def _clauses(record: Any) -> str:
    """The failing clauses of an `invalid` stop, one per line (as `validate` prints them)."""
    if record is None or record.verdict is None:
        return ""
    from neurondbg.commands.validate import failing_clause_lines

    return "\n".join(failing_clause_lines(record.verdict))


class Target:
    """What the adapter drives; see MachineTarget and CoreTarget."""

    engines: tuple[str, ...]
    path: Path

    @property
    def interrupt(self) -> threading.Event:
        raise NotImplementedError

    def machine(self, engine: str) -> Machine:
        raise NotImplementedError

    def program(self, engine: str) -> ProgramFile | None:
        raise NotImplementedError

    def state(self, engine: str) -> MachineState:
        return self.machine(engine).state

    def status(self, engine: str) -> str:
        raise NotImplementedError

    def add_breakpoint(self, spec: str) -> Breakpoint:
        raise NotImplementedError

    def delete_breakpoint(self, bp_id: int) -> None:
        raise NotImplementedError

    def cont(self) -> Halt:
        raise NotImplementedError

    def step(self, engine: str) -> Halt:
        raise NotImplementedError

    def reverse_step(self) -> Halt:
        raise NotImplementedError

    def reverse_continue(self) -> Halt:
        raise NotImplementedError

    @property
    def is_kernel(self) -> bool:
        return False

    # -- edits (the console's `set`, journaled: reverse undoes them) ---------------------
    def set_value(self, engine: str, target: str, value: str) -> str:
        """`set TARGET = VALUE` on `engine`'s machine; what was stored ("R5 = 1 (0x1)").
        ValueError (one line) when it cannot be stored."""
        raise NotImplementedError

    def write_record(self, engine: str, index: int, raw: bytes) -> str:
        """Replace record `index` of `engine`'s queue by the 64 bytes `raw`, journaled."""
        raise NotImplementedError

    def edit_count(self) -> int:
        """How many edits the journal holds (a group of them is undone as one)."""
        return 0

    def undo_events(self, n: int) -> int:
        """Undo the last `n` events (steps and edits); how many were undone."""
        raise NotImplementedError

    def race_count(self) -> int:
        """Races the detector has found so far (a kernel's; a program has none)."""
        return 0


class MachineTarget(Target):
    """A one-queue Machine (thread 1 is its engine)."""

    def __init__(self, machine: Machine, path: Path, source: ProgramFile | None) -> None:
        self.m = machine
        self.path = path
        self.source = source
        self.engines = (machine.config.engine,)

    @property
    def interrupt(self) -> threading.Event:
        return self.m.interrupt

    def machine(self, engine: str) -> Machine:
        return self.m

    def program(self, engine: str) -> ProgramFile | None:
        return self.source

    def status(self, engine: str) -> str:
        return "halted" if self.m.state.halted else "running"

    def add_breakpoint(self, spec: str) -> Breakpoint:
        return self.m.add_breakpoint(spec)

    def delete_breakpoint(self, bp_id: int) -> None:
        self.m.delete_breakpoint(bp_id)

    def _halt(self, stop: Any, stepping: bool = False) -> Halt:
        if stepping and stop.reason == "max-steps":
            return Halt("step", self.engines[0], "step")
        text = _clauses(stop.record) if stop.reason == "invalid" else ""
        return Halt(_reason(stop.reason, stop.breakpoints), self.engines[0], stop.detail,
                    text or stop.detail, list(stop.breakpoints))

    def cont(self) -> Halt:
        return self._halt(self.m.cont())

    def step(self, engine: str) -> Halt:
        return self._halt(self.m.step_n(1), stepping=True)

    def reverse_step(self) -> Halt:
        if self.m.reverse_step():
            return Halt("step", self.engines[0], "stepped back")
        return Halt("entry", self.engines[0], "at the start of history")

    def reverse_continue(self) -> Halt:
        return self._halt(self.m.reverse_continue())

    def set_value(self, engine: str, target: str, value: str) -> str:
        return self.m.edit(target, value)

    def write_record(self, engine: str, index: int, raw: bytes) -> str:
        return self.m.edit_record(index, raw)

    def edit_count(self) -> int:
        return len(self.m.edits)

    def undo_events(self, n: int) -> int:
        return self.m.reverse(n).steps


class CoreTarget(Target):
    """A NeuronCore: one thread per engine, in the kernel's ENGINE_ORDER."""

    def __init__(self, core: Core, path: Path) -> None:
        self.core = core
        self.path = path
        self.engines = core.engines

    @property
    def is_kernel(self) -> bool:
        return True

    @property
    def interrupt(self) -> threading.Event:
        return self.core.interrupt

    def machine(self, engine: str) -> Machine:
        return self.core.machines[engine]

    def program(self, engine: str) -> ProgramFile | None:
        return self.core.kernel.queue(engine).program

    def status(self, engine: str) -> str:
        return self.core.status(engine)

    def add_breakpoint(self, spec: str) -> Breakpoint:
        return self.core.add_breakpoint(spec)

    def delete_breakpoint(self, bp_id: int) -> None:
        self.core.delete_breakpoint(bp_id)

    def _halt(self, stop: Any) -> Halt:
        engine = stop.engine or self.core.focus
        text = stop.detail
        if stop.reason == "invalid":
            text = _clauses(stop.record) or text
        elif stop.races:
            text = "\n".join(race_text(r) for r in stop.races)
        return Halt(_reason(stop.reason, stop.breakpoints), engine, stop.detail, text,
                    list(stop.breakpoints))

    def cont(self) -> Halt:
        return self._halt(self.core.cont())

    def step(self, engine: str) -> Halt:
        """One instruction of `engine` (the TUI's `step` on the focused engine; the
        others wait, as gdb's scheduler-locking `step` does)."""
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

    # the console refuses edits on a kernel for the same reason (views.core_session)
    _NO_RECORD_EDITS = "not available on a kernel: records are edited on one program"

    def set_value(self, engine: str, target: str, value: str) -> str:
        # The core reads an unprefixed register as the focused engine's: focus the thread
        # the editor names for the edit, as the console does with `ENGINE.R3`.
        focus = self.core.focus
        self.core.focus = engine
        try:
            return self.core.edit(target, value)
        finally:
            self.core.focus = focus

    def write_record(self, engine: str, index: int, raw: bytes) -> str:
        raise ValueError(self._NO_RECORD_EDITS)

    def edit_count(self) -> int:
        return len(self.core.edits)

    def undo_events(self, n: int) -> int:
        undone = 0
        while undone < n and self.core.reverse_step():
            undone += 1
        return undone

    def race_count(self) -> int:
        return len(self.core.races)
