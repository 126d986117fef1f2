"""An adapter that never dies: whatever a client sends, the `threads` request after it
is answered. In-process (hypothesis: random bytes, random well-formed but wrong DAP
messages), then a real process over stdio and over TCP."""

from __future__ import annotations

import io
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.dap.server import run_session
from neurondbg.dap.wire import Reader, Writer
from tests.dap.client import EXAMPLES, Client, Process, decode_stream, encode
from tests.dap.tcp import Adapter

CANARY_SEQ = 10 ** 6
CANARY = {"seq": CANARY_SEQ, "type": "request", "command": "threads"}
COMMANDS = ["initialize", "launch", "attach", "configurationDone", "threads", "stackTrace",
            "scopes", "variables", "evaluate", "continue", "next", "stepIn", "stepOut",
            "stepBack", "reverseContinue", "pause", "setBreakpoints",
            "setInstructionBreakpoints", "setFunctionBreakpoints", "setDataBreakpoints",
            "dataBreakpointInfo", "setExceptionBreakpoints", "readMemory", "disassemble",
            "terminate", "restart", "source", "goto"]  # not disconnect: it ends the session

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
requests = st.fixed_dictionaries(
    {"type": st.sampled_from(["request", "request", "request", "response", "event", "x"]),
     "command": st.sampled_from(COMMANDS) | json_values},
    optional={"seq": json_values, "arguments": json_values | st.dictionaries(
        st.sampled_from(["program", "threadId", "frameId", "expression", "source",
                         "breakpoints", "variablesReference", "memoryReference", "count",
                         "adapterID", "token", "filters"]), json_values, max_size=4)})
header_pieces = st.lists(st.sampled_from([
    b"Content-Length: ", b"content-length:", b"-5", b"0", b"99999999999", b"ten", b"1e3",
    b"0x10", b"+5", b"\r\n", b"\r\n\r\n", b"\n", b":", b"X-Other: y", b"{", b"}", b"[",
    b"\"", b"\xff", b"POST / HTTP/1.1", b" "]), max_size=12).map(b"".join)
junk = (st.binary(max_size=200) | header_pieces
        | requests.map(lambda m: encode(m))
        | st.lists(json_values, max_size=3).map(lambda v: encode(v)))  # type: ignore[arg-type]


def answers(data: bytes) -> list[dict[str, Any]]:
    """Everything a fresh session sends back for `data` (then end of input)."""
    out = io.BytesIO()
    run_session(Reader(io.BytesIO(data)), Writer(out))
    stream, got = io.BytesIO(out.getvalue()), []
    while (m := decode_stream(stream)) is not None:
        got.append(m)
    return got


def canary_answered(got: list[dict[str, Any]]) -> bool:
    return any(m.get("type") == "response" and m.get("request_seq") == CANARY_SEQ
               and m.get("command") == "threads" for m in got)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(junk, min_size=1, max_size=3))
def test_whatever_comes_first_the_canary_is_answered(pieces: list[bytes]) -> None:
    got = answers(b"".join(pieces) + encode(CANARY))
    assert canary_answered(got), got[-3:]


LAUNCH = [{"seq": 1, "type": "request", "command": "initialize",
           "arguments": {"adapterID": "neurondbg"}},
          {"seq": 2, "type": "request", "command": "launch",
           "arguments": {"program": str(EXAMPLES / "loop.asm"), "stopOnEntry": True}},
          {"seq": 3, "type": "request", "command": "configurationDone"}]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(requests, min_size=1, max_size=4))
def test_wrong_requests_to_a_launched_session_leave_it_answering(
        messages: list[dict[str, Any]]) -> None:
    data = b"".join(map(encode, [*LAUNCH, *messages, CANARY]))
    got = answers(data)
    launched = next(m for m in got if m.get("request_seq") == 2 and m.get("type") == "response")
    assert launched["success"], launched
    assert canary_answered(got), got[-3:]
    # every request is answered once, whatever it was
    seqs = [m["request_seq"] for m in got if m.get("type") == "response"]
    assert len(seqs) == 4 + sum(m["type"] == "request" for m in messages)


HOSTILE = {
    "deeply nested arguments": b'{"seq":1,"type":"request","command":"evaluate","arguments":'
                               + b"[" * 50_000 + b"]" * 50_000 + b"}",
    "nested as deep as parses": json.dumps(
        {"seq": 1, "type": "request", "command": "evaluate",
         "arguments": {"expression": json.loads("[" * 900 + "]" * 900)}}).encode(),
    "a 5000-digit integer": b'{"seq":' + b"9" * 5000 + b',"type":"request","command":"x"}',
    "a 4300-digit seq": b'{"seq":' + b"9" * 4300 + b',"type":"request","command":"x"}',
}


def _hostile_then_canaries(c: Client) -> None:
    for name, body in HOSTILE.items():
        c.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        assert c.request("threads")["command"] == "threads", name  # answered: alive
    for header in [b"Content-Length: -5\r\n\r\n", b"Content-Length: 99999999999\r\n\r\n",
                   b"Content-Length: abc\r\n\r\n", b"Content-Type: x\r\n\r\n{}"]:
        c.send_raw(header)
        assert c.ok("initialize", adapterID="neurondbg")["supportsStepBack"], header


def test_stdio_survives_hostile_frames() -> None:
    c = Process()
    _hostile_then_canaries(c)
    bad = [e["body"]["output"] for e in c.events if e.get("event") == "output"]
    assert any("nested deeper than" in b for b in bad)
    assert any("Exceeds the limit (4300 digits)" in b for b in bad)
    assert any("expected a number, found '-5'" in b for b in bad)
    c.ok("disconnect")
    assert c.close() == 0


def test_tcp_survives_hostile_frames() -> None:
    adapter = Adapter()
    try:
        c = adapter.client()
        _hostile_then_canaries(c)
        c.ok("disconnect")
    finally:
        adapter.stop()
