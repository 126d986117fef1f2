"""The App never dies, fits small terminals, asks before losing work, and long UI
work (reverse N) runs off the UI thread and stops on Esc."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.app import NeurondbgApp
from neurondbg.debug.session import Session
from neurondbg.panes import PANES
from neurondbg.screens.main import DebuggerScreen
from neurondbg.screens.quit import QuitScreen
from neurondbg.views.console_view import ConsoleView
from neurondbg.views.legality import LegalityView
from neurondbg.views.pane import Pane
from neurondbg.views.plot import PlotView, select_lanes
from neurondbg.views.program import ProgramView
from neurondbg.views.registers import RegistersView
from tests.ui.helpers import SIZE, started

DATA = Path(__file__).parent / "data"
STEPS = DATA / "steps.asm"
LOOP = DATA / "loop.asm"
BIG_CAST = """\
.data sb[0, 0] fp32 2e6 3e6
CAST in_dtype=FP32 out_dtype=BF16 nac=1 src=sb[0, 0] step=[1,0,0,0] num=[2,1,1,1] \
dst=sb[0, 64] step=[1,0,0,0] num=[2,1,1,1]
HALT
"""


def console_text(app: NeurondbgApp) -> str:
    debugger = next(s for s in app.screen_stack if isinstance(s, DebuggerScreen))
    return "\n".join(debugger.query_one(ConsoleView).messages)


# -- the plot: off-scale and non-finite lanes ---------------------------------------------
def test_select_lanes_counts_what_it_leaves_out() -> None:
    x = np.array([1.0, 2.0, np.inf, np.nan, 3.4e38, 1.5, 2.5, 0.5])
    y = np.array([1.0, 2.0, np.inf, 1.0, np.inf, 1.5, np.nan, 0.5])
    chosen = select_lanes(x, y)
    assert chosen.keep.tolist() == [True, True, False, False, False, True, False, True]
    assert (chosen.inf, chosen.nan, chosen.off_scale) == (2, 2, 0)
    assert chosen.note() == "4 of 8 not plotted: 2 inf, 2 NaN"
    far = select_lanes(np.array([1.0, 2.0, 3e38]), np.array([1.0, 2.0, 3e38]))
    assert far.keep.tolist() == [True, True, False] and far.note() == \
        "1 of 3 not plotted: 1 off-scale"
    # all lanes large: one scale fits them, nothing is left out
    big = select_lanes(np.array([16777217.0, 2147483647.0]), np.array([16777216.0, 2**31]))
    assert big.keep.all() and big.note() == ""
    none = select_lanes(np.array([np.nan]), np.array([np.nan]))
    assert not none.keep.any() and none.note() == "1 of 1 not plotted: 1 NaN"
    assert select_lanes(np.ones(4), np.ones(4), total=1024).note() == "first 4 lanes"


async def test_a_cast_of_large_values_is_plotted_not_fatal(tmp_path: Path) -> None:
    program = tmp_path / "big.asm"
    program.write_text(BIG_CAST)
    async with started(program) as (app, pilot):
        await pilot.press("s")
        await pilot.pause()
        plot = app.screen.query_one(PlotView)
        assert plot.lanes is not None and plot.note == ""
        drawn = plot.render().plain  # what the pane shows: the figure, not an error
        assert "lanes: in, out, error" in drawn
        assert "error:" not in console_text(app)
        await pilot.press("s")  # the app is alive: the next step runs
        await pilot.pause()
        assert app.session.state.steps == 2


async def test_cast_rounding_tour_to_its_end_from_any_pane() -> None:
    from neurondbg.commands.tour import tour_app
    from neurondbg.views.memory import MemoryView
    from neurondbg.views.tour_pane import TourPane

    app = tour_app("cast-rounding")
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        await pilot.pause()
        tour = app.screen.query_one(TourPane)
        plot = app.screen.query_one(PlotView)
        app.screen.query_one(ProgramView).focus()  # not the tour pane: n works anyway
        titles = [tour.note.title]
        while not app.guide.at_end:
            await pilot.press("n")
            await pilot.pause()
            plot.render()  # each step's figure is drawn (the 4th one used to raise)
            titles.append(tour.note.title)
        assert titles == ["Every Cast goes through fp32",
                          "Ties go to even; a sticky bit breaks the tie",
                          "Integer targets truncate and saturate",
                          "FP8 overflow depends on the FP8 configuration",
                          "int32 loses bits in the fp32 hub", "Halted"]
        assert app.session.state.steps == 5 and "end of the tour" in str(tour.border_subtitle)
        await pilot.press("n")
        await pilot.pause()
        assert app.session.state.steps == 5 and "end of the tour" in console_text(app)
        app.screen.query_one(MemoryView).focus()  # where p means SBUF / PSUM: N goes back
        await pilot.press("N")
        await pilot.pause()
        assert app.guide.step == 4 and tour.note.title == "int32 loses bits in the fp32 hub"
        assert "error" not in console_text(app)
        # the fp32 2e6 / 3e6 -> bf16 lanes: 4 lanes, none left out
        assert plot.note == ""


async def test_a_long_tour_note_scrolls() -> None:
    from neurondbg.commands.tour import tour_app
    from neurondbg.views.tour_pane import TourPane

    app = tour_app("cast-rounding")
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        await pilot.press("n")  # "Ties go to even": 12 lines, more than the pane holds
        await pilot.pause()
        tour = app.screen.query_one(TourPane)
        assert tour.max_scroll_y > 0 and tour.scroll_y == 0
        tour.focus()
        await pilot.press("pagedown")
        await pilot.pause()
        assert tour.scroll_y > 0
        await pilot.press("n")  # a new note starts at its top
        await pilot.pause()
        assert tour.scroll_y == 0


# -- a pane that fails is contained ----------------------------------------------------------
async def test_a_pane_that_fails_to_draw_or_refresh_is_contained(monkeypatch) -> None:
    async with started(STEPS) as (app, pilot):

        def broken_line(self: RegistersView, index: int):
            raise RuntimeError("boom")

        monkeypatch.setattr(RegistersView, "line_text", broken_line)
        await pilot.press("s")
        await pilot.pause()
        await pilot.pause()
        regs = app.screen.query_one("#pane-registers", Pane)
        assert regs.has_class("-failed")
        assert regs.error == "cannot draw: RuntimeError: boom"
        assert "error: Registers pane: cannot draw: RuntimeError: boom" in console_text(app)
        assert console_text(app).count("RuntimeError: boom") == 1  # once, not per line

        def broken_show(self: LegalityView, snap) -> None:
            raise KeyError("verdict")

        monkeypatch.setattr(LegalityView, "show", broken_show)
        await pilot.press("s")
        await pilot.pause()
        legality = app.screen.query_one("#pane-legality", Pane)
        assert legality.error == "cannot refresh: KeyError: 'verdict'"
        assert app.screen.query_one(ProgramView).pc_index == 2  # the other panes refreshed
        monkeypatch.undo()
        await pilot.press("s")
        await pilot.pause()
        await pilot.pause()
        assert not legality.has_class("-failed") and not regs.has_class("-failed")
        assert app.session.state.steps == 3


def test_the_process_exits_non_zero_when_the_app_dies(monkeypatch) -> None:
    import textual.constants

    from neurondbg.cli import cli

    def die(self: NeurondbgApp) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(textual.constants, "DRIVER",
                        "textual.drivers.headless_driver:HeadlessDriver")
    monkeypatch.setattr(NeurondbgApp, "debugger_ready", die)
    result = CliRunner().invoke(cli, ["tui", str(STEPS)])
    assert result.exit_code == 1


# -- q with unsaved work ---------------------------------------------------------------------
async def test_q_quits_at_once_without_unsaved_work() -> None:
    async with started(STEPS) as (app, pilot):
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


@pytest.mark.parametrize("work, what", [
    ("s", "the machine is at step 1 (loaded at 0)"),
    ("b", "breakpoints changed"),
    (":set R5 = 1", "values changed with `set`"),
])
async def test_q_with_unsaved_work_asks_once(work: str, what: str) -> None:
    async with started(STEPS) as (app, pilot):
        if work.startswith(":"):
            app.run_command(work[1:])
        else:
            await pilot.press(work)
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen) and app.screen.unsaved == [what]
        await pilot.press("escape")  # cancel: back to the debugger
        await pilot.pause()
        assert isinstance(app.screen, DebuggerScreen) and app.return_code is None
        await pilot.press("q", "q")  # q again quits without saving
        await pilot.pause()
    assert app.return_code == 0


async def test_save_from_the_quit_question(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    async with started(STEPS) as (app, pilot):
        await pilot.press("s", "s")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        await pilot.press("s")
        await pilot.pause()
    saved = tmp_path / "steps.session.toml"
    assert saved.exists() and app.return_code == 0
    again = Session(saved)
    assert again.state.steps == 2


async def test_a_saved_session_has_nothing_unsaved(tmp_path: Path) -> None:
    async with started(STEPS) as (app, pilot):
        await pilot.press("s")
        app.run_command(f"save {tmp_path / 'here.toml'}")
        await pilot.pause()
        assert app.unsaved() == []
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_stepping_through_a_tour_is_not_unsaved_work() -> None:
    from neurondbg.commands.tour import tour_app

    app = tour_app("cast-rounding")
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        await pilot.press("n", "n")
        await pilot.pause()
        assert app.session.state.steps == 2
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


# -- layout by terminal size -------------------------------------------------------------
async def test_every_pane_is_reachable_at_100x30() -> None:
    async with started(STEPS, size=(100, 30)) as (app, pilot):
        await pilot.pause()
        screen = app.screen
        assert screen.has_class("-compact") and screen.layout_name == "compact"
        for name in ("program", "console"):  # always shown
            assert screen.query_one(f"#pane-{name}").region.height >= 5
        for i, name in enumerate(PANES, start=1):
            await pilot.press(str(i))
            await pilot.pause()
            pane = screen.query_one(f"#pane-{name}", Pane)
            assert pane.region.width == 100 and pane.region.height >= 5, name
            assert pane.has_focus_within, name
            shown = [p for p in PANES if screen.query_one(f"#pane-{p}").region.height]
            assert set(shown) == {"program", "console", name} or name in ("program",
                                                                              "console")
        regions = [screen.query_one(f"#pane-{p}").region for p in PANES]
        regions = [r for r in regions if r.height]
        for i, a in enumerate(regions):  # what is shown does not overlap
            assert not any(a.overlaps(b) for b in regions[i + 1:])
        await app.run_command_async("pane struct")  # `pane NAME` maximises any pane
        await pilot.pause()
        assert screen.maximized is screen.query_one("#pane-struct")
        assert screen.query_one("#pane-struct").region.height >= 28


async def test_below_the_minimum_one_line_says_so_and_resizing_back_restores() -> None:
    from textual.widgets import Static

    async with started(STEPS, size=(70, 20)) as (app, pilot):
        await pilot.pause()
        screen = app.screen
        note = screen.query_one("#too-small", Static)
        assert str(note.render()) == "terminal too small: need 80x24, have 70x20"
        assert all(screen.query_one(f"#pane-{p}").region.height == 0 for p in PANES)
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        assert screen.layout_name == "wide" and not screen.has_class("-compact", "-tiny")
        assert all(screen.query_one(f"#pane-{p}").region.height >= 5 for p in PANES)
        assert note.region.height == 0


# -- long work off the UI thread ---------------------------------------------------------
async def test_reverse_n_runs_in_a_worker_with_the_exact_result() -> None:
    async with started(LOOP) as (app, pilot):
        await app.run_command_async("step 3000")
        registers = list(app.session.state.R)
        await app.run_command_async("step 2000")
        await pilot.pause()
        app.run_command("reverse 2000")
        assert app.running  # off the UI thread
        await app.wait_loaded()
        await pilot.pause()
        assert not app.running and app.session.state.steps == 3000
        assert list(app.session.state.R) == registers
        assert "reversed 2,000 steps" in console_text(app)
        app.run_command("reverse 5000")  # more than there is: stops at the start
        await app.wait_loaded()
        assert app.session.state.steps == 0
        assert "reversed 3,000 steps to pc 0x0: the start of history" in console_text(app)


async def test_esc_stops_a_reverse(monkeypatch) -> None:
    async with started(LOOP) as (app, pilot):
        await app.run_command_async("step 200000")
        session = app.session
        original = Session.reverse
        reversing = threading.Event()

        def held(self: Session, n: int = 1, progress=None) -> str:
            def gate(done: int, total: int) -> None:
                # the first progress report waits for Esc: it lands mid-reverse
                reversing.set()
                self.interrupt.wait(5)
                if progress is not None:
                    progress(done, total)
            return original(self, n, gate)

        monkeypatch.setattr(Session, "reverse", held)
        app.screen.query_one(ProgramView).focus()
        app.run_command("reverse 130000")  # popped from the journal: progress as it goes
        await pilot.pause()
        assert app.running
        while not reversing.is_set():
            await pilot.pause(0.01)
        await pilot.press("escape")
        await app.wait_loaded()
        await pilot.pause()
        assert not app.running
        assert 0 < 200000 - session.state.steps < 130000  # part undone, then stopped
        assert "(stopped by the user)" in console_text(app)


async def test_esc_stops_loading_a_huge_session(tmp_path: Path) -> None:
    """A session saved at step 10**12 replays in the load worker; Esc ends it."""
    session = tmp_path / "huge.toml"
    async with started(LOOP) as (app, pilot):
        app.run_command(f"save {session}")
        await pilot.pause()
        text = session.read_text()
        session.write_text(text.replace("steps = 0", f"steps = {10**12}"))
        app.run_command(f"open {session}")
        await pilot.pause(0.3)
        assert app.loading and "replaying step" in app.screen.sub_title
        await pilot.press("escape")
        await app.wait_loaded()
        await pilot.pause()
        assert not app.loading and app.session.name == "loop.asm"  # the old session stays
        assert "interrupted at step" in console_text(app)


async def test_step_n_runs_in_a_worker_and_esc_stops_it() -> None:
    app = NeurondbgApp(LOOP)  # an endless loop: step 10**9 would take minutes
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        app.screen.query_one(ProgramView).focus()
        app.run_command(f"step {10**9}")
        assert app.running
        while app.session.state.steps == 0:  # the worker's machine is under way
            await pilot.pause(0.01)
        await pilot.press("escape")
        await app.wait_loaded()
        await pilot.pause()
        assert not app.running and 0 < app.session.state.steps < 10**9
        assert "interrupt" in console_text(app) and app._ticker is None
        await app.run_command_async("step 10")  # the machine is there for the next command
        assert app.session.state.steps % 1 == 0 and not app.running


async def test_q_during_a_run_stops_it_then_asks() -> None:
    async with started(LOOP) as (app, pilot):
        app.screen.query_one(ProgramView).focus()
        await pilot.press("c")
        while app.session.state.steps == 0:
            await pilot.pause(0.01)
        await pilot.press("q")
        await app.wait_loaded()
        await pilot.pause()
        assert not app.running and "stopped by the user" in console_text(app)
        assert isinstance(app.screen, QuitScreen)
        assert app.screen.unsaved[0].startswith("the machine is at step ")
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


def test_the_key_help_comes_from_the_bindings(monkeypatch) -> None:
    from textual.binding import Binding

    from neurondbg.commands.tour import tour_app
    from neurondbg.screens.help import help_text
    from neurondbg.views.program import ProgramView as Program

    text = help_text(NeurondbgApp()).plain
    lines = [" ".join(line.split()) for line in text.splitlines()]
    for line in ("f compact listing / the full disassembly of every record",  # Program f
                 "Esc / Ctrl+C stop a run, reverse or load; leave the console; restore a pane",
                 "Space flip bit", "← bit left",  # the Lab's bit editor
                 "n / → tour: next", "7 pane SBUF", "o lane in lab", "[ ◀ cols"):
        assert line in lines, line
    tour = [" ".join(line.split()) for line in help_text(tour_app("move-gate")).plain
            .splitlines()]
    assert "n tour: next" in tour and "N tour: back" in tour  # the tour App's own keys
    # a key added to a pane shows up without editing the help
    monkeypatch.setattr(Program, "BINDINGS", [*Program.BINDINGS,
                                              Binding("y", "yank", "copy the line")])
    assert "y copy the line" in [" ".join(line.split()) for line in help_text().plain
                                 .splitlines()]


async def test_the_console_rewraps_its_lines_when_its_width_changes() -> None:
    from textual.widgets import RichLog

    async with started(STEPS, size=(100, 30)) as (app, pilot):
        app.say("word " * 60)  # 300 columns: wrapped at the compact console's width
        await pilot.pause()
        log = app.screen.query_one(RichLog)
        assert max(len(strip.text.rstrip()) for strip in log.lines) > 60
        await pilot.resize_terminal(*SIZE)  # the wide layout: a 50-column console
        await pilot.pause()
        await pilot.pause()
        assert log.size.width < 60
        assert max(len(strip.text.rstrip()) for strip in log.lines) <= log.size.width
        shown = " ".join(" ".join(s.text.split()) for s in log.lines)
        assert shown.count("word") == 60 and "loaded steps.asm" in shown  # nothing lost
