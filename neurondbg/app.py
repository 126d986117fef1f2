"""The Textual application: the debugger layout, or the Convert Lab alone.

`NeurondbgApp(program, gen=..., engine=...)` opens a program in the debugger
layout; `NeurondbgApp(lab_only=True)` opens just the Convert Lab.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import Screen

from neurondbg.screens.lab import LabScreen

CSS_FILE = Path(__file__).resolve().parents[1] / "views" / "neurondbg.tcss"


class NeurondbgApp(App):
    """neurondbg's terminal UI."""

    TITLE = "neurondbg"
    CSS_PATH = CSS_FILE
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "quit", id="app.quit"),
    ]

    def __init__(self, program: str | Path | None = None, gen: str = "cayman",
                 engine: str = "pool", lab_only: bool = False) -> None:
        super().__init__()
        self.program_path = program
        self.gen = gen
        self.engine = engine
        self.lab_only = lab_only

    def get_default_screen(self) -> Screen:
        return LabScreen(closable=False)
