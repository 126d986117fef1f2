"""DAP framing: `Content-Length: N\\r\\n\\r\\n` then N bytes of UTF-8 JSON, both ways.

`read_message` returns one decoded message, None at end of input, or raises
FramingError (a ValueError: one line) for a frame that is not one; the reader is
then at the next header, so the adapter can report it and go on.
"""

from __future__ import annotations

import json
import threading
from typing import IO, Any

MAX_MESSAGE_BYTES = 16 * 1024 * 1024  # a request is small; refuse a runaway length
MAX_HEADER_LINES = 32


class FramingError(ValueError):
    """A frame whose header or body is not DAP (one line saying what was expected)."""


def read_message(stream: IO[bytes]) -> dict[str, Any] | None:
    """The next message from `stream`; None at end of input."""
    length: int | None = None
    for _ in range(MAX_HEADER_LINES):
        line = stream.readline(1024)
        if not line:
            return None
        text = line.decode("ascii", errors="replace").strip()
        if not text:
            if length is None:
                continue  # blank lines between frames are tolerated
            break
        name, colon, value = text.partition(":")
        if not colon:
            raise FramingError(f"expected a 'Name: value' header line, found {text[:60]!r}")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise FramingError(f"Content-Length: expected a number, found "
                                   f"{value.strip()[:20]!r}") from None
            if not 0 <= length <= MAX_MESSAGE_BYTES:
                raise FramingError(f"Content-Length: expected 0..{MAX_MESSAGE_BYTES}, "
                                   f"found {length}")
    else:
        raise FramingError(f"expected a blank line after at most {MAX_HEADER_LINES} headers")
    if length is None:
        raise FramingError("expected a Content-Length header")
    body = stream.read(length)
    if len(body) < length:
        return None  # the client went away mid-message
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise FramingError(f"expected a JSON body of {length} bytes: {e}") from None
    if not isinstance(message, dict):
        raise FramingError(f"expected a JSON object, found {type(message).__name__}")
    return message


def frame(message: dict[str, Any]) -> bytes:
    """The bytes of one message on the wire."""
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Writer:
    """Sends messages on `stream` one whole frame at a time (the worker thread that runs
    `continue` and the request loop both write), numbering them with `seq`."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._seq = 0
        self.closed = False

    def send(self, message: dict[str, Any]) -> None:
        with self._lock:
            if self.closed:
                return
            self._seq += 1
            message["seq"] = self._seq
            try:
                self._stream.write(frame(message))
                self._stream.flush()
            except (BrokenPipeError, ValueError, OSError):  # the client has gone
                self.closed = True
