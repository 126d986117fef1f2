"""The debug adapter in-process: a program, a kernel, stop reasons and bad requests."""

from __future__ import annotations

from typing import Any

import pytest

from tests.dap.client import EXAMPLES, InProcess

LOOP = EXAMPLES / "loop.asm"  # R1 += 3, R2 -= 1 until R2 == 0 (lines 7, 8), HALT (line 11)
KERNELS = EXAMPLES / "kernels"


def launched(program: Any, **launch: Any) -> InProcess:
    c = InProcess()
    caps = c.ok("initialize", adapterID="neurondbg", linesStartAt1=True)
    assert caps["supportsStepBack"] and caps["supportsDataBreakpoints"]
    c.ok("launch", program=str(program), **launch)
    c.event("initialized")
    return c


def registers(c: InProcess, thread: int = 1) -> dict[str, str]:
    scopes = c.ok("scopes", frameId=thread)["scopes"]
    ref = next(s["variablesReference"] for s in scopes if s["name"] == "Registers")
    return {v["name"]: v["value"] for v in c.ok("variables", variablesReference=ref)["variables"]}


def frame(c: InProcess, thread: int = 1) -> dict[str, Any]:
    return c.ok("stackTrace", threadId=thread)["stackFrames"][0]


def test_program_breakpoint_by_line_step_back_and_exit() -> None:
    c = launched(LOOP)
    bps = c.ok("setBreakpoints", source={"path": str(LOOP)},
               breakpoints=[{"line": 8}, {"line": 6}, {"line": 99}])["breakpoints"]
    assert [b["verified"] for b in bps] == [True, True, False]
    assert bps[1]["line"] == 7  # a label line moves to the next instruction (gdb)
    c.ok("setBreakpoints", source={"path": str(LOOP)}, breakpoints=[{"line": 8}])
    c.ok("configurationDone")
    stop = c.event("stopped")["body"]
    assert stop["reason"] == "breakpoint" and stop["threadId"] == 1
    f = frame(c)
    assert (f["line"], f["source"]["path"]) == (8, str(LOOP.resolve()))
    assert registers(c)["R1"] == "0x00000003 (3)" and registers(c)["R2"] == "0x0000000a (10)"
    c.ok("continue", threadId=1)
    assert c.event("stopped")["body"]["hitBreakpointIds"] == [stop["hitBreakpointIds"][0]]
    assert registers(c)["R1"] == "0x00000006 (6)"
    c.ok("stepBack", threadId=1)
    assert c.event("stopped")["body"]["reason"] == "step"
    assert frame(c)["line"] == 7 and registers(c)["R1"] == "0x00000003 (3)"
    assert c.ok("evaluate", expression="R1 * 2 + R2", frameId=1)["result"] == "15 (0xf)"
    c.ok("next", threadId=1)
    c.event("stopped")
    assert frame(c)["line"] == 8 and registers(c)["PC"] == "0x80"
    c.ok("setBreakpoints", source={"path": str(LOOP)}, breakpoints=[])
    c.ok("continue", threadId=1)
    assert c.event("exited")["body"]["exitCode"] == 0
    c.event("terminated")
    assert registers(c)["R1"] == "0x0000001e (30)"
    c.ok("disconnect")
    assert c.adapter.ended


def test_conditional_breakpoint_uses_the_expression_language() -> None:
    c = launched(LOOP)
    c.ok("setBreakpoints", source={"path": str(LOOP)},
         breakpoints=[{"line": 8, "condition": "R2 == 5"}])
    c.ok("configurationDone")
    c.event("stopped")
    regs = registers(c)
    assert (regs["R1"], regs["R2"]) == ("0x00000012 (18)", "0x00000005 (5)")


def test_bad_condition_is_an_unverified_breakpoint() -> None:
    c = launched(LOOP)
    bp = c.ok("setBreakpoints", source={"path": str(LOOP)},
              breakpoints=[{"line": 8, "condition": "R2 == "}])["breakpoints"][0]
    assert not bp["verified"] and "column" in bp["message"]


def test_data_breakpoint_on_a_register_and_reverse_continue() -> None:
    c = launched(LOOP, stopOnEntry=True)
    c.ok("configurationDone")
    assert c.event("stopped")["body"]["reason"] == "entry"
    scopes = c.ok("scopes", frameId=1)["scopes"]
    ref = scopes[0]["variablesReference"]
    info = c.ok("dataBreakpointInfo", name="R2", variablesReference=ref)
    assert info["dataId"] == "R2" and info["accessTypes"] == ["write"]
    bp = c.ok("setDataBreakpoints", breakpoints=[{"dataId": "R2"}])["breakpoints"][0]
    assert bp["verified"]
    c.ok("continue", threadId=1)
    stop = c.event("stopped")["body"]
    assert stop["reason"] == "data breakpoint" and stop["hitBreakpointIds"] == [bp["id"]]
    assert registers(c)["R2"] == "0x0000000a (10)" and frame(c)["line"] == 7  # after MOVE
    c.ok("continue", threadId=1)
    c.event("stopped")
    assert registers(c)["R2"] == "0x00000009 (9)"
    c.ok("reverseContinue", threadId=1)
    c.event("stopped")
    assert registers(c)["R2"] == "0x0000000a (10)"


