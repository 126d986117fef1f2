"""`neurondbg dap` as an editor starts it: a real process, DAP framed on stdio or TCP."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading

from tests.dap.client import EXAMPLES, REPO, WAIT, Client, Process, decode_stream

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


class _Socket(Client):
    def __init__(self, port: int) -> None:
        super().__init__()
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        self.file = self.sock.makefile("rb")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while (m := decode_stream(self.file)) is not None:
            self.inbox.put(m)

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)


def test_tcp_session_on_loopback() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "neurondbg.commands.dap", "--port", "0"],
                            cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.startswith("neurondbg dap: listening on 127.0.0.1:")
        c = _Socket(int(line.rsplit(":", 1)[1]))
        session(c)
        assert proc.wait(WAIT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


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
