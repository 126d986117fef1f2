"""A titled, maximisable frame around one view; marked when focus is inside.

`contain(widget, what, fn, fallback)` is THE containment boundary of the UI: a
pane's refresh (`show(snapshot)`) and its paint-time work (LineView lines,
the plot's figure) run through it. An exception there becomes one error line
in the widget's pane and a `Pane.Failed` message (the App prints it in the
Console); the widget shows `fallback`; the App and the session live on. The
pane's error line clears at its next successful refresh. The traceback goes
to Textual's log (`textual console`) for whoever fixes the bug.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import TypeVar

from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from neurondbg.views.kept import KeptPaint

T = TypeVar("T")
TITLE_ROWS_KEPT = 16  # top border rows a pane keeps (Pane.draw_lines)


class Pane(Vertical, KeptPaint):
    """Border with a title; `Screen.maximize` picks this container (ALLOW_MAXIMIZE)."""

    ALLOW_MAXIMIZE = True
    DEFAULT_CSS = """
    Pane { border: round $panel-lighten-2; height: 1fr; width: 1fr; padding: 0 0; }
    Pane:focus-within { border: round $accent; }
    Pane:focus-within > .pane-focus-mark { display: block; }
    Pane > .pane-error { display: none; height: 1; color: $error; text-style: bold; }
    Pane.-failed > .pane-error { display: block; }
    """

    class Failed(Message):
        """A pane could not refresh or draw; `text` is the one-line error."""

        def __init__(self, pane: str, text: str) -> None:
            super().__init__()
            self.pane = pane
            self.text = text

    def __init__(self, title: str, *children: Widget, **kwargs) -> None:
        super().__init__(*children, Static("", classes="pane-error", markup=False), **kwargs)
        self.border_title = title
        self.error: str | None = None  # the error line shown now
        self._reported: str | None = None  # the last error sent to the Console
        # the top border row as drawn for each title lately (a kernel's panes that follow
        # the focus take turns at five-odd titles, one at every core step)
        self._title_rows: dict[tuple[str | None, Region, Size], list[Strip]] = {}
        self._parsed: dict[str, Content] = {}  # set_title's titles, parsed

    def on_descendant_focus(self) -> None:
        self.set_title(f"● {self._title()}")

    def on_descendant_blur(self) -> None:
        self.set_title(self._title())

    def set_title(self, title: str) -> None:
        """Set the border title, repainting only the top border row. Textual's
        `border_title` setter repaints the whole pane: 20-odd rows at every core step
        that moves the engine focus (the Program, Registers, Struct and Legality panes
        are titled with it), for one row that changed."""
        if title == self.border_title:
            return
        if self._border_title is None or not self.size:  # no title row drawn yet
            self.border_title = title
            return
        # what the setter stores (textual.widget._BorderTitle), without its full refresh;
        # parsed once a title (a kernel's panes take turns at a title per engine)
        parsed = self._parsed.get(title)
        if parsed is None:
            if len(self._parsed) >= TITLE_ROWS_KEPT:
                self._parsed.clear()
            parsed = self._parsed[title] = self.render_str(title).expand_tabs(4).split()[0]
        self._border_title = parsed
        x, y = self.content_offset  # refresh regions are content-relative: the border
        self.refresh(Region(-x, -y, self.outer_size.width, 1))  # row sits above them

    def draw_lines(self, crop: Region) -> list[Strip]:
        """The top border row alone (`set_title` repaints it) from the rows kept by title;
        anything else drawn by Textual."""
        if crop.y != 0 or crop.height != 1 or not self.styles.border_top[0]:
            return super().draw_lines(crop)
        key = (self.border_title, crop, self._size)
        row = self._title_rows.get(key)
        if row is None:
            if len(self._title_rows) >= TITLE_ROWS_KEPT:
                self._title_rows.clear()
            row = self._title_rows[key] = super().draw_lines(crop)
        return list(row)

    def notify_style_update(self) -> None:
        # another border colour (the focus moved in or out), theme or stylesheet
        getattr(self, "_title_rows", {}).clear()
        super().notify_style_update()

    def _title(self) -> str:
        return str(self.border_title or "").removeprefix("● ")

    def fail(self, text: str) -> None:
        """Show `text` as the pane's error line; tell the App once per distinct error (a
        pane that keeps failing at every step must not flood the Console)."""
        if text == self.error:
            return
        self.error = text
        self.query_one(".pane-error", Static).update(f"⚠ {text}")
        self.add_class("-failed")
        if text != self._reported:
            self._reported = text
            self.post_message(self.Failed(self._title(), text))

    def clear_error(self) -> None:
        if self.error is not None:
            self.error = None
            self.remove_class("-failed")


def pane_of(widget: Widget) -> Pane | None:
    node = widget if isinstance(widget, Pane) else widget.parent
    while node is not None and not isinstance(node, Pane):
        node = node.parent
    return node if isinstance(node, Pane) else None


def contain(widget: Widget, what: str, fn: Callable[[], T], fallback: T) -> T:
    """Run `fn` (a refresh or paint of `widget`); on an exception report it in the
    widget's pane and the Console, and return `fallback`. See the module docstring."""
    try:
        result = fn()
    except Exception as exc:  # the documented containment boundary of every pane
        text = f"cannot {what}: {type(exc).__name__}: {exc}".replace("\n", " ")
        widget.log.error(f"{widget!r}: {text}\n{traceback.format_exc()}")
        pane = pane_of(widget)
        if pane is not None:
            # after this paint or refresh: the error line changes the pane's layout
            pane.call_later(pane.fail, text)
        else:  # a view outside the debugger's panes: still one console line
            widget.post_message(Pane.Failed(widget.__class__.__name__, text))
        return fallback
    if what == "refresh":
        pane = pane_of(widget)
        if pane is not None:
            pane.clear_error()
    return result
