"""`neurondbg dap --port` against what else can reach a TCP port: a browser page's HTTP
request, a client without the token, a second client while one is served, other hosts.
Real processes and sockets on loopback; every wait is bounded (tests/dap/client.WAIT)."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator

import aiohttp
import pytest

from tests.dap.client import EXAMPLES, WAIT, encode
from tests.dap.tcp import Adapter, SocketClient

LOOP = EXAMPLES / "loop.asm"
INITIALIZE = {"seq": 1, "type": "request", "command": "initialize",
              "arguments": {"adapterID": "evil"}}


@pytest.fixture
def adapter() -> Iterator[Adapter]:
    a = Adapter()
    try:
        yield a
    finally:
        a.stop()


def _raw_exchange(port: int, data: bytes) -> bytes:
    """Send `data` on a fresh connection; all the adapter sends back until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as s:
        s.sendall(data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
        return out


def _launched_and_stepped(c: SocketClient, **launch: object) -> None:
    c.ok("initialize", adapterID="neurondbg")
    c.ok("launch", program=str(LOOP), stopOnEntry=True, **launch)
    c.event("initialized")
    c.ok("configurationDone")
    c.event("stopped")
    c.ok("next", threadId=1)
    assert c.event("stopped")["body"]["reason"] == "step"
    c.ok("disconnect")


def test_an_http_post_from_a_page_is_refused_and_never_a_request(adapter: Adapter) -> None:
    body = json.dumps(INITIALIZE).encode()
    post = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: https://evil.example\r\n"
            b"Content-Type: text/plain\r\nContent-Length: %d\r\n\r\n" % (adapter.port, len(body))
            + body)
    reply = _raw_exchange(adapter.port, post)
    assert reply.startswith(b"HTTP/1.1 403 Forbidden\r\n")
    assert reply.endswith(b"neurondbg dap: this port speaks the Debug Adapter Protocol, not "
                          b"HTTP\n")
    assert b'"command"' not in reply  # no DAP response to the smuggled initialize

    async def fetch() -> int:  # what a page's fetch() sends, from a real HTTP client
        async with aiohttp.ClientSession() as s, s.post(
                f"http://127.0.0.1:{adapter.port}/", data=body,
                headers={"Origin": "https://evil.example"}) as r:
            return r.status

    assert asyncio.run(asyncio.wait_for(fetch(), WAIT)) == 403
    _launched_and_stepped(adapter.client())  # the port still serves an editor


def test_a_second_client_gets_an_error_while_the_first_is_served(adapter: Adapter) -> None:
    first = adapter.client()
    first.ok("initialize", adapterID="neurondbg")
    second = adapter.client()
    r = second.request("initialize", adapterID="neurondbg")
    assert not r["success"]
    assert r["message"].startswith("neurondbg dap: another client is being debugged on this "
                                   "port (one at a time)")
    assert second.closed.wait(WAIT)
    assert first.ok("initialize", adapterID="again")["supportsStepBack"]  # undisturbed
    first.ok("disconnect")
    assert first.closed.wait(WAIT)
    _launched_and_stepped(adapter.client())  # and the next one is served


@pytest.fixture
def with_token() -> Iterator[tuple[Adapter, str]]:
    a = Adapter("--token", banner=2)
    try:
        prefix = "neurondbg dap: token "
        assert a.lines[1].startswith(prefix), a.lines
        yield a, a.lines[1][len(prefix):].split()[0]
    finally:
        a.stop()


def test_the_token_is_needed_before_anything_but_initialize(
        with_token: tuple[Adapter, str]) -> None:
    adapter, token = with_token
    assert len(token) == 32
    c = adapter.client()
    assert c.ok("initialize", adapterID="neurondbg")["supportsStepBack"]  # harmless
    for command, args in [("launch", {"program": str(LOOP)}), ("threads", {}),
                          ("evaluate", {"expression": "R1"})]:
        r = c.request(command, args)
        assert not r["success"] and "needs its token first" in r["message"], r
    r = c.request("launch", program=str(LOOP), token="not-it")
    assert not r["success"] and "not this adapter's token" in r["message"]
    assert c.closed.wait(WAIT)  # a wrong token ends the connection
    _launched_and_stepped(adapter.client(), token=token)


def test_the_token_may_come_in_initialize(with_token: tuple[Adapter, str]) -> None:
    adapter, token = with_token
    c = adapter.client()
    c.ok("initialize", adapterID="neurondbg", token=token)
    c.ok("launch", program=str(LOOP), stopOnEntry=True)
    c.event("initialized")
    assert [t["name"] for t in c.ok("threads")["threads"]] == ["pool"]
    c.ok("disconnect")


def test_stdio_has_no_token() -> None:
    from click.testing import CliRunner

    from neurondbg.commands.dap import command
    r = CliRunner().invoke(command, ["--token"])
    assert r.exit_code == 2 and "--token: only with --port" in r.output


def test_ipv6_loopback() -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    try:
        socket.create_server(("::1", 0), family=socket.AF_INET6).close()
    except OSError as e:
        pytest.skip(f"cannot bind ::1 here: {e}")
    a = Adapter("--host", "::1")
    try:
        assert a.lines[0].startswith("neurondbg dap: listening on [::1]:")
        _launched_and_stepped(a.client("::1"))
    finally:
        a.stop()


def test_a_wildcard_host_warns() -> None:
    a = Adapter("--host", "0.0.0.0", banner=2)
    try:
        assert a.lines[0].startswith("neurondbg dap: listening on 0.0.0.0:")
        assert a.lines[1].startswith("neurondbg: warning: --host 0.0.0.0: anyone who reaches "
                                     "port ")
        assert a.lines[1].endswith("can debug programs as you, with your files (--token "
                                   "requires a secret)")
    finally:
        a.stop()


def test_an_http_request_after_frames_is_refused_too(adapter: Adapter) -> None:
    reply = _raw_exchange(adapter.port, encode(INITIALIZE) + b"GET / HTTP/1.1\r\n\r\n")
    assert b'"success":true' in reply and reply.endswith(b"not HTTP\n")
