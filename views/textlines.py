"""A widget that draws one rich Text, line by line, through the Line API.

Textual draws a widget's `render()` result by converting the whole Text to Content,
wrapping and formatting it, at every repaint: for the small panes that change at every
core step (the engine strip, the timeline) that pass costs more than building the
text. `TextLines` builds the Text once per repaint (`text()`, which `render()` also
returns, so a test can read it) and draws each line as segments, cropped to the width
(no wrapping: these panes are no-wrap by design). Its height is its line count.

The strips carry the same text-selection offsets as Content's, so the screen (and its
SVG snapshots) is the one Textual would draw from `render()`.
"""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget


def text_strip(line: Text, y: int, width: int, base: Style, console: Console) -> Strip:
    """Line `y` of a widget: `line` over the widget's `base` style, cropped to `width`."""
    own = base
    if line.style and not line.spans:  # Text.render drops a span-less line's own style
        own = base + console.get_style(line.style)
    segments = [Segment(s.text, own + s.style if s.style else own)
                for s in line.render(console) if s.text != "\n"]
    return Strip(segments).apply_offsets(0, y).crop_extend(0, width, base)


class TextLines(Widget):
    """Subclasses implement `text()`; `refresh()` (the usual way) redraws it."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._lines: list[Text] | None = None  # this repaint's lines (None: build anew)
        self._paint: tuple[Style, int] | None = None  # (base style, width) in render_lines

    def text(self) -> Text:
        return Text()

    def render(self) -> Text:
        return self.text()

    def line_count(self) -> int:
        return len(self.text().split("\n", allow_blank=True))

    def refresh(self, *regions, **kwargs) -> Widget:  # type: ignore[override]
        self._lines = None  # whatever asks for a repaint may have changed the lines
        return super().refresh(*regions, **kwargs)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.line_count()

    def render_lines(self, crop: Region) -> list[Strip]:
        self._paint = (self.rich_style, self.size.width)  # once a paint, not once a line
        try:
            return super().render_lines(crop)
        finally:
            self._paint = None

    def render_line(self, y: int) -> Strip:
        if self._lines is None:
            self._lines = self.text().split("\n", allow_blank=True)
        base, width = self._paint if self._paint is not None else \
            (self.rich_style, self.size.width)
        if y >= len(self._lines):
            return Strip.blank(width, base)
        return text_strip(self._lines[y], y, width, base, self.app.console)
