"""`neurondbg serve` as a hostile page or client meets it: real HTTP and WebSocket
requests (aiohttp's client) against the command, started on 127.0.0.1 by the test.

Every exchange is bounded by WAIT (a hang guard, not a measure)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import aiohttp
import pytest

from tests.dap.client import EXAMPLES, REPO

WAIT = 60.0
T = TypeVar("T")


@dataclass(frozen=True)
class Served:
    port: int
    token: str

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    proc = subprocess.Popen([sys.executable, "-m", "neurondbg.commands.serve",
                             str(EXAMPLES / "loop.asm"), "--port", "0", "--max-sessions", "1"],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stderr is not None
        url = proc.stderr.readline().split()[2]  # http://127.0.0.1:PORT/?token=TOKEN
        head, _, token = url.partition("/?token=")
        yield Served(int(head.rsplit(":", 1)[1]), token)
    finally:
        proc.terminate()
        proc.wait(30)


def run(coro: Awaitable[T]) -> T:
    async def bounded() -> T:
        async with asyncio.timeout(WAIT):
            return await coro
    return asyncio.run(bounded())


async def status(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    async with aiohttp.ClientSession() as s, s.get(url, headers=headers) as r:
        return r.status, await r.text()


async def ws_status(s: Served, *, origin: str | None, query: str = "",
                    headers: dict[str, str] | None = None) -> int:
    """The status of a WebSocket handshake that is refused (101 when accepted)."""
    async with aiohttp.ClientSession() as session:
        try:
            ws = await session.ws_connect(f"{s.origin}/ws{query}", origin=origin,
                                          headers=headers)
        except aiohttp.WSServerHandshakeError as e:
            return e.status
        await ws.close()
        return 101


def test_the_page_needs_the_token(served: Served) -> None:
    code, text = run(status(f"{served.origin}/"))
    assert code == 403 and "needs the token" in text
    assert run(status(f"{served.origin}/?token=wrong"))[0] == 403
    assert run(status(f"{served.origin}/download/anything"))[0] == 403
    code, page = run(status(f"{served.origin}/?token={served.token}"))
    assert code == 200
    assert re.search(f'data-session-websocket-url="ws://127.0.0.1:{served.port}/ws/[0-9a-f]{{12}}"',
                     page)
    assert run(status(f"{served.origin}/static/js/textual.js"))[0] == 200  # the page's script


def test_a_rebound_host_name_is_refused(served: Served) -> None:
    for host in [f"evil.example:{served.port}", "127.0.0.1:1", f"127.0.0.1.nip.io:{served.port}"]:
        code, text = run(status(f"{served.origin}/?token={served.token}", {"Host": host}))
        assert code == 403 and "is not this server's address" in text, host
        assert run(status(f"{served.origin}/static/js/textual.js", {"Host": host}))[0] == 403
    ok = run(status(f"{served.origin}/?token={served.token}",
                    {"Host": f"localhost:{served.port}"}))
    assert ok[0] == 200 and f"ws://localhost:{served.port}/ws/" in ok[1]  # same-origin socket


def test_a_websocket_from_a_foreign_page_is_refused(served: Served) -> None:
    q = f"?token={served.token}"
    for origin in ["https://evil.example", "http://evil.example", "null",
                   f"http://localhost:{served.port}", f"http://127.0.0.1:{served.port + 1}",
                   f"https://127.0.0.1:{served.port}"]:
        assert run(ws_status(served, origin=origin, query=q)) == 403, origin
    rebound = {"Host": f"evil.example:{served.port}"}
    assert run(ws_status(served, origin=f"http://evil.example:{served.port}", query=q,
                         headers=rebound)) == 403


def test_a_websocket_without_the_token_is_refused(served: Served) -> None:
    assert run(ws_status(served, origin=served.origin)) == 403
    assert run(ws_status(served, origin=served.origin, query="?token=nope")) == 403
    assert run(ws_status(served, origin=None)) == 403


async def _first_bytes(ws: aiohttp.ClientWebSocketResponse) -> bytes:
    """The first terminal bytes the server sends (text frames are JSON metadata)."""
    async for msg in ws:
        if msg.type == aiohttp.WSMsgType.BINARY:
            return bytes(msg.data)
    raise AssertionError("the socket closed before any terminal bytes")


async def _screen_until(ws: aiohttp.ClientWebSocketResponse, text: bytes) -> bytes:
    """The terminal bytes the server sends until `text` is among them."""
    seen = b""
    while text not in seen:
        seen += await _first_bytes(ws)
    return seen


async def _sessions(s: Served) -> tuple[bytes, bytes, bytes]:
    jar = aiohttp.CookieJar(unsafe=True)  # keep cookies from an IP address, as browsers do
    async with aiohttp.ClientSession(cookie_jar=jar) as session:

        async def page_socket() -> str:
            """A page loaded: the path of its WebSocket."""
            async with session.get(f"{s.origin}/?token={s.token}") as r:
                assert r.status == 200
                found = re.search(r'data-websocket-path="([^"]+)"', await r.text())
                assert found is not None
                return found.group(1)

        # the page's socket: its own origin, the token as the cookie the page got
        first = await session.ws_connect(f"{s.origin}{await page_socket()}?width=100&height=30",
                                         origin=s.origin)
        app_bytes = await _screen_until(first, b"loaded loop.asm")  # the TUI's status
        second = await session.ws_connect(f"{s.origin}{await page_socket()}", origin=s.origin)
        refused = await _first_bytes(second)
        await second.close()
        await first.close()  # its app process ends; then another page may run one
        while True:
            third = await session.ws_connect(f"{s.origin}{await page_socket()}",
                                             origin=s.origin)
            later = await _first_bytes(third)
            await third.close()
            if b"--max-sessions" not in later:
                return app_bytes, refused, later
            await asyncio.sleep(0.2)


def test_the_page_runs_the_app_and_the_session_cap_refuses_in_the_page(served: Served) -> None:
    app_bytes, refused, later = run(_sessions(served))
    assert app_bytes.startswith(b"\x1b[") and b"--max-sessions" not in app_bytes
    text = refused.decode()
    assert "1 session is open, the most this server runs (--max-sessions 1)" in text
    assert "reload this page" in text
    assert later.startswith(b"\x1b[")  # an app's terminal output, once the first ended


def test_ipv6_loopback_serves_its_own_page() -> None:
    import socket
    try:
        socket.create_server(("::1", 0), family=socket.AF_INET6).close()
    except OSError as e:
        pytest.skip(f"cannot bind ::1 here: {e}")
    proc = subprocess.Popen([sys.executable, "-m", "neurondbg.commands.serve", "--port", "0",
                             "--host", "::1"], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        url = proc.stderr.readline().split()[2]
        assert url.startswith("http://[::1]:"), url
        port = int(url.split("]:")[1].split("/")[0])
        code, page = run(status(url))
        assert code == 200 and f"ws://[::1]:{port}/ws/" in page
        assert run(status(url, {"Host": f"127.0.0.1:{port}"}))[0] == 403  # not what it bound
    finally:
        proc.terminate()
        proc.wait(30)
