"""Serve debug sessions over byte streams: stdio (one session), or TCP (one client at a
time, one after another, until the process is stopped).

    serve_streams(sys.stdin.buffer, sys.stdout.buffer)
    serve_tcp("127.0.0.1", 4711, ready=print, token=None, log=print)   # until Ctrl+C

A frame that is not DAP is reported as an `output` event (category stderr) and the
adapter reads on (wire.Reader resynchronises); a session ends at end of input, after
`disconnect`, or when the client stops reading.

Over TCP, whose port any page in a browser can reach with `fetch`:
- a connection whose bytes are an HTTP request is answered `403` and closed, so a
  cross-origin POST never becomes a DAP request;
- with a token (`--token`), requests wait for it (session.py);
- while one client is served, another gets an error response to its first request
  (or nothing, after TURN_AWAY_WAIT_S of silence) and is closed; at most
  MAX_TURNING_AWAY are being turned away at once, past that they are closed at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from neurondbg.dap.messages import error_response
from neurondbg.dap.session import Session
from neurondbg.dap.wire import FramingError, HttpRequest, Reader, Writer

if TYPE_CHECKING:  # stdio, what editors start, never opens a socket
    import socket

Log = Callable[[str], None]
TURN_AWAY_WAIT_S = 10.0  # how long a second client has to send its first request
MAX_TURNING_AWAY = 8
RECONNECT_GRACE_S = 1.0  # how long a new client waits for the one before it to finish
BUSY = ("another client is being debugged on this port (one at a time): connect again "
        "when it has disconnected")
HTTP_BODY = b"neurondbg dap: this port speaks the Debug Adapter Protocol, not HTTP\n"
HTTP_REFUSAL = (b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(HTTP_BODY)
                + HTTP_BODY)


def _quiet(_: str) -> None:
    pass


def run_session(reader: Reader, writer: Writer, token: str | None = None,
                on_http: Callable[[HttpRequest], None] | None = None) -> str:
    """Serve one session; why it ended (for the server's log)."""
    session = Session(writer.send, token)
    try:
        while not writer.closed:
            try:
                msg = reader.next()
            except HttpRequest as e:
                if on_http is None:
                    session.output(f"neurondbg dap: bad message: {e}", "stderr")
                    continue
                on_http(e)
                return "refused: an HTTP request, not DAP"
            except FramingError as e:
                session.output(f"neurondbg dap: bad message: {e}", "stderr")
                continue
            if msg is None:
                return "end of input"
            if not session.handle(msg):
                return session.end_reason
        return "client gone"
    finally:
        session.close()


def serve_streams(inp: IO[bytes], out: IO[bytes]) -> None:
    """Read requests from `inp` and answer on `out` until the session ends."""
    run_session(Reader(inp), Writer(out))


def _peer(address: tuple[object, ...]) -> str:
    host, port = address[0], address[1]
    return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"


def _serve_client(conn: socket.socket, peer: str, token: str | None, busy: threading.Lock,
                  log: Log) -> None:
    released = False
    try:
        with conn, conn.makefile("rb") as inp, conn.makefile("wb") as out:
            log(f"{peer}: connected")

            def refuse(e: HttpRequest) -> None:
                out.write(HTTP_REFUSAL)
                out.flush()

            why = run_session(Reader(inp), Writer(out), token, refuse)
            # Free the port before the client sees the close: a client that reconnects
            # as soon as it is closed (an editor's next debug session) is then served.
            busy.release()
            released = True
            log(f"{peer}: {why}")
    except OSError as e:
        log(f"{peer}: {e.strerror or e}")
    finally:
        if not released:
            busy.release()


def _turn_away(conn: socket.socket, peer: str, slots: threading.BoundedSemaphore,
               log: Log) -> None:
    """Answer a second client's first request with an error, then close."""
    try:
        conn.settimeout(TURN_AWAY_WAIT_S)
        with conn, conn.makefile("rb") as inp, conn.makefile("wb") as out:
            reader = Reader(inp)
            while True:
                try:
                    msg = reader.next()
                except HttpRequest:
                    out.write(HTTP_REFUSAL)
                    out.flush()
                    break
                except FramingError:
                    continue
                if msg is None:
                    break
                if msg.get("type") == "request":
                    Writer(out).send(error_response(msg, f"neurondbg dap: {BUSY}"))
                    break
        log(f"{peer}: turned away ({BUSY.split(':')[0]})")
    except OSError as e:  # silent past the wait, or gone
        log(f"{peer}: turned away: {e.strerror or e}")
    finally:
        slots.release()


def serve_tcp(host: str, port: int, ready: Callable[[int], None] | None = None,
              token: str | None = None, log: Log = _quiet) -> None:
    """Listen on (host, port) (0: any free port) and serve clients one after another
    until interrupted; `ready(port)` is called once listening (the editor connects after
    it). OSError when it cannot listen."""
    from neurondbg.serve.listen import listening_socket

    with listening_socket(host, port) as server:
        if ready is not None:
            ready(server.getsockname()[1])
        busy = threading.Lock()
        slots = threading.BoundedSemaphore(MAX_TURNING_AWAY)
        while True:
            conn, address = server.accept()
            peer = _peer(address)
            # A client that reconnects the moment its last session answered (an editor's
            # next debug session) may arrive before that session has let go: wait briefly.
            if busy.acquire(timeout=RECONNECT_GRACE_S):
                threading.Thread(target=_serve_client, args=(conn, peer, token, busy, log),
                                 name="neurondbg-dap-client", daemon=True).start()
            elif slots.acquire(blocking=False):
                threading.Thread(target=_turn_away, args=(conn, peer, slots, log),
                                 name="neurondbg-dap-busy", daemon=True).start()
            else:
                conn.close()
                log(f"{peer}: closed (busy)")
