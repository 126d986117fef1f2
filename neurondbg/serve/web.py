"""textual-serve's Server behind the guard (guard.py): its page, its app processes, each
in the visitor's own folder (folders.py), some started ahead (apps.py), and a cap on them.

    server = GuardedServer(command, Guard.for_bind(host, port, token), host=host,
                           max_sessions=4, folders=VisitorFolders.open(None),
                           waiting_command=waiting, warm=1)
    interrupted = server.serve_on(sock)   # a listening socket; until Ctrl+C / SIGTERM

Every request passes the middleware first: a Host that does not reach the bound address
(or the `--public-url`) gets 403 (DNS rebinding); every path but `/static/` (the page's
scripts, fonts, CSS: textual-serve's own files) and the favicon needs the token, from the
`token` query parameter (the URL the banner prints) or the cookie the page sets; a
WebSocket also needs an Origin that is this server's page.

The page (templates/page.html) loads nothing from another server; its WebSocket is on
the host and scheme the browser loaded it from (so the page works from another machine
and behind a proxy, never pointing at a wildcard address), at `/ws/ID` where ID names the
visitor's folder, which the page shows. Each accepted WebSocket is one app process
(apps.VisitorApp), taken from the warm pool when one waits; beyond `max_sessions` of them,
or for an ID this server did not issue, a WebSocket is answered with a message written
into the page's terminal, held open (so the page shows the message, not "Session ended")
for REFUSAL_HOLD_S, and closed. Access logs (request lines, which hold the token) are
written only with `verbose`.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp_jinja2
import jinja2
from aiohttp import web
from aiohttp.log import access_logger
from aiohttp.web_runner import GracefulExit
from textual_serve.server import Server, to_int

from neurondbg.serve.apps import VisitorApp, Warm, WarmPool, stop
from neurondbg.serve.folders import VisitorFolders
from neurondbg.serve.guard import Guard, cookie_name

log = logging.getLogger("neurondbg.serve")

HERE = Path(__file__).resolve().parent
FAVICON = HERE / "static" / "favicon.svg"
PUBLIC_PATHS = frozenset({"/favicon.svg", "/favicon.ico"})  # besides /static/: no token
REFUSAL_HOLD_S = 300.0  # how long a refused page keeps showing why (then "Session ended")
MAX_HELD_REFUSALS = 32  # refused sockets held open at once; past it they close at once
WS_CLOSE_TRY_LATER = 1013  # RFC 6455 registry: "Try Again Later"
MAX_CELLS = 1000  # a page's first terminal size is clamped to 1..MAX_CELLS each way
FONT_SIZES = (6, 64)  # `?fontsize=` is clamped to this range (textual-serve's default 16)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def refusal(status: int, text: str) -> web.Response:
    """A one-line plain-text refusal (shown as the page when a browser gets it)."""
    return web.Response(status=status, text=f"neurondbg serve: {text}\n",
                        headers={"Cache-Control": "no-store"})


def _clamped(text: str | None, default: int, low: int, high: int) -> int:
    return max(low, min(high, to_int(text or "", default)))


class GuardedServer(Server):
    """textual-serve's Server answering only what `guard` lets through, running at most
    `max_sessions` app processes at once, each in its visitor's folder under `folders`,
    with `warm` processes of `waiting_command` (neurondbg.serve.waiting) started ahead of
    visitors."""

    def __init__(self, command: str, guard: Guard, *, host: str, max_sessions: int,
                 folders: VisitorFolders, waiting_command: str = "", warm: int = 0,
                 verbose: bool = False, title: str = "neurondbg") -> None:
        url_host = f"[{host}]" if ":" in host else host
        public = guard.public.origin if guard.public else f"http://{url_host}:{guard.port}"
        super().__init__(command, host=host, port=guard.port, title=title, public_url=public)
        self.guard = guard
        self.max_sessions = max_sessions
        self.folders = folders
        self.pool = WarmPool(waiting_command, folders, warm if waiting_command else 0)
        self.verbose = verbose
        self.sessions = 0  # accepted WebSockets whose app process has not yet ended
        self._held = 0  # refused WebSockets still open to show the message

    async def _make_app(self) -> web.Application:
        """The routes of textual-serve's application, with this page, the favicon and
        the visitor's id in the WebSocket's path, behind the guard's middleware."""
        app = web.Application(middlewares=[self._check])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(HERE / "templates"),
                             autoescape=True)
        app.add_routes([
            web.get("/", self.handle_index, name="index"),
            web.get("/ws/{visitor}", self.handle_websocket, name="websocket"),
            web.get("/download/{key}", self.handle_download, name="download"),
            web.get("/favicon.svg", self.handle_favicon),
            web.get("/favicon.ico", self.handle_favicon),
            web.static("/static", self.statics_path, name="static"),
        ])
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        app.on_cleanup.append(self.on_cleanup)
        return app

    def initialize_logging(self) -> None:
        """Warnings and errors (an app that fails to start) on stderr; with `verbose`,
        each request too."""
        logging.basicConfig(level=logging.INFO if self.verbose else logging.WARNING,
                            format="neurondbg serve: %(message)s",
                            handlers=[logging.StreamHandler(sys.stderr)])

    def serve_on(self, sock: socket.socket) -> bool:
        """Serve on the listening `sock` until Ctrl+C (True) or SIGTERM (False). The
        socket is the caller's, bound before the banner, so a client that reads the
        banner and connects at once is queued, never refused."""
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        got: list[int] = []

        def stop_serving(signum: int) -> None:
            got.append(signum)
            raise GracefulExit()  # what textual-serve's own handler raises

        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop_serving, signum)
        web.run_app(self._make_app(), sock=sock, handle_signals=False, loop=loop,
                    print=lambda *args: None,
                    access_log=access_logger if self.verbose else None)
        return signal.SIGINT in got

    async def on_startup(self, app: web.Application) -> None:
        """Start the waiting apps (the command prints the one banner itself)."""
        self.pool.fill()

    async def on_shutdown(self, app: web.Application) -> None:
        await self.pool.close()

    async def on_cleanup(self, app: web.Application) -> None:
        self.folders.close()

    @web.middleware
    async def _check(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        g = self.guard
        if not g.host_ok(request.headers.get("Host")):
            return refusal(403, f"Host {request.headers.get('Host', '(none)')!r} is not "
                           "this server's address (open the URL neurondbg serve printed)")
        if request.path.startswith("/static/") or request.path in PUBLIC_PATHS:
            return await handler(request)
        offered = request.query.get("token") or request.cookies.get(cookie_name(g.port))
        if not g.token_ok(offered):
            return refusal(403, "this page needs the token neurondbg serve printed "
                           "(open the whole URL from its banner: http://HOST:PORT/?token=...)")
        if request.path.startswith("/ws") and not g.origin_ok(request.headers.get("Origin"),
                                                               request.headers.get("Host")):
            return refusal(403, f"a WebSocket from Origin {request.headers.get('Origin')!r} "
                           "(only this server's own page may open one)")
        response = await handler(request)
        if request.query.get("token") and isinstance(response, web.Response):
            # later requests of the page (its WebSocket, downloads) carry it as a cookie
            response.set_cookie(cookie_name(g.port), g.token, httponly=True,
                                samesite="Strict", path="/")
        return response

    async def handle_favicon(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(FAVICON, headers={"Content-Type": "image/svg+xml",
                                                  "Cache-Control": "max-age=86400"})

    def websocket_base(self, request: web.Request) -> str:
        """`ws://HOST` (or the public URL's) for the page's WebSocket, before the page's
        script puts the browser's own host and scheme in its place."""
        if self.guard.public is not None:
            scheme = "wss" if self.guard.public.scheme == "https" else "ws"
            return f"{scheme}://{self.guard.public.authority}"
        return f"ws://{request.headers['Host']}"  # checked by the middleware

    async def handle_index(self, request: web.Request) -> web.Response:
        """The page, with a new visitor id: its WebSocket's path and its folder."""
        vid = self.folders.issue()
        path = f"/ws/{vid}"
        context = {
            "title": self.title,
            "font_size": _clamped(request.query.get("fontsize"), 16, *FONT_SIZES),
            "static_url": "/static/",
            "websocket_path": path,
            "websocket_url": self.websocket_base(request) + path,
            "files": str(self.folders.path(vid)),
        }
        response = aiohttp_jinja2.render_template("page.html", request, context)
        # the page's URL holds the token: no Referer from it, no caching
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One app process per socket of a page this server served, up to
        `max_sessions`; past it, or for another id, a refusal in the page."""
        if not self.folders.claim(request.match_info["visitor"]):
            return await self._refuse(request, "this page's session has ended or was not "
                                      "made by this server.\r\n  Reload this page.")
        if self.sessions >= self.max_sessions:
            n = self.max_sessions
            return await self._refuse(
                request, f"{n} session{'s are' if n != 1 else ' is'} open, the most this "
                f"server runs (--max-sessions {n}).\r\n  Close one (its browser tab) and "
                "reload this page.")
        self.sessions += 1
        folder: Path | None = None
        try:
            folder, warm = await self._folder_for(request.match_info["visitor"])
            return await self._run_app(request, folder, warm)
        except OSError as e:  # the folder could not be made
            return await self._refuse(request, f"cannot make your files folder: "
                                      f"{e.strerror or e}")
        finally:
            self.sessions -= 1
            if folder is not None:
                self.folders.release(folder)

    async def _folder_for(self, vid: str) -> tuple[Path, Warm | None]:
        """The visitor's folder and the waiting app renamed into it, or a new empty
        folder and None when no app waits (or its folder cannot be renamed)."""
        warm = self.pool.take()
        if warm is not None:
            try:
                return self.folders.adopt(warm.folder, vid), warm
            except OSError as e:
                log.warning("a waiting app's folder cannot be renamed: %s", e)
                await self.pool.discard(warm)
        return self.folders.make(vid), None

    async def _run_app(self, request: web.Request, folder: Path,
                       warm: Warm | None) -> web.WebSocketResponse:
        """textual-serve's handle_websocket, with the visitor's folder and app."""
        websocket = web.WebSocketResponse(heartbeat=15)
        width = _clamped(request.query.get("width"), 80, 1, MAX_CELLS)
        height = _clamped(request.query.get("height"), 24, 1, MAX_CELLS)
        app: VisitorApp | None = None
        try:
            await websocket.prepare(request)
            app = VisitorApp(self.command, folder=folder, warm=warm,
                             write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                             close=websocket.close, download_manager=self.download_manager)
            await app.start(width, height)
            await self._process_messages(websocket, app)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # a broken page or app ends this session, not the server
            log.exception(error)
        finally:
            if app is not None:
                await app.stop()
            elif warm is not None:
                await stop(warm.process)
        return websocket

    async def _refuse(self, request: web.Request, why: str) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=15)
        await ws.prepare(request)
        await ws.send_bytes(f"\r\n  neurondbg serve: {why}\r\n".encode())
        if self._held < MAX_HELD_REFUSALS:
            self._held += 1
            try:
                async with asyncio.timeout(REFUSAL_HOLD_S):
                    async for _ in ws:  # until the tab closes; what it sends is ignored
                        pass
            except TimeoutError:
                pass
            finally:
                self._held -= 1
        await ws.close(code=WS_CLOSE_TRY_LATER, message=b"refused")
        return ws
