"""`?`: keys and console commands in a modal (Escape or ? closes)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from neurondbg.console import COMMANDS, HELP

KEYS: tuple[tuple[str, str], ...] = (
    ("s", "step one instruction"), ("c", "continue (runs off the UI thread)"),
    ("r", "reverse-step (undo one step exactly)"), ("b", "toggle a breakpoint at the cursor"),
    ("Esc / Ctrl+C", "stop a run at the next step boundary; restore a maximised pane"),
    ("z", "maximise / restore the focused pane"), ("Tab / Shift+Tab", "next / previous pane"),
    ("L", "open the Convert Lab"), (":", "focus the console"), ("?", "this help"),
    ("q", "quit"), ("Ctrl+P", "command palette: every action by name"),
    ("v", "(registers) hex / signed / unsigned / fp32"),
    ("d h p [ ] g", "(SBUF) dtype, heatmap, SBUF/PSUM, scroll columns, go to (console)"),
    ("f / o", "(convert trace) all lanes / flagged lanes; open the lane in the Convert Lab"),
    ("m", "(plot) lanes / histogram"),
)


def help_text() -> Text:
    text = Text("Keys\n", style="bold underline")
    for key, what in KEYS:
        text.append(f"  {key:<16}", style="bold yellow")
        text.append(f"{what}\n")
    text.append("\nConsole commands\n", style="bold underline")
    for name in COMMANDS:
        text.append(f"  {HELP[name]}\n")
    return text


class HelpScreen(ModalScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "dismiss", "close", id="help.close"),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen VerticalScroll { width: 110; height: 40; border: round $accent;
                                background: $surface; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(help_text())
