"""The fix a race suggests, following the kernel's intent rather than the schedule's order.

Two unordered accesses can be ordered either way, and the order the schedule happened to
take says nothing about which one the author meant to go first: a consumer whose wait is
missing may well have run before the producer. The intent is in the code: a producer
that signals a semaphore after its access (the `_COMPLETE` update of the racing
instruction itself, a `_READ` one when its access is a read, or an update of a later
instruction of its queue) and that no instruction of any queue waits on has told us what
the consumer should have waited for. So when exactly one way round fits that pattern the
suggestion is that the other engine waits on that semaphore before its access, for the
value the producer's update reaches (`sem[0] >= 1`); applied, it orders the producer's
access first and the consumer sees the producer's data. Otherwise the caller keeps the
detector's words (races.py `_missing`). A DMA entry's access is never the producer (its
queue runs no code); as the consumer, its wait goes on the engine whose trigger enqueued
the entry, before that trigger, unless that engine is the producer's (races.py `Queued`).

The value is known when every update of that semaphore before and at the signal is an
increment (SEM_INC, SEM_ADD_IMM) by the producer's queue alone, counted in program order
from the semaphore's initial value, and the producer has no branch before the signal
(straight-line code: each record runs once); else the suggestion names the semaphore
without a value and gives no `WaitFix`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from neurondbg.machine.core.events import Plan, SemEvent, plan_of, update_targets
from neurondbg.machine.core.races import Side, WaitFix
from neurondbg.machine.debugger import Machine
from neurondbg.machine.isa.enums import UpdateMode as U
from neurondbg.machine.isa.enums import WaitMode as W
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.state import RECORD_BYTES

LOOK_AHEAD = 64  # records after the access searched for the producer's signal
COUNT_LIMIT = 4096  # records before a signal its value is counted over (else no value)
_BRANCHES = frozenset({Opcode.COMPARE_BRANCH})
_STEP = {U.SEM_INC_READ: None, U.SEM_INC_COMPLETE: None, U.SEM_ADD_IMM_READ: "imm",
         U.SEM_ADD_IMM_COMPLETE: "imm"}


def _wait_fields(prefix: str) -> tuple[int, int]:
    f = STRUCTS["CTRL_ES"]
    return f.field(prefix + "wait_mode").offset, f.field(prefix + "wait_idx").offset


_HEAD_WAIT = _wait_fields("events.")
_EXT_WAIT = _wait_fields("events_extended.")


@dataclass(frozen=True)
class Signal:
    """The producer's update after its access: at `pc` (record `row`), `event`."""

    row: int
    pc: int
    event: SemEvent


