"""`q` with unsaved work: a small modal that asks once (save / quit / cancel).

Keys: s saves the session (to `path`) and quits, q (pressed again) quits without
saving, Esc or c goes back; the line that says so is made from the BINDINGS (as
the help is), so it cannot drift. The App decides what counts as unsaved work.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


def key_hint(bindings: Iterable[BindingType]) -> str:
    """'s: save and quit · q: quit without saving · Esc / c: cancel' from `bindings`."""
    from neurondbg.screens.help import key_name

    parts = []
    for b in bindings:
        binding = b if isinstance(b, Binding) else Binding(*b)
        keys = " / ".join(key_name(k.strip()) for k in binding.key.split(","))
        parts.append(f"{keys}: {binding.description}")
    return " · ".join(parts)


class QuitScreen(ModalScreen[str | None]):
    """Dismisses with 'save', 'quit' or None (cancel)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "choose('save')", "save and quit", id="quit.save"),
        Binding("q", "choose('quit')", "quit without saving", id="quit.quit"),
        Binding("escape,c", "choose('')", "cancel", id="quit.cancel"),
    ]
    DEFAULT_CSS = """
    QuitScreen { align: center middle; }
    QuitScreen > Vertical { width: 64; height: auto; border: round $warning;
                            background: $surface; padding: 0 1; }
    QuitScreen #quit-buttons { height: auto; align-horizontal: center; }
    QuitScreen Button { margin: 0 1; min-width: 12; }
    """

    def __init__(self, unsaved: list[str], path: str) -> None:
        super().__init__()
        self.unsaved = unsaved
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Unsaved work: {'; '.join(self.unsaved)}.", id="quit-what",
                         markup=False)
            yield Static(f"{key_hint(self.BINDINGS)}; the save goes to {self.path}",
                         id="quit-keys", markup=False)
            with Horizontal(id="quit-buttons"):
                yield Button("Save and quit", id="save", variant="primary")
                yield Button("Quit", id="quit", variant="error")
                yield Button("Cancel", id="cancel")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice or None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "cancel" else event.button.id)
