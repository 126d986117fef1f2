"""The Convert Lab as a screen of its own (`L`, the `lab` console command)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header

from views.lab import ConvertLab
from views.lab_model import LabSetup


class LabScreen(Screen):
    """Header, the lab, footer. Escape returns to the debugger (if there is one)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "back", id="lab.close"),
    ]

    def __init__(self, value: str = "1.00390625", src: str = "fp32", dst: str = "bf16",
                 closable: bool = True, iss: str | None = None,
                 setup: LabSetup | None = None) -> None:
        """`iss`: open on that ISS primitive of reference 003 instead of src -> dst.
        `setup`: side A's set-up, e.g. a lane's (views.lanes.LaneTable.OpenInLab.setup)."""
        super().__init__(id="lab-screen")
        self._args = (value, src, dst)
        self._iss = iss
        self._setup = setup
        self.closable = closable
        self.sub_title = "Convert Lab"

    def compose(self) -> ComposeResult:
        yield Header()
        value, src, dst = self._args
        yield ConvertLab(value, src, dst, iss=self._iss, setup=self._setup, id="lab")
        yield Footer()

    def action_close(self) -> None:
        if self.closable:
            self.dismiss()
