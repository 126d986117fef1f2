"""Pilot tests of the NeuronCore layout: a kernel opens in the kernel layout, the
panes follow the focused engine, the timeline travels exactly, a race stop shows both
instructions and the overlap."""

from __future__ import annotations

from neurondbg.debug.session import Session
from neurondbg.sessions.examples import folder
from neurondbg.views.console_view import ConsoleView
from neurondbg.views.engines import EnginesView
from neurondbg.views.program import ProgramView
from neurondbg.views.registers import RegistersView
from neurondbg.views.semaphores import SemaphoresView
from neurondbg.views.timeline import TimelineView
from tests.ui.helpers import started

KERNELS = folder() / "kernels"
PRODUCER = KERNELS / "producer_consumer.asm"
MISSING = KERNELS / "missing_wait.asm"
DEADLOCK = KERNELS / "deadlock.asm"
DOUBLE = KERNELS / "double_buffer.asm"


def _cast_lines(path) -> list[int]:
    """The line numbers of the CAST instructions of an example (its comments may change)."""
    return [n for n, line in enumerate(path.read_text().splitlines(), start=1)
            if line.strip().startswith("CAST ")]


def _text(widget) -> str:
    return str(widget.render())


async def test_a_kernel_opens_in_the_core_layout() -> None:
    async with started(PRODUCER) as (app, _pilot):
        from neurondbg.screens.main import DebuggerScreen

        assert isinstance(app.screen, DebuggerScreen) and app.screen.kernel
        assert isinstance(app.session, Session)
        strip = _text(app.screen.query_one(EnginesView))
        assert "▶ pool" in strip and "waiting on sem[0] >= 1" in strip
        assert "schedule rr" in app.screen.sub_title


async def test_focus_switching_updates_the_panes() -> None:
    async with started(DOUBLE) as (app, pilot):
        program = app.screen.query_one(ProgramView)
        assert app.session.engine == "pool"
        pool_lines = [line.text for line in program.lines]
        await pilot.press("S", "S", "S")  # pool, dve, pool under rr
        assert app.session.core.steps == 3
        await pilot.press("e")
        assert app.session.engine == "dve"
        assert [line.text for line in program.lines] != pool_lines
        assert program.lines == app.session.lines_of["dve"]
        assert program.lines[program.pc_index].offset == app.session.core.state("dve").pc == 0x40
        assert "Program · dve" in str(app.screen.query_one("#pane-program").border_title)
        assert app.screen.query_one(RegistersView).snap.engine == "dve"
        assert "▶ dve" in _text(app.screen.query_one(EnginesView))
        await pilot.press("s")  # the focused engine only
        assert (app.session.core.engine_steps("dve"), app.session.core.engine_steps("pool")) \
            == (2, 2)
        await pilot.press("E")
        assert app.session.engine == "pool"
        app.run_command("focus dve")
        assert app.session.engine == "dve"


async def test_timeline_cursor_travels_to_a_step_and_back_exactly() -> None:
    async with started(DOUBLE) as (app, pilot):
        app.run_command("continue")
        await app.wait_loaded()
        core = app.session.core
        end, final = core.steps, core.digest()
        assert end == 10
        timeline = app.screen.query_one(TimelineView)
        timeline.focus()
        await pilot.press("home", "right", "right")  # the cursor on step 3
        await pilot.press("enter")
        assert core.steps == 3
        at3 = core.digest()
        assert core.digest() != final
        assert "pool CAST" in _text(timeline) and "undone" not in _text(timeline)
        await pilot.press("end", "enter")  # forward again along the path taken
        assert (core.steps, core.digest()) == (end, final)
        await pilot.press("home", "right", "right", "enter")
        assert core.digest() == at3


async def test_waits_are_gaps_and_semaphore_edges_are_marked() -> None:
    async with started(PRODUCER) as (app, pilot):
        await pilot.press("S", "S")
        text = _text(app.screen.query_one(TimelineView)).splitlines()
        pool, dve, sem = text[1], text[2], text[3]
        assert pool.split()[1] == "CAST" and dve.split()[1].startswith("╌")
        assert "↑" in sem and "↓" in sem
        assert sem.index("↑") < sem.index("↓")


