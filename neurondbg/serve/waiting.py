"""An app process started before its visitor (`neurondbg serve --warm N`): it imports
what the TUI will need, waits, and when a page takes it runs `neurondbg ARGS...` at that
page's terminal size.

    python -m neurondbg.serve.waiting tui PROGRAM --engine dve
    (stdin) {"width": 160, "height": 48}\\n      # the page's size: the app starts now

The first line on stdin is the page's terminal size as JSON; everything after it is the
web driver's input, read by the app (so the line is read byte by byte: nothing of the
app's input is taken). An empty stdin (the server stopped before a visitor came) exits
0. Started this way rather than run and resized later, the app draws its first screen
once, at the page's size, and every pane lays out as a cold start at that size would.

What is imported ahead is the TUI's heavy part (textual, the app, the model, numpy):
the seconds an app process otherwise spends before its first frame. A module that
fails to import here is left for the app to import (and report) as it would.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys

AHEAD = (
    "textual.app",
    "textual.drivers.web_driver",
    "neurondbg.cli",
    "neurondbg.app",
    "neurondbg.commands.tui",
    "numpy",
    "numpy.ma",
    "ml_dtypes",
    "textual_plotext",
    "neurondbg.console",
    "neurondbg.palette",
    "neurondbg.debug.session",
    "neurondbg.views.memory",
    "neurondbg.views.plot",
    "neurondbg.views.lanes",
    "neurondbg.views.trace_text",
    "neurondbg.views.accum",
    "neurondbg.debug.lab_model",
    "neurondbg.machine.debugger",
    "neurondbg.machine.core.core",
    "neurondbg.sessions.store",
    "neurondbg.machine.expr",
    "neurondbg.machine.convert",
)
MAX_LINE = 256  # the size line is a few dozen bytes
MAX_CELLS = 1000  # as the server clamps a page's size


def read_line(fd: int, limit: int = MAX_LINE) -> bytes:
    """One line from `fd`, read a byte at a time (what follows it is the app's); b""
    at end of input, ValueError past `limit` bytes."""
    line = bytearray()
    while (byte := os.read(fd, 1)) != b"\n":
        if not byte:
            return b""
        line += byte
        if len(line) > limit:
            raise ValueError("the size line is too long")
    return bytes(line)


def parse_size(line: bytes) -> tuple[int, int]:
    """(width, height) of a size line, each clamped to 1..MAX_CELLS; ValueError if it
    is not `{"width": W, "height": H}` with integers."""
    size = json.loads(line)
    if not isinstance(size, dict):
        raise ValueError("the size line is not a JSON object")
    w, h = size.get("width"), size.get("height")
    if not (isinstance(w, int) and isinstance(h, int)):
        raise ValueError("the size line needs integer width and height")
    return max(1, min(MAX_CELLS, w)), max(1, min(MAX_CELLS, h))


def main(args: list[str]) -> int:
    for name in AHEAD:
        with contextlib.suppress(Exception):  # the app imports (and reports) it itself
            importlib.import_module(name)
    line = read_line(sys.stdin.fileno())
    if not line:
        return 0
    width, height = parse_size(line)
    os.environ["COLUMNS"], os.environ["ROWS"] = str(width), str(height)
    sys.argv = ["neurondbg", *args]
    from neurondbg.cli import console_main

    console_main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