class Intent:
    """Suggests a race's fix from the queues' code (see the module docstring)."""

    def __init__(self, machines: Mapping[str, Machine], initial: Sequence[int],
                 others: bool = False) -> None:
        """`machines`: the engine queues; `others`: the core has other actors too (DMA
        queues, whose semaphore updates are not in any code: no value is counted)."""
        self._machines = machines
        self._others = others
        self._initial = initial
        self._plans: dict[tuple[str, int], Plan] = {}
        self._waited: frozenset[int] | None = None

    def suggest(self, a: Side, b: Side) -> tuple[str, WaitFix | None] | None:
        """(words, fix) for accesses a and b (in either order), or None when the code
        shows no intent one way round. A DMA entry's access (`Side.queued`) is never the
        producer (its queue runs no code); as the consumer, its wait goes before the
        trigger that enqueued it, on the trigger's engine, unless that is the producer's
        own engine (the trigger came before the producer's access: waiting there for
        the signal after it would wait forever)."""
        fits = []
        for p, c in ((a, b), (b, a)):
            if p.queued is not None or (c.queued is not None and c.queued.engine == p.engine):
                continue
            sig = self._signal(p.engine, p.pc, p.kind)
            if sig is not None and sig.event.idx not in self._waited_sems():
                fits.append((p, c, sig))
        if len(fits) != 1:
            return None
        (pe, ppc, _, _), c, sig = fits[0]
        ce, cpc = (c.queued.engine, c.queued.pc) if c.queued is not None else (c.engine, c.pc)
        before = f"its trigger of {c.queued.label} at {cpc:#x}" if c.queued is not None \
            else f"{cpc:#x}"
        mode = sig.event.mode.name if sig.event.mode is not None else "its update"
        value = self._value(pe, sig)
        what = f"sem[{sig.event.idx}] >= {value}" if value is not None \
            else f"sem[{sig.event.idx}] (reaching the value {pe.upper()}'s update gives)"
        how = f"{pe.upper()}'s instruction at {ppc:#x} signals sem[{sig.event.idx}] with " \
              f"{mode}" if sig.pc == ppc else f"{pe.upper()} signals sem[{sig.event.idx}] " \
              f"with {mode} at {sig.pc:#x}, after {ppc:#x},"
        text = f"{ce.upper()} should wait for {what} before {before} ({how} and nothing " \
               "waits on it)"
        fix = WaitFix(ce, cpc, sig.event.idx, value) if value is not None else None
        return text, fix

    # -- the code ------------------------------------------------------------------------
    def _plan(self, engine: str, row: int) -> Plan:
        key = (engine, row)
        p = self._plans.get(key)
        if p is None:
            p = self._plans[key] = plan_of(self._machines[engine].instruction(row))
        return p

    def _signal(self, engine: str, pc: int, kind: str) -> Signal | None:
        """The first update at or after the access that orders it for a waiter."""
        m = self._machines.get(engine)
        row = None if m is None else m.index_of(pc)
        if m is None or row is None:
            return None
        for r in range(row, min(row + LOOK_AHEAD, m.count)):
            for ev in self._plan(engine, r).events:
                if ev.kind != "update":
                    continue
                # a _READ update of the access's own instruction fires before its writes
                if r == row and kind == "write" and ev.when == "read":
                    return None
                return Signal(r, m.config.base + r * RECORD_BYTES, ev)
            if r > row and m.instruction(r).opcode in _BRANCHES:
                return None  # a branch: which update comes next is not straight-line
        return None

    def _waited_sems(self) -> frozenset[int]:
        """Every semaphore a wait of some queue names (read from the raw records)."""
        if self._waited is None:
            out: set[int] = set()
            for m in self._machines.values():
                raw = m.program.raw
                if not len(raw):
                    continue
                for rows, (mode, idx) in ((raw, _HEAD_WAIT), (
                        raw[raw[:, 0] == Opcode.EVENT_SEMAPHORE], _EXT_WAIT)):
                    live = ~np.isin(rows[:, mode], [W.NONE, W.UNORDERED])
                    out.update(rows[live, idx].tolist())
            self._waited = frozenset(out)
        return self._waited

    def _value(self, engine: str, sig: Signal) -> int | None:
        """The semaphore's value after the signal, counted from the code (or None)."""
        sem = sig.event.idx
        if sig.row >= COUNT_LIMIT or self._others or any(
                sem in update_targets(m.program.raw)
                for e, m in self._machines.items() if e != engine):
            return None  # too far to count, or another queue updates it too
        m = self._machines[engine]
        value = self._initial[sem]
        for r in range(sig.row + 1):
            if m.instruction(r).opcode in _BRANCHES:
                return None
            for ev in self._plan(engine, r).events:
                if ev.idx != sem:
                    continue
                if ev.kind != "update" or ev.mode not in _STEP:
                    return None
                value += self._step(engine, r, ev)
        return value

    def _step(self, engine: str, row: int, ev: SemEvent) -> int:
        if _STEP[ev.mode] is None:  # type: ignore[index]
            return 1
        f = self._machines[engine].instruction(row).fields
        if self._machines[engine].instruction(row).opcode == Opcode.EVENT_SEMAPHORE and \
                ev.idx == f.get("events_extended.update_idx") and \
                ev.mode == f.get("events_extended.update_mode"):
            return int(f["events_extended.sem_update_value"])
        return int(f.get("events.semaphore_value", 0))
