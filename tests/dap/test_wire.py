"""DAP framing against a client that frames badly: each bad frame is one FramingError,
and the next good frame is read whole; the writer answers even what it cannot encode."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from neurondbg.dap.wire import (
    MAX_HEADER_BYTES,
    MAX_MESSAGE_BYTES,
    FramingError,
    HttpRequest,
    Reader,
    Writer,
)
from tests.dap.client import encode

GOOD = {"seq": 9, "type": "request", "command": "threads"}


class Exhausted(io.RawIOBase):
    """A stream that fails the test when read past its data (where a pipe would block)."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def read1(self, n: int = -1) -> bytes:
        chunk = self._data.read1(n)
        if not chunk:
            raise AssertionError("the reader waited for bytes that are not coming")
        return chunk


def read_all(data: bytes, stream: type = io.BytesIO) -> list[Any]:
    """What the reader makes of `data`: messages, and the FramingErrors' texts."""
    reader, out = Reader(stream(data)), list[Any]()
    while True:
        try:
            m = reader.next()
        except FramingError as e:
            out.append(f"{type(e).__name__}: {e}")
            continue
        if m is None:
            return out
        out.append(m)
        if m == GOOD and stream is Exhausted:
            return out


def framed(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


BAD_FRAMES = {
    "negative length": (b"Content-Length: -5\r\n\r\n{\"x\": 1}", "expected a number, found '-5'"),
    "huge length": (b"Content-Length: 99999999999\r\n\r\n",
                    f"expected 0..{MAX_MESSAGE_BYTES}, found 99999999999"),
    "length not a number": (b"Content-Length: ten\r\n\r\nabcdefghij",
                            "expected a number, found 'ten'"),
    "no length": (b"Content-Type: application/json\r\n\r\n{}", "expected a Content-Length"),
    "two lengths": (b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "found two"),
    "not a header": (b"Bogus header\r\n\r\n", "expected a 'Name: value' header line"),
    "no blank line": (b"X: " + b"y" * (MAX_HEADER_BYTES + 10),
                      f"expected a blank line within {MAX_HEADER_BYTES} bytes"),
    "not JSON": (b"Content-Length: 7\r\n\r\nnotjson", "expected a JSON body of 7 bytes"),
    "not UTF-8": (b"Content-Length: 2\r\n\r\n\xff\xfe", "expected a UTF-8 body of 2 bytes"),
    "deep nesting": (framed(b"[" * 100_000 + b"]" * 100_000), "nested deeper than"),
    "5000-digit integer": (framed(b'{"seq": ' + b"7" * 5000 + b"}"),
                           "Exceeds the limit (4300 digits)"),
    "length overstated": (b"Content-Length: 500\r\n\r\n{\"seq\": 1}", "cut short by the next"),
    "not an object": (b"Content-Length: 2\r\n\r\n[]", "expected a JSON object, found list"),
}


@pytest.mark.parametrize("name", sorted(BAD_FRAMES))
def test_one_bad_frame_is_one_error_and_the_next_frame_is_read(name: str) -> None:
    data, expected = BAD_FRAMES[name]
    first, *more, last = read_all(data + encode(GOOD), Exhausted)
    assert first.startswith("FramingError: ") and expected in first, first
    assert last == GOOD
    # two headers: the second may begin a frame of its own, which is then bad too
    assert len(more) == (name == "two lengths"), more


def test_an_http_request_is_named() -> None:
    http = b"POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}"
    first, *rest = read_all(http + encode(GOOD), Exhausted)
    assert first == "HttpRequest: expected a DAP frame, found an HTTP request 'POST /x HTTP/1.1'"
    assert rest == [{}, GOOD]  # read on (stdio); a TCP connection is closed at the error
    assert read_all(b"GET / HTTP/1.1 and more\r\n\r\n")[0].startswith("FramingError: ")
    with pytest.raises(HttpRequest):
        Reader(io.BytesIO(b"OPTIONS * HTTP/1.1\r\n")).next()


def test_blank_lines_between_frames_and_header_case() -> None:
    body = json.dumps(GOOD).encode()
    data = (b"\r\n\r\n" + encode(GOOD) + b"\n\ncontent-length:%d\n\n" % len(body) + body)
    assert read_all(data) == [GOOD, GOOD]


def test_end_of_input_mid_frame_is_the_end() -> None:
    assert read_all(encode(GOOD)[:-3]) == []
    assert read_all(b"Content-Length: 5\r\n") == []
    assert read_all(b"Content-Length: -1\r\n\r\nxxxx") == ["FramingError: Content-Length: "
                                                            "expected a number, found '-1'"]


def test_many_bad_frames_in_a_row_then_a_good_one() -> None:
    data = b"".join(d for d, _ in BAD_FRAMES.values()) + encode(GOOD)
    out = read_all(data, Exhausted)
    assert out[-1] == GOOD
    assert all(isinstance(e, str) for e in out[:-1]) and len(out) >= len(BAD_FRAMES) - 2


class _Broken(io.BytesIO):
    def write(self, data: Any) -> int:
        raise BrokenPipeError


def _sent(message: dict[str, Any]) -> dict[str, Any] | None:
    out = io.BytesIO()
    Writer(out).send(message)
    (got,) = read_all(out.getvalue()) or [None]
    return got


def test_the_writer_answers_what_it_cannot_encode() -> None:
    r = _sent({"type": "response", "request_seq": 3, "command": "evaluate", "success": True,
               "body": {"result": object()}})
    assert r is not None and r["success"] is False and r["request_seq"] == 3
    assert r["message"] == "internal error: the response has no JSON form (TypeError)"
    assert _sent({"type": "event", "event": "output", "body": {"x": {1, 2}}}) is None
    w = Writer(_Broken())
    w.send(dict(GOOD))
    assert w.closed
