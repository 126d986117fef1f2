"""textual-serve's Server behind the guard (guard.py), with a cap on its app processes.

    server = GuardedServer(command, Guard.for_bind(host, port, token), host=host,
                           max_sessions=4)
    interrupted = server.serve_on(sock)   # a listening socket; until Ctrl+C / SIGTERM

Every request passes the middleware first: a Host that does not reach the bound address
gets 403 (DNS rebinding); every path but `/static/` (the page's scripts, fonts, CSS:
textual-serve's own files) needs the token, from the `token` query parameter (the URL
the banner prints) or the cookie the page sets; a WebSocket also needs an Origin that is
this server's page. The page itself is textual-serve's template, with the WebSocket
address taken from the request's (checked) Host, so `localhost` and `127.0.0.1` each
stay same-origin.

Each accepted WebSocket is one app process (textual-serve's AppService); beyond
`max_sessions` of them a WebSocket is answered with a message written into the page's
terminal, held open (so the page shows the message, not "Session ended") for
REFUSAL_HOLD_S, and closed.
"""

from __future__ import annotations

import asyncio
import signal
import socket
from collections.abc import Awaitable, Callable

import aiohttp_jinja2
from aiohttp import web
from aiohttp.web_runner import GracefulExit
from textual_serve.server import Server, to_int

from neurondbg.serve.guard import Guard, cookie_name

REFUSAL_HOLD_S = 300.0  # how long a refused page keeps showing why (then "Session ended")
MAX_HELD_REFUSALS = 32  # refused sockets held open at once; past it they close at once
WS_CLOSE_TRY_LATER = 1013  # RFC 6455 registry: "Try Again Later"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def refusal(status: int, text: str) -> web.Response:
    """A one-line plain-text refusal (shown as the page when a browser gets it)."""
    return web.Response(status=status, text=f"neurondbg serve: {text}\n",
                        headers={"Cache-Control": "no-store"})


class GuardedServer(Server):
    """textual-serve's Server answering only what `guard` lets through, running at most
    `max_sessions` app processes at once."""

    def __init__(self, command: str, guard: Guard, *, host: str, max_sessions: int,
                 title: str = "neurondbg") -> None:
        url_host = f"[{host}]" if ":" in host else host
        super().__init__(command, host=host, port=guard.port, title=title,
                         public_url=f"http://{url_host}:{guard.port}")
        self.guard = guard
        self.max_sessions = max_sessions
        self.sessions = 0  # accepted WebSockets whose app process has not yet ended
        self._held = 0  # refused WebSockets still open to show the message

    async def _make_app(self) -> web.Application:
        """textual-serve's application (its routes) behind the guard's middleware."""
        app = await super()._make_app()
        app.middlewares.append(self._check)
        return app

    def serve_on(self, sock: socket.socket) -> bool:
        """Serve on the listening `sock` until Ctrl+C (True) or SIGTERM (False). The
        socket is the caller's, bound before the banner, so a client that reads the
        banner and connects at once is queued, never refused."""
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        got: list[int] = []

        def stop(signum: int) -> None:
            got.append(signum)
            raise GracefulExit()  # what textual-serve's own handler raises

        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop, signum)
        web.run_app(self._make_app(), sock=sock, handle_signals=False, loop=loop,
                    print=lambda *args: None)
        return signal.SIGINT in got

    async def on_startup(self, app: web.Application) -> None:
        """Quiet: the command prints the one banner (with the token) itself."""

    @web.middleware
    async def _check(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        g = self.guard
        if not g.host_ok(request.headers.get("Host")):
            return refusal(403, f"Host {request.headers.get('Host', '(none)')!r} is not "
                           "this server's address (open the URL neurondbg serve printed)")
        if request.path.startswith("/static/"):
            return await handler(request)
        offered = request.query.get("token") or request.cookies.get(cookie_name(g.port))
        if not g.token_ok(offered):
            return refusal(403, "this page needs the token neurondbg serve printed "
                           "(open the whole URL from its banner: http://HOST:PORT/?token=...)")
        if request.path == "/ws" and not g.origin_ok(request.headers.get("Origin"),
                                                      request.headers.get("Host")):
            return refusal(403, f"a WebSocket from Origin {request.headers.get('Origin')!r} "
                           "(only this server's own page may open one)")
        response = await handler(request)
        if request.query.get("token") and isinstance(response, web.Response):
            # later requests of the page (its WebSocket, downloads) carry it as a cookie
            response.set_cookie(cookie_name(g.port), g.token, httponly=True,
                                samesite="Strict", path="/")
        return response

    async def handle_index(self, request: web.Request) -> web.Response:
        """textual-serve's page, its WebSocket on the Host the page was asked by (checked
        by the middleware), so the socket is same-origin and carries the cookie."""
        host = request.headers["Host"]
        context = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": f"ws://{host}/ws",
            "config": {"static": {"url": "/static/"}},
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        # the page's URL holds the token: no Referer to the fonts it loads, no caching
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One app process per socket, up to `max_sessions`; past it, a refusal."""
        if self.sessions >= self.max_sessions:
            return await self._refuse(request)
        self.sessions += 1
        try:
            return await super().handle_websocket(request)
        finally:
            self.sessions -= 1

    async def _refuse(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=15)
        await ws.prepare(request)
        n = self.max_sessions
        text = (f"\r\n  neurondbg serve: {n} session{'s are' if n != 1 else ' is'} open, the "
                f"most this server runs (--max-sessions {n}).\r\n"
                "  Close one (its browser tab) and reload this page.\r\n")
        await ws.send_bytes(text.encode())
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
        await ws.close(code=WS_CLOSE_TRY_LATER, message=b"session limit")
        return ws
