"""A slow console command (diagnose) in the console's thread worker: the UI answers keys
while it runs, Esc stops it, and its result is printed when it is done."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from neurondbg import console
from neurondbg.console import Cancelled, Reply
from neurondbg.views.console_view import ConsoleView
from neurondbg.views.program import ProgramView
from tests.convert.test_console_diagnose import PROGRAM
from tests.ui.helpers import started

SUMMARY = "32 lanes: all match neuron rint"


def _gated(work, started_: threading.Event, gate: threading.Event, seen: list[bool]):
    """`work`, held at its start until `gate` is set; `seen` gets cancelled() after."""

    def held(cancelled: Cancelled) -> Reply:
        started_.set()
        gate.wait(30)
        seen.append(cancelled())
        return work(cancelled)

    return held


def _printed(view: ConsoleView, text: str) -> bool:
    return any(text in line for line in view.messages)


def test_diagnose_is_declared_slow_and_runs_inline_without_a_worker(tmp_path: Path) -> None:
    from neurondbg.debug.session import Session

    assert console.REGISTRY.get("diagnose").slow
    path = tmp_path / "device.asm"
    path.write_text(PROGRAM)
    session = Session(str(path))
    session.step(2)
    deferred = console.execute("diagnose", session, defer_slow=True)
    assert deferred.lines == [] and deferred.work is not None
    lines = [t for t, _ in deferred.work(lambda: False).lines]
    assert lines == [t for t, _ in console.execute("diagnose", session).lines]
    assert lines[1].startswith(SUMMARY)
    assert deferred.work(lambda: True).lines == []  # stopped before it starts: nothing
    bad = console.execute("diagnose 9,9", session, defer_slow=True)  # checked up front
    assert bad.work is None and "outside the Cast's 4x8 lanes" in bad.lines[0][0]


async def test_the_ui_stays_live_esc_stops_and_the_result_appears(tmp_path: Path) -> None:
    path = tmp_path / "device.asm"
    path.write_text(PROGRAM)
    async with started(path) as (app, pilot):
        await app.run_command_async("step 2")
        view = app.query_one(ConsoleView)
        box = app.query_one("#console-input")
        box.focus()
        running, gate, seen = threading.Event(), threading.Event(), []
        reply = console.execute("diagnose", app.session, defer_slow=True)
        view.run_work("diagnose", _gated(reply.work, running, gate, seen))
        assert await asyncio.to_thread(running.wait, 30)  # the loop runs meanwhile
        assert view.working and _printed(view, "diagnose: working… Esc stops")
        await pilot.press("h", "e", "l", "p", "enter")  # the UI answers meanwhile
        await pilot.pause()
        assert view.working and _printed(view, "> help") and _printed(view, "continue [N]")
        await pilot.press("escape")
        await pilot.pause()
        assert not view.working and _printed(view, "diagnose: stopped")
        assert box.has_focus  # Esc stopped the work; it did not leave the console
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert seen == [True] and not _printed(view, SUMMARY)  # the stopped one: dropped

        reply = console.execute("diagnose 0,0", app.session, defer_slow=True)
        view.run_work("diagnose 0,0", reply.work)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _printed(view, SUMMARY) and _printed(view, "explained by: ieee round")
        assert not view.working
        await pilot.press("escape")  # nothing runs: Esc is the App's, it leaves the console
        await pilot.pause()
        assert isinstance(app.screen.focused, ProgramView)


async def test_a_typed_diagnose_runs_in_the_worker_and_ctrl_c_stops_it(tmp_path: Path) -> None:
    """The App's own path (the command line, the palette): `diagnose` returns at once,
    its work runs in the console's worker, and the App's stop (Ctrl+C) cancels it."""
    path = tmp_path / "device.asm"
    path.write_text(PROGRAM)
    async with started(path) as (app, pilot):
        await app.run_command_async("step 2")
        view = app.query_one(ConsoleView)
        running, gate, seen = threading.Event(), threading.Event(), []
        real = console.execute

        def held(line: str, session: object, **kw: bool) -> Reply:
            reply = real(line, session, **kw)
            if reply.work is not None:
                reply.work = _gated(reply.work, running, gate, seen)
            return reply

        console.execute = held
        try:
            app.run_command("diagnose")
        finally:
            console.execute = real
        assert await asyncio.to_thread(running.wait, 30) and view.working
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not view.working and _printed(view, "diagnose: stopped")
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert seen == [True] and not _printed(view, SUMMARY)
        app.run_command("diagnose")  # unheld: the result arrives from the worker
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _printed(view, SUMMARY)
