"""Registers R0..R63 and the PC; changed-since-last-step highlighted; four views."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widget import Widget

from views.snapshot import Snapshot

VIEWS: tuple[str, ...] = ("hex", "signed", "unsigned", "fp32")
COLUMNS = 4
CHANGED = "bold black on #ffd43b"


def reg_text(value: int, view: str) -> str:
    """A 32-bit register in one of VIEWS, 11 characters wide."""
    value &= 0xFFFFFFFF
    if view == "hex":
        return f"0x{value:08X} "
    if view == "signed":
        return f"{value - (1 << 32) if value >> 31 else value:>11}"
    if view == "unsigned":
        return f"{value:>11}"
    f = float(np.array([value], np.uint32).view(np.float32)[0])
    return f"{f:>11.4g}"


class RegistersView(Widget, can_focus=True):
    """16 rows x 4 columns of registers, then the PC and the view name."""

    DEFAULT_CSS = "RegistersView { height: 1fr; width: 1fr; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("v", "cycle_view", "reg view", id="regs.view"),
    ]
    view: reactive[str] = reactive("hex")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.snap = Snapshot()

    def show(self, snap: Snapshot) -> None:
        self.snap = snap
        self.refresh()

    def action_cycle_view(self) -> None:
        self.view = VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)]

    def render(self) -> Text:
        regs = self.snap.registers
        changed = self.snap.changed_registers
        rows = (len(regs) + COLUMNS - 1) // COLUMNS
        lines: list[Text] = []
        for r in range(rows):
            line = Text()
            for c in range(COLUMNS):
                i = c * rows + r
                if i >= len(regs):
                    continue
                line.append(f"R{i:<2} ", style="dim")
                line.append(reg_text(int(regs[i]), self.view),
                            style=CHANGED if i in changed else "")
                line.append(" ")
            lines.append(line)
        pc = Text.assemble(("PC  ", "bold"), (f"0x{self.snap.pc:08X}", "bold green"),
                           f"  record {self.snap.pc_index}   steps {self.snap.steps}")
        lines.append(pc)
        lines.append(Text(f"view: {self.view}  (v cycles hex/signed/unsigned/fp32)", style="dim"))
        return Text("\n").join(lines)