async def test_a_race_stop_shows_both_instructions_and_the_overlap() -> None:
    async with started(MISSING) as (app, _pilot):
        app.run_command("break race")
        app.run_command("continue")
        await app.wait_loaded()
        stop = app.session.last_stop
        assert stop is not None and stop.reason == "race"
        sems = _text(app.screen.query_one(SemaphoresView))
        assert "RACE #1 on sbuf[0:128, 0x100:0x120]" in sems
        pool, dve = _cast_lines(MISSING)
        assert f" 1st pool 0x0 CAST (write)  missing_wait.asm:{pool}" in sems
        assert f" 2nd dve 0x0 CAST (read)  missing_wait.asm:{dve}" in sems
        assert "fix: DVE should wait for sem[0] >= 1 before 0x0" in sems
        said = "\n".join(app.screen.query_one(ConsoleView).messages)
        assert f"1st pool 0x0 CAST (write)  missing_wait.asm:{pool}: " \
            "CAST signal=sem[0]++@complete FP32→BF16" in said
        assert f"2nd dve 0x0 CAST (read)  missing_wait.asm:{dve}: CAST BF16→FP32" in said
        memory = app.screen.query_one("#memory")
        written = memory.snap.written
        assert [(w.space, w.p0, w.p1, w.columns) for w in written] == \
            [("sbuf", 0, 128, slice(0x100, 0x120))]
        assert app.session.engine == "dve"  # the stop moved the focus to the racing engine


async def test_a_run_that_halts_says_how_many_races_it_found() -> None:
    async with started(MISSING) as (app, _pilot):
        app.run_command("continue")  # no `break race`: the run halts, the race is reported
        await app.wait_loaded()
        assert app.session.last_stop.reason == "halt"
        said = "\n".join(app.screen.query_one(ConsoleView).messages)
        assert "halt: every engine halted after 4 steps; 1 race found on the way" in said
    async with started(PRODUCER) as (app, _pilot):
        app.run_command("continue")
        await app.wait_loaded()
        said = "\n".join(app.screen.query_one(ConsoleView).messages)
        assert "halt: every engine halted after 4 steps" in said and "race" not in said


async def test_a_deadlock_shows_the_wait_for_cycle_and_the_fix() -> None:
    async with started(DEADLOCK) as (app, _pilot):
        app.run_command("continue")
        await app.wait_loaded()
        sems = _text(app.screen.query_one(SemaphoresView))
        assert "DEADLOCK" in sems
        assert "pool waits at 0x0 for sem[1] >= 1" in sems
        assert "dve waits at 0x0 for sem[0] >= 1" in sems
        assert "fix: the waits form a cycle" in sems


async def test_schedule_and_who_in_the_console() -> None:
    async with started(PRODUCER) as (app, pilot):
        await pilot.press("S")
        app.run_command("who sem[0]")
        app.run_command("schedule random:7")
        assert app.session.core.schedule == "random:7" and app.session.core.steps == 0
        assert "schedule random:7" in app.screen.sub_title
        app.run_command("schedule sometimes")
        joined = "\n".join(app.screen.query_one(ConsoleView).messages)
        assert "sem[0] = 1: last updated by pool at 0x0 (step 1)" in joined
        assert "error: schedule:" in joined


async def test_a_bad_kernel_is_one_console_line_and_core_commands_need_a_kernel(
        tmp_path) -> None:
    bad = tmp_path / "bad.asm"
    bad.write_text(".engine pool\n    HALT\n.engine dve\n    CAST nonsense=1\n")
    async with started(bad) as (app, _pilot):
        assert app.session is None
        said = "\n".join(app.screen.query_one(ConsoleView).messages)
        assert "error: " in said and "bad.asm:4:" in said
    async with started(KERNELS.parent / "loop.asm") as (app, _pilot):
        app.run_command("step core")
        app.run_command("schedule rr")
        said = "\n".join(app.screen.query_one(ConsoleView).messages)
        assert "error: step: step core needs a kernel" in said
        assert "error: schedule: schedule needs a kernel" in said
        assert app.session.state.steps == 0


