"""Pilot tests of the debugger layout: keys, panes following steps, the console."""

from __future__ import annotations

from pathlib import Path

from neurondbg.app import NeurondbgApp
from neurondbg.screens.help import HelpScreen
from neurondbg.screens.lab import LabScreen
from neurondbg.screens.main import DebuggerScreen
from neurondbg.views.accum import AccumView
from neurondbg.views.console_view import ConsoleView
from neurondbg.views.lab import ConvertLab
from neurondbg.views.lanes import LanesView, LaneTable
from neurondbg.views.legality import LegalityView
from neurondbg.views.memory import MemoryView
from neurondbg.views.plot import PlotView
from neurondbg.views.program import ProgramView
from neurondbg.views.registers import RegistersView
from neurondbg.views.struct_view import FieldTable, HexDump
from tests.ui.helpers import SIZE, started

DATA = Path(__file__).parent / "data"
STEPS = DATA / "steps.asm"
LOOP = DATA / "loop.asm"


def console_text(app: NeurondbgApp) -> str:
    return "\n".join(app.screen.query_one(ConsoleView).messages)


async def test_layout_shows_every_pane_and_the_listing() -> None:
    async with started(STEPS) as (app, pilot):
        await pilot.pause()
        assert isinstance(app.screen, DebuggerScreen)
        for pane in ("program", "registers", "struct", "legality", "memory", "accum", "lanes",
                     "plot", "console"):
            widget = app.screen.query_one(f"#pane-{pane}")
            assert widget.region.width > 0 and widget.region.height > 2, pane
        prog = app.screen.query_one(ProgramView)
        assert prog.line_count() == 5
        assert [x.valid for x in prog.lines] == [True, True, True, False, True]
        assert prog.lines[0].label == "start" and prog.lines[2].label == "loop"
        first = prog.line_text(0).plain
        assert first.startswith(" ▶ ") and "start:" in first and "MOVE" in first
        assert "✗" in prog.line_text(3).plain
        assert app.screen.query_one(FieldTable).inst.mnemonic == "MOVE"


async def test_step_updates_registers_struct_legality_sbuf_and_lanes() -> None:
    async with started(STEPS) as (app, pilot):
        await pilot.press("s")
        await pilot.pause()
        regs = app.screen.query_one(RegistersView)
        assert regs.snap.registers[3] == 5 and regs.snap.registers[4] == 0x10
        assert regs.snap.changed_registers == {3, 4}
        assert app.screen.query_one(FieldTable).inst.mnemonic == "CAST"
        legality = app.screen.query_one(LegalityView)
        assert "is_valid_cast" in legality.lines[0].plain and "VALID" in legality.lines[0].plain
        await pilot.press("s")  # the CAST: 128 partitions x 8 lanes fp32 -> bf16
        await pilot.pause()
        assert app.screen.query_one(ProgramView).pc_index == 2
        table = app.screen.query_one(LaneTable)
        assert table.shape == (128, 8)
        assert int(table.flags["tie"].sum()) == 256 and int(table.flags["inf"].sum()) == 128
        trace = str(app.screen.query_one("#lane-trace").render())
        assert "lane p0 e0" in trace and "tie" in trace and "0x3F80" in trace
        memory = app.screen.query_one(MemoryView)
        assert memory.start == 0x100  # followed the write
        assert memory._mask[0].any() and memory._mask[127].any()
        assert "CAST" in console_text(app)
        await pilot.press("r")  # reverse: back before the CAST
        await pilot.pause()
        assert app.screen.query_one(ProgramView).pc_index == 1
        assert "reversed 1 step" in console_text(app)


async def test_invalid_instruction_is_refused_and_explained() -> None:
    async with started(STEPS) as (app, pilot):
        await pilot.press("s", "s", "s")
        await pilot.pause()
        legality = app.screen.query_one(LegalityView)
        text = "\n".join(t.plain for t in legality.lines)
        assert "is_valid_copy" in text and "INVALID" in text
        assert text.index("✗ s4d4_tr_same_src_dst_type") < text.index("✓ ")  # failing first
        assert "fix:" in text and "ref 000" in text
        await pilot.press("s")
        await pilot.pause()
        assert "invalid: COPY" in console_text(app)
        assert app.screen.query_one(ProgramView).pc_index == 3  # stays before it


