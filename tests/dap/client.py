"""A small DAP client for the tests: Content-Length framing over a byte stream, or
straight into an in-process Adapter; requests wait for their response, events queue."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

from neurondbg.dap.adapter import Adapter

WAIT = 30.0  # seconds before a missing message fails the test (not a timing assertion)
REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "sessions" / "examples"


def encode(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def decode_stream(stream: IO[bytes]) -> dict[str, Any] | None:
    """One message read the way an editor reads it (headers, blank line, body)."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    assert length is not None, "a frame without Content-Length"
    return json.loads(stream.read(length))


class Client:
    """Talks to an adapter; `inbox` gets every message it sends."""

    def __init__(self) -> None:
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.events: list[dict[str, Any]] = []
        self._seq = 0

    def send_raw(self, data: bytes) -> None:
        raise NotImplementedError

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(encode(message))

    def _next(self) -> dict[str, Any]:
        try:
            return self.inbox.get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError("the adapter sent nothing") from None

    def request(self, command: str, arguments: Any = None, **kw: Any) -> dict[str, Any]:
        """Send a request and return its response (events that arrive meanwhile queue)."""
        self._seq += 1
        msg: dict[str, Any] = {"seq": self._seq, "type": "request", "command": command}
        args = dict(kw) if arguments is None else arguments
        if args or arguments is not None:
            msg["arguments"] = args
        self.send(msg)
        while True:
            m = self._next()
            if m["type"] == "response" and m["request_seq"] == self._seq:
                assert m["command"] == command
                return m
            self.events.append(m)

    def ok(self, command: str, **kw: Any) -> dict[str, Any]:
        r = self.request(command, **kw)
        assert r["success"], r
        return r.get("body") or {}

    def event(self, name: str) -> dict[str, Any]:
        """The next event called `name` (earlier ones of other names are kept)."""
        for i, e in enumerate(self.events):
            if e["event"] == name:
                return self.events.pop(i)
        while True:
            m = self._next()
            if m["type"] == "event" and m["event"] == name:
                return m
            self.events.append(m)


class InProcess(Client):
    """An Adapter in this process: frames are decoded as the server would."""

    def __init__(self) -> None:
        super().__init__()
        self.adapter = Adapter(self.inbox.put)

    def send(self, message: dict[str, Any]) -> None:
        self.adapter.handle(json.loads(json.dumps(message)))


class Process(Client):
    """`python -m neurondbg.commands.dap` over stdio, read by a thread of its own."""

    def __init__(self, *args: str) -> None:
        super().__init__()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "neurondbg.commands.dap", *args], cwd=REPO,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        while (m := decode_stream(self.proc.stdout)) is not None:
            self.inbox.put(m)

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def close(self) -> int:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            return self.proc.wait(WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
