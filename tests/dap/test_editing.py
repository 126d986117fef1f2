"""The editor changes state: setVariable, setExpression, writeMemory and the debug
console's `set`, each undone by stepBack; the debug console's other commands."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from neurondbg.dap.target import address
from tests.dap.client import InProcess
from tests.dap.test_adapter import KERNELS, LOOP, frame, launched, registers


def at_entry(program: Any = LOOP, **launch: Any) -> InProcess:
    c = launched(program, stopOnEntry=True, **launch)
    c.ok("configurationDone")
    c.event("stopped")
    return c


def scope(c: InProcess, name: str, thread: int = 1) -> int:
    return next(s["variablesReference"] for s in c.ok("scopes", frameId=thread)["scopes"]
                if s["name"] == name)


def back(c: InProcess) -> None:
    c.ok("stepBack", threadId=1)
    c.event("stopped")


def test_set_variable_register_then_step_back_undoes_it() -> None:
    c = at_entry()
    c.ok("next", threadId=1)
    c.event("stopped")
    got = c.ok("setVariable", variablesReference=scope(c, "Registers"), name="R2", value="R2 - 7")
    assert got["value"] == "0x00000003 (3)"
    assert registers(c)["R2"] == "0x00000003 (3)"
    c.ok("setBreakpoints", source={"path": str(LOOP)}, breakpoints=[])
    c.ok("continue", threadId=1)
    c.event("exited")
    assert registers(c)["R1"] == "0x00000009 (9)"  # three passes, not ten


def test_set_variable_is_journaled_like_set() -> None:
    c = at_entry()
    c.ok("next", threadId=1)
    c.event("stopped")
    c.ok("setVariable", variablesReference=scope(c, "Registers"), name="R1", value="41")
    sems = scope(c, "Semaphores")
    assert c.ok("setVariable", variablesReference=sems, name="sem[3]", value="2")["value"] == "2"
    back(c)  # the semaphore edit
    assert c.ok("variables", variablesReference=sems, start=3, count=1)["variables"][0][
        "value"] == "0"
    assert registers(c)["R1"] == "0x00000029 (41)"
    back(c)  # the register edit
    assert registers(c)["R1"] == "0x00000000 (0)" and registers(c)["PC"] == "0x40"
    back(c)  # the MOVE
    assert registers(c)["PC"] == "0x0"


@pytest.mark.parametrize(("name", "value", "expected"), [
    ("status", "1", "read-only"), ("mnemonic", "HALT", "no variable 'mnemonic' in Registers"),
    ("R1", "R1 +", "column"), ("R99", "1", "no variable 'R99'"),
    ("PC", "0x7", "0x7"),
])
def test_set_variable_refusals(name: str, value: str, expected: str) -> None:
    c = at_entry()
    r = c.request("setVariable", variablesReference=scope(c, "Registers"), name=name,
                  value=value)
    assert not r["success"] and expected in r["message"]
    assert registers(c)["PC"] == "0x0"


def test_kernel_edits_a_semaphore_and_step_back_undoes_it() -> None:
    c = at_entry(KERNELS / "producer_consumer.asm")
    got = c.ok("setVariable", variablesReference=scope(c, "Semaphores"), name="sem[0]",
               value="1")
    assert got["value"].startswith("1")
    assert c.ok("evaluate", expression="sem[0]", frameId=1)["result"].startswith("1")
    back(c)
    assert c.ok("evaluate", expression="sem[0]", frameId=1)["result"].startswith("0")


def test_kernel_record_write_changes_that_engines_instruction_and_step_back_undoes_it(
        ) -> None:
    c = at_entry(KERNELS / "producer_consumer.asm")
    at = f"{address('dve', 0):#x}"

    def first() -> str:
        return c.ok("disassemble", memoryReference=at, instructionCount=1)[
            "instructions"][0]["instruction"]

    halt = c.ok("readMemory", memoryReference=f"{address('dve', 0x40):#x}", count=64)["data"]
    assert first().startswith("CAST")
    assert c.ok("writeMemory", memoryReference=at, data=halt)["bytesWritten"] == 64
    assert first() == "HALT"
    pool = c.ok("disassemble", memoryReference=f"{address('pool', 0):#x}",
                instructionCount=1)["instructions"][0]["instruction"]
    assert pool.startswith("CAST")  # another engine's record at the same PC is its own
    back(c)
    assert first().startswith("CAST")
    assert not c.request("writeMemory", memoryReference="program", data="AAE=")["success"]


def test_set_expression_stores_a_memory_cell_and_evaluate_reads_it() -> None:
    c = at_entry()
    got = c.ok("setExpression", expression="sb[2, 0x40]:fp32", value="1.5", frameId=1)
    assert got["value"] == "1.5"
    assert c.ok("evaluate", expression="sb[2, 0x40]:fp32", frameId=1)["result"] == "1.5"
    raw = c.ok("readMemory", memoryReference="sbuf[2]", offset=0x40, count=4)
    assert base64.b64decode(raw["data"]) == bytes.fromhex("0000c03f")
    back(c)
    assert c.ok("evaluate", expression="sb[2, 0x40]:fp32", frameId=1)["result"] == "0.0"


def test_write_memory_to_sbuf_is_undone_by_one_step_back() -> None:
    c = at_entry()
    data = bytes(range(1, 9))
    got = c.ok("writeMemory", memoryReference="sbuf[5]", offset=16,
               data=base64.b64encode(data).decode())
    assert got["bytesWritten"] == 8
    read = c.ok("readMemory", memoryReference="sbuf[5]", offset=14, count=12)
    assert base64.b64decode(read["data"]) == b"\0\0" + data + b"\0\0"
    back(c)
    read = c.ok("readMemory", memoryReference="sbuf[5]", offset=14, count=12)
    assert base64.b64decode(read["data"]) == bytes(12)
    assert registers(c)["PC"] == "0x0"  # the step back undid the write, not a step


def test_write_memory_past_the_partition_needs_allow_partial() -> None:
    c = at_entry()
    end = 229376  # the partition's size in bytes (the machine's sbuf_bytes)
    r = c.request("writeMemory", memoryReference="sbuf[0]", offset=end - 2, data="AQIDBA==")
    assert not r["success"] and "room for 2" in r["message"]
    got = c.ok("writeMemory", memoryReference="sbuf[0]", offset=end - 2, data="AQIDBA==",
               allowPartial=True)
    assert got["bytesWritten"] == 2


def test_write_memory_to_a_record_changes_the_instruction() -> None:
    c = at_entry()
    halt = base64.b64decode(c.ok("readMemory", memoryReference="0x100", count=64)["data"])
    c.ok("writeMemory", memoryReference="0x80", data=base64.b64encode(halt).decode())
    insts = c.ok("disassemble", memoryReference="0x80", instructionCount=1)["instructions"]
    assert insts[0]["instruction"] == "HALT"
    c.ok("continue", threadId=1)
    c.event("exited")
    assert registers(c)["R1"] == "0x00000003 (3)"  # one ADD, then the HALT written at 0x80


def test_debug_console_runs_console_commands() -> None:
    c = at_entry()

    def repl(line: str) -> str:
        return c.ok("evaluate", expression=line, frameId=1, context="repl")["result"]

    assert repl("set R2 = 2") == "R2 = 2 (0x00000002)"
    assert repl("break label:loop") == "breakpoint #1: label:loop"
    assert c.event("breakpoint")["body"]["reason"] == "new"
    assert repl("step 2") == ""
    assert c.event("stopped")["body"]["reason"] == "step"
    assert registers(c)["R2"] == "0x0000000a (10)"  # the MOVE overwrote the edit
    assert repl("continue") == ""
    assert c.event("stopped")["body"]["hitBreakpointIds"] == [1]
    assert "#1 label:loop  hits 1" in repl("info breakpoints")
    assert repl("info registers").splitlines() == ["R1  = 0x00000003 (3)",
                                                    "R2  = 0x00000009 (9)"]
    assert repl("p R1 + 1") == "4 (0x4)" and repl("R1 * 2") == "6 (0x6)"
    assert repl("delete 1") == "deleted 1 breakpoint(s)"
    assert c.event("breakpoint")["body"]["reason"] == "removed"
    assert repl("reverse 3") == ""
    c.event("stopped")
    assert frame(c)["line"] == 7 and registers(c)["R1"] == "0x00000000 (0)"
    assert "ctrl_mv_has_valid_dtype" in repl("explain ctrl_mv_has_valid_dtype")
    assert "debug console runs" in repl("help")
    for line, expected in [("tour", "a command of the TUI"), ("next", "expected a count"),
                           ("delete 7", "no breakpoint #7"), ("set R1", "TARGET = VALUE"),
                           ("info frobs", "expected 'info breakpoints'"),
                           ("step 0", "expected a count 1..")]:
        r = c.request("evaluate", expression=line, frameId=1, context="repl")
        assert not r["success"] and expected in r["message"], (line, r["message"])


def test_debug_console_set_is_undone_by_step_back() -> None:
    c = at_entry()
    c.ok("evaluate", expression="set acc[0] = 2", frameId=1, context="repl")
    c.ok("evaluate", expression="set R7 = 7", frameId=1, context="repl")
    back(c)
    assert registers(c)["R7"] == "0x00000000 (0)"


def test_invalidated_event_when_the_client_takes_it() -> None:
    c = InProcess()
    c.ok("initialize", adapterID="x", supportsInvalidatedEvent=True, supportsMemoryEvent=True)
    c.ok("launch", program=str(LOOP), stopOnEntry=True)
    c.event("initialized")
    c.ok("configurationDone")
    c.event("stopped")
    c.ok("writeMemory", memoryReference="sbuf[1]", data="AQ==")
    assert c.event("invalidated")["body"]["areas"] == ["variables", "stacks"]
    assert c.event("memory")["body"] == {"memoryReference": "sbuf[1]", "offset": 0, "count": 1}


def test_a_memory_range_expands_to_cells_that_set_variable_stores() -> None:
    c = at_entry()
    got = c.ok("evaluate", expression="sb[1:3, 8:16]:fp32", frameId=1, context="watch")
    assert got["result"] == "4 cells" and got["variablesReference"] > 0
    cells = c.ok("variables", variablesReference=got["variablesReference"])["variables"]
    assert [(v["name"], v["value"]) for v in cells] == [
        ("sb[1, 8]:fp32", "0.0"), ("sb[1, 12]:fp32", "0.0"),
        ("sb[2, 8]:fp32", "0.0"), ("sb[2, 12]:fp32", "0.0")]
    done = c.ok("setVariable", variablesReference=got["variablesReference"],
                name="sb[2, 12]:fp32", value="2.5")
    assert done["value"] == "2.5"
    assert c.ok("evaluate", expression="sb[2, 12]:fp32", frameId=1)["result"] == "2.5"
    back(c)
    cells = c.ok("variables", variablesReference=got["variablesReference"])["variables"]
    assert cells[3]["value"] == "0.0"
    r = c.request("setVariable", variablesReference=got["variablesReference"],
                  name="sb[0, 0]", value="1")
    assert not r["success"] and "no cell" in r["message"]


def test_cells_from_the_debug_console_and_their_limits() -> None:
    c = at_entry()
    got = c.ok("evaluate", expression="p psum[0, 0:3]", frameId=1, context="repl")
    assert got["result"] == "3 cells"
    names = [v["name"] for v in c.ok("variables",
                                     variablesReference=got["variablesReference"])["variables"]]
    assert names == ["psum[0, 0]", "psum[0, 1]", "psum[0, 2]"]
    one = c.ok("evaluate", expression="sb[0, 0:1]", frameId=1, context="repl")
    assert one["variablesReference"] == 0  # one element: a value, not cells
    for text, expected in [("sb[0:128, 0:64]", "at most 1024"), ("sb[0, 0:999999]", "")]:
        r = c.request("evaluate", expression=text, frameId=1, context="watch")
        assert not r["success"] and expected in r["message"], (text, r["message"])


def test_only_the_last_groups_of_cells_are_kept() -> None:
    from neurondbg.dap.cells import MAX_GROUPS

    c = at_entry()
    refs = [c.ok("evaluate", expression="sb[0, 0:2]", frameId=1)["variablesReference"]
            for _ in range(MAX_GROUPS * 3)]
    assert len(set(refs)) == 2 * MAX_GROUPS and len(c.adapter._cells) == MAX_GROUPS
    assert c.ok("variables", variablesReference=refs[-1])["variables"]
    r = c.request("variables", variablesReference=refs[MAX_GROUPS])  # forgotten
    assert not r["success"]
