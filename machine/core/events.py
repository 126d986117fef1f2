"""What one instruction does to the semaphore file, read from its fields (no execution).

The core needs it before an instruction issues (its waits: does it block?), after it
ran (which semaphore writes were releases, `_READ` or `_COMPLETE`, for the race
detector) and when it deadlocks (which semaphores any queue could still update).
Execution order inside one instruction (machine.engines.execute): the header wait,
then EVENT_SEMAPHORE's own wait and update or TEST_EVENT_SEM's reads/updates, then the
header update. A wait that clears or sets its event (EVT_SET_THEN_CLEAR, ...) writes the
semaphore as it passes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from neurondbg.machine.engines.seq import wait_holds
from neurondbg.machine.isa.codec import FieldValue, Instruction
from neurondbg.machine.isa.enums import TestEsMode
from neurondbg.machine.isa.enums import UpdateMode as U
from neurondbg.machine.isa.enums import WaitMode as W
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.state import NUM_REGS, PC_HI, PC_LO, MachineState

_RELATION = {W.SEM_EQ_IMM: "==", W.SEM_LT_IMM: "<", W.SEM_LE_IMM: "<=", W.SEM_GT_IMM: ">",
             W.SEM_GE_IMM: ">="}
_EVENT = {W.EVT_SET: "!= 0", W.EVT_SET_THEN_CLEAR: "!= 0", W.EVT_CLEAR: "== 0",
          W.EVT_CLEAR_THEN_SET: "== 0"}
# the value a passing wait leaves
_PASSES_TO: dict[int, int] = {W.EVT_SET_THEN_CLEAR: 0, W.EVT_CLEAR_THEN_SET: 1}
_TESTS: dict[str, Callable[[int, int], bool]] = {
    "==": lambda s, v: s == v, "<": lambda s, v: s < v, "<=": lambda s, v: s <= v,
    ">": lambda s, v: s > v, ">=": lambda s, v: s >= v, "!= 0": lambda s, v: s != 0,
    "== 0": lambda s, v: s == 0}


@dataclass(frozen=True)
class WaitSpec:
    """One semaphore wait an instruction makes before it issues."""

    mode: int
    idx: int
    value: int  # the immediate, or (for the _REG forms) the register specifier in its low byte

    @property
    def relation(self) -> str | None:
        """"==", ">=", ... "!= 0" / "== 0" for events; None for a mode that is no wait."""
        base = self.mode & 0x7F if self.mode & 0x80 else self.mode
        if self.mode not in W._value2member_map_ or self.mode in (W.NONE, W.UNORDERED,
                                                                  W.INVALID):
            return None
        return _RELATION.get(W(base)) or _EVENT.get(W(base))

    def operand(self, st: MachineState) -> int:
        """The value compared against: the immediate or the register's value now."""
        if self.mode & 0x80:
            reg = self.value & 0xFF
            return st.read_reg(reg) if reg < NUM_REGS or reg in (PC_LO, PC_HI) else 0
        return self.value

    def holds(self, st: MachineState) -> bool:
        return wait_holds(st, self.mode, self.idx, self.value)

    def condition(self, st: MachineState) -> str:
        """"sem[3] >= 1", "sem[3] >= R5 (= 2)", "sem[4] != 0" (an event set)."""
        rel = self.relation or "?"
        if rel in ("!= 0", "== 0"):
            return f"sem[{self.idx}] {rel}"
        if self.mode & 0x80:
            return f"sem[{self.idx}] {rel} R{self.value & 0xFF} (= {self.operand(st)})"
        return f"sem[{self.idx}] {rel} {self.value}"

    def predicate(self, st: MachineState) -> Callable[[int], bool]:
        """The condition as a function of the semaphore's value (for the race detector)."""
        test = _TESTS.get(self.relation or "")
        if test is None:
            return lambda s: True
        v = self.operand(st)
        return lambda s: test(s, v)

    @property
    def passes_to(self) -> int | None:
        """The value the semaphore is left with when the wait passes (None: unchanged)."""
        return _PASSES_TO.get(self.mode)


@dataclass(frozen=True)
class SemEvent:
    """One write an instruction makes to the semaphore file, in execution order."""

    idx: int
    # "pass" (a wait that clears/sets), "update" (an UPDATE_MODE), "store" (TEST_ES)
    kind: Literal["pass", "update", "store"]
    when: Literal["read", "complete"]  # when the update is published (isa-facts §1.2)
    mode: U | None = None  # the UPDATE_MODE of an "update"


