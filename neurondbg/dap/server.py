"""Serve one debug session over a byte stream pair: stdio, or one TCP client.

    serve_streams(sys.stdin.buffer, sys.stdout.buffer)
    serve_tcp("127.0.0.1", 4711, ready=print)   # one client, then return

A frame that is not DAP is reported as an `output` event (category stderr) and the
adapter reads on; the session ends at end of input or after `disconnect`.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import IO

from neurondbg.dap.adapter import Adapter
from neurondbg.dap.wire import FramingError, Writer, read_message


def serve_streams(inp: IO[bytes], out: IO[bytes]) -> None:
    """Read requests from `inp` and answer on `out` until the session ends."""
    writer = Writer(out)
    adapter = Adapter(writer.send)
    try:
        while True:
            try:
                msg = read_message(inp)
            except FramingError as e:
                adapter.output(f"neurondbg dap: bad message: {e}", "stderr")
                continue
            if msg is None or not adapter.handle(msg):
                break
    finally:
        if adapter.target is not None:
            adapter.target.interrupt.set()
        adapter.wait(5)


def serve_tcp(host: str, port: int, ready: Callable[[int], None] | None = None) -> None:
    """Listen on (host, port) (0: any free port), serve the first client, then return;
    `ready(port)` is called once listening (the editor connects after it)."""
    with socket.create_server((host, port)) as server:
        if ready is not None:
            ready(server.getsockname()[1])
        conn, _ = server.accept()
        with conn, conn.makefile("rb") as inp, conn.makefile("wb") as out:
            serve_streams(inp, out)
