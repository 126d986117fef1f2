"""neurondbg.serve.waiting: the size line a waiting app process reads before it starts,
and that it leaves the app's input after it unread."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from neurondbg.serve.waiting import MAX_CELLS, MAX_LINE, parse_size, read_line
from tests.dap.client import REPO


def _pipe_with(data: bytes) -> int:
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    return r


def test_read_line_leaves_what_follows_for_the_app() -> None:
    r = _pipe_with(b'{"width": 3, "height": 4}\nD\x00\x00\x00\x01s')
    try:
        assert read_line(r) == b'{"width": 3, "height": 4}'
        assert os.read(r, 100) == b"D\x00\x00\x00\x01s"
    finally:
        os.close(r)


@pytest.mark.parametrize("data", [b"", b'{"width": 3'])
def test_read_line_at_the_end_of_input_is_empty(data: bytes) -> None:
    r = _pipe_with(data)
    try:
        assert read_line(r) == b""
    finally:
        os.close(r)


def test_read_line_refuses_a_long_line() -> None:
    r = _pipe_with(b"x" * (MAX_LINE + 10) + b"\n")
    try:
        with pytest.raises(ValueError, match="too long"):
            read_line(r)
    finally:
        os.close(r)


@given(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6))
def test_parse_size_clamps_to_a_terminal(w: int, h: int) -> None:
    size = parse_size(f'{{"width": {w}, "height": {h}}}'.encode())
    assert size == (max(1, min(MAX_CELLS, w)), max(1, min(MAX_CELLS, h)))


@pytest.mark.parametrize("line", [b"[1, 2]", b'{"width": "80", "height": 24}',
                                  b'{"width": 80}', b'{"width": 1.5, "height": 2}', b"nope"])
def test_parse_size_refuses_anything_else(line: bytes) -> None:
    with pytest.raises(ValueError):
        parse_size(line)


def test_a_waiting_process_told_nothing_exits_quietly() -> None:
    r = subprocess.run([sys.executable, "-m", "neurondbg.serve.waiting", "tui"], cwd=REPO,
                       input=b"", capture_output=True, timeout=120)
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")
