"""A ScrollView that renders only its visible lines (Textual's Line API).

Subclasses say how many lines there are and how to draw line i as rich Text;
scrolling, cropping and the cursor row are handled here. Large views (program
listing, SBUF rows, lanes) are built on this so a step never mounts widgets.

Styles that mean the same in every view are component classes, so a theme or a
user's CSS restyles them: `lineview--cursor` (the cursor row) and `lineview--written`
(what the last step wrote: registers, accumulators, SBUF cells). Decision: the
default (dark) colours are the first release's, exactly; light themes get a cursor
from the theme's own panel colour (the dark grey would hide dark text).

The cursor row is drawn as Textual's DataTable and OptionList draw theirs: the
`lineview--cursor` background under the whole row, bright while the view has focus
(`LineView:focus > .lineview--cursor`) and dimmer without it, so the row a key acts on
(`b` a record, `o` a lane, a field's bytes) stays visible when focus is elsewhere.
The cursor is the row's background, under the line's own styles: a cell with a
background of its own (a written cell, a heatmap cell) keeps it on the cursor row, as
in pudb and gdb-dashboard, where the highlighted line still shows its syntax colours.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from neurondbg.views.kept import KeptPaint
from neurondbg.views.pane import contain

STRIP_CACHE = 4096  # rendered lines kept per view (least recently drawn go first)


class LineView(ScrollView, KeptPaint, can_focus=True):
    """Base class: `line_count()` lines, `line_text(i)` each, one cursor row."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"lineview--cursor", "lineview--written"}
    DEFAULT_CSS = """
    LineView { height: 1fr; width: 1fr; scrollbar-size: 1 1; }
    LineView > .lineview--cursor { background: #303030; }
    LineView:focus > .lineview--cursor { background: #4e4e4e; }
    LineView:light > .lineview--cursor { background: $panel; }
    LineView:light:focus > .lineview--cursor { background: $panel-darken-2; }
    LineView > .lineview--written { color: ansi_black; background: #ffd43b; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "up", show=False, id="lines.up"),
        Binding("down,j", "cursor(1)", "down", show=False, id="lines.down"),
        Binding("pageup", "cursor(-10)", "page up", show=False, id="lines.pageup"),
        Binding("pagedown", "cursor(10)", "page down", show=False, id="lines.pagedown"),
        # ScrollView's own Home / End scrolled the view and left the cursor row off screen
        Binding("home", "cursor_edge(0)", "first line", show=False, id="lines.home"),
        Binding("end", "cursor_edge(1)", "last line", show=False, id="lines.end"),
    ]

    # repaint=False: watch_cursor repaints the two rows that change (a reactive's default
    # repaints the whole view, at every step that moves the Program cursor to the PC)
    cursor: reactive[int] = reactive(0, repaint=False)
    show_cursor: ClassVar[bool] = True

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._strips: LRUCache[Hashable, Strip] = LRUCache(STRIP_CACHE)
        self._base_key: object = None
        self._base = Style()
        self._cursor = Style()
        self._written = Style()
        # (scroll x, scroll y, width, base style) while render_lines draws: looked up once
        # a paint, not once a line (each is a walk of the DOM or of the styles)
        self._paint: tuple[int, int, int, Style] | None = None

    class Selected(Message):
        """The cursor moved to line `index`."""

        def __init__(self, view: LineView, index: int) -> None:
            super().__init__()
            self.view = view
            self.index = index

        @property
        def control(self) -> LineView:
            return self.view

    def line_count(self) -> int:
        return 0

    def line_text(self, index: int) -> Text:
        return Text()

    def content_width(self) -> int:
        return self.size.width

    def line_key(self, index: int) -> Hashable | None:
        """A key that identifies line `index`'s content; lines with a key are rendered
        once and reused (e.g. alternating instructions in the Struct pane). None: no cache."""
        return None

    def base_style(self) -> Style:
        """The widget's background/foreground style, computed once per focus state and theme
        (walking the DOM for it on every line would dominate the render time)."""
        key = (self.has_focus, self.app.theme)
        if self._base_key != key:
            self._base_key = key
            self._base = self.rich_style
            self._cursor = self.get_component_rich_style("lineview--cursor", partial=True)
            self._written = self.get_component_rich_style("lineview--written", partial=True)
        return self._base

    def notify_style_update(self) -> None:
        # a theme change or a CSS reload restyles the component classes: look them up again
        super().notify_style_update()
        self._base_key = None

    @property
    def written_style(self) -> Style:
        """What the last step wrote (component class `lineview--written`; looked up with
        the base style, once per focus state and theme)."""
        self.base_style()
        return self._written

    def refresh_indices(self, indices: Iterable[int]) -> None:
        """Repaint only the given content lines (those on screen)."""
        top = int(self.scroll_offset.y)
        bottom = top + self.size.height
        for i in set(indices):
            if top <= i < bottom:
                self.refresh_line(i)

    def line_ident(self, index: int) -> object:
        """What line `index` shows, as a value equal for two lines drawn alike (default:
        its text; a view that has it at hand more cheaply says so)."""
        return self.line_text(index)

    def on_screen(self) -> dict[int, object]:
        """`line_ident` of each line on screen, by index (for `update_size`)."""
        top = int(self.scroll_offset.y)
        return {i: self.line_ident(i)
                for i in range(top, min(top + self.size.height, self.line_count()))}

    def update_size(self, before: Mapping[int, object] | None = None) -> None:
        """Call after the content changed: sets the scrollable size and repaints. With
        `before`, what `on_screen()` gave before the change, only the lines on screen
        that differ are repainted: a pane fed the same text again (the same instruction
        on another engine) draws nothing."""
        self.virtual_size = Size(max(self.content_width(), 1), self.line_count())
        if self.cursor >= self.line_count():
            self.cursor = max(0, self.line_count() - 1)
        if before is None:
            self.refresh()
            return
        now = self.on_screen()
        if now.keys() != before.keys():
            self.refresh()
            return
        self.refresh_indices(i for i, ident in now.items() if before[i] != ident)

    def draw_lines(self, crop: Region) -> list[Strip]:
        scroll_x, scroll_y = self.scroll_offset
        self._paint = (scroll_x, scroll_y, self.size.width, self.base_style())
        try:
            return super().draw_lines(crop)
        finally:
            self._paint = None

    def render_line(self, y: int) -> Strip:
        # line_text runs here, at paint time: inside the pane's containment boundary
        strip = contain(self, "draw", lambda: self._render_line(y), fallback=None)
        return strip if strip is not None else Strip.blank(self.size.width)

    def _render_line(self, y: int) -> Strip:
        if self._paint is not None:
            scroll_x, scroll_y, width, base = self._paint
        else:  # a line drawn outside render_lines
            scroll_x, scroll_y = self.scroll_offset
            width, base = self.size.width, self.base_style()
        index = scroll_y + y
        if index >= self.line_count():
            return Strip.blank(width, base)
        # the cursor row, focused or not (its style says which): its background is the
        # row's, under the text's own styles (Strip.apply_style would put it under the
        # base background too, where it cannot be seen)
        on_cursor = self.show_cursor and index == self.cursor
        row = base + self._cursor if on_cursor else base
        key = self.line_key(index)
        if key is not None:
            # the styles themselves, not the focus state: a CSS reload changes them too
            key = (key, scroll_x, width, row, self._written)
            cached = self._strips.get(key)
            if cached is not None:
                return cached
        text = self.line_text(index)
        segments = [Segment(s.text, row + s.style if s.style else row)
                    for s in text.render(self.app.console) if s.text != "\n"]
        strip = Strip(segments).crop_extend(scroll_x, scroll_x + width, row)
        if key is not None:
            self._strips.set(key, strip)
        return strip

    def watch_cursor(self, old: int, new: int) -> None:
        self.scroll_to_line(new)
        self.refresh_indices((old, new))
        self.post_message(self.Selected(self, new))

    def scroll_to_line(self, index: int) -> None:
        """Scroll so line `index` is visible (no animation)."""
        top = int(self.scroll_offset.y)
        # the rows lines are drawn in: a horizontal scrollbar takes the last of size.height
        height = max(1, self.scrollable_content_region.height)
        if index < top:
            self.scroll_to(y=index, animate=False)
        elif index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False)

    def action_cursor(self, delta: int) -> None:
        """Move the cursor `delta` lines; a view without one (show_cursor False, e.g. the
        Registers) scrolls instead, as a pager does (an unseen cursor moved first)."""
        if not self.show_cursor:
            self.scroll_to(y=max(0, int(self.scroll_offset.y) + delta), animate=False)
            return
        count = self.line_count()
        if count:
            self.cursor = max(0, min(count - 1, self.cursor + delta))

    def action_cursor_edge(self, end: int) -> None:
        """Home / End: the cursor to the first / last line (the view scrolls with it)."""
        if not self.show_cursor:
            self.scroll_to(y=self.max_scroll_y if end else 0, animate=False)
        elif self.line_count():
            self.cursor = self.line_count() - 1 if end else 0

    def on_click(self, event: events.Click) -> None:
        index = int(self.scroll_offset.y) + event.y
        if 0 <= index < self.line_count():
            self.cursor = index

    def on_resize(self) -> None:
        # a smaller view (a pane restored, the terminal resized) keeps the cursor row in view,
        # as pudb keeps the current line (subclasses' on_resize run too: Textual calls each)
        if self.show_cursor:
            self.scroll_to_line(self.cursor)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
