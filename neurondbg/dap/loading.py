"""A `launch` that loads off the request loop: a session saved at step 10**12 replays for
as long as it takes while `pause`, `cancel`, `terminate` and `disconnect` are answered,
and any of them stops the replay within a slice (sessions.store.SLICE_SECONDS).

    load = Load(open_it, report)        # open_it(progress, interrupt) -> (Target, warnings)
    load.start(); ...; load.stop(); load.join(5)

`Progress` turns the loader's `progress(done, total)` into DAP's progressStart /
progressUpdate / progressEnd events when the client said `supportsProgressReporting`
(an update each time the whole percentage changes: at most 100, whatever the length),
else one `output` line when the replay starts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from neurondbg.dap.target import Target

Send = Callable[[str, dict[str, object]], None]  # (event name, body)
Opened = tuple[Target, list[str]]


class Progress:
    """`progress(done, total)` for a loader, as DAP progress events (module docstring)."""

    def __init__(self, send: Send, progress_id: str, title: str, events: bool,
                 request_seq: int) -> None:
        self._send, self.id, self._title = send, progress_id, title
        self._events, self._request_seq = events, request_seq
        self.started = False
        self._percent = -1

    def __call__(self, done: int, total: int) -> None:
        percent = 100 * done // total if total > 0 else 100
        if not self.started:
            self.started = True
            self._percent = percent
            if self._events:
                self._send("progressStart", {
                    "progressId": self.id, "title": self._title, "requestId": self._request_seq,
                    "cancellable": True, "message": f"step {done:,} of {total:,}",
                    "percentage": percent})
            else:
                self._send("output", {"category": "console",
                                      "output": f"{self._title}: replaying {total:,} steps "
                                                "(pause or stop ends it)\n"})
            return
        if percent != self._percent and self._events:
            self._percent = percent
            self._send("progressUpdate", {"progressId": self.id, "percentage": percent,
                                          "message": f"step {done:,} of {total:,}"})

    def end(self, message: str) -> None:
        if self.started and self._events:
            self._send("progressEnd", {"progressId": self.id, "message": message})


class Load:
    """One launch's load in a thread of its own; `done(result)` gets the opened target or
    the exception that ended the load (SessionInterrupted after `stop`)."""

    def __init__(self, open_it: Callable[[Progress | None, threading.Event], Opened],
                 progress: Progress | None,
                 done: Callable[[Opened | BaseException], None]) -> None:
        self.interrupt = threading.Event()
        self.progress = progress
        self._open, self._done = open_it, done
        self._thread = threading.Thread(target=self._run, name="neurondbg-dap-load",
                                        daemon=True)
        self.stopped_by: str | None = None  # the request that stopped it

    def _run(self) -> None:
        try:
            result: Opened | BaseException = self._open(self.progress, self.interrupt)
        except Exception as e:  # containment boundary: the client hears every failure
            result = e
        self._done(result)

    def start(self) -> None:
        self._thread.start()

    def stop(self, by: str) -> None:
        if self.stopped_by is None:
            self.stopped_by = by
        self.interrupt.set()

    def join(self, timeout: float | None) -> None:
        self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()
