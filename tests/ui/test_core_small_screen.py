"""The kernel screen on small terminals: at 80x24 the Program and the Console keep rows
with content and every other pane is a tab (the Engines and the Timeline included); they
come back as the rows grow; at 100x30 every key the footer shows is whole (none cut by
the edge or the palette key)."""

from __future__ import annotations

from neurondbg.views.chrome import KeyFooter
from tests.ui.helpers import started

DOUBLE_BUFFER = "sessions/examples/kernels/double_buffer.asm"
PANE_NAMES = ("engines", "timeline", "registers", "semaphores", "struct", "legality",
              "memory")


def shown(app, name: str) -> bool:
    pane = app.screen.query_one(f"#pane-{name}")
    return pane.display and pane.region.height > 0


async def test_at_80x24_program_and_console_keep_rows_and_the_rest_are_tabs() -> None:
    async with started(DOUBLE_BUFFER, size=(80, 24)) as (app, pilot):
        for _ in range(5):  # a stepped kernel: the Timeline has rows to show
            await pilot.press("S")
        await pilot.pause()
        for digit, name in enumerate(PANE_NAMES, start=2):
            await pilot.press(str(digit))
            await pilot.pause()
            program = app.screen.query_one("#pane-program")
            console = app.screen.query_one("#pane-console")
            tab = app.screen.query_one(f"#pane-{name}")
            assert program.region.height >= 7, (name, program.region)  # 5 listing rows
            assert console.region.height >= 5, (name, console.region)
            assert tab.region.height >= 7, (name, tab.region)
            others = [n for n in PANE_NAMES if n != name and shown(app, n)]
            assert others == [], (name, others)
        listing = app.screen.query_one("#program")
        assert "CAST" in "".join(listing.render_line(y).text for y in range(5))
        await pilot.press("5")
        await pilot.pause()
        sems = app.screen.query_one("#semaphores")
        assert sems.render_line(0).text.startswith("sem[0] = 3"), sems.render_line(0).text


async def test_the_engines_then_the_timeline_come_back_as_the_rows_grow() -> None:
    """At 100x30 the rows hold the strip beside the Program's least but not the Timeline
    too (arrange.fit_rows); at 100x34 they hold both."""
    async with started(DOUBLE_BUFFER, size=(80, 24)) as (app, pilot):
        await pilot.press("2")  # the Engines tab
        await pilot.pause()
        assert not shown(app, "timeline")
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert shown(app, "engines") and not shown(app, "timeline")
        assert app.screen.tab not in ("engines", "timeline")
        assert shown(app, app.screen.tab)
        bar = app.screen.query_one("#pane-bar").render_line(0).text
        assert "Engines" not in bar and "Timeline" in bar and "Registers" in bar
        await pilot.resize_terminal(100, 34)
        await pilot.pause()
        assert shown(app, "engines") and shown(app, "timeline")
        bar = app.screen.query_one("#pane-bar").render_line(0).text
        assert "Timeline" not in bar and "Registers" in bar


async def test_at_100x30_every_footer_key_is_whole() -> None:
    async with started(DOUBLE_BUFFER, size=(100, 30)) as (app, pilot):
        await pilot.pause()
        footer = app.screen.query_one(KeyFooter)
        line = footer.render_line(0).text
        palette, others = footer.items[-1], footer.items[:-1]
        assert palette.description == "palette"
        assert [k.key for k in others] == ["S", "e", "s", "c", "r", "b", "z", "q"]
        for key in others:  # drawn whole, left of the palette's key
            assert key.end <= palette.start, key
            assert line[key.start:key.end].strip() == f"{key.display} {key.description}"
        assert line[palette.start:palette.end].strip() == "^p palette"
        assert palette.end <= 100
