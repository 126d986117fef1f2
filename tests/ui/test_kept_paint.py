"""The lines a widget keeps between repaints (views.kept) are the lines it would draw
anew: after steps, a reverse, a focus move, a maximised pane and a travel on the
timeline, and after a repaint of some rows alone (a pane's title row)."""

from __future__ import annotations

from textual.geometry import Region
from textual.screen import Screen

from neurondbg.sessions.examples import folder
from neurondbg.views.kept import KeptPaint
from neurondbg.views.pane import Pane
from tests.ui.helpers import started

PRODUCER = folder() / "kernels" / "producer_consumer.asm"


def stale(screen: Screen) -> list[str]:
    """The kept widgets whose kept lines differ from their lines drawn anew."""
    out = []
    for w in screen.query(KeptPaint):
        if not w.display or not w.outer_size:
            continue
        crop = Region(0, 0, w.outer_size.width, w.outer_size.height)
        kept = [s.text for s in w.render_lines(crop)]
        w._kept_paint = None
        w._styles_cache.clear()
        if kept != [s.text for s in w.render_lines(crop)]:
            out.append(f"{type(w).__name__}#{w.id}")
    return out


async def test_kept_lines_are_the_lines_drawn_anew() -> None:
    async with started(PRODUCER) as (app, pilot):
        for key in ("S", "S", "e", "r", "z", "3", "left", "enter"):
            await pilot.press(key)
            await pilot.pause()
            assert stale(app.screen) == [], key


async def test_a_title_row_repainted_alone_is_drawn_with_the_rest_kept() -> None:
    async with started(PRODUCER) as (app, _pilot):
        pane = app.screen.query_one("#pane-registers", Pane)
        crop = Region(0, 0, pane.outer_size.width, pane.outer_size.height)
        before = [s.text for s in pane.render_lines(crop)]
        pane.set_title("Registers · somewhere")
        after = [s.text for s in pane.render_lines(crop)]
        assert "somewhere" in after[0] and "somewhere" not in before[0]
        assert after[1:] == before[1:]
        assert stale(app.screen) == []
