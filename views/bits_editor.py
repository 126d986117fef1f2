"""A row of clickable bits: the Convert Lab's input encoding.

Click a bit (or move with ←/→ and press space) to flip it; the widget posts
`BitEditor.Flipped` with the new pattern. Bits are coloured by field.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from neurondbg.views.roles import ROLE_STYLES, role_per_bit

ROLE_LETTER: dict[str | None, str] = {"sign": "s", "exponent": "e", "mantissa": "m", None: "·"}


class BitEditor(Widget, can_focus=True):
    """Bits of one encoding, MSB first, two columns per bit, a gap between fields."""

    DEFAULT_CSS = """
    BitEditor { height: 2; width: 1fr; }
    BitEditor:focus { background: $boost; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "bit left", show=False, id="bits.left"),
        Binding("right", "move(1)", "bit right", show=False, id="bits.right"),
        Binding("space", "flip", "flip bit", id="bits.flip"),
    ]

    bits: reactive[int] = reactive(0)
    cursor: reactive[int] = reactive(0)

    class Flipped(Message):
        """The user flipped a bit; `bits` is the new pattern."""

        def __init__(self, editor: BitEditor, bits: int) -> None:
            super().__init__()
            self.editor = editor
            self.bits = bits

    def __init__(self, width: int = 32, marks: list[tuple[int, int, str]] | None = None,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self._width = width
        self._marks = marks or []
        self._cols = self._columns()

    def set_layout(self, width: int, marks: list[tuple[int, int, str]], bits: int) -> None:
        """Change the encoding width / field marks (a new source format)."""
        self._width, self._marks = width, marks
        self._cols = self._columns()
        self.cursor = min(self.cursor, width - 1)
        self.bits = bits
        self.refresh()

    def _roles(self) -> list[str | None]:
        return role_per_bit(self._width, self._marks)

    def _columns(self) -> list[int]:
        """Screen column of each bit (string index 0 = MSB)."""
        roles, cols, x = self._roles(), [], 0
        for i in range(self._width):
            if i and roles[i] != roles[i - 1]:
                x += 1
            cols.append(x)
            x += 2
        return cols

    def bit_at(self, x: int) -> int | None:
        """The bit index under screen column x, if any."""
        for i, col in enumerate(self._cols):
            if col <= x < col + 2:
                return i
        return None

    def render(self) -> Text:
        roles = self._roles()
        pattern = format(self.bits, f"0{self._width}b")
        top, bottom = Text(), Text()
        x = 0
        for i, (ch, role) in enumerate(zip(pattern, roles, strict=True)):
            pad = " " * (self._cols[i] - x)
            top.append(pad)
            bottom.append(pad)
            style = ROLE_STYLES.get(role, "") if role else ""
            if i == self.cursor and self.has_focus:
                style = f"{style} reverse".strip()
            top.append(ch, style=style)
            top.append(" ")
            bottom.append(ROLE_LETTER.get(role, "·") + " ", style="dim")
            x = self._cols[i] + 2
        return Text("\n").join([top, bottom])

    def _flip(self, index: int) -> None:
        self.bits ^= 1 << (self._width - 1 - index)
        self.post_message(self.Flipped(self, self.bits))

    def on_click(self, event: events.Click) -> None:
        index = self.bit_at(event.x)
        if index is not None and event.y == 0:
            self.cursor = index
            self._flip(index)

    def action_move(self, delta: int) -> None:
        self.cursor = (self.cursor + delta) % self._width

    def action_flip(self) -> None:
        self._flip(self.cursor)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