def test_instruction_breakpoint_and_disassemble() -> None:
    c = launched(LOOP)
    bp = c.ok("setInstructionBreakpoints",
              breakpoints=[{"instructionReference": "0xc0"}])["breakpoints"][0]
    assert bp["verified"]
    c.ok("configurationDone")
    assert c.event("stopped")["body"]["reason"] == "instruction breakpoint"
    f = frame(c)
    assert f["instructionPointerReference"] == "0xc0" and f["line"] == 10
    insts = c.ok("disassemble", memoryReference="0xc0", instructionOffset=-1,
                 instructionCount=4)["instructions"]
    assert [i["address"] for i in insts] == ["0x80", "0xc0", "0x100", "0x140"]
    assert insts[1]["instruction"].startswith("COMPARE_BRANCH") and insts[1]["line"] == 10
    assert insts[2]["instruction"] == "HALT"
    assert insts[3]["presentationHint"] == "invalid"  # past the end of the program


def test_invalid_instruction_stop_names_the_failing_clause() -> None:
    c = launched(EXAMPLES / "move_dtype_gate.asm")
    c.ok("configurationDone")
    stop = c.event("stopped")["body"]
    assert stop["reason"] == "exception" and "ctrl_mv_has_valid_dtype" in stop["text"]
    assert frame(c)["line"] == 7


def test_kernel_threads_are_engines_with_semaphores() -> None:
    src = KERNELS / "producer_consumer.asm"
    c = launched(src)
    assert [t["name"] for t in c.ok("threads")["threads"]] == ["pool", "dve"]
    bp = c.ok("setBreakpoints", source={"path": str(src)},
              breakpoints=[{"line": 20}])["breakpoints"][0]
    assert bp["verified"] and bp["instructionReference"] == f"{1 << 48:#x}"  # dve's PC 0
    c.ok("setExceptionBreakpoints", filters=["race"])
    c.ok("configurationDone")
    stop = c.event("stopped")["body"]
    assert stop["reason"] == "breakpoint" and stop["threadId"] == 2
    assert frame(c, 2)["line"] == 20 and frame(c, 1)["name"].startswith("pool: HALT")
    scopes = {s["name"]: s["variablesReference"] for s in c.ok("scopes", frameId=2)["scopes"]}
    assert list(scopes) == ["Registers", "Semaphores", "Accumulators", "Instruction"]
    sems = c.ok("variables", variablesReference=scopes["Semaphores"], count=2)["variables"]
    assert [(v["name"], v["value"]) for v in sems] == [("sem[0]", "1"), ("sem[1]", "0")]
    assert registers(c, 2)["status"] == "running" == registers(c, 1)["status"]
    assert c.ok("evaluate", expression="sem[0] + dve.PC", frameId=2)["result"] == "1 (0x1)"
    c.ok("stepBack", threadId=2)  # undoes POOL's CAST: the last global step
    c.event("stopped")
    assert registers(c, 1)["PC"] == "0x0"
    c.ok("setBreakpoints", source={"path": str(src)}, breakpoints=[])
    c.ok("continue", threadId=1)
    c.event("exited")


def test_kernel_race_is_an_exception_stop() -> None:
    c = launched(KERNELS / "missing_wait.asm")
    c.ok("configurationDone")  # the `race` filter is on by default
    stop = c.event("stopped")["body"]
    assert stop["reason"] == "exception" and "nothing ordering them" in stop["text"]


def test_kernel_filters_off_runs_to_exit_and_reports_the_race() -> None:
    c = launched(KERNELS / "missing_wait.asm")
    c.ok("setExceptionBreakpoints", filters=[])
    c.ok("configurationDone")
    c.event("exited")
    outputs = [e["body"]["output"] for e in c.events if e["event"] == "output"]
    assert any("nothing ordering them" in o for o in outputs)


def test_sbuf_range_watch_on_a_kernel() -> None:
    src = KERNELS / "producer_consumer.asm"
    c = launched(src, stopOnEntry=True)
    c.ok("configurationDone")
    c.event("stopped")
    info = c.ok("dataBreakpointInfo", name="sb[0, 0x200:0x240]")
    assert info["dataId"] == "sb[0, 0x200:0x240]"
    c.ok("setDataBreakpoints", breakpoints=[{"dataId": info["dataId"]}])
    c.ok("continue", threadId=1)
    stop = c.event("stopped")["body"]
    assert stop["reason"] == "data breakpoint" and stop["threadId"] == 2  # DVE wrote it