async def test_breakpoint_key_and_continue_in_a_worker() -> None:
    async with started(STEPS) as (app, pilot):
        prog = app.screen.query_one(ProgramView)
        prog.focus()
        await pilot.press("down", "down", "b")
        await pilot.pause()
        assert prog.breakpoints == {2}
        assert prog.line_text(2).plain.startswith("●")
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert prog.pc_index == 2
        assert "breakpoint #1" in console_text(app)
        await pilot.press("b")  # toggles it off again (cursor is on the PC)
        await pilot.pause()
        assert prog.breakpoints == frozenset()


async def test_escape_interrupts_a_run() -> None:
    async with started(LOOP) as (app, pilot):
        await pilot.press("c")
        await pilot.pause(0.3)
        assert app.running
        assert app.screen.sub_title.startswith("running… ")  # progress: steps, steps/s
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.running
        assert "interrupt" in console_text(app)
        assert app.session.state.R[1] > 0


async def test_maximise_restore_help_and_lab() -> None:
    async with started(STEPS) as (app, pilot):
        app.screen.query_one(RegistersView).focus()
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is app.screen.query_one("#pane-registers")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.maximized is None
        for key, screen in (("question_mark", HelpScreen), ("escape", DebuggerScreen),
                            ("L", LabScreen), ("escape", DebuggerScreen)):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, screen), key


async def test_pane_keys_registers_memory_lanes() -> None:
    async with started(STEPS) as (app, pilot):
        await pilot.press("s", "s")
        regs = app.screen.query_one(RegistersView)
        regs.focus()
        await pilot.press("v")
        assert regs.view == "signed"
        memory = app.screen.query_one(MemoryView)
        memory.focus()
        # the view followed the CAST's write and shows it in its output format
        assert memory.dtype == "bf16" and memory.start == 0x100
        assert list(memory._values[0, :3]) == [1.0, 1.015625, float("inf")]
        assert memory.line_text(0).plain.split()[:3] == ["p0", "1", "1.016"]
        await pilot.press("d")
        assert memory.dtype == "fp16"
        await pilot.press("h")
        assert memory.heatmap
        await pilot.press("p")
        assert memory.space == "psum"
        await pilot.press("p", "g")  # back to SBUF; g: the console asks where to go
        box = app.screen.query_one("#console-input")
        assert app.screen.focused is box and box.value == "goto 0 "
        await pilot.press(*"0x40", "enter")  # the partition is filled in: type the byte
        await pilot.pause()
        assert (memory.cursor, memory.start, memory.space) == (0, 0x40, "sbuf")
        table = app.screen.query_one(LaneTable)
        n_flagged = table.line_count()
        table.focus()
        await pilot.press("f")
        assert table.line_count() == 128 * 8 > n_flagged
        await pilot.press("down")
        await pilot.pause()
        assert "lane p0 e1" in str(app.screen.query_one("#lane-trace").render())
        assert app.screen.query_one(LanesView) is not None
        plot = app.screen.query_one(PlotView)
        assert plot.mode == "conversion" and plot.lanes is table.lanes
        plot.focus()
        await pilot.press("m")
        assert plot.mode == "histogram" and plot.hist_data.size > 0
        table.focus()
        await pilot.press("o")  # this lane in the Convert Lab
        await pilot.pause()
        assert isinstance(app.screen, LabScreen)
        lab = app.screen.query_one(ConvertLab)
        assert (lab.bits, lab.src.name, lab.dst.name) == (0x3F818000, "fp32", "bf16")


async def test_struct_field_and_byte_selection() -> None:
    async with started(STEPS) as (app, pilot):
        table = app.screen.query_one(FieldTable)
        dump = app.screen.query_one(HexDump)
        names = [f.name for f in table.fields()]
        table.focus()
        table.cursor = names.index("num_mov")
        await pilot.pause()
        assert dump.span == (12, 13)
        assert dump.byte_at(4 + 9 * 3 + 2 * 1, 0) == 13  # row 0, group 3, byte 1 -> 13
        dump.post_message(HexDump.ByteClicked(13))
        await pilot.pause()
        assert table.fields()[table.cursor].name == "dtype"
        accum = app.screen.query_one(AccumView)
        assert accum.line_count() == 128


async def test_a_program_that_does_not_load_keeps_the_app_alive(tmp_path: Path) -> None:
    bad = tmp_path / "bad.asm"
    bad.write_text("MOVE R3=5\nNOPE x=1\n")
    async with started(bad) as (app, pilot):
        await pilot.pause()
        text = console_text(app)
        assert "error:" in text and "bad.asm:2" in text
        await pilot.press("s")
        await pilot.pause()
        assert "no program loaded" in console_text(app)


