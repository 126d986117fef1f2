"""A NEFF's DMA queues in the TUI: the engine strip shows a queue's entries completed /
triggered where an engine shows its PC, the Semaphores pane and `who` name the entry a
completion raised a semaphore with (`qSPIO0#1`, not the queue's completion count as a
PC), and a step or a stop of a DMA queue leaves the engine focus where it was (a queue
has no listing, registers or struct to show). Synthetic NEFFs only (tests.neff.kernels)."""

from __future__ import annotations

from pathlib import Path

import pytest

from neurondbg.debug.session import Session
from neurondbg.machine.neff.writer import write_neff
from neurondbg.views.engines import EnginesView
from neurondbg.views.semaphores import SemaphoresView
from tests.neff.kernels import vector_add
from tests.ui.helpers import started


@pytest.fixture
def neff(tmp_path: Path) -> Path:
    path = tmp_path / "k.neff"
    write_neff(path, [vector_add()], target="sunda")
    return path


def _core_steps_to_the_second_load(s: Session) -> list[str]:
    """Scheduler steps until qSPIO0 has completed both loads (the rr schedule: steps 9
    and 11); the replies."""
    return [s.step_core() for _ in range(11)]


def test_a_dma_queue_row_shows_entries_done_of_triggered(neff: Path) -> None:
    s = Session(neff)
    rows = {r.engine: r for r in s.snapshot().engines}
    assert (rows["qSPIO0"].progress, rows["pool"].progress) == ("0/0 done", "")
    for _ in range(8):  # both triggers (steps 8 and 10), the first load done (step 9)
        s.step_core()
    assert {r.engine: r.progress for r in s.snapshot().engines}["qSPIO0"] == "0/1 done"
    s.step_core()
    s.step_core()
    assert {r.engine: r.progress for r in s.snapshot().engines}["qSPIO0"] == "1/2 done"


async def test_the_strip_prints_the_progress_in_the_pc_column(neff: Path) -> None:
    async with started(neff) as (app, pilot):
        app.run_command("focus sp")
        app.run_command("step 3")  # its SET_ORDERING_MODE and both triggers
        await app.wait_loaded()
        await pilot.pause()
        lines = str(app.screen.query_one(EnginesView).render()).splitlines()
        sp = next(ln for ln in lines if ln[2:].startswith("sp "))
        queue = next(ln for ln in lines if ln[2:].startswith("qSPIO0 "))
        assert sp.index(" pc 0x") == queue.index(" 0/2 done")
        assert queue.split()[1:3] == ["0/2", "done"]


def test_a_semaphore_raised_by_a_dma_completion_names_the_entry(neff: Path) -> None:
    s = Session(neff)
    replies = _core_steps_to_the_second_load(s)
    assert replies[8] == "step 9: qSPIO0 completed qSPIO0#0 (load a)"
    assert replies[10] == "step 11: qSPIO0 completed qSPIO0#1 (load b)"
    by = {r.index: r.updated_by for r in s.snapshot().semaphores}
    assert (by[8], by[9]) == ("qSPIO0#0 step 9", "qSPIO0#1 step 11")
    assert s.who("sem[9]") == "sem[9] = 16: last updated by qSPIO0#1 (step 11)"


async def test_the_semaphores_pane_names_the_entry(neff: Path) -> None:
    async with started(neff) as (app, pilot):
        app.run_command("continue")
        await app.wait_loaded()
        await pilot.pause()
        sems = str(app.screen.query_one(SemaphoresView).render()).splitlines()
        assert "sem[9] qSPIO0[1] = 16  by qSPIO0#1 step 11" in sems


def test_a_core_step_of_a_dma_queue_keeps_the_focus(neff: Path) -> None:
    s = Session(neff)
    replies = _core_steps_to_the_second_load(s)
    assert replies[7] == "step 8: sp PSEUDO_DMATRIGGER at 0x40" and s.engine == "sp"
    assert s.core.focus == "sp"  # step 9 (qSPIO0) and 11 (qSPIO0) left it on sp
    snap = s.snapshot()
    assert snap.engine == "sp" and [r.engine for r in snap.engines if r.focused] == ["sp"]
    assert s.step(1) == "sp: HALT at 0xc0 (step 12)"


def test_a_dma_breakpoint_stop_keeps_the_focus(neff: Path) -> None:
    s = Session(neff)
    s.add_breakpoint("dma:qSPIO0")
    s.focus_engine("dve")
    s.arm("continue")
    assert s.run().startswith("#1 dma:qSPIO0: qSPIO0 DMA qSPIO0#0 (load a)")
    assert s.core.focus == "dve" and s.snapshot().engine == "dve"
    assert s.step(1).startswith("dve is blocked")


async def test_keys_on_the_strip_with_a_dma_queue_stepping(neff: Path) -> None:
    """S until a DMA queue completes, then s, with the engine strip focused: no error,
    the keyboard stays on the strip, the focused engine stays the one stepped."""
    async with started(neff) as (app, pilot):
        await pilot.press("2")  # the Engines pane
        strip = app.screen.query_one(EnginesView)
        assert app.focused is strip
        await pilot.press(*"S" * 9)
        await pilot.pause()
        assert app.session.core.steps == 9 and app.session.core.focus == "sp"
        await pilot.press("s")
        await pilot.pause()
        assert app.focused is strip and app.session.core.focus == "sp"
        log = app.screen.query_one("#console-log")
        text = "\n".join(str(line.text) for line in log.lines)
        assert "error" not in text and "step 9: qSPIO0 completed qSPIO0#0 (load a)" in text
