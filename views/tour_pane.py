"""The tour pane: the current step's note of a guided tour, with forward / back.

The pane only shows and asks: `show(note, position, at_end)` renders a note
(sessions.schema.Note or None); the keys post `TourPane.Navigate(+1 / -1)`,
which the App turns into a step / reverse-step and then calls `show` again.
The App binds n / N too, so the tour moves from whichever pane has the focus;
in the pane itself → / ← and p work as well. A note longer than the pane
scrolls (↑ / ↓ / PgUp / PgDn or the wheel when the pane has the focus) and
each new note starts at its top. The pane is a band of the screen's vertical
layout (mounted above the footer), not docked: a docked pane hid its bottom
line under the footer. The screen caps its height (neurondbg/screens/arrange.py
`fit_rows`: the Program's rows come first).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

if TYPE_CHECKING:
    from neurondbg.sessions.schema import Note

HINT = "n / → next · N / p / ← back · ↑ ↓ scroll"
HINT_AT_END = "end of the tour · N / p / ← back"


class TourPane(VerticalScroll, can_focus=True):
    """A guided tour's note for the current step (n / → forward, p / ← back)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n,right", "navigate(1)", "tour: next", id="tour.next"),
        Binding("p,left", "navigate(-1)", "tour: back", id="tour.back"),
    ]
    DEFAULT_CSS = """
    TourPane { height: auto; border: round $accent; padding: 0 1;
               background: $surface; scrollbar-size-vertical: 1; }
    TourPane > #tour-note { height: auto; }
    """

    class Navigate(Message):
        """Ask the App to step forward (+1) or back (-1)."""

        def __init__(self, delta: int) -> None:
            super().__init__()
            self.delta = delta

    def __init__(self, title: str = "Tour", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tour_title = title
        self.border_title = title
        self.note: Note | None = None
        self.text = Text()  # what the pane shows (for tests and screen readers)

    def compose(self) -> ComposeResult:
        yield Static(id="tour-note", markup=False)

    def show(self, note: Note | None, position: str, at_end: bool = False) -> None:
        """Render `note` (title + text) and where the tour is."""
        changed = note is not self.note
        self.note = note
        self.border_title = f"{self.tour_title} · {position}"
        self.border_subtitle = HINT_AT_END if at_end else HINT
        body = Text()
        if note is None:
            body.append("(no note for this step)", style="dim")
        else:
            if note.title:
                body.append(note.title + "\n", style="bold")
            body.append(note.text.strip())
        self.text = body
        self.query_one("#tour-note", Static).update(body)
        if changed:
            self.scroll_home(animate=False)

    def action_navigate(self, delta: int) -> None:
        self.post_message(self.Navigate(delta))
