"""A second Ctrl+C that lands while the first one's handler is still running (inside
the `Event.set` it calls, holding that Event's lock) raises KeyboardInterrupt: it must
not enter the handler again, which would wait for ever on the same lock."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import os, signal, threading
from neurondbg.commands.run import ctrl_c_stops

class Nested(threading.Event):
    def set(self):  # Event.set, with the second SIGINT delivered inside its lock
        with self._cond:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):
                pass
            self._flag = True
            self._cond.notify_all()

try:
    with ctrl_c_stops(Nested()):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100000):
            pass
    print("ran on")
except KeyboardInterrupt:
    print("interrupted")
"""


def test_a_second_ctrl_c_inside_the_first_ones_handler_raises() -> None:
    # a process of its own: signals, and a deadlock that must not hang the test worker
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout == "interrupted\n", done.stderr
