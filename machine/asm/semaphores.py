"""The semaphore shorthand of the header events: `wait=` and `signal=`.

    wait=sem[3]>=1              events.wait_mode=SEM_GE_IMM wait_idx=3 semaphore_value=1
                                (>= > == <= <: SEM_GE/GT/EQ/LE/LT_IMM)
    signal=sem[3]++@complete    events.update_mode=SEM_INC_COMPLETE update_idx=3
    signal=sem[3]--@read        SEM_DEC_READ
    signal=sem[3]+=2@complete   SEM_ADD_IMM_COMPLETE, semaphore_value=2
    signal=sem[3]-=2@read       SEM_SUB_IMM_READ, semaphore_value=2
    signal=sem[3]=0@complete    SEM_WR_IMM_COMPLETE, semaphore_value=0

Decisions: the timing of an update is always written (`@read`: it fires once the
instruction has read its sources; `@complete`: after its writes; DESIGN.md
"Semaphores"), since choosing it is the point. A wait and an update on one line share
the 4-byte `events.semaphore_value`, so a value both name must agree. Event waits and
updates (EVT_*), the register forms (*_REG) and EVENT_SEMAPHORE's own `events_extended`
fields have no shorthand: they keep their field names. The disassembler prints the
shorthand wherever it gives back the same bytes, and the raw fields elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable

from neurondbg.machine.asm.errors import AsmError
from neurondbg.machine.asm.parser import Atom, Bracket, SemExpr, Value
from neurondbg.machine.asm.values import parse_int
from neurondbg.machine.isa.enums import UpdateMode, WaitMode

KEYS = ("wait", "signal")
EVENTS = "events"  # the field prefix of the header events the shorthand sets
VALUE = f"{EVENTS}.semaphore_value"
WAIT_OPS: dict[str, WaitMode] = {
    ">=": WaitMode.SEM_GE_IMM, ">": WaitMode.SEM_GT_IMM, "==": WaitMode.SEM_EQ_IMM,
    "<=": WaitMode.SEM_LE_IMM, "<": WaitMode.SEM_LT_IMM}
# update operator -> the UpdateMode name before its _READ / _COMPLETE timing
UPDATE_OPS: dict[str, str] = {"++": "SEM_INC", "--": "SEM_DEC", "+=": "SEM_ADD_IMM",
                              "-=": "SEM_SUB_IMM", "=": "SEM_WR_IMM"}
TIMINGS = ("read", "complete")
VALUELESS = ("++", "--")

# wire code -> (operator, timing) for the disassembler
UPDATE_SYNTAX: dict[int, tuple[str, str]] = {
    int(UpdateMode[f"{name}_{when.upper()}"]): (op, when)
    for op, name in UPDATE_OPS.items() for when in TIMINGS}
WAIT_SYNTAX: dict[int, str] = {int(mode): op for op, mode in WAIT_OPS.items()}

Fail = Callable[[str, int], AsmError]


def _index(target: Bracket, fail: Fail) -> int:
    if (target.name.text.lower() != "sem" or len(target.items) != 1
            or target.items[0][1] is not None):
        raise fail("expected a semaphore like sem[3]", target.column)
    atom = target.items[0][0]
    idx = parse_int(atom.text)
    if idx is None or not 0 <= idx <= 255:
        raise fail("expected a semaphore index 0..255", atom.column)
    return idx


def _value(atom: Atom | None, fail: Fail, column: int) -> int:
    v = parse_int(atom.text) if atom is not None else None
    if atom is None or v is None or not 0 <= v <= 0xFFFFFFFF:
        raise fail("expected a semaphore value 0..4294967295", atom.column if atom else column)
    return v


def sem_fields(key: str, value: Value, fail: Fail) -> dict[str, int]:
    """The events fields `wait=` / `signal=` set (see the module docstring)."""
    if not isinstance(value, SemExpr):
        what = "wait like wait=sem[3]>=1" if key == "wait" else \
            "update like signal=sem[3]++@complete"
        raise fail(f"expected a semaphore {what}", value.column)
    idx = _index(value.target, fail)
    op = value.op.text
    if key == "wait":
        if op not in WAIT_OPS:
            raise fail("a wait compares: expected one of " + " ".join(WAIT_OPS), value.op.column)
        if value.when is not None:
            raise fail("a wait has no @timing (that is an update's, on signal=)",
                       value.when.column)
        return {f"{EVENTS}.wait_mode": int(WAIT_OPS[op]), f"{EVENTS}.wait_idx": idx,
                VALUE: _value(value.operand, fail, value.op.column)}
    if op not in UPDATE_OPS:
        raise fail("an update is one of " + " ".join(UPDATE_OPS), value.op.column)
    when = value.when.text.lower() if value.when is not None else None
    if when not in TIMINGS:
        raise fail("expected @read or @complete after the update: when it fires (_READ once "
                   "the sources are read, _COMPLETE after the writes)",
                   value.when.column if value.when is not None else value.op.column)
    out = {f"{EVENTS}.update_mode": int(UpdateMode[f"{UPDATE_OPS[op]}_{when.upper()}"]),
           f"{EVENTS}.update_idx": idx}
    if op not in VALUELESS:
        out[VALUE] = _value(value.operand, fail, value.op.column)
    return out


def events_text(wm: int, wi: int, um: int, ui: int, sv: int,
                raw: Callable[[str, int], str]) -> str:
    """The events of one record as assembly tokens (each with a leading space): the
    shorthand where it round-trips, else `raw(field, value)` for each nonzero field."""
    parts: list[str] = []
    used_value = False
    if wm in WAIT_SYNTAX:
        parts.append(f" wait=sem[{wi}]{WAIT_SYNTAX[wm]}{sv}")
        used_value = True
    else:
        parts += [raw(f"{EVENTS}.wait_mode", wm), raw(f"{EVENTS}.wait_idx", wi)]
    if um in UPDATE_SYNTAX:
        op, when = UPDATE_SYNTAX[um]
        parts.append(f" signal=sem[{ui}]{op}{'' if op in VALUELESS else sv}@{when}")
        used_value = used_value or op not in VALUELESS
    else:
        parts += [raw(f"{EVENTS}.update_mode", um), raw(f"{EVENTS}.update_idx", ui)]
    if not used_value:
        parts.append(raw(VALUE, sv))
    return "".join(parts)
