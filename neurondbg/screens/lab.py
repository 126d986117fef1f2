"""The Convert Lab as a screen of its own (`L`, the `lab` console command)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header

from views.lab import ConvertLab


class LabScreen(Screen):
    """Header, the lab, footer. Escape returns to the debugger (if there is one)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "back", id="lab.close"),
    ]

    def __init__(self, value: str = "1.00390625", src: str = "fp32", dst: str = "bf16",
                 closable: bool = True, iss: str | None = None) -> None:
        """`iss`: open on that ISS primitive of reference 003 instead of src -> dst."""
        super().__init__(id="lab-screen")
        self._args = (value, src, dst)
        self._iss = iss
        self.closable = closable
        self.sub_title = "Convert Lab"

    def compose(self) -> ComposeResult:
        yield Header()
        value, src, dst = self._args
        yield ConvertLab(value, src, dst, iss=self._iss, id="lab")
        yield Footer()

    def action_close(self) -> None:
        if self.closable:
            self.dismiss()
