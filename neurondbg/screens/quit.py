"""Leaving unsaved work: a small modal that asks once (save / discard / cancel).

`q` asks with QuitScreen; `open`, `load` and `tour`, which replace the session, ask
with OpenScreen: the same dialog (UnsavedScreen) with the verb of what comes next.
Keys: s saves the session (to `path`) first, q (quit) or d (open) goes on without
saving, Esc or c goes back; the line that says so is made from the BINDINGS (as the
help is), so it cannot drift. The App decides what counts as unsaved work.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

Choice = Literal["save", "discard"]  # None (the dismiss value otherwise): cancel


def key_hint(bindings: Iterable[BindingType]) -> str:
    """'s: save and quit · q: quit without saving · Esc / c: cancel' from `bindings`."""
    from neurondbg.screens.help import key_name

    parts = []
    for b in bindings:
        binding = b if isinstance(b, Binding) else Binding(*b)
        keys = " / ".join(key_name(k.strip()) for k in binding.key.split(","))
        parts.append(f"{keys}: {binding.description}")
    return " · ".join(parts)


class UnsavedScreen(ModalScreen[Choice | None]):
    """Dismisses with 'save', 'discard' or None (cancel). A subclass names the verb
    (its buttons) and its BINDINGS (choose('save'), choose('discard'), choose(''))."""

    VERB: ClassVar[str] = "continue"
    DEFAULT_CSS = """
    UnsavedScreen { align: center middle; }
    UnsavedScreen > Vertical { width: 64; max-width: 100%; height: auto;
                               border: round $warning; background: $surface; padding: 0 1; }
    UnsavedScreen #quit-buttons { height: auto; align-horizontal: center; }
    UnsavedScreen Button { margin: 0 1; min-width: 12; }
    """

    def __init__(self, unsaved: list[str], path: str, then: str = "") -> None:
        """`unsaved`: one phrase per kind of work; `path`: where a save goes; `then`:
        what happens next, said in the question ("opening mine.asm")."""
        super().__init__()
        self.unsaved = unsaved
        self.path = path
        self.then = then

    def compose(self) -> ComposeResult:
        then = f" {self.then[:1].upper()}{self.then[1:]} drops it." if self.then else ""
        verb = self.VERB
        with Vertical():
            yield Static(f"Unsaved work: {'; '.join(self.unsaved)}.{then}", id="quit-what",
                         markup=False)
            yield Static(f"{key_hint(self.BINDINGS)}; the save goes to {self.path}",
                         id="quit-keys", markup=False)
            with Horizontal(id="quit-buttons"):
                yield Button(f"Save and {verb}", id="save", variant="primary")
                yield Button(verb.capitalize(), id="discard", variant="error")
                yield Button("Cancel", id="cancel")

    def action_choose(self, choice: str) -> None:
        self.dismiss("save" if choice == "save" else "discard" if choice == "discard"
                     else None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.action_choose(str(event.button.id))


class QuitScreen(UnsavedScreen):
    """`q` with unsaved work (q again quits without saving)."""

    VERB: ClassVar[str] = "quit"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "choose('save')", "save and quit", id="quit.save"),
        Binding("q", "choose('discard')", "quit without saving", id="quit.quit"),
        Binding("escape,c", "choose('')", "cancel", id="quit.cancel"),
    ]


class OpenScreen(UnsavedScreen):
    """`open`, `load` or `tour` with unsaved work: the new session would replace it."""

    VERB: ClassVar[str] = "open"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "choose('save')", "save, then open", id="open.save"),
        Binding("d", "choose('discard')", "open without saving", id="open.discard"),
        Binding("escape,c", "choose('')", "cancel", id="open.cancel"),
    ]
