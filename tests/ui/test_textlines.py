"""views.textlines: a line drawn as segments is the strip Textual would draw from the
Text (Rich's render, the selection offsets, the crop), and a view fed new lines
repaints only those that changed."""

from __future__ import annotations

from rich.console import Console
from rich.style import Style
from rich.text import Span, Text
from textual.app import App, ComposeResult
from textual.strip import Strip

from neurondbg.views.textlines import TextLines, text_strip

BASE = Style(color="white", bgcolor="grey11")


def reference(line: Text, y: int, width: int, base: Style, console: Console) -> Strip:
    """What Textual's own path gives: Text.render, then Strip.apply_offsets."""
    own = base + console.get_style(line.style) if line.style and not line.spans else base
    segments = [s._replace(style=own + s.style if s.style else own)
                for s in line.render(console) if s.text != "\n"]
    return Strip(segments).apply_offsets(0, y).crop_extend(0, width, base)


def drawn(strip: Strip) -> list[tuple[str, Style | None, object]]:
    """Each segment's text, style without meta, and selection offset."""
    return [(s.text, _plain(s.style),
             s.style.meta.get("offset") if s.style else None) for s in strip]


def _plain(style: Style | None) -> Style | None:
    if style is None:
        return None
    copy = style.copy()
    copy._meta = None
    return copy


LINES = [
    Text(""),
    Text("plain"),
    Text("dim line", style="dim"),
    Text.assemble(("▶ ", "bold reverse"), ("pool ", "bold"), " pc 0x0040  ", ("NOP", "")),
    Text("abcdefgh", style="italic", spans=[Span(1, 3, "bold"), Span(5, 8, "red")]),
    Text("overlap", spans=[Span(0, 5, "bold"), Span(2, 7, "red")]),  # Rich's own path
    Text("empty span", spans=[Span(3, 3, "bold"), Span(3, 6, "cyan")]),
    Text("a style object", spans=[Span(2, 7, Style(underline=True))]),
]


def test_a_line_draws_as_textual_would() -> None:
    console = Console(width=40)
    for y, line in enumerate(LINES):
        for width in (4, 30):
            got = text_strip(line, y, width, BASE, console)
            want = reference(line, y, width, BASE, console)
            assert drawn(got) == drawn(want), line
            assert got.cell_length == want.cell_length == width


class Lines(TextLines):
    DEFAULT_CSS = "Lines { height: auto; }"


class LinesApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Lines()


async def test_new_lines_repaint_only_those_that_changed() -> None:
    app = LinesApp()
    async with app.run_test(size=(40, 10)) as pilot:
        view = app.query_one(Lines)
        view.repaint_lines([Text("a"), Text("b"), Text("c")])
        await pilot.pause()
        assert view.size.height == 3
        view.repaint_lines([Text("a"), Text("B"), Text("c")])
        assert set(view._styles_cache._dirty_lines) == {1}
        view.repaint_lines([Text("a"), Text("B", style="bold"), Text("c")])  # style only
        assert 1 in view._styles_cache._dirty_lines
        await pilot.pause()
        view.repaint_lines([Text("a"), Text("B", style="bold"), Text("c")])
        assert set(view._styles_cache._dirty_lines) == set()
        view.repaint_lines([Text("a"), Text("b")])  # fewer lines: a new layout
        await pilot.pause()
        assert view.size.height == 2
        assert [view.render_line(y).text.rstrip() for y in range(2)] == ["a", "b"]


async def test_the_base_style_follows_the_theme() -> None:
    app = LinesApp()
    async with app.run_test(size=(40, 10)) as pilot:
        view = app.query_one(Lines)
        view.repaint_lines([Text("a")])
        await pilot.pause()
        dark = view.base_style()
        app.theme = "textual-light"
        await pilot.pause()
        assert view.base_style() == view.rich_style != dark
