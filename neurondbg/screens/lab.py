"""The Convert Lab as a screen of its own (`L`, the `lab` console command).

Its keys act from the value field and the bits as well: ↑ / ↓ step the input to the
next / previous representable value of the source format, and `?` (taken before the
value field would type it: no number has one) lists the Lab's keys.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen

from neurondbg.debug.lab_model import LabSetup
from neurondbg.views.chrome import KeyFooter, TitleBar
from neurondbg.views.lab import ConvertLab


class LabScreen(Screen[None]):
    """Header, the lab, footer. Escape returns to the debugger (if there is one)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "back", id="lab.close"),
        Binding("up", "step_value(1)", "next value", id="lab.next",
                tooltip="the input's next representable value in the source format"),
        Binding("down", "step_value(-1)", "previous value", id="lab.previous",
                tooltip="the input's previous representable value in the source format"),
        Binding("question_mark", "help", "keys", priority=True, id="lab.help",
                tooltip="the Convert Lab's keys"),
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
        yield TitleBar()
        value, src, dst = self._args
        yield ConvertLab(value, src, dst, iss=self._iss, setup=self._setup, id="lab")
        yield KeyFooter()

    def action_step_value(self, direction: int) -> None:
        self.query_one(ConvertLab).step_value(direction)

    def action_help(self) -> None:
        from neurondbg.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self))

    def action_close(self) -> None:
        if self.closable:
            self.dismiss()
