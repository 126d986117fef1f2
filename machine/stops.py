"""What a run command returns: the `Stop`, why it returned (`StopReason`), and what
an engine is doing (`EngineStatus`).

The enums are `StrEnum`s: a member is equal to, formats as and serialises (JSON, TOML)
as its value, so `run --json` and session files read exactly the strings they always
did. One `Stop` serves a program (one queue) and a kernel (several actors): `engine`
names the actor it is about, None on a lone program.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from neurondbg.machine.breakpoints import Breakpoint
    from neurondbg.machine.core.core import Wait
    from neurondbg.machine.core.races import Race
    from neurondbg.machine.engines.record import StepRecord


class StopReason(StrEnum):
    """Why a run command (continue, step N, until, reverse, reverse-continue) returned."""

    HALT = "halt"
    BREAKPOINT = "breakpoint"
    FAULT = "fault"
    INVALID = "invalid"
    MAX_STEPS = "max-steps"
    INTERRUPT = "interrupt"  # the UI or Ctrl+C asked (checked at step boundaries)
    START = "start"  # a reverse command reached the start of history
    DEADLOCK = "deadlock"  # a kernel: no engine can run and some have not halted
    RACE = "race"  # a kernel: a `race` breakpoint met a race
    WAIT = "wait"  # a kernel: a `wait` breakpoint met an engine newly blocked


class EngineStatus(StrEnum):
    """What one engine (or other actor) of a kernel is doing (DESIGN.md "NeuronCore")."""

    RUNNING = "running"
    WAITING = "waiting"  # its next instruction's semaphore wait does not hold
    HALTED = "halted"
    FAULTED = "faulted"  # its last issue faulted; until the core moves
    IDLE = "idle"  # an actor with nothing queued (an empty DMA queue): not a deadlock


# What `run` reports for one queue: the others are interactive or a kernel's only.
RUN_REASONS = (StopReason.HALT, StopReason.BREAKPOINT, StopReason.FAULT, StopReason.INVALID,
               StopReason.MAX_STEPS)


@dataclass
class Stop:
    """Why a run command returned, where, and what it met on the way."""

    reason: StopReason
    pc: int | None
    detail: str  # one line
    steps: int = 0  # steps executed (or undone) by the command; a kernel's: global steps
    breakpoint: Breakpoint | None = None  # the first of `breakpoints`
    record: StepRecord | None = field(default=None, repr=False)  # the step stopped after
    breakpoints: list[Breakpoint] = field(default_factory=list)  # every one matched here
    engine: str | None = None  # the actor it is about; None: a lone program
    waiting: list[Wait] = field(default_factory=list)  # a deadlock: every blocked actor
    races: list[Race] = field(default_factory=list)  # races found during the command

    def __post_init__(self) -> None:
        if self.breakpoint is not None and not self.breakpoints:
            self.breakpoints = [self.breakpoint]
        elif self.breakpoint is None and self.breakpoints:
            self.breakpoint = self.breakpoints[0]

    def to_dict(self) -> dict[str, Any]:
        """The `run --json` `stop` object: reason, (engine,) pc, detail; a deadlock's
        `waiting`."""
        if self.engine is None:
            return {"reason": self.reason, "pc": self.pc, "detail": self.detail}
        d: dict[str, Any] = {"reason": self.reason, "engine": self.engine, "pc": self.pc,
                             "detail": self.detail}
        if self.reason == StopReason.DEADLOCK:
            d["waiting"] = [w.to_dict() for w in self.waiting]
        return d
