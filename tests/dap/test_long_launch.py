"""`launch` of a session saved at step 10**12 loads off the request loop: it reports
progress, and pause, cancel, terminate and disconnect stop it (no timing assertions: each
waits for the answer with the client's generous timeout)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.dap.client import InProcess, Process
from tests.dap.test_adapter import LOOP, SPIN

FAR = 10 ** 12


def far_session(tmp_path: Path) -> Path:
    """A session of a program that spins forever, saved (as it claims) at step 10**12."""
    from neurondbg.sessions.cli_support import open_program_or_session, save_after_run

    src = tmp_path / "spin.asm"
    src.write_text(SPIN)
    opened = open_program_or_session(src)
    opened.core.cont(max_steps=5)
    path = tmp_path / "far.toml"
    save_after_run(path, opened)
    path.write_text(path.read_text().replace("steps = 5", f"steps = {FAR}"))
    return path


def loading(tmp_path: Path, progress: bool = True) -> tuple[InProcess, int]:
    """A client whose launch of the far session is replaying; the launch's seq."""
    c = InProcess()
    c.ok("initialize", adapterID="x", supportsProgressReporting=progress)
    c.send({"seq": 100, "type": "request", "command": "launch",
            "arguments": {"program": str(far_session(tmp_path))}})
    if progress:
        start = c.event("progressStart")["body"]
        assert start["cancellable"] and start["requestId"] == 100
        assert start["message"].endswith(f"of {FAR:,}")
    else:
        assert "replaying 1,000,000,000,000 steps" in c.event("output")["body"]["output"]
    return c, 100


def launch_answer(c: InProcess, seq: int) -> dict[str, Any]:
    for i, m in enumerate(c.events):
        if m["type"] == "response" and m["request_seq"] == seq:
            return c.events.pop(i)
    while True:
        m = c._next()
        if m["type"] == "response" and m["request_seq"] == seq:
            return m
        c.events.append(m)


@pytest.mark.parametrize("progress", [True, False])
def test_pause_stops_the_load_and_the_launch_says_where(tmp_path: Path, progress: bool) -> None:
    c, seq = loading(tmp_path, progress)
    c.send({"seq": 101, "type": "request", "command": "threads"})  # waits for the launch
    c.ok("pause", threadId=1)
    answer = launch_answer(c, seq)
    assert not answer["success"]
    assert "loading interrupted at step" in answer["message"]
    assert answer["message"].endswith(f"of {FAR} (paused)")
    if progress:
        assert c.event("progressEnd")["body"]["message"] == "stopped"
    threads = launch_answer(c, 101)
    assert not threads["success"] and "nothing is launched yet" in threads["message"]
    c.ok("launch", program=str(LOOP))  # a new launch may follow
    c.event("initialized")


def test_cancel_by_progress_id(tmp_path: Path) -> None:
    c, seq = loading(tmp_path)
    c.ok("cancel", progressId=f"launch-{seq}")
    answer = launch_answer(c, seq)
    assert not answer["success"] and answer["message"].endswith("(cancelled)")


def test_terminate_stops_the_load_and_terminates(tmp_path: Path) -> None:
    c, seq = loading(tmp_path)
    c.ok("terminate")
    assert not launch_answer(c, seq)["success"]
    c.event("terminated")


def test_disconnect_stops_the_load_and_ends(tmp_path: Path) -> None:
    c, seq = loading(tmp_path)
    c.ok("disconnect")
    assert c.adapter.ended
    assert launch_answer(c, seq)["message"].endswith("(the client went away)")


def test_requests_sent_behind_a_launch_wait_for_it_in_order() -> None:
    c = InProcess()
    c.ok("initialize", adapterID="x")
    c.send({"seq": 50, "type": "request", "command": "launch",
            "arguments": {"program": str(LOOP), "stopOnEntry": True}})
    c.send({"seq": 51, "type": "request", "command": "setBreakpoints",
            "arguments": {"source": {"path": str(LOOP)}, "breakpoints": [{"line": 8}]}})
    c.send({"seq": 52, "type": "request", "command": "configurationDone"})
    got = [c._next() for _ in range(5)]
    order = [(m["type"], m.get("request_seq") or m.get("event")) for m in got]
    assert order == [("response", 50), ("event", "initialized"), ("response", 51),
                     ("response", 52), ("event", "stopped")]
    assert all(m["success"] for m in got if m["type"] == "response")


def test_a_real_adapter_over_stdio_stops_its_load_on_pause(tmp_path: Path) -> None:
    c = Process()
    try:
        c.ok("initialize", adapterID="x", supportsProgressReporting=True)
        c.send({"seq": 100, "type": "request", "command": "launch",
                "arguments": {"program": str(far_session(tmp_path))}})
        c.event("progressStart")
        c.ok("pause", threadId=1)
        assert "(paused)" in launch_answer(c, 100)["message"]  # type: ignore[arg-type]
        c.ok("disconnect")
        assert c.close() == 0
    finally:
        if c.proc.poll() is None:
            c.proc.kill()
