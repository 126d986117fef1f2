"""A titled, maximisable frame around one view; marked when focus is inside."""

from __future__ import annotations

from textual.containers import Vertical


class Pane(Vertical):
    """Border with a title; `Screen.maximize` picks this container (ALLOW_MAXIMIZE)."""

    ALLOW_MAXIMIZE = True
    DEFAULT_CSS = """
    Pane { border: round $panel-lighten-2; height: 1fr; width: 1fr; padding: 0 0; }
    Pane:focus-within { border: round $accent; }
    Pane:focus-within > .pane-focus-mark { display: block; }
    """

    def __init__(self, title: str, *children, **kwargs) -> None:
        super().__init__(*children, **kwargs)
        self.border_title = title

    def on_descendant_focus(self) -> None:
        self.border_title = f"● {self._title()}"

    def on_descendant_blur(self) -> None:
        self.border_title = self._title()

    def _title(self) -> str:
        return str(self.border_title or "").removeprefix("● ")
