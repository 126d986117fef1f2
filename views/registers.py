"""Registers R0..R63 and the PC; changed-since-last-step highlighted; four views."""

from __future__ import annotations

import struct
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType

from neurondbg.debug.snapshot import Snapshot
from neurondbg.views.lineview import LineView

VIEWS: tuple[str, ...] = ("hex", "signed", "unsigned", "fp32")
COLUMNS = 4
ROWS = 16  # 64 registers in 4 columns


def reg_text(value: int, view: str) -> str:
    """A 32-bit register in one of VIEWS, 11 characters wide."""
    value &= 0xFFFFFFFF
    if view == "hex":
        return f"0x{value:08X} "
    if view == "signed":
        return f"{value - (1 << 32) if value >> 31 else value:>11}"
    if view == "unsigned":
        return f"{value:>11}"
    f = struct.unpack("<f", struct.pack("<I", value))[0]  # the bits as an fp32
    return f"{f:>11.4g}"


class RegistersView(LineView):
    """16 rows x 4 columns of registers, then the PC line; the view name is in the border.

    A step repaints only the rows holding a register that changed (now or at
    the previous step, to clear its highlight) and the PC line.
    """

    show_cursor: ClassVar[bool] = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("v", "cycle_view", "reg view", id="regs.view",
                tooltip="registers as hex / signed / unsigned / fp32"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.snap = Snapshot()
        self.view = "hex"
        self._changed: frozenset[int] = frozenset()
        self._shown: list[int] = []

    def show(self, snap: Snapshot) -> None:
        old_changed, old_regs = self._changed, self._shown
        self.snap = snap
        self._changed = snap.changed_registers
        regs = list(snap.registers)
        self._shown = regs
        if len(old_regs) != len(regs):
            self.update_size()
            return
        diff = {i for i, (a, b) in enumerate(zip(old_regs, regs, strict=True)) if a != b}
        rows = {i % ROWS for i in diff | old_changed | self._changed}
        self.refresh_indices([*rows, ROWS])

    def action_cycle_view(self) -> None:
        self.view = VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)]
        self._label_view()
        self.refresh()

    def on_mount(self) -> None:
        self._label_view()

    def _label_view(self) -> None:
        """The view name in the pane's bottom border (a content line would cost a row)."""
        text = f"{self.view} · v: hex/signed/unsigned/fp32"
        self.border_subtitle = text
        if self.parent is not None:
            self.parent.border_subtitle = text

    def line_count(self) -> int:
        return ROWS + 1

    def line_text(self, index: int) -> Text:
        regs, snap = self.snap.registers, self.snap
        if index < ROWS:
            line = Text()
            for c in range(COLUMNS):
                i = c * ROWS + index
                if i >= len(regs):
                    continue
                line.append(f"R{i:<2} ", style="dim")
                line.append(reg_text(int(regs[i]), self.view),
                            style=self.written_style if i in self._changed else "")
                line.append(" ")
            return line
        return Text.assemble(("PC  ", "bold"), (f"0x{snap.pc:08X}", "bold green"),
                             # "-": the PC holds no record (past a HALT, or outside)
                             f"  record {'-' if snap.pc_index is None else snap.pc_index}"
                             f"   steps {snap.steps}")