async def test_who_reads_shared_memory_across_engines_and_break_marks_the_focused_queue(
        ) -> None:
    async with started(DOUBLE) as (app, pilot):
        app.run_command("continue")
        await app.wait_loaded()
        await pilot.press("e")  # dve: POOL wrote the tile it read
        assert app.session.engine == "dve"
        app.run_command("who sb[0, 0x200]")
        app.run_command("who sb[0, 0x300]")
        app.run_command("break")  # the Program cursor's record, on the focused engine only
        said = "\n".join(app.screen.query_one(ConsoleView).messages)
        assert "sb[0, 0x200]: last written by pool at 0x80 (step 5)" in said
        assert "sb[0, 0x300]: last written by dve at 0x0 (step 2)" in said
        bp = app.session.breakpoints()[0]
        assert (bp.kind, bp.engine) == ("pc", "dve")
        assert app.screen.query_one(ProgramView).breakpoints == \
            app.session.breakpoint_indices("dve") != app.session.breakpoint_indices("pool")


async def test_escape_stops_a_long_core_run(tmp_path) -> None:
    loop = tmp_path / "spin.asm"
    loop.write_text("".join(
        f".engine {e}\n    MOVE R1=0 R2=0x7fffffff\nloop:\n"
        "    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1\n"
        "    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop\n"
        "    HALT\n" for e in ("pool", "dve")))
    async with started(loop) as (app, pilot):
        app.run_command("continue")
        # Esc once the worker is stepping (an Esc before its run begins: test_esc_race)
        while not app.running or app.session.core.steps == 0:
            await pilot.pause(0.01)
        await pilot.press("escape")
        await app.wait_loaded()
        assert not app.running
        assert app.session.last_stop.reason == "interrupt"
        assert "stopped by the user" in app.session.stop_text
        steps = app.session.core.steps
        assert 0 < steps < 2 * 0x7fffffff
        d = app.session.digest()
        await pilot.press("r")  # the state after an interrupt is exact: reverse one step
        assert app.session.core.steps == steps - 1
        await pilot.press("S")
        assert app.session.digest() == d


async def test_the_maximised_program_pane_shows_the_partner_engine_beside() -> None:
    from neurondbg.views.program import PartnerProgramView

    async with started(DOUBLE) as (app, pilot):
        await pilot.press("S", "S", "S")
        partner = app.screen.query_one(PartnerProgramView)
        assert not partner.display or partner.size.width == 0
        await pilot.press("z")
        await pilot.pause()
        assert partner.size.width > 0
        assert partner.lines == app.session.lines_of["dve"]
        assert partner.lines[partner.pc_index].offset == app.session.core.state("dve").pc
        assert "beside dve" in str(app.screen.query_one("#pane-program").border_title)


async def test_core_palette_entries_panes_and_info_registers() -> None:
    from neurondbg.palette import dynamic_entries, static_entries

    async with started(DOUBLE) as (app, pilot):
        entries = {e.title: e for e in static_entries(app) + dynamic_entries(app)}
        for title in ("Pane: Timeline", "Pane: Engines", "Pane: Semaphores", "Step core",
                      "Focus engine: dve", "Schedule: in-order"):
            assert title in entries, title
        assert "Pane: Plot" not in entries  # the program layout's, not this one's
        assert await app.run_entry(entries["Step core"])
        assert app.session.core.steps == 1
        assert await app.run_entry(entries["Focus engine: dve"])
        assert app.session.engine == "dve"
        app.run_command("pane timeline")
        await pilot.pause()
        assert app.screen.maximized is not None
        app.run_command("pane")
        app.run_command("info registers")
        said = "\n".join(app.screen.query_one(ConsoleView).messages)
        assert "R0  = 0x00000000 (0)" in said and "internal error" not in said


async def test_until_runs_the_focused_engine_to_an_address_and_rc_runs_back() -> None:
    async with started(DOUBLE) as (app, pilot):
        await pilot.press("e")  # dve
        app.run_command("until 0x80")
        await app.wait_loaded()
        core = app.session.core
        assert (core.state("dve").pc, core.steps) == (0x80, 5)
        assert "reached dve CAST at 0x80" in app.session.stop_text
        app.run_command("break pc:0x40@pool")
        app.run_command("reverse-continue")
        await app.wait_loaded()
        assert (core.state("pool").pc, core.steps) == (0x40, 2)
        assert app.session.stop_text.endswith("after 3 steps back")
        app.run_command("until nowhere")
        said = "\n".join(app.screen.query_one(ConsoleView).messages)
        assert "error: until: expected a record address such as 0x80 or a label of pool" in said