@pytest.mark.parametrize(("command", "arguments", "expected"), [
    ("launch", {}, "launch: program: Field required"),
    ("launch", {"program": "/nonexistent/x.asm"}, "launch: /nonexistent/x.asm: no such file"),
    ("setBreakpoints", {"source": {"path": "x.asm"}}, "nothing is launched yet"),
    ("frobnicate", {}, "unsupported request 'frobnicate'"),
    ("threads", [1, 2], "threads: arguments: expected an object, found list"),
])
def test_bad_requests_get_error_responses(command: str, arguments: Any, expected: str) -> None:
    c = InProcess()
    r = c.request(command, arguments)
    assert not r["success"] and expected in r["message"]
    assert r["body"]["error"]["format"] == r["message"]
    assert c.ok("initialize", adapterID="x")["supportsStepBack"]  # still alive


def test_bad_requests_after_launch() -> None:
    c = launched(LOOP, stopOnEntry=True)
    c.ok("configurationDone")
    c.event("stopped")
    for command, args, expected in [
        ("stackTrace", {"threadId": 9}, "no thread 9; threads: 1..1 (pool)"),
        ("evaluate", {"expression": "R1 +", "frameId": 1}, "column"),
        ("evaluate", {"expression": "sb[999, 0]", "frameId": 1}, "print:"),
        ("disassemble", {"memoryReference": "zz", "instructionCount": 1}, "expected an address"),
        ("variables", {"variablesReference": 15}, "no variables reference 15"),
        ("launch", {"program": str(LOOP)}, "already launched"),
        ("stepBack", {}, "threadId: Field required"),
    ]:
        r = c.request(command, args)
        assert not r["success"] and expected in r["message"], (command, r["message"])
    assert frame(c)["line"] == 5  # and the session goes on


def test_session_file_launches_at_its_saved_step(tmp_path: Any) -> None:
    from neurondbg.sessions.cli_support import open_program_or_session, save_after_run

    opened = open_program_or_session(LOOP)
    opened.core.cont(max_steps=5)
    save_after_run(tmp_path / "s.toml", opened)
    c = launched(tmp_path / "s.toml", stopOnEntry=True)
    c.ok("configurationDone")
    c.event("stopped")
    assert registers(c)["R1"] == "0x00000006 (6)" and frame(c)["line"] == 8
    for _ in range(5):  # its history goes back past the saved step, to the start
        c.ok("stepBack", threadId=1)
        assert c.event("stopped")["body"]["reason"] == "step"
    assert registers(c)["R1"] == "0x00000000 (0)" and registers(c)["PC"] == "0x0"
    c.ok("stepBack", threadId=1)
    assert c.event("stopped")["body"]["reason"] == "entry"


SPIN = """\
    MOVE R2=1
spin:
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=spin
    HALT
"""


def test_pause_stops_a_run_that_never_ends(tmp_path: Any) -> None:
    src = tmp_path / "spin.asm"
    src.write_text(SPIN)
    c = launched(src)
    c.ok("configurationDone")
    r = c.request("stackTrace", threadId=1)
    assert not r["success"] and "running" in r["message"]
    c.ok("pause", threadId=1)
    stop = c.event("stopped")["body"]
    assert stop["reason"] == "pause"
    assert frame(c)["line"] == 3  # it spins on the branch


def test_read_memory_of_sbuf_and_of_records() -> None:
    import base64

    import numpy as np

    c = launched(KERNELS / "producer_consumer.asm", stopOnEntry=True)
    c.ok("configurationDone")
    c.event("stopped")
    got = c.ok("readMemory", memoryReference="sbuf[1]", offset=0, count=8)
    values = np.frombuffer(base64.b64decode(got["data"]), dtype=np.float32)
    assert values.tolist() == [1.5, 1.75]  # .fill start=1.0 step=0.25 pstep=0.5
    rec = c.ok("readMemory", memoryReference=f"{1 << 48:#x}", count=160)
    raw = base64.b64decode(rec["data"])
    assert len(raw) == 128 and rec["unreadableBytes"] == 32  # DVE has two records
    insts = c.ok("disassemble", memoryReference=f"{1 << 48:#x}", instructionCount=1)
    assert insts["instructions"][0]["instructionBytes"] == raw[:64].hex(" ")
    r = c.request("readMemory", memoryReference="sbuf[999]", count=4)
    assert not r["success"] and "expected a partition 0..127" in r["message"]


TWO_MOVES = """\
.engine pool
    MOVE R1=5
    HALT
.engine dve
    MOVE R1=7
    HALT
"""


