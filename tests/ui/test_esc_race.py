"""Esc between "the run worker started" and "the run began" (the Esc race).

The App clears `session.interrupt` on its UI thread just before it starts a run worker;
the session and the machine do not clear it when a run starts (they consume it when
they stop because of it). So an Esc pressed right after `c` stops that run at its first
check, and an Esc that finds nothing running leaves no stale flag for the next command.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from neurondbg.debug.session import Session
from tests.ui.helpers import started
from tests.ui.test_app import console_text

COUNT = 200_000  # the countdown's trips: a lost Esc runs it to its halt (2 steps a trip)
HALT_STEPS = 2 * COUNT + 2  # MOVE, the trips, the HALT


def countdown(tmp_path: Path, engines: tuple[str, ...] = ()) -> Path:
    """A program (or a kernel of `engines`) that halts after HALT_STEPS steps."""
    body = (f"    MOVE R1=0 R2={COUNT}\nloop:\n"
            "    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1\n"
            "    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 "
            "target=loop\n    HALT\n")
    path = tmp_path / ("kernel.asm" if engines else "countdown.asm")
    path.write_text("".join(f".engine {e}\n{body}" for e in engines) if engines else body)
    return path


async def test_esc_right_after_c_stops_the_run_before_its_first_step(tmp_path: Path) -> None:
    async with started(countdown(tmp_path)) as (app, pilot):
        app.action_continue()  # the worker is scheduled, not yet running
        app.action_stop()  # Esc before its run began
        await app.wait_loaded()
        await pilot.pause()
        assert not app.running
        assert app.session.last_stop.reason == "interrupt"
        assert app.session.state.steps == 0
        assert "interrupt: stopped by the user (pc 0x0) after 0 steps" in console_text(app)
        assert not app.session.interrupt.is_set()  # consumed: the next `c` runs
        await app.run_command_async("continue")
        assert app.session.state.steps == HALT_STEPS


async def test_esc_right_after_step_n_and_reverse_n_stops_them(tmp_path: Path) -> None:
    async with started(countdown(tmp_path)) as (app, pilot):
        app.run_command("step 1000")
        app.action_stop()
        await app.wait_loaded()
        assert app.session.state.steps == 0 and not app.running
        await app.run_command_async("step 1000")
        assert app.session.state.steps == 1000
        app.run_command("reverse 500")
        app.action_stop()
        await app.wait_loaded()
        await pilot.pause()
        assert app.session.state.steps == 1000 and not app.running


async def test_esc_right_after_c_stops_a_kernel_run(tmp_path: Path) -> None:
    async with started(countdown(tmp_path, ("pool", "dve"))) as (app, pilot):
        app.action_continue()
        app.action_stop()
        await app.wait_loaded()
        await pilot.pause()
        assert app.session.last_stop.reason == "interrupt"
        assert app.session.core.steps == 0
        assert "stopped by the user" in app.session.stop_text


async def test_esc_while_idle_sets_nothing_and_r_then_reverses(tmp_path: Path) -> None:
    async with started(countdown(tmp_path)) as (app, pilot):
        await app.run_command_async("step 10")
        await pilot.press("escape")  # nothing runs: it must not stop the next command
        assert not app.session.interrupt.is_set()
        await pilot.press("r")
        assert app.session.state.steps == 9


async def test_an_esc_as_a_run_halts_does_not_stop_the_next_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Esc after the machine halted but before the App heard of it (`running` still
    True): the flag it set is cleared when the run is done, so `r` reverses."""
    ran, release = threading.Event(), threading.Event()
    run = Session.run

    def held(self: Session, *args, **kwargs) -> str:
        text = run(self, *args, **kwargs)
        ran.set()
        release.wait(5)
        return text

    monkeypatch.setattr(Session, "run", held)
    async with started(countdown(tmp_path)) as (app, pilot):
        app.action_continue()
        while not ran.is_set():
            await pilot.pause(0.01)
        app.action_stop()  # the machine has halted; the App is still `running`
        assert app.running and app.session.interrupt.is_set()
        release.set()
        await app.wait_loaded()
        await pilot.pause()
        assert app.session.state.steps == HALT_STEPS
        assert not app.session.interrupt.is_set()
        await pilot.press("r")
        assert app.session.state.steps == HALT_STEPS - 1


def test_a_session_run_with_the_flag_set_stops_at_once(tmp_path: Path) -> None:
    s = Session(countdown(tmp_path))
    s.interrupt.set()  # the App set it between clearing it and the worker's run
    assert s.run() == "interrupt: stopped by the user (pc 0x0) after 0 steps"
    assert s.state.steps == 0 and not s.interrupt.is_set()
    assert s.run().startswith("halt")
    assert s.state.steps == HALT_STEPS


def test_a_kernel_session_run_and_step_n_with_the_flag_set_stop_at_once(
        tmp_path: Path) -> None:
    s = Session(countdown(tmp_path, ("pool", "dve")))
    s.interrupt.set()
    assert s.run().startswith("interrupt: stopped by the user after 0 steps")
    assert s.core.steps == 0 and not s.interrupt.is_set()
    s.interrupt.set()
    assert s.step(1000) == "pool: 0 steps (step 0); interrupt: stopped by the user"
    assert s.core.steps == 0 and not s.interrupt.is_set()
    assert s.step(1000) == "pool: 1000 steps (step 1000)"
