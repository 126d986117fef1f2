"""The list panes' cursor row can be seen: the `lineview--cursor` background under the
whole row, bright in the focused pane and dimmer in the others (applied above
the base background: under it, it would never show)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.color import Color
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult

from neurondbg.views.accum import AccumView
from neurondbg.views.lanes import LaneTable
from neurondbg.views.legality import LegalityView
from neurondbg.views.lineview import LineView
from neurondbg.views.memory import MemoryView
from neurondbg.views.program import ProgramView
from neurondbg.views.struct_view import FieldTable
from tests.ui.helpers import started

STEPS = Path(__file__).parent / "data" / "steps.asm"
FOCUSED = Color.parse("#4e4e4e").get_truecolor()  # the first release's cursor grey
BLURRED = Color.parse("#303030").get_truecolor()


def backgrounds(view: LineView, index: int) -> set[tuple[int, int, int]]:
    """The background colours of every cell of content line `index` as drawn now."""
    strip = view.render_line(index - int(view.scroll_offset.y))
    assert strip.cell_length == view.size.width  # the whole row, padding included
    return {seg.style.bgcolor.get_truecolor() for seg in strip if seg.style is not None}


def base(view: LineView) -> tuple[int, int, int]:
    return view.rich_style.bgcolor.get_truecolor()


async def test_the_focused_program_cursor_row_moves_with_the_keys() -> None:
    async with started(STEPS) as (app, pilot):
        program = app.screen.query_one(ProgramView)
        program.focus()
        await pilot.pause()
        assert program.cursor == 0 and backgrounds(program, 0) == {FOCUSED}
        assert backgrounds(program, 1) == {base(program)} != {FOCUSED}
        await pilot.press("down", "down")
        assert program.cursor == 2
        assert backgrounds(program, 2) == {FOCUSED}
        assert backgrounds(program, 0) == {base(program)}  # the old row (a cached strip)
        assert "▶" in program.render_line(0).text  # the PC marker stays on record 0
        await pilot.press("up")
        assert backgrounds(program, 1) == {FOCUSED}
        assert backgrounds(program, 2) == {base(program)}


async def test_a_click_moves_the_cursor_row() -> None:
    async with started(STEPS) as (app, pilot):
        program = app.screen.query_one(ProgramView)
        assert await pilot.click(ProgramView, offset=(10, 3))
        await pilot.pause()
        assert program.has_focus and program.cursor == 3
        assert backgrounds(program, 3) == {FOCUSED}
        assert backgrounds(program, 0) == {base(program)}


async def test_a_blurred_pane_keeps_a_dimmer_cursor_row() -> None:
    async with started(STEPS) as (app, pilot):
        program = app.screen.query_one(ProgramView)
        program.focus()
        await pilot.press("down")
        app.screen.query_one(LegalityView).focus()
        await pilot.pause()
        assert not program.has_focus
        assert backgrounds(program, 1) == {BLURRED}
        assert BLURRED not in (FOCUSED, base(program))
        assert backgrounds(program, 0) == {base(program)}
        program.focus()
        await pilot.pause()
        assert backgrounds(program, 1) == {FOCUSED}


async def test_every_list_pane_shows_its_cursor_row() -> None:
    async with started(STEPS) as (app, pilot):
        await pilot.press("s", "s")  # past the CAST: the lanes have rows
        await pilot.pause()
        for kind in (AccumView, MemoryView, LaneTable, LegalityView, FieldTable):
            view = app.screen.query_one(kind)
            view.focus()
            await pilot.pause()
            assert view.line_count() > 2, kind
            view.cursor = 0
            await pilot.press("down")
            assert view.cursor == 1, kind
            assert FOCUSED in backgrounds(view, 1), kind
            assert FOCUSED not in backgrounds(view, 0), kind
            assert FOCUSED not in backgrounds(view, 2), kind


async def test_a_light_theme_has_a_focused_and_a_dimmer_cursor() -> None:
    async with started(STEPS) as (app, pilot):
        program = app.screen.query_one(ProgramView)
        program.focus()
        app.theme = "textual-light"
        await pilot.pause()
        focused = backgrounds(program, 0)
        app.screen.query_one(LegalityView).focus()
        await pilot.pause()
        blurred = backgrounds(program, 0)
        assert len(focused) == len(blurred) == 1
        assert len({*focused, *blurred, base(program)}) == 3  # three distinct greys
        assert not focused & {FOCUSED, BLURRED}


class Marked(LineView):
    """Three lines; line 1 has a cell with a background of its own (a written cell)."""

    MARK: ClassVar[Style] = Style(bgcolor="#ffd43b")

    def line_count(self) -> int:
        return 3

    def line_text(self, index: int) -> Text:
        text = Text(f"line {index} ")
        text.append("cell", style=self.MARK if index == 1 else "")
        return text

    def line_key(self, index: int) -> int:
        return index


class MarkedApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Marked()


async def test_a_cell_with_its_own_background_keeps_it_on_the_cursor_row() -> None:
    app = MarkedApp()
    async with app.run_test(size=(40, 5)) as pilot:
        view = app.query_one(Marked)
        view.focus()
        await pilot.press("down")
        assert view.cursor == 1
        mark = Marked.MARK.bgcolor.get_truecolor()
        strip = view.render_line(1)
        cells = {seg.text: seg.style.bgcolor.get_truecolor() for seg in strip if seg.text}
        assert cells["cell"] == mark and cells["line 1 "] == FOCUSED
        assert backgrounds(view, 1) == {FOCUSED, mark}
        await pilot.press("down")
        assert backgrounds(view, 1) == {base(view), mark}
        assert backgrounds(view, 2) == {FOCUSED}


class Wide(LineView):
    """Ten lines wider than the view: a horizontal scrollbar takes the view's last row."""

    def on_mount(self) -> None:
        self.update_size()

    def line_count(self) -> int:
        return 10

    def content_width(self) -> int:
        return 200

    def line_text(self, index: int) -> Text:
        return Text(f"line {index} " + "x" * 190)


