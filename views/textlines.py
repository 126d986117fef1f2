"""A widget that draws rich Text lines through the Line API.

Textual draws a widget's `render()` result by converting the whole Text to Content,
wrapping and formatting it, at every repaint: for the small panes that change at every
core step (the engine strip, the timeline, the title bar) that pass costs more than
building the text. `TextLines` takes its lines (`lines()`, by default `text()` split;
`render()` returns `text()`, so a test can read it) and draws each line as segments,
cropped to the width (no wrapping: these panes are no-wrap by design). Its height is
its line count. A view that builds its lines when it is fed (`repaint_lines`) repaints
only the lines that differ from those on screen.

The strips carry the same text-selection offsets as Content's, and the same segments
as `Text.render`, so the screen (and its SVG snapshots) is the one Textual would draw
from `render()`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from neurondbg.views.kept import KeptPaint

_OFFSETS: dict[tuple[int, int], Style] = {}  # the selection offset style of a cell
# base + line style + span style, by (base, line style, span style): a pane draws a few
_STYLES: dict[tuple[Style, object, object], Style] = {}


def _offset(x: int, y: int) -> Style:
    """The meta style `Strip.apply_offsets` gives the segment at column `x` of line `y`
    (one per cell, reused: the style is the same at every repaint)."""
    style = _OFFSETS.get((x, y))
    if style is None:
        if len(_OFFSETS) > 65536:  # a bound far above any screen's cells
            _OFFSETS.clear()
        style = _OFFSETS[(x, y)] = Style.from_meta({"offset": (x, y)})
    return style


def _style(base: Style, line_style: str | Style, span_style: str | Style,
           console: Console) -> Style:
    """`base` plus a piece's style (the line's plus a span's) as `Text.render` combines
    them, and the piece's style alone when that is null."""
    key = (base, line_style, span_style)
    style = _STYLES.get(key)
    if style is None:
        null = Style.null()
        own = console.get_style(line_style, default=null) + \
            console.get_style(span_style, default=null)
        style = base + own if own else base
        if len(_STYLES) > 4096:  # themes and panes come and go: stay small
            _STYLES.clear()
        _STYLES[key] = style
    return style


def _runs(line: Text, base: Style, console: Console) -> list[tuple[str, Style]]:
    """(text, style) of `line`'s segments over `base`, as `Text.render` cuts them: at
    every span boundary, each piece in the line's style plus the spans over it."""
    plain = line.plain
    spans = line.spans
    if not spans:  # Text.render gives a span-less line's text unstyled
        return [(plain, _style(base, line.style, "", console) if line.style else base)]
    line_style = line.style
    out: list[tuple[str, Style]] = []
    end = 0
    for span in sorted(spans, key=lambda s: s.start):
        if span.start < end:  # overlapping spans: Rich's general algorithm
            return [(s.text, base + s.style if s.style else base)
                    for s in line.render(console) if s.text != "\n"]
        if span.start > end:
            out.append((plain[end:span.start], _style(base, line_style, "", console)))
            end = span.start
        if span.end > span.start:
            out.append((plain[span.start:span.end],
                        _style(base, line_style, span.style, console)))
            end = span.end
    if end < len(plain):
        out.append((plain[end:], _style(base, line_style, "", console)))
    return out


def text_strip(line: Text, y: int, width: int, base: Style, console: Console) -> Strip:
    """Line `y` of a widget: `line` over the widget's `base` style, cropped to `width`,
    with the selection offsets `Strip.apply_offsets(0, y)` adds."""
    segments = []
    x = 0
    for text, style in _runs(line, base, console):
        offset = _offset(x, y)
        segments.append(Segment(text, style + offset if style else offset))
        x += len(text)
    return Strip(segments).crop_extend(0, width, base)


def line_key(line: Text) -> tuple[object, ...]:
    """What `line` draws: equal keys, equal strips (`Text.__eq__` leaves the line's own
    style out)."""
    return line.plain, line.style, tuple(line.spans)


class TextLines(KeptPaint):
    """Subclasses implement `text()` or `lines()`; `refresh()` (the usual way) redraws
    them; `repaint_lines(lines)` draws given lines, repainting only those that changed."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._lines: list[Text] | None = None  # this repaint's lines (None: build anew)
        self._keys: list[tuple[object, ...]] | None = None  # line_key of the lines drawn
        self._count = -1  # how many lines repaint_lines drew last (its layout's height)
        self._fed: list[Text] | None = None  # the lines repaint_lines was given last
        self._paint: tuple[Style, int] | None = None  # (base style, width) in render_lines
        self._base: tuple[object, Style] | None = None  # (focus and theme, rich_style)

    def text(self) -> Text:
        return Text()

    def lines(self) -> list[Text]:
        """The lines drawn (default: those `repaint_lines` was given last, else `text()`
        split at its newlines)."""
        if self._fed is not None:
            return self._fed
        return self.text().split("\n", allow_blank=True)

    def render(self) -> Text:
        return self.text()

    def line_count(self) -> int:
        return len(self.lines())

    def refresh(self, *regions, **kwargs) -> Widget:  # type: ignore[override]
        self._lines = None  # whatever asks for a repaint may have changed the lines
        self._keys = None
        return super().refresh(*regions, **kwargs)

    def repaint_lines(self, lines: Sequence[Text]) -> None:
        """Draw `lines` from now on: repaint those that differ from the lines drawn, or
        all of them (with a new layout if their count changed)."""
        keys = [line_key(line) for line in lines]
        old = self._keys
        if old is None or len(old) != len(keys):
            self.refresh(layout=len(keys) != self._count)
        else:
            width = self.size.width
            changed = [Region(0, y, width, 1)
                       for y, (a, b) in enumerate(zip(old, keys, strict=True)) if a != b]
            if changed:  # (no regions would repaint it all)
                Widget.refresh(self, *changed)
        self._fed = list(lines)
        self._lines, self._keys, self._count = self._fed, keys, len(keys)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.line_count()

    def base_style(self) -> Style:
        """The widget's `rich_style`, looked up once per focus state and theme (it walks
        the DOM: at every core step that cost more than a line's segments)."""
        key = (self.has_focus, self.app.theme)
        if self._base is None or self._base[0] != key:
            self._base = (key, self.rich_style)
        return self._base[1]

    def notify_style_update(self) -> None:
        # a class, hover or theme change, or a CSS reload, restyles it: look it up again
        super().notify_style_update()
        self._base = None

    def draw_lines(self, crop: Region) -> list[Strip]:
        self._paint = (self.base_style(), self.size.width)  # once a paint, not once a line
        try:
            return super().draw_lines(crop)
        finally:
            self._paint = None

    def render_line(self, y: int) -> Strip:
        if self._lines is None:
            self._lines = self.lines()
            self._keys = [line_key(line) for line in self._lines]  # what is drawn now
        base, width = self._paint if self._paint is not None else \
            (self.base_style(), self.size.width)
        if y >= len(self._lines):
            return Strip.blank(width, base)
        return text_strip(self._lines[y], y, width, base, self.app.console)
