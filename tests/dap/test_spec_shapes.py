"""What an editor relies on: paths as launched, lines from 0, noDebug, nothing runs after
`terminated`, numeric memory addresses, distinct padding addresses, kernel-only exception
filters, and `exited` with `neurondbg run`'s exit code."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest

from neurondbg.dap.memory import SPACE_TAG
from tests.dap.client import EXAMPLES, InProcess
from tests.dap.test_adapter import KERNELS, LOOP, frame, launched, registers


def test_frames_name_the_path_the_editor_launched(tmp_path: Path) -> None:
    link = tmp_path / "examples"
    link.symlink_to(EXAMPLES)
    program = link / "loop.asm"
    c = launched(program)
    bp = c.ok("setBreakpoints", source={"path": str(program)},
              breakpoints=[{"line": 8}])["breakpoints"][0]
    assert bp["verified"]
    c.ok("configurationDone")
    c.event("stopped")
    f = frame(c)
    assert f["source"]["path"] == str(program) and f["line"] == 8
    insts = c.ok("disassemble", memoryReference="0x0", instructionCount=1)["instructions"]
    assert insts[0]["location"]["path"] == str(program)


def test_a_kernels_files_keep_the_launched_folder(tmp_path: Path) -> None:
    link = tmp_path / "k"
    link.symlink_to(KERNELS)
    c = launched(link / "producer_consumer.asm", stopOnEntry=True)
    c.ok("configurationDone")
    c.event("stopped")
    assert frame(c, 2)["source"]["path"] == str(link / "producer_consumer.asm")


def test_a_relative_launch_is_made_absolute_without_resolving(tmp_path: Path,
                                                              monkeypatch: Any) -> None:
    (tmp_path / "ex").symlink_to(EXAMPLES)
    monkeypatch.chdir(tmp_path)
    c = launched("ex/loop.asm", stopOnEntry=True)
    c.ok("configurationDone")
    c.event("stopped")
    assert frame(c)["source"]["path"] == os.path.join(tmp_path, "ex", "loop.asm")


def test_lines_start_at_0_when_the_client_says_so() -> None:
    c = InProcess()
    c.ok("initialize", adapterID="x", linesStartAt1=False, columnsStartAt1=False)
    c.ok("launch", program=str(LOOP))
    c.event("initialized")
    bp = c.ok("setBreakpoints", source={"path": str(LOOP)},
              breakpoints=[{"line": 5}])["breakpoints"][0]  # line 6 (a label) -> 7
    assert bp["line"] == 6
    c.ok("configurationDone")
    c.event("stopped")
    f = frame(c)
    assert (f["line"], f["column"]) == (6, 4)  # 1-based: line 7, column 5
    insts = c.ok("disassemble", memoryReference="0x40", instructionCount=1)["instructions"]
    assert insts[0]["line"] == 6


def test_no_debug_runs_to_the_end_past_breakpoints() -> None:
    c = launched(LOOP, noDebug=True, stopOnEntry=True)
    bp = c.ok("setBreakpoints", source={"path": str(LOOP)},
              breakpoints=[{"line": 8}])["breakpoints"][0]
    assert not bp["verified"] and "noDebug" in bp["message"]
    c.ok("configurationDone")
    assert c.event("exited")["body"]["exitCode"] == 0
    c.event("terminated")
    assert not any(e["event"] == "stopped" for e in c.events)
    assert registers(c)["R1"] == "0x0000001e (30)"


@pytest.mark.parametrize("kernel", ["missing_wait.asm", "deadlock.asm"])
def test_no_debug_kernel_exits_1_for_a_race_or_a_deadlock(kernel: str) -> None:
    c = launched(KERNELS / kernel, noDebug=True)
    c.ok("setExceptionBreakpoints", filters=["race"])
    c.ok("configurationDone")
    assert c.event("exited")["body"]["exitCode"] == 1


def test_no_debug_kernel_without_defects_exits_0() -> None:
    c = launched(KERNELS / "producer_consumer.asm", noDebug=True)
    c.ok("configurationDone")
    assert c.event("exited")["body"]["exitCode"] == 0


def test_run_requests_after_terminated_are_refused() -> None:
    c = launched(LOOP)
    c.ok("configurationDone")
    c.event("terminated")
    for command in ("continue", "next", "stepIn", "stepOut", "stepBack", "reverseContinue"):
        r = c.request(command, threadId=1)
        assert not r["success"] and "terminated" in r["message"], command
    r = c.request("evaluate", expression="step", frameId=1, context="repl")
    assert not r["success"] and "terminated" in r["message"]
    assert registers(c)["R1"] == "0x0000001e (30)"  # the state can still be read


def test_terminate_at_a_deadlock_exits_1_and_ends_running() -> None:
    c = launched(KERNELS / "deadlock.asm")
    c.ok("configurationDone")
    assert c.event("stopped")["body"]["reason"] == "exception"
    c.ok("terminate")
    assert c.event("exited")["body"]["exitCode"] == 1
    c.event("terminated")
    r = c.request("continue", threadId=1)
    assert not r["success"] and "terminated" in r["message"]


def test_a_kernel_run_that_found_a_race_exits_1() -> None:
    c = launched(KERNELS / "missing_wait.asm")
    c.ok("setExceptionBreakpoints", filters=[])
    c.ok("configurationDone")
    assert c.event("exited")["body"]["exitCode"] == 1


def test_read_memory_address_is_a_number_that_reads_back() -> None:
    c = launched(KERNELS / "producer_consumer.asm", stopOnEntry=True)
    c.ok("configurationDone")
    c.event("stopped")
    got = c.ok("readMemory", memoryReference="sbuf[1]", offset=4, count=4)
    number = (SPACE_TAG << 48) | (1 << 32) | 4
    assert got["address"] == f"{number:#x}"
    again = c.ok("readMemory", memoryReference=got["address"], count=4)
    assert again["address"] == got["address"] and again["data"] == got["data"]
    assert base64.b64decode(got["data"]) == bytes.fromhex("0000e03f")  # 1.75
    psum = c.ok("readMemory", memoryReference="psum[127]", count=1)
    assert int(psum["address"], 16) == ((SPACE_TAG + 1) << 48) | (127 << 32)
    rec = c.ok("readMemory", memoryReference=f"{1 << 48:#x}", offset=64, count=1)
    assert rec["address"] == f"{(1 << 48) + 64:#x}"
    r = c.request("readMemory", memoryReference=f"{(SPACE_TAG << 48) | (128 << 32):#x}",
                  count=1)
    assert not r["success"] and "expected a partition 0..127" in r["message"]


@pytest.mark.parametrize("engine_bits", [0, 1 << 48])
def test_disassembly_padding_before_address_0_is_invalid_with_its_own_address(
        engine_bits: int) -> None:
    c = launched(KERNELS / "producer_consumer.asm", stopOnEntry=True)
    c.ok("configurationDone")
    c.event("stopped")
    insts = c.ok("disassemble", memoryReference=f"{engine_bits:#x}", instructionOffset=-3,
                 instructionCount=4)["instructions"]
    assert [i["address"] for i in insts] == ["-192", "-128", "-64", f"{engine_bits:#x}"]
    assert [i.get("presentationHint") for i in insts] == ["invalid"] * 3 + [None]
    assert insts[3]["instruction"] != "??"


def test_exception_filters_only_for_kernels() -> None:
    c = InProcess()
    caps = c.ok("initialize", adapterID="x")
    assert "exceptionBreakpointFilters" not in caps
    c.ok("launch", program=str(LOOP))
    c.event("initialized")
    assert not any(e["event"] == "capabilities" for e in c.events)
    k = InProcess()
    k.ok("initialize", adapterID="x")
    k.ok("launch", program=str(KERNELS / "missing_wait.asm"))
    filters = k.event("capabilities")["body"]["capabilities"]["exceptionBreakpointFilters"]
    assert [(f["filter"], f["default"]) for f in filters] == [("race", True), ("wait", False)]
    k.event("initialized")
    assert caps["supportsLogPoints"] and caps["supportsHitConditionalBreakpoints"]
    assert caps["supportsSetVariable"] and caps["supportsSetExpression"]
    assert caps["supportsWriteMemoryRequest"]