class WideApp(App[None]):
    CSS = "Wide { height: 4; }"

    def compose(self) -> ComposeResult:
        yield Wide()


async def test_the_cursor_row_is_not_left_under_the_horizontal_scrollbar() -> None:
    app = WideApp()
    async with app.run_test(size=(40, 6)) as pilot:
        view = app.query_one(Wide)
        view.focus()
        await pilot.pause()
        rows = view.scrollable_content_region.height
        assert (view.size.height, rows) == (4, 3)  # the scrollbar's row
        await pilot.press("down", "down", "down")  # to line 3: the 4th row
        assert view.cursor == 3 and int(view.scroll_offset.y) == 1
        assert view.render_line(2).text.startswith("line 3")
        assert backgrounds(view, 3) == {FOCUSED}


async def test_a_new_verdict_brings_the_legality_cursor_back_to_its_first_line() -> None:
    async with started(STEPS) as (app, pilot):
        legality = app.screen.query_one(LegalityView)
        legality.focus()
        await pilot.pause()
        rows = legality.scrollable_content_region.height
        assert legality.line_count() > rows + 2
        legality.cursor = rows + 1  # below the first screenful: the view scrolls
        await pilot.pause()
        assert int(legality.scroll_offset.y) > 0
        await pilot.press("s")  # the next instruction's verdict
        await pilot.pause()
        assert legality.cursor == 0 and int(legality.scroll_offset.y) == 0
        assert backgrounds(legality, 0) == {FOCUSED}


class NoCursor(Wide):
    """A view without a cursor row (as the Registers)."""

    show_cursor: ClassVar[bool] = False

    def content_width(self) -> int:
        return 10


class NoCursorApp(App[None]):
    CSS = "NoCursor { height: 3; }"

    def compose(self) -> ComposeResult:
        yield NoCursor()


async def test_the_keys_scroll_a_view_without_a_cursor_row() -> None:
    app = NoCursorApp()
    async with app.run_test(size=(40, 6)) as pilot:
        view = app.query_one(NoCursor)
        view.focus()
        await pilot.press("down")
        assert int(view.scroll_offset.y) == 1  # at once: no unseen cursor walks down first
        assert view.render_line(0).text.startswith("line 1")
        assert backgrounds(view, 1) == {base(view)}  # and no row is marked
        await pilot.press("pagedown")
        assert int(view.scroll_offset.y) == 7  # the last screenful: 10 lines, 3 rows
        await pilot.press("up")
        assert int(view.scroll_offset.y) == 6


async def test_j_k_home_and_end_move_the_cursor_row_and_keep_it_on_screen() -> None:
    async with started(STEPS) as (app, pilot):
        memory = app.screen.query_one(MemoryView)  # 128 partitions: more than its rows
        memory.focus()
        await pilot.press("j", "j", "k")
        assert memory.cursor == 1 and backgrounds(memory, 1) == {FOCUSED}
        await pilot.press("end")
        last = memory.line_count() - 1
        top, rows = int(memory.scroll_offset.y), memory.scrollable_content_region.height
        assert memory.cursor == last and top <= last < top + rows
        assert backgrounds(memory, last) == {FOCUSED}
        await pilot.press("home")
        assert memory.cursor == 0 and int(memory.scroll_offset.y) == 0
        assert backgrounds(memory, 0) == {FOCUSED}


class Tall(Wide):
    """Ten lines that fit the view's width: as many rows as the terminal gives."""

    def content_width(self) -> int:
        return 10


class TallApp(App[None]):
    CSS = "Tall { height: 1fr; }"

    def compose(self) -> ComposeResult:
        yield Tall()


async def test_a_smaller_view_keeps_the_cursor_row_in_view() -> None:
    app = TallApp()
    async with app.run_test(size=(40, 12)) as pilot:
        view = app.query_one(Tall)
        view.focus()
        await pilot.press(*["down"] * 8)
        assert view.cursor == 8 and int(view.scroll_offset.y) == 0  # all ten lines fit
        await pilot.resize_terminal(40, 4)
        await pilot.pause()
        top, rows = int(view.scroll_offset.y), view.scrollable_content_region.height
        assert rows == 4 and top <= 8 < top + rows
        assert backgrounds(view, 8) == {FOCUSED}
