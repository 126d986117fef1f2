"""What one run's race verdict covers: the schedule that ran, or every schedule.

The race detector (machine/core/races.py) judges the interleaving that ran. A satisfied
wait joins the release that began the run of values for which its condition holds, so
the happens-before edges are those of the order in which the semaphore steps happened.
That order is the same under every schedule when the kernel is *monotone*:

- every wait (the header's and EVENT_SEMAPHORE's own) is `>=` or `>` (SEM_GE/GT, _IMM
  or _REG), so once it holds it holds for good;
- every semaphore some wait names is updated only by SEM_INC / SEM_ADD (_READ or
  _COMPLETE, _IMM or _REG), and by one queue alone, so its values go up in that
  queue's program order and the release a wait joins is the first that reached it,
  whatever the other queues did meanwhile;
- no TEST_EVENT_SEM (a READ_* orders like a wait on the value it happened to read; an
  UPDATE_* stores) and no actor other than an engine queue (a DMA queue's completions
  follow its triggers' schedule).

Real compiler output is like this. For such a kernel the verdict is the same under
every schedule (tests/core/test_core_props.py), within the detector's documented
bounds (SEM_HISTORY releases per semaphore, MAX_LIVE accesses, KEEP_RACES reports:
beyond them it may miss a race, never invent one). Any other kernel's verdict may
depend on the schedule: `run --races explore[:N]` (machine/core/explore.py) checks
more than one. The check reads the raw records at once (a queue may hold a million).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neurondbg.machine.core.actor import EngineQueue
from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine
from neurondbg.machine.isa import RECORD_BYTES
from neurondbg.machine.isa.enums import UpdateMode as U
from neurondbg.machine.isa.enums import WaitMode as W
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.isa.structs import STRUCTS

MONOTONE_WAITS = frozenset({W.NONE, W.UNORDERED, W.SEM_GE_IMM, W.SEM_GT_IMM, W.SEM_GE_REG,
                            W.SEM_GT_REG})
MONOTONE_UPDATES = frozenset({U.SEM_INC_READ, U.SEM_INC_COMPLETE, U.SEM_ADD_IMM_READ,
                              U.SEM_ADD_IMM_COMPLETE, U.SEM_ADD_REG_READ,
                              U.SEM_ADD_REG_COMPLETE})


def _pc(m: Machine, row: int) -> int:
    return m.config.base + row * RECORD_BYTES


def _off(name: str) -> int:
    return STRUCTS["CTRL_ES"].field(name).offset


# (wait mode, wait idx, update mode, update idx) byte offsets: the header, then
# EVENT_SEMAPHORE's own events (EVENTS_EXTENDED at 0x20, isa-facts §1.2)
_HEAD = tuple(_off("events." + f) for f in ("wait_mode", "wait_idx", "update_mode",
                                             "update_idx"))
_EXT = tuple(_off("events_extended." + f) for f in ("wait_mode", "wait_idx", "update_mode",
                                                      "update_idx"))


@dataclass(frozen=True)
class Scope:
    """Whether a run's race verdict holds for every schedule, and why (or why not)."""

    every_schedule: bool
    reason: str  # one clause: what makes it so, or the first thing that breaks it

    def to_dict(self) -> dict[str, object]:
        return {"every_schedule": self.every_schedule, "reason": self.reason}


_Block = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _events(raw: np.ndarray) -> list[_Block]:
    """(row numbers, wait modes, wait idx, update modes, update idx) of each events block
    the records carry: the header of every record, the extended one of EVENT_SEMAPHORE."""
    rows = np.arange(len(raw))
    def block(r: np.ndarray, sub: np.ndarray, at: tuple[int, ...]) -> _Block:
        return r, sub[:, at[0]], sub[:, at[1]], sub[:, at[2]], sub[:, at[3]]

    out = [block(rows, raw, _HEAD)]
    es = raw[:, 0] == Opcode.EVENT_SEMAPHORE
    if es.any():
        out.append(block(rows[es], raw[es], _EXT))
    return out


def scope_of(core: Core) -> Scope:
    """The scope of `core`'s race verdict (see the module docstring)."""
    if core.detector is None:
        return Scope(False, "race checking is off")
    waited: dict[int, str] = {}  # semaphore -> where a wait names it
    updaters: dict[int, set[str]] = {}
    bad_update: dict[int, str] = {}
    for actor in core.actors:
        if not isinstance(actor, EngineQueue):
            return Scope(False, f"{actor.name} is a {actor.kind} queue, whose completions "
                                "follow the schedule")
        name = actor.name
        m = actor.machine
        raw = m.program.raw
        if not len(raw):
            continue
        tes = np.flatnonzero(raw[:, 0] == Opcode.TEST_EVENT_SEM)
        if len(tes):
            return Scope(False, f"{name} has TEST_EVENT_SEM at {_pc(m, int(tes[0])):#x}, "
                                "whose order depends on the values it meets")
        for rows, wmode, widx, umode, uidx in _events(raw):
            odd = ~np.isin(wmode, list(MONOTONE_WAITS))
            if odd.any():
                k = int(np.flatnonzero(odd)[0])
                mode = int(wmode[k])
                text = W(mode).name if mode in W._value2member_map_ else f"{mode:#x}"
                return Scope(False, f"{name} waits with {text} at "
                                    f"{_pc(m, int(rows[k])):#x}, not a >= / > wait")
            live = (wmode != W.NONE) & (wmode != W.UNORDERED)
            for k in np.flatnonzero(live).tolist():
                waited.setdefault(int(widx[k]), f"{name} at {_pc(m, int(rows[k])):#x}")
            for k in np.flatnonzero(umode != U.NONE).tolist():
                sem, mode = int(uidx[k]), int(umode[k])
                updaters.setdefault(sem, set()).add(name)
                if mode not in MONOTONE_UPDATES and sem not in bad_update:
                    text = U(mode).name if mode in U._value2member_map_ else f"{mode:#x}"
                    bad_update[sem] = f"{name} updates it with {text} at " \
                                      f"{_pc(m, int(rows[k])):#x}"
    for sem, where in sorted(waited.items()):
        if sem in bad_update:
            return Scope(False, f"sem[{sem}], waited on by {where}: {bad_update[sem]}, "
                               "so its values do not only go up")
        who = updaters.get(sem, set())
        if len(who) > 1:
            return Scope(False, f"sem[{sem}], waited on by {where}, is updated by "
                                f"{' and '.join(sorted(who))}: which update a wait meets "
                                "depends on the schedule")
    return Scope(True, "every wait is >= / > on a semaphore that one queue only increases")
