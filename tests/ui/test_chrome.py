"""The title bar and the key bar (views.chrome): one widget each, drawn and used as
Textual's Header and Footer are."""

from __future__ import annotations

from neurondbg.views.chrome import KeyFooter, TitleBar
from tests.ui.helpers import started

LOOP = "tests/ui/data/loop.asm"
DOUBLE_BUFFER = "sessions/examples/kernels/double_buffer.asm"


def key(footer: KeyFooter, name: str):
    return next(item for item in footer.items if item.key == name)


async def test_the_footer_draws_every_shown_key_and_the_palette_at_the_right() -> None:
    async with started(LOOP) as (app, pilot):
        await pilot.pause()
        footer = app.screen.query_one(KeyFooter)
        line = footer.render_line(0).text
        assert len(line) == 160
        assert [item.key for item in footer.items][1:4] == ["s", "c", "r"]
        step = key(footer, "s")
        assert line[step.start:step.end] == " s step "
        assert line.rstrip().endswith("▏^p palette")
        assert footer.items[-1].description == "palette"


async def test_clicking_a_footer_key_presses_it() -> None:
    async with started(LOOP) as (app, pilot):
        await pilot.pause()
        footer = app.screen.query_one(KeyFooter)
        assert app.session.state.steps == 0
        assert await pilot.click(KeyFooter, offset=(key(footer, "s").start + 1, 0))
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.session.state.steps == 1


async def test_the_hovered_key_shows_its_tooltip() -> None:
    async with started(DOUBLE_BUFFER) as (app, pilot):
        await pilot.pause()
        footer = app.screen.query_one(KeyFooter)
        core = key(footer, "S")
        await pilot.hover(KeyFooter, offset=(core.start, 0))
        assert footer.hovered == footer.items.index(core)
        assert footer.tooltip == "one scheduler step (the policy picks the engine)"


async def test_a_compact_footer_draws_keys_without_padding() -> None:
    async with started(DOUBLE_BUFFER, size=(100, 30)) as (app, pilot):
        await pilot.pause()
        footer = app.screen.query_one(KeyFooter)
        assert footer.compact
        line = footer.render_line(0).text
        core = key(footer, "S")
        assert line[core.start:core.end] == "S step core"


async def test_the_title_bar_shows_the_title_and_subtitle_centred() -> None:
    async with started(LOOP) as (app, pilot):
        await pilot.pause()
        bar = app.screen.query_one(TitleBar)
        line = bar.render_line(0).text
        assert line.startswith(" ⭘ ")
        title = f"neurondbg — {app.screen.sub_title}"
        assert title in line
        middle = line[8:150]
        left = middle.index("neurondbg")
        assert abs(left - (len(middle) - left - len(title))) <= 1
