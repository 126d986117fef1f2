"""`neurondbg serve`'s page and app processes, against the server run in this process
(aiohttp's runner on a socket of the test's) with a stand-in app (fake_app.py): what
the page loads and points at, from another machine and behind a proxy, and each
visitor's own folder, with and without an app started ahead.

Every exchange is bounded by WAIT (a hang guard, not a measure)."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import stat
import sys
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import aiohttp
import pytest
from aiohttp import web

from neurondbg.serve.folders import VisitorFolders
from neurondbg.serve.guard import Guard, PublicURL, parse_public_url
from neurondbg.serve.listen import listening_socket
from neurondbg.serve.web import GuardedServer

WAIT = 60.0
TOKEN = "t0ken-for-the-page-tests"
FAKE = shlex.join([sys.executable, str(Path(__file__).with_name("fake_app.py"))])
FAKE_WAITING = f"{FAKE} --wait"
T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    async def bounded() -> T:
        async with asyncio.timeout(WAIT):
            return await coro
    return asyncio.run(bounded())


@dataclass
class Live:
    server: GuardedServer
    port: int

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def page_url(self) -> str:
        return f"{self.origin}/?token={TOKEN}"


@asynccontextmanager
async def serving(saves: Path, *, host: str = "127.0.0.1", public: PublicURL | None = None,
                  warm: int = 0, max_sessions: int = 4) -> AsyncIterator[Live]:
    """The server as `neurondbg serve` builds it, bound to 127.0.0.1 whatever `host` its
    guard is made for (a wildcard bind is then reached with another Host header)."""
    sock = listening_socket("127.0.0.1", 0)
    port = int(sock.getsockname()[1])
    server = GuardedServer(FAKE, Guard.for_bind(host, port, TOKEN, public), host=host,
                           max_sessions=max_sessions, folders=VisitorFolders.open(saves),
                           waiting_command=FAKE_WAITING, warm=warm)
    runner = web.AppRunner(await server._make_app(), access_log=None)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    try:
        yield Live(server, port)
    finally:
        await runner.cleanup()


def attr(page: str, name: str) -> str:
    found = re.search(rf'{name}="([^"]*)"', page)
    assert found is not None, name
    return found.group(1)


def files_folder(page: str) -> Path:
    found = re.search(r'<div id="files">.*?<code>([^<]+)</code>', page, re.S)
    assert found is not None
    return Path(found.group(1))


async def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, str]:
    async with aiohttp.ClientSession() as s, s.get(url, headers=headers) as r:
        return r.status, r.headers.get("Content-Type", ""), (await r.read()).decode("latin-1")


# -- what the page loads ----------------------------------------------------------------
REF = re.compile(r'(?:src|href)="([^"]*)"|url\("?([^")]+)"?\)')


def _refs(text: str) -> set[str]:
    return {a or b for a, b in REF.findall(text)}


def test_the_page_loads_only_this_servers_files(tmp_path: Path) -> None:
    async def check() -> None:
        async with serving(tmp_path / "saves") as live:
            code, _, page = await get(live.page_url)
            assert code == 200
            refs = _refs(page)
            css = [r for r in refs if r.endswith(".css")]
            assert css
            for sheet in css:
                refs |= {f"/static/css/{r}" if not r.startswith("/") else r
                         for r in _refs((await get(f"{live.origin}{sheet}"))[2])}
            assert "/favicon.svg" in refs and "/static/js/textual.js" in refs
            assert any(r.endswith("RobotoMono-VariableFont_wght.ttf") for r in refs)
            for ref in refs:  # every one a path on this server: no scheme, no other host
                assert ref.startswith("/") and not ref.startswith("//"), ref
                assert (await get(f"{live.origin}{ref}"))[0] == 200, ref
            script = (await get(f"{live.origin}/static/js/textual.js"))[2]
            for text in (page, script):  # nor any URL of another server in the code
                assert not re.findall(r"https?://(?!www\.w3\.org/)", text)
    run(check())


def test_a_favicon_is_served_without_the_token(tmp_path: Path) -> None:
    async def check() -> None:
        async with serving(tmp_path / "saves") as live:
            for path in ("/favicon.ico", "/favicon.svg"):
                code, kind, body = await get(f"{live.origin}{path}")
                assert (code, kind) == (200, "image/svg+xml") and body.startswith("<svg")
            assert (await get(f"{live.origin}/"))[0] == 403  # the page still needs it
    run(check())


def test_the_page_focuses_the_terminal_and_asks_before_a_reload(tmp_path: Path) -> None:
    async def check() -> str:
        async with serving(tmp_path / "saves") as live:
            return (await get(live.page_url))[2]
    page = run(check())
    script = page.split("<script>")[-1]
    assert '.xterm-helper-textarea")' in script and "input.focus()" in script
    assert 'addEventListener("beforeunload"' in script and "event.preventDefault()" in script


# -- where its URLs point ---------------------------------------------------------------
def test_a_wildcard_bind_points_the_page_at_the_host_the_browser_used(tmp_path: Path) -> None:
    async def check() -> None:
        async with serving(tmp_path / "saves", host="0.0.0.0") as live:
            lan = f"192.168.7.9:{live.port}"
            code, _, page = await get(live.page_url, {"Host": lan})
            assert code == 200 and "0.0.0.0" not in page
            path = attr(page, "data-websocket-path")
            assert re.fullmatch(r"/ws/[0-9a-f]{12}", path)
            assert attr(page, "data-session-websocket-url") == f"ws://{lan}{path}"
            # the page's script puts the browser's own location in its place
            assert "location.host + term.dataset.websocketPath" in page
    run(check())


def test_behind_a_proxy_the_page_and_its_socket_are_the_public_urls(tmp_path: Path) -> None:
    public = parse_public_url("https://dbg.example.org")

    async def check() -> None:
        async with serving(tmp_path / "saves", public=public) as live:
            jar = aiohttp.CookieJar(unsafe=True)
            async with aiohttp.ClientSession(cookie_jar=jar) as s:
                # a proxy that passes the public Host on
                async with s.get(live.page_url, headers={"Host": "dbg.example.org"}) as r:
                    page = await r.text()
                    assert r.status == 200
                path = attr(page, "data-websocket-path")
                assert attr(page, "data-session-websocket-url") == f"wss://dbg.example.org{path}"
                # one that rewrites Host to the bound address: the Origin is still the page's
                ws = await s.ws_connect(f"{live.origin}{path}",
                                        origin="https://dbg.example.org")
                first = await ws.receive(timeout=WAIT)
                assert first.type == aiohttp.WSMsgType.BINARY
                await ws.close()
                for origin in ("https://evil.example", "http://dbg.example.org",
                               "https://dbg.example.org:8443"):
                    with pytest.raises(aiohttp.WSServerHandshakeError) as e:
                        await s.ws_connect(f"{live.origin}{path}", origin=origin)
                    assert e.value.status == 403, origin
            assert (await get(live.page_url, {"Host": "other.example.org"}))[0] == 403
    run(check())


@pytest.mark.parametrize(("text", "expected"), [
    ("https://dbg.example.org", PublicURL("https", "dbg.example.org", 443)),
    ("https://DBG.example.org/", PublicURL("https", "dbg.example.org", 443)),
    ("http://10.0.0.5:8080", PublicURL("http", "10.0.0.5", 8080)),
    ("http://[fd00::5]:8080/", PublicURL("http", "fd00::5", 8080)),
])
def test_public_url(text: str, expected: PublicURL) -> None:
    assert parse_public_url(text) == expected


@pytest.mark.parametrize(("text", "why"), [
    ("dbg.example.org", "expected http://HOST[:PORT]"),
    ("ftp://dbg.example.org", "expected http://HOST[:PORT]"),
    ("https://", "expected http://HOST[:PORT]"),
    ("https://dbg.example.org:99999", "expected http://HOST[:PORT]"),
    ("https://dbg.example.org/ndbg/", "only the root of a host"),
    ("https://dbg.example.org/?a=1", "only the root of a host"),
    ("https://me:pw@dbg.example.org", "a user name or password"),
])
def test_bad_public_url(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=re.escape(why)):
        parse_public_url(text)


def test_public_origin_and_authority() -> None:
    assert parse_public_url("https://a.example:443").origin == "https://a.example"
    assert parse_public_url("http://a.example:8080").origin == "http://a.example:8080"
    assert parse_public_url("http://[::1]:81").authority == "[::1]:81"


# -- each visitor's folder --------------------------------------------------------------
async def _text_until(ws: aiohttp.ClientWebSocketResponse, needle: str) -> str:
    seen = ""
    while needle not in seen:
        msg = await ws.receive()
        if msg.type == aiohttp.WSMsgType.BINARY:
            seen += bytes(msg.data).decode()
        elif msg.type != aiohttp.WSMsgType.TEXT:
            raise AssertionError(f"closed before {needle!r}: {seen!r}")
    return seen


@asynccontextmanager
async def visitor(live: Live) -> AsyncIterator[tuple[aiohttp.ClientWebSocketResponse, Path]]:
    """A page loaded and its socket open: (the socket, the folder the page names)."""
    jar = aiohttp.CookieJar(unsafe=True)
    async with aiohttp.ClientSession(cookie_jar=jar) as s:
        async with s.get(live.page_url) as r:
            page = await r.text()
        ws = await s.ws_connect(f"{live.origin}{attr(page, 'data-websocket-path')}"
                                "?width=120&height=40", origin=live.origin)
        try:
            yield ws, files_folder(page)
        finally:
            await ws.close()


async def _cwd(ws: aiohttp.ClientWebSocketResponse) -> Path:
    await ws.send_str(json.dumps(["stdin", "c"]))
    text = await _text_until(ws, "cwd=")
    return Path(text.split("cwd=")[1].split("\r\n")[0])


async def _until_gone(folder: Path) -> None:
    while folder.exists():  # the app ends after its socket closes: then the folder goes
        await asyncio.sleep(0.02)


def test_each_visitor_saves_into_a_private_folder_of_its_own(tmp_path: Path) -> None:
    saves = tmp_path / "saves"

    async def check() -> None:
        async with serving(saves) as live:
            async with visitor(live) as (a, a_dir), visitor(live) as (b, b_dir):
                assert a_dir != b_dir and a_dir.parent == b_dir.parent == saves
                assert await _cwd(a) == a_dir and await _cwd(b) == b_dir
                for d in (a_dir, b_dir):
                    assert stat.S_IMODE(d.stat().st_mode) == 0o700
                await a.send_str(json.dumps(["stdin", "s"]))
                await _text_until(a, "saved")
            assert (a_dir / "saved.toml").read_text() == "saved = true\n"  # kept: work
            await _until_gone(b_dir)  # nothing saved in it: removed
            assert sorted(saves.iterdir()) == [a_dir]
        assert (a_dir / "saved.toml").is_file()  # the server's end keeps it
    run(check())
    assert Path.cwd() != saves


def test_the_base_folder_goes_at_the_end_when_nothing_was_saved(tmp_path: Path) -> None:
    async def check() -> Path:
        async with serving(tmp_path / "saves") as live:
            async with visitor(live) as (ws, folder):
                assert await _cwd(ws) == folder
            live.server.folders.owned = True  # as for the default, made in the temp dir
            return folder.parent
    base = run(check())
    assert not base.exists()


def test_a_socket_for_another_or_a_used_page_id_is_refused_in_the_page(tmp_path: Path) -> None:
    async def check() -> None:
        async with serving(tmp_path / "saves") as live:
            jar = aiohttp.CookieJar(unsafe=True)
            async with aiohttp.ClientSession(cookie_jar=jar) as s:
                async with s.get(live.page_url) as r:
                    path = attr(await r.text(), "data-websocket-path")
                first = await s.ws_connect(f"{live.origin}{path}", origin=live.origin)
                await _text_until(first, "pid=")
                for other in (path, "/ws/000000000000", "/ws/..%2f..%2fetc"):
                    ws = await s.ws_connect(f"{live.origin}{other}", origin=live.origin)
                    text = await _text_until(ws, "Reload this page")
                    assert "session has ended or was not made by this server" in text
                    await ws.close()
                await first.close()
            # no folder for a refused socket (the first page's goes once its app ends)
            assert {p.name for p in (tmp_path / "saves").iterdir()} <= {f"visitor-{path[4:]}"}
    run(check())


def test_a_visitor_gets_the_app_started_ahead_in_its_own_folder(tmp_path: Path) -> None:
    saves = tmp_path / "saves"

    async def check() -> None:
        async with serving(saves, warm=1) as live:
            pool = live.server.pool
            while pool.waiting < 1:
                await asyncio.sleep(0.02)
            ahead = pool._ready[0]
            assert ahead.folder.parent == saves and ahead.folder.name.startswith(".warm-")
            async with visitor(live) as (ws, folder):
                text = await _text_until(ws, "\r\n")  # the app's first words
                assert text == f"pid={ahead.process.pid} size=120x40\r\n"  # the page's size
                assert await _cwd(ws) == folder and not ahead.folder.exists()
                while pool.waiting < 1:  # a replacement waits for the next visitor
                    await asyncio.sleep(0.02)
                assert pool._ready[0].process.pid != ahead.process.pid
                waiting = pool._ready[0]
        assert waiting.process.returncode is not None  # stopped with the server
        assert list(saves.iterdir()) == []
    run(check())