@dataclass(frozen=True)
class Plan:
    """The semaphore side of one instruction."""

    waits: tuple[WaitSpec, ...]
    events: tuple[SemEvent, ...]  # the semaphore writes it makes, in order
    reads: tuple[int, ...]  # semaphores TEST_EVENT_SEM READ_* copies into registers
    # every wait an immediate `>=` (a NEFF's only form): (semaphore, value, wait) each,
    # checked directly on the semaphore file; None: some wait takes the general check
    ge: tuple[tuple[int, int, WaitSpec], ...] | None = field(
        default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if all(w.mode == W.SEM_GE_IMM for w in self.waits):
            object.__setattr__(self, "ge", tuple((w.idx, w.value, w) for w in self.waits))

    def blocked_on(self, st: MachineState) -> WaitSpec | None:
        """The first wait that does not hold now, or None (the instruction may issue)."""
        ge = self.ge
        if ge is not None:  # wait_holds of SEM_GE_IMM is this comparison
            sem = st.sem
            for idx, value, w in ge:
                if sem[idx] < value:
                    return w
            return None
        for w in self.waits:
            if not w.holds(st):
                return w
        return None


NO_PLAN = Plan((), (), ())


def _when(mode: int) -> Literal["read", "complete"]:
    return "complete" if mode & 0x10 else "read"


def _update(mode: int, idx: int) -> tuple[SemEvent, ...]:
    if mode == U.NONE:
        return ()
    name = U(mode) if mode in U._value2member_map_ else None
    return (SemEvent(idx, "update", _when(mode), name),)


def _scalar(f: Mapping[str, FieldValue], name: str) -> int:
    """A scalar field's value, 0 when the struct has no such field."""
    v = f.get(name, 0)
    assert isinstance(v, int), f"{name} is an array field"
    return v


def plan_of(inst: Instruction) -> Plan:
    """The Plan of a decoded instruction."""
    f = inst.fields
    waits: list[WaitSpec] = []
    events: list[SemEvent] = []
    reads: tuple[int, ...] = ()
    head = WaitSpec(_scalar(f, "events.wait_mode"), _scalar(f, "events.wait_idx"),
                    _scalar(f, "events.semaphore_value"))
    if head.relation is not None:
        waits.append(head)
        if head.passes_to is not None:
            events.append(SemEvent(head.idx, "pass", "read"))
    if inst.opcode == Opcode.EVENT_SEMAPHORE:
        p = "events_extended."
        ext = WaitSpec(_scalar(f, p + "wait_mode"), _scalar(f, p + "wait_idx"),
                       _scalar(f, p + "sem_wait_value"))
        if ext.relation is not None:
            waits.append(ext)
            if ext.passes_to is not None:
                events.append(SemEvent(ext.idx, "pass", "read"))
        events.extend(_update(_scalar(f, p + "update_mode"), _scalar(f, p + "update_idx")))
    elif inst.opcode == Opcode.TEST_EVENT_SEM:
        n = _scalar(f, "num_evt_sem")
        all_ids = f["evt_sem_ids"]
        assert isinstance(all_ids, tuple), "evt_sem_ids is an array field"
        ids = all_ids[:n] if 1 <= n <= 16 else ()
        mode = _scalar(f, "mode")
        if mode in (TestEsMode.READ_SEM, TestEsMode.READ_EVT):
            reads = ids
        elif mode in (TestEsMode.UPDATE_SEM, TestEsMode.UPDATE_EVT):
            events.extend(SemEvent(i, "store", "complete") for i in ids)
    events.extend(_update(_scalar(f, "events.update_mode"), _scalar(f, "events.update_idx")))
    return Plan(tuple(waits), tuple(events), reads)


def _offset(struct: str, name: str) -> int:
    return STRUCTS[struct].field(name).offset


_HEAD_MODE = _offset("CTRL_ES", "events.update_mode")  # the events header is in every struct
_HEAD_IDX = _offset("CTRL_ES", "events.update_idx")
_EXT_MODE = _offset("CTRL_ES", "events_extended.update_mode")
_EXT_IDX = _offset("CTRL_ES", "events_extended.update_idx")
_TES_MODE = _offset("CTRL_TEST_ES", "mode")
_TES_COUNT = _offset("CTRL_TEST_ES", "num_evt_sem")
_TES_IDS = _offset("CTRL_TEST_ES", "evt_sem_ids")


def update_targets(raw: np.ndarray) -> frozenset[int]:
    """Every semaphore some record of a program ((N, 64) uint8) names as an update
    target: header updates, EVENT_SEMAPHORE's own, TEST_EVENT_SEM UPDATE_* stores.
    Read from the raw bytes at once (a queue may hold a million records)."""
    if not len(raw):
        return frozenset()
    out = set(raw[raw[:, _HEAD_MODE] != U.NONE, _HEAD_IDX].tolist())
    ops = raw[:, 0]
    es = raw[(ops == Opcode.EVENT_SEMAPHORE) & (raw[:, _EXT_MODE] != U.NONE)]
    out.update(es[:, _EXT_IDX].tolist())
    tes = raw[(ops == Opcode.TEST_EVENT_SEM)
              & np.isin(raw[:, _TES_MODE], [TestEsMode.UPDATE_SEM, TestEsMode.UPDATE_EVT])]
    for row in tes:
        n = int(row[_TES_COUNT])
        if 1 <= n <= 16:
            out.update(row[_TES_IDS:_TES_IDS + n].tolist())
    return frozenset(out)
