"""DAP long launch: a real `neurondbg dap` process over stdio launches a
session saved at step 10**12; prints how long each way of stopping the load takes.

    python benchmarks/dap_launch_bench.py [--stops 5]

For `pause`, `cancel` (of the launch's progress) and `terminate`: from sending the
request to receiving the launch's error response, median and worst of STOPS launches
(each once its progressStart has arrived, so the replay is under way). For
`disconnect`: from sending it to its response (the load stopped and waited for),
and to the adapter process's exit (interpreter shutdown included). The replay checks its
interrupt every slice (sessions.store.SLICE_SECONDS).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import run  # noqa: E402

from tests.dap.client import Process  # noqa: E402
from tests.dap.test_long_launch import far_session  # noqa: E402

LAUNCH_SEQ = 100


def _loading(session: Path) -> Process:
    c = Process()
    c.ok("initialize", adapterID="bench", supportsProgressReporting=True)
    c.send({"seq": LAUNCH_SEQ, "type": "request", "command": "launch",
            "arguments": {"program": str(session)}})
    c.event("progressStart")
    return c


def _launch_answer(c: Process) -> dict[str, object]:
    while True:
        m = c._next()
        if m["type"] == "response" and m["request_seq"] == LAUNCH_SEQ:
            return m


def _stop(session: Path, command: str) -> tuple[float, float]:
    """(seconds to the answer, seconds to the process's exit: disconnect only, else 0)."""
    c = _loading(session)
    try:
        args = {"threadId": 1} if command == "pause" else (
            {"progressId": f"launch-{LAUNCH_SEQ}"} if command == "cancel" else {})
        t0 = time.perf_counter()
        if command == "disconnect":
            c.ok("disconnect")
            answered = time.perf_counter() - t0
            c.proc.wait(60)
            return answered, time.perf_counter() - t0
        c.send({"seq": 1000, "type": "request", "command": command, "arguments": args})
        answer = _launch_answer(c)
        elapsed = time.perf_counter() - t0
        assert not answer["success"], answer
        c.ok("disconnect")
        return elapsed, 0.0
    finally:
        c.close()


def stops(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        session = far_session(Path(tmp))
        print(f"a launch of a session saved at step 10**12, stopped ({n} launches each):")
        for command in ("pause", "cancel", "terminate", "disconnect"):
            got = [_stop(session, command) for _ in range(n)]
            rows = [("-> launch answered", [a for a, _ in got])] if command != "disconnect" \
                else [("-> its response", [a for a, _ in got]),
                      ("-> process exit", [b for _, b in got])]
            for what, times in rows:
                print(f"  {command:10s} {what:18s} median "
                      f"{statistics.median(times) * 1e3:7.1f} ms, worst {max(times) * 1e3:7.1f} ms")


if __name__ == "__main__":
    run(__doc__, stops, stops=5)