async def test_palette_lists_every_action() -> None:
    app = NeurondbgApp(STEPS)
    async with app.run_test(size=SIZE):
        await app.wait_loaded()
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for title in ("Step", "Continue", "Reverse step", "Toggle breakpoint", "Stop",
                      "Maximise / restore pane", "Convert Lab", "Help", "Pane: Program",
                      "SBUF: heatmap"):
            assert title in titles


async def test_demo_opens_by_default_and_continue_keeps_the_last_conversion() -> None:
    app = NeurondbgApp()  # no program: the bundled examples/demo.toml session
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        assert app.session is not None and app.session.name == "demo.toml"
        assert app.session.engine == "dve" and "Welcome to neurondbg" in console_text(app)
        await pilot.press("c")  # to the breakpoint on the invalid MOVE
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.session.state.steps == 18 and "An invalid MOVE" in console_text(app)
        table = app.screen.query_one(LaneTable)
        assert table.lanes is not None and table.lanes.dst == "bf16"  # the predicated cast
        head = str(app.screen.query_one("#lane-head").render())
        assert head.startswith("fp32 → bf16  128x8 lanes (step ")
        app.run_command("reverse 6")  # back before the last conversion: its lanes are gone
        await pilot.pause()
        assert app.screen.query_one(LaneTable).lanes is None


async def test_session_file_opens_at_its_step_with_layout_and_tour_notes() -> None:
    from neurondbg.sessions.tours import TOURS_DIR

    async with started(TOURS_DIR / "cast_rounding.toml") as (app, pilot):
        await pilot.pause()
        assert app.screen.focused is app.screen.query_one(LaneTable)  # layout focus = lanes
        text = console_text(app)
        assert "loaded" in text and "cast_rounding.toml" in text
        assert "Every Cast goes through fp32" in text  # the note for step 0
        app.screen.query_one(ProgramView).focus()
        await pilot.press("s")
        await pilot.pause()
        assert "Ties go to even" in console_text(app)


async def test_open_and_tour_commands() -> None:
    async with started(STEPS) as (app, pilot):
        app.run_command("tour")
        await pilot.pause()
        assert "cast-rounding" in console_text(app)
        app.run_command("tour nope")
        await pilot.pause()
        assert "error: tour: no tour 'nope'" in console_text(app)
        app.run_command(f"open {LOOP}")
        await app.wait_loaded()
        await pilot.pause()
        assert app.session.name == "loop.asm"
        assert app.screen.query_one(ProgramView).line_count() == 3
        app.run_command("open /no/such/file.asm")
        await app.wait_loaded()
        await pilot.pause()
        assert "/no/such/file.asm: no such file" in console_text(app)
        assert app.session.name == "loop.asm"  # the old session stays


async def test_colon_focuses_the_console_ctrl_c_stops_and_q_quits() -> None:
    async with started(LOOP) as (app, pilot):
        await pilot.press("colon")
        assert app.screen.focused is app.screen.query_one("#console-input")
        app.screen.query_one(ProgramView).focus()
        await pilot.press("c")
        await pilot.pause(0.2)
        await pilot.press("ctrl+c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.running and "stopped by the user" in console_text(app)
        await pilot.press("q")  # steps were taken: q asks once, a second q quits
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_random_keys_never_kill_the_app() -> None:
    import random

    rng = random.Random(6)
    keys = ["s", "r", "b", "z", "escape", "tab", "shift+tab", "up", "down", "v", "d", "h", "p",
            "left_square_bracket", "right_square_bracket", "f", "m", "pagedown", "pageup"]
    app = NeurondbgApp()  # the demo
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        for _ in range(80):
            await pilot.press(rng.choice(keys))
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, DebuggerScreen)
        assert "internal error" not in console_text(app)


async def test_save_a_session_and_open_it_again(tmp_path: Path) -> None:
    app = NeurondbgApp(STEPS)
    target = tmp_path / "here.toml"
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        await pilot.press("s", "s")
        app.screen.query_one(MemoryView).focus()
        await pilot.pause()
        app.run_command("break pc:0x80")
        app.run_command(f"save {target}")
        await pilot.pause()
        assert f"saved {target} at step 2" in " ".join(console_text(app).split())
        app.run_command("save nope.txt")
        await pilot.pause()
        assert "ending in .toml" in console_text(app)
    again = NeurondbgApp(target)
    async with again.run_test(size=SIZE) as pilot:
        await again.wait_loaded()
        await pilot.pause()
        assert again.session.state.steps == 2 and again.session.state.R[3] == 5
        assert again.screen.focused is again.screen.query_one(MemoryView)
        assert again.screen.query_one(ProgramView).breakpoints == {2}
