"""DAP framing: `Content-Length: N\\r\\n\\r\\n` then N bytes of UTF-8 JSON, both ways.

    reader = Reader(stream)
    while True:
        try:
            message = reader.next()      # a dict, or None at end of input
        except HttpRequest: ...          # an HTTP request, not DAP: refuse the connection
        except FramingError as e: ...    # one bad frame: report it, read on
        if message is None: break

A client is not trusted to frame correctly. After a frame that is not one (a header
that is not `Name: value`, a Content-Length that is missing, negative, huge or not a
number, a body that is not a JSON object, JSON nested deeper than the parser goes or
holding an integer past Python's 4,300-digit limit), `next` raises FramingError once
and then skips to the next `Content-Length:` after where the bad frame began (after a
bad body: after the body, unless a header begins inside it), so the following good
frame is read whole. A body still arriving that holds a header line
(`Content-Length: N` then a raw line break: never valid JSON, whose strings cannot hold
a raw line break) is a frame whose length overstated its body: the reader does not wait
for bytes that are not coming, but reports it and resynchronises there.

The reader holds at most one frame and a chunk: MAX_MESSAGE_BYTES + READ_CHUNK.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from typing import IO

MAX_MESSAGE_BYTES = 16 * 1024 * 1024  # a request is small; refuse a runaway length
MAX_HEADER_BYTES = 8 * 1024  # the header block (DAP has one header; HTTP's are longer)
READ_CHUNK = 64 * 1024

_HEADER_START = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
_BLANK_LINE = re.compile(rb"\r?\n\r?\n")
_NOT_IN_JSON = re.compile(rb"content-length[ \t]*:[ \t]*\d*[ \t]*\r?\n", re.IGNORECASE)
_HTTP_REQUEST_LINE = re.compile(rb"[A-Z]{3,16} [!-~]+ HTTP/\d(\.\d)?\r?")
_LENGTH = re.compile(r"[ \t]*(\d{1,12})[ \t]*")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP header name (RFC 9110)


class FramingError(ValueError):
    """A frame whose header or body is not DAP (one line saying what was expected)."""


class HttpRequest(FramingError):
    """The bytes are an HTTP request (a browser's `fetch`), not a DAP frame."""


class Reader:
    """Messages from a byte stream (stdin, a socket's file), resynchronising after a
    bad frame (module docstring)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._buf = bytearray()
        self._eof = False
        self._skipping = False  # after a bad frame: looking for the next header

    # -- input ---------------------------------------------------------------------------
    def _fill(self) -> bool:
        """Read what the stream has (at least a byte); False at end of input."""
        if self._eof:
            return False
        read1 = getattr(self._stream, "read1", None)
        chunk = read1(READ_CHUNK) if read1 is not None else self._stream.read(1)
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def _resync(self, after: int) -> None:
        """Drop bytes up to the next header start found at `after` or later."""
        m = _HEADER_START.search(self._buf, after)
        if m is not None:
            del self._buf[:m.start()]
            self._skipping = False
        else:  # keep a tail that may be the start of a header cut by the chunk
            keep = len("content-length") + 8
            del self._buf[:max(after, len(self._buf) - keep)]
            self._skipping = True

    def _bad(self, text: str) -> FramingError:
        self._resync(1)
        return FramingError(text)

    # -- frames --------------------------------------------------------------------------
    def next(self) -> dict[str, object] | None:
        """The next message; None at end of input; FramingError for a bad frame (after
        which the reader has skipped to the next header)."""
        while True:
            if self._skipping:
                self._resync(0)
                if self._skipping:
                    if not self._fill():
                        return None
                    continue
            header = self._header_block()
            if header is None:
                return None
            return self._body(header)

    def _header_block(self) -> tuple[int, int] | None:
        """(Content-Length, where the body starts) of the frame at the buffer's start;
        None at end of input."""
        while True:
            while not self._buf or self._buf[0] in b"\r\n":  # blank lines between
                if self._buf:  # frames are tolerated
                    del self._buf[:1]
                elif not self._fill():
                    return None
            first_end = self._buf.find(b"\n")
            if first_end >= 0 and _HTTP_REQUEST_LINE.fullmatch(self._buf, 0, first_end):
                line = bytes(self._buf[:first_end]).strip().decode("ascii", "replace")
                self._resync(1)  # the server closes a socket here; stdio reads on
                raise HttpRequest(f"expected a DAP frame, found an HTTP request {line[:60]!r}")
            blank = _BLANK_LINE.search(self._buf, 0, MAX_HEADER_BYTES + 4)
            if blank is not None:
                return self._parse_header(bytes(self._buf[:blank.start()])), blank.end()
            if len(self._buf) > MAX_HEADER_BYTES:
                raise self._bad(f"expected a blank line within {MAX_HEADER_BYTES} bytes "
                                "of headers")
            if not self._fill():
                return None

    def _parse_header(self, block: bytes) -> int:
        length: int | None = None
        for raw in block.split(b"\n"):
            text = raw.rstrip(b"\r").decode("ascii", errors="replace")
            name, colon, value = text.partition(":")
            if not colon or not _TOKEN.fullmatch(name):
                raise self._bad(f"expected a 'Name: value' header line, found {text[:60]!r}")
            if name.lower() != "content-length":
                continue  # DAP defines no other header; tolerated, as before
            if length is not None:
                raise self._bad("expected one Content-Length header, found two")
            m = _LENGTH.fullmatch(value)
            if m is None:
                raise self._bad(f"Content-Length: expected a number, found "
                                f"{value.strip()[:20]!r}")
            length = int(m.group(1))
            if length > MAX_MESSAGE_BYTES:
                raise self._bad(f"Content-Length: expected 0..{MAX_MESSAGE_BYTES}, "
                                f"found {length}")
        if length is None:
            raise self._bad("expected a Content-Length header")
        return length

    def _body(self, header: tuple[int, int]) -> dict[str, object] | None:
        length, start = header
        end = start + length
        scanned = start
        while len(self._buf) < end:
            overlap = max(start, scanned - 40)
            if _NOT_IN_JSON.search(self._buf, overlap):
                raise self._bad(f"Content-Length {length}: the body was cut short by the "
                                "next frame's header")
            scanned = len(self._buf)
            if not self._fill():
                return None  # the client went away mid-message
        body = bytes(self._buf[start:end])
        try:
            message = json.loads(body.decode("utf-8"))
        except UnicodeDecodeError as e:
            problem = f"expected a UTF-8 body of {length} bytes: {e.reason} at byte {e.start}"
        except RecursionError:
            problem = (f"a JSON body of {length} bytes nested deeper than "
                       f"{sys.getrecursionlimit()} levels")
        except ValueError as e:  # JSONDecodeError, and int() past the digit limit
            problem = f"expected a JSON body of {length} bytes: {' '.join(str(e).split())[:120]}"
        else:
            del self._buf[:end]
            if not isinstance(message, dict):
                raise FramingError(f"expected a JSON object, found {type(message).__name__}")
            return message
        # a header starting inside the bad body: its length overstated the body; else
        # the frame was whole and only its body was bad
        m = _HEADER_START.search(self._buf, start)
        del self._buf[:m.start() if m is not None and m.start() < end else end]
        raise FramingError(problem)


def frame(message: dict[str, object]) -> bytes:
    """The bytes of one message on the wire (ValueError / TypeError / RecursionError
    when it has no JSON form)."""
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _unsendable(message: dict[str, object], error: BaseException) -> dict[str, object] | None:
    """What goes out instead of a message with no JSON form: a response becomes an error
    response naming why (every request is answered); anything else is dropped."""
    if message.get("type") != "response":
        return None
    seq, command = message.get("request_seq"), message.get("command")
    text = f"internal error: the response has no JSON form ({type(error).__name__})"
    return {"type": "response", "seq": message.get("seq", 0),
            "request_seq": seq if type(seq) is int else 0,
            "success": False, "command": command if isinstance(command, str) else "",
            "message": text, "body": {"error": {"id": 1, "format": text, "showUser": True}}}


class Writer:
    """Sends messages on `stream` one whole frame at a time (the worker thread that runs
    `continue` and the request loop both write), numbering them with `seq`."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._seq = 0
        self.closed = False

    def send(self, message: dict[str, object]) -> None:
        with self._lock:
            if self.closed:
                return
            self._seq += 1
            message["seq"] = self._seq
            try:
                data = frame(message)
            except (ValueError, TypeError, RecursionError) as e:  # a bug, not the client
                replacement = _unsendable(message, e)
                if replacement is None:
                    return
                data = frame(replacement)
            try:
                self._stream.write(data)
                self._stream.flush()
            except (BrokenPipeError, ValueError, OSError):  # the client has gone
                self.closed = True
