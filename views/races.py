"""The Races pane: every race a kernel found so far (machine.core Core.race_rows), one
line each: both accesses (engine, opcode, PC, read or write), the bytes, the missing
edge. Enter on a line travels to the step that found the race, as gdb's `frame N`
selects a frame: the machine is left right after that step, where a `race`
breakpoint would have stopped. Races found after the current step are gone (they
follow reverse, as `info races` does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message

from neurondbg.debug.snapshot import Snapshot
from neurondbg.views.lineview import LineView

if TYPE_CHECKING:
    from neurondbg.machine.core.races import RaceRow


LINES_PER_RACE = 3  # where, the two accesses, the fix: each fits a narrow pane


def race_lines(row: RaceRow) -> tuple[Text, Text, Text]:
    """One race, as three lines: "#1 step 2  sbuf[0:128, 0x100:0x120]", the two
    accesses in the order they ran, the missing edge (numbered as the title counts
    steps: the N-th step taken is step N)."""
    (e0, pc0, op0, k0), (e1, pc1, op1, k1) = row.first, row.second
    return (Text.assemble((f"#{row.n} ", "bold red"), (f"step {row.step + 1}  ", "dim"),
                          (row.where, "bold")),
            Text(f"  {e0} {op0} {pc0:#x} {k0}, then {e1} {op1} {pc1:#x} {k1}"),
            Text(f"  {row.missing}", style="yellow"))


class RacesView(LineView):
    """The races found so far; Enter travels to the step of the one under the cursor."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "jump", "go to the race's step", show=False, id="races.jump"),
    ]

    class Jump(Message):
        """Travel to global step `step` (the machine right after it)."""

        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.rows: Sequence[RaceRow] = ()
        self.dropped = 0
        self.enabled = False  # the kernel checks races (else there is nothing to list)

    def show(self, snap: Snapshot) -> None:
        rows, dropped = tuple(snap.race_rows), snap.races_dropped
        if (rows, dropped, snap.checks_races) == (self.rows, self.dropped, self.enabled):
            return  # a step that found no race: nothing to repaint
        self.rows, self.dropped, self.enabled = rows, dropped, snap.checks_races
        self._strips.clear()
        self.update_size()

    def line_count(self) -> int:
        return max(1, LINES_PER_RACE * len(self.rows)) + (1 if self.dropped else 0)

    def content_width(self) -> int:
        return max((line.cell_len for r in self.rows for line in race_lines(r)), default=30)

    def line_text(self, index: int) -> Text:
        race, part = divmod(index, LINES_PER_RACE)
        if race < len(self.rows):
            return race_lines(self.rows[race])[part]
        if self.rows:
            return Text(f"... and {self.dropped} more not kept", style="dim")
        return Text("no races found so far" if self.enabled else
                    "race checking is off for this kernel", style="dim")

    def action_jump(self) -> None:
        race = self.cursor // LINES_PER_RACE
        if 0 <= race < len(self.rows):
            self.post_message(self.Jump(self.rows[race].step + 1))
