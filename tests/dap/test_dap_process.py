"""`neurondbg dap` as an editor starts it: a real process, DAP framed on stdio or TCP."""

from __future__ import annotations

from tests.dap.client import EXAMPLES, REPO, WAIT, Client, Process
from tests.dap.tcp import Adapter

LOOP = EXAMPLES / "loop.asm"


def session(c: Client) -> None:
    """initialize, launch, a line breakpoint, continue, registers, step back, evaluate,
    continue to the end, disconnect."""
    assert c.ok("initialize", adapterID="neurondbg")["supportsStepBack"]
    c.ok("launch", program=str(LOOP))
    c.event("initialized")
    bp = c.ok("setBreakpoints", source={"path": str(LOOP)},
              breakpoints=[{"line": 8}])["breakpoints"][0]
    c.ok("configurationDone")
    stop = c.event("stopped")["body"]
    assert stop["reason"] == "breakpoint" and stop["hitBreakpointIds"] == [bp["id"]]
    f = c.ok("stackTrace", threadId=1)["stackFrames"][0]
    assert f["line"] == 8
    ref = c.ok("scopes", frameId=f["id"])["scopes"][0]["variablesReference"]
    regs = {v["name"]: v["value"] for v in c.ok("variables", variablesReference=ref)["variables"]}
    assert regs["R1"] == "0x00000003 (3)" and regs["PC"] == "0x80"
    c.ok("stepBack", threadId=1)
    c.event("stopped")
    assert c.ok("stackTrace", threadId=1)["stackFrames"][0]["line"] == 7
    assert c.ok("evaluate", expression="R1", frameId=1, context="repl")["result"] == "0 (0x0)"
    c.ok("setBreakpoints", source={"path": str(LOOP)}, breakpoints=[])
    c.ok("continue", threadId=1)
    c.event("exited")
    c.ok("disconnect")


def test_stdio_session() -> None:
    c = Process()
    session(c)
    assert c.close() == 0


def test_bad_frames_and_requests_leave_the_adapter_alive() -> None:
    c = Process()
    c.send_raw(b"Content-Length: 7\r\n\r\nnotjson")
    assert "expected a JSON body" in c.event("output")["body"]["output"]
    c.send_raw(b"Bogus header\r\n\r\n")
    assert "Name: value" in c.event("output")["body"]["output"]
    r = c.request("launch", program=str(REPO / "no-such.asm"))
    assert not r["success"] and "no such file" in r["message"]
    r = c.request("stackTrace", threadId=1)
    assert not r["success"] and "nothing is launched yet" in r["message"]
    session(c)
    assert c.close() == 0


def test_tcp_sessions_on_loopback_one_after_another_until_ctrl_c() -> None:
    adapter = Adapter()
    try:
        assert adapter.lines[0].startswith("neurondbg dap: listening on 127.0.0.1:")
        for _ in range(2):  # the second debug session finds the port still served
            c = adapter.client()
            session(c)
            assert c.closed.wait(WAIT)  # closed after disconnect
            c.close()
        code, rest = adapter.interrupt()
        assert code == 130 and rest.rstrip().endswith("neurondbg: interrupted")
    finally:
        adapter.stop()


def test_stdio_kernel_threads_are_its_engines() -> None:
    src = EXAMPLES / "kernels" / "producer_consumer.asm"
    c = Process()
    c.ok("initialize", adapterID="neurondbg")
    c.ok("launch", program=str(src), schedule="in-order")
    c.event("initialized")
    assert [t["name"] for t in c.ok("threads")["threads"]] == ["pool", "dve"]
    c.ok("setBreakpoints", source={"path": str(src)}, breakpoints=[{"line": 21}])
    c.ok("configurationDone")
    stop = c.event("stopped")["body"]
    assert stop["threadId"] == 2
    f = c.ok("stackTrace", threadId=2)["stackFrames"][0]
    assert (f["line"], f["name"]) == (21, "dve: HALT @ 0x40")
    c.ok("disconnect")
    assert c.close() == 0