def test_kernel_register_watch_is_the_engines_own(tmp_path: Any) -> None:
    src = tmp_path / "two.asm"
    src.write_text(TWO_MOVES)
    c = launched(src, stopOnEntry=True)
    c.ok("configurationDone")
    c.event("stopped")
    threads = {t["name"]: t["id"] for t in c.ok("threads")["threads"]}
    ref = c.ok("scopes", frameId=threads["dve"])["scopes"][0]["variablesReference"]
    info = c.ok("dataBreakpointInfo", name="R1", variablesReference=ref)
    assert info["dataId"] == "R1@dve"
    c.ok("setDataBreakpoints", breakpoints=[{"dataId": "R1@dve"}])
    c.ok("continue", threadId=1)
    stop = c.event("stopped")["body"]
    assert stop["reason"] == "data breakpoint" and stop["threadId"] == threads["dve"]
    assert registers(c, threads["dve"])["R1"] == "0x00000007 (7)"
    assert registers(c, threads["pool"])["R1"] == "0x00000005 (5)"  # POOL's write passed


def test_evaluate_runs_the_console_x_command() -> None:
    c = launched(KERNELS / "producer_consumer.asm", stopOnEntry=True)
    c.ok("configurationDone")
    c.event("stopped")
    out = c.ok("evaluate", expression="x/2f sb[1, 0]", frameId=1, context="repl")["result"]
    assert out == "sbuf[1, 0x0000]  1.5  1.75"


def test_deadlock_is_an_exception_stop_naming_the_waits() -> None:
    c = launched(KERNELS / "deadlock.asm")
    c.ok("configurationDone")
    stop = c.event("stopped")["body"]
    assert stop["reason"] == "exception" and stop["description"].startswith("deadlock: ")
    assert "waits at" in stop["text"]


def test_instruction_scope_decodes_the_struct_fields() -> None:
    c = launched(LOOP, stopOnEntry=True)
    c.ok("configurationDone")
    c.event("stopped")
    ref = next(s["variablesReference"] for s in c.ok("scopes", frameId=1)["scopes"]
               if s["name"] == "Instruction")
    fields = {v["name"]: v["value"] for v in c.ok("variables", variablesReference=ref)["variables"]}
    assert fields["mnemonic"] == "MOVE" and fields["header.opcode"] == "167"


def test_disconnect_while_running_stops_the_run(tmp_path: Any) -> None:
    src = tmp_path / "spin.asm"
    src.write_text(SPIN)
    c = launched(src)
    c.ok("configurationDone")
    c.ok("disconnect")
    assert c.adapter.ended and not c.adapter.running


def test_function_breakpoints_are_labels_or_any_spec() -> None:
    c = launched(LOOP)
    bps = c.ok("setFunctionBreakpoints", breakpoints=[
        {"name": "loop", "condition": "R1 == 6"}, {"name": "nolabel"},
        {"name": "op:COMPARE_BRANCH if R2 == 3"}])["breakpoints"]
    assert [b["verified"] for b in bps] == [True, False, True]
    assert "unknown label 'nolabel'; labels: loop" in bps[1]["message"]
    c.ok("configurationDone")
    stop = c.event("stopped")["body"]
    assert stop["reason"] == "function breakpoint" and stop["hitBreakpointIds"] == [bps[0]["id"]]
    assert frame(c)["line"] == 7 and registers(c)["R1"] == "0x00000006 (6)"
    c.ok("continue", threadId=1)
    c.event("stopped")
    assert frame(c)["line"] == 10 and registers(c)["R2"] == "0x00000003 (3)"


def test_stop_on_halt_keeps_the_session_for_stepping_back() -> None:
    c = launched(LOOP, stopOnHalt=True)
    c.ok("configurationDone")
    stop = c.event("stopped")["body"]
    assert stop["reason"] == "halt" and stop["description"] == "HALT"
    assert registers(c)["R1"] == "0x0000001e (30)"
    c.ok("stepBack", threadId=1)
    c.event("stopped")
    assert frame(c)["line"] == 11  # before the HALT again
    c.ok("reverseContinue", threadId=1)
    assert c.event("stopped")["body"]["reason"] == "entry"
    assert frame(c)["line"] == 5 and registers(c)["R1"] == "0x00000000 (0)"


def test_evaluate_explains_a_pasted_compiler_message() -> None:
    c = launched(KERNELS / "producer_consumer.asm", stopOnEntry=True)
    c.ok("configurationDone")
    c.event("stopped")
    out = c.ok("evaluate", expression="explain GpSimd engine cannot access PSUM", frameId=1,
               context="repl")["result"]
    assert "gpsimd_no_psum(src)" in out.splitlines()[0]
