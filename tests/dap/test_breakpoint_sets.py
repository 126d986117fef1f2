"""Each `set*Breakpoints` request replaces its kind's whole set, and an entry the model
refuses is an unverified breakpoint saying why, never a failed request (one helper,
Adapter._set_kind, for instructions, functions and data)."""

from __future__ import annotations

from tests.dap.test_adapter import LOOP, launched


def test_refused_entries_are_unverified_with_the_reason() -> None:
    c = launched(LOOP)
    ins = c.ok("setInstructionBreakpoints", breakpoints=[
        {"instructionReference": "zz"}, {"instructionReference": "0x40", "offset": 64},
        {"instructionReference": "0x80", "condition": "R1 >"}])["breakpoints"]
    assert [b["verified"] for b in ins] == [False, True, False]
    assert ins[0]["message"] == "expected an address such as 0x80, found 'zz'"
    assert (ins[1]["instructionReference"], ins[1]["offset"]) == ("0x40", 64)
    data = c.ok("setDataBreakpoints", breakpoints=[
        {"dataId": "R2", "accessType": "read"}, {"dataId": "R2"},
        {"dataId": "nowhere"}])["breakpoints"]
    assert [b["verified"] for b in data] == [False, True, False]
    assert data[0]["message"] == "R2: only writes can be watched"
    funcs = c.ok("setFunctionBreakpoints", breakpoints=[
        {"name": "loop"}, {"name": "op:NOPE"}, {"name": "loop", "condition": "R2 == 8"}]
    )["breakpoints"]
    assert [b["verified"] for b in funcs] == [True, False, True]
    ids = [b["id"] for b in (ins[1], data[1], funcs[0], funcs[2])]
    assert len(set(ids)) == 4  # each DAP breakpoint has an id of its own


def test_a_new_set_replaces_the_old_one_of_its_kind_only() -> None:
    c = launched(LOOP, stopOnEntry=True)
    c.ok("setDataBreakpoints", breakpoints=[{"dataId": "R2"}])
    c.ok("setInstructionBreakpoints", breakpoints=[{"instructionReference": "0xc0"}])
    c.ok("setInstructionBreakpoints", breakpoints=[])  # the 0xc0 one is gone
    c.ok("configurationDone")
    assert c.event("stopped")["body"]["reason"] == "entry"
    c.ok("continue", threadId=1)
    assert c.event("stopped")["body"]["reason"] == "data breakpoint"  # the watch stays
    c.ok("setDataBreakpoints", breakpoints=[])
    c.ok("continue", threadId=1)
    assert c.event("exited")["body"]["exitCode"] == 0
