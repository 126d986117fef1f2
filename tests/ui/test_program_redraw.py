"""The Program pane draws the listing it was given: its cached lines are keyed by a
version bumped per listing (not by the listing's id(), which a freed listing's
successor can reuse), and `f` switches every listing of the pane (a maximised kernel's
partner listing too)."""

from __future__ import annotations

import neurondbg.views.program  # noqa: F401
from neurondbg import views
from neurondbg.debug.snapshot import ProgramLine, Snapshot
from neurondbg.views.program import PartnerProgramView, ProgramView
from tests.ui.helpers import started

LOOP = "sessions/examples/loop.asm"
KERNEL = "sessions/examples/kernels/double_buffer.asm"


def listing(word: str) -> tuple[ProgramLine, ...]:
    return tuple(ProgramLine(i, i * 64, f"{word} {i}", listing=f"{word} {i}") for i in range(3))


def drawn(view: ProgramView) -> list[str]:
    return [view.render_line(y).text.rstrip() for y in range(3)]


async def test_a_new_listing_with_a_reused_id_is_drawn(monkeypatch) -> None:
    monkeypatch.setattr(views.program, "id", lambda obj: 1, raising=False)  # ids reused
    async with started(LOOP) as (app, pilot):
        view = app.screen.query_one("#program", ProgramView)
        view.show(Snapshot(lines=listing("ALPHA"), pc_index=0))
        await pilot.pause()
        assert "ALPHA 0" in drawn(view)[0]
        view.show(Snapshot(lines=listing("BRAVO"), pc_index=0))
        await pilot.pause()
        assert [line.split()[-2:] for line in drawn(view)] == [
            ["BRAVO", "0"], ["BRAVO", "1"], ["BRAVO", "2"]]


async def test_f_switches_the_partner_listing_too() -> None:
    async with started(KERNEL) as (app, pilot):
        await pilot.press("z")  # the Program pane maximised: pool's listing and dve's
        await pilot.pause()
        main = app.screen.query_one("#program", ProgramView)
        partner = app.screen.query_one(PartnerProgramView)
        assert partner.display and partner.shown(0) == app.session.lines_of["dve"][0].listing
        await pilot.press("f")
        await pilot.pause()
        assert main.full and partner.full
        assert partner.shown(0) == app.session.lines_of["dve"][0].text  # the disassembly
        assert "src=sb[0, 0x200]" in partner.shown(0)
        await pilot.press("f")
        await pilot.pause()
        assert not main.full and not partner.full
