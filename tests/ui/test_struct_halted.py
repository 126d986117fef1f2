"""The panes once the PC holds no instruction: a halted engine's Struct pane keeps the
last instruction run (fields and bytes, the head saying why), never hex offsets alone;
Registers say `record -` (not `record None`), Legality that there is no instruction."""

from __future__ import annotations

from textual.widgets import Static

from neurondbg.views.legality import LegalityView
from neurondbg.views.registers import RegistersView
from neurondbg.views.struct_view import FieldTable, HexDump, StructView
from tests.ui.helpers import started

LOOP = "sessions/examples/loop.asm"  # 5 records, HALT at 0x100
KERNEL = "sessions/examples/kernels/producer_consumer.asm"  # pool: CAST, HALT at 0x40
DOUBLE = "sessions/examples/kernels/double_buffer.asm"  # each engine: 4 CASTs, HALT at 0x100


def head(app) -> str:
    return str(app.screen.query_one("#struct-head", Static).render())


def dump(app) -> list[str]:
    view = app.screen.query_one(HexDump)
    return [view.line_text(row).plain for row in range(4)]


async def test_a_halted_program_keeps_its_halt_in_the_struct_pane() -> None:
    async with started(LOOP) as (app, pilot):
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.session.state.halted and app.session.state.pc == 0x140
        table = app.screen.query_one(FieldTable)
        assert table.inst is not None and table.inst.mnemonic == "HALT"
        assert table.inst.offset == 0x100 and table.line_count() > 0
        assert head(app).startswith("HALT ") and "@0x100" in head(app)
        assert "halted · last run" in head(app)
        assert dump(app)[0].startswith("00  ") and len(dump(app)[0].split()) == 5  # bytes
        regs = app.screen.query_one(RegistersView)
        pc_line = regs.line_text(regs.line_count() - 1).plain
        assert "PC  0x00000140  record -   steps 32" in pc_line, pc_line
        assert app.screen.query_one(LegalityView).lines[0].plain == "no instruction at the PC"
        await pilot.press("s")  # a step of the halted machine runs nothing
        await pilot.pause()
        assert table.inst is not None and table.inst.offset == 0x100
        assert "halted · last run" in head(app)
        await pilot.press("r")  # back before the HALT: the PC holds it again
        await pilot.pause()
        assert app.session.state.pc == 0x100 and not app.session.state.halted
        assert table.inst.offset == 0x100 and "last run" not in head(app)
        assert "Δ changed since the last HALT" in head(app)


async def test_a_halted_engine_keeps_its_halt_on_the_kernel_screen() -> None:
    async with started(KERNEL) as (app, pilot):
        await pilot.press("s", "s")  # pool: CAST, then HALT
        await pilot.pause()
        table = app.screen.query_one(FieldTable)
        assert table.inst is not None and table.inst.mnemonic == "HALT"
        assert table.inst.offset == 0x40
        assert "halted · last run" in head(app)
        assert all(line.strip() for line in dump(app))


async def test_after_a_continue_each_engine_shows_its_own_last_step() -> None:
    # dve's one recorded step is its CAST at 0x0 (step 2); the run then takes the rest
    # without records: the panes showed that CAST as dve's last step, and its writes
    async with started(DOUBLE) as (app, pilot):
        await pilot.press("S", "S", "S")
        await pilot.pause()
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        session = app.session
        assert all(session.core.state(e).halted for e in session.core.engines)
        for engine in ("pool", "dve"):
            session.core.focus = engine
            snap = session.snapshot()
            assert snap.last_run is not None and snap.last_run.mnemonic == "HALT"
            assert snap.last_run.offset == 0x100
            assert snap.record is None or snap.record.index == 4, (engine, snap.record)
            assert snap.written == ()  # no CAST's writes: the last step is the HALT
            app.refresh_views()
            await pilot.pause()
            assert head(app).startswith("HALT ") and "@0x100" in head(app)
            assert "halted · last run" in head(app)


async def test_no_instruction_and_nothing_run_shows_no_bare_offsets() -> None:
    from neurondbg.debug.snapshot import Snapshot

    async with started(LOOP) as (app, pilot):
        app.screen.query_one(StructView).show(Snapshot(instruction=None, pc=0x400,
                                                       pc_index=None))
        await pilot.pause()
        assert head(app) == "no instruction at the PC"
        assert app.screen.query_one(FieldTable).line_count() == 0
        assert dump(app) == ["", "", "", ""]
