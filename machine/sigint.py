"""Blocks a Ctrl+C cannot cut in half: `deferred()` holds SIGINT until the block ends.

A command line stops a run with its `interrupt` Event on the first Ctrl+C and lets a
second one raise KeyboardInterrupt wherever the main thread is. Inside the model that
could land between the halves of an undo-and-redo (the step half undone) or while a
numpy view of the journal's arrays is alive (the traceback keeps it, and the next
resize of the journal raises BufferError). The few blocks where that matters run under
`deferred()`: a SIGINT that arrives meanwhile is handed to the handler that was in
place once the block has finished.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def deferred() -> Iterator[None]:
    """Run the block whole; a SIGINT during it is handled once it ends (on the main
    thread, where Python runs signal handlers; elsewhere the block runs as it is)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):  # ignored, or the OS default: nothing raises mid-block
        yield
        return
    pending: list[FrameType | None] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        pending.append(frame)

    signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        for frame in pending:  # each as it would have been, by the handler now in place
            handler = signal.getsignal(signal.SIGINT)
            if callable(handler):
                handler(signal.SIGINT, frame)
