"""The tour pane: the current step's note of a guided tour, with forward / back.

The pane only shows and asks: `show(note, position, at_end)` renders a note
(sessions.schema.Note or None); the keys post `TourPane.Navigate(+1 / -1)`,
which the App turns into a step / reverse-step and then calls `show` again.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Static


class TourPane(Static, can_focus=True):
    """A guided tour's note for the current step (n / → forward, p / ← back)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n,right", "navigate(1)", "tour: next", id="tour.next"),
        Binding("p,left", "navigate(-1)", "tour: back", id="tour.back"),
    ]
    DEFAULT_CSS = """
    TourPane { dock: bottom; height: auto; max-height: 9; border: round $accent; padding: 0 1;
               background: $surface; }
    """

    class Navigate(Message):
        """Ask the App to step forward (+1) or back (-1)."""

        def __init__(self, delta: int) -> None:
            super().__init__()
            self.delta = delta

    def __init__(self, title: str = "Tour", **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.tour_title = title
        self.border_title = title
        self.note: Any = None

    def show(self, note: Any, position: str, at_end: bool = False) -> None:
        """Render `note` (title + text) and where the tour is."""
        self.note = note
        self.border_title = f"{self.tour_title} · {position}"
        body = Text()
        if note is None:
            body.append("(no note for this step)", style="dim")
        else:
            if note.title:
                body.append(note.title + "\n", style="bold")
            body.append(note.text.strip())
        hint = "end of the tour · p / ← back" if at_end else "n / → next · p / ← back"
        body.append(f"\n{hint}", style="dim italic")
        self.update(body)

    def action_navigate(self, delta: int) -> None:
        self.post_message(self.Navigate(delta))
