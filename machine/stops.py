"""The closed sets a run reports: why a run command returned (`StopReason`) and what
an engine is doing (`EngineStatus`).

Both are `StrEnum`s: a member is equal to, formats as and serialises (JSON, TOML) as
its value, so `run --json` and session files read exactly the strings they always did.
"""

from __future__ import annotations

from enum import StrEnum


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
