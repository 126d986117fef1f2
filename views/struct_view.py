"""Struct decode: the current instruction's fields and its 64-byte hex dump.

Selecting a field highlights its bytes; clicking a byte selects its field.
Fields that differ from the previous instruction with the same opcode are
marked with a `Δ`. Where the PC holds no instruction (a halted engine) the last
instruction run stays, its head line saying so (StructView.shown_instruction).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from neurondbg.debug.snapshot import Snapshot
from neurondbg.views.kept import KeptPaint
from neurondbg.views.lineview import LineView

if TYPE_CHECKING:
    from neurondbg.machine.isa.codec import FieldValue, Instruction
    from neurondbg.machine.isa.spec import Field

CONF_STYLE = {"HIGH": "green", "MED": "yellow", "LOW": "red"}
SELECTED_BYTES = "bold black on #4dabf7"
NAME_WIDTH = 26  # longest field name of the structs (src_mem_pattern.start_addr)
VALUE_WIDTH = 16  # enum names with their code, 4-slot lists; longer values push raw right
RAW_BYTES = 8  # raw bytes shown per field line (the hex dump below has all 64)
DUMP_FROM_HEIGHT = 1 + 3 + 4  # the dump shows under the head and 3 field lines, else hides


def field_value_text(field: Field, value: FieldValue) -> str:
    """Decoded value: enum member name where the field has an enum, the name of an ASCII
    field (a NEFF trigger's `queue`: `qSPIO0`, its bytes when they are not a name), else
    int / list."""
    if field.role == "ascii" and isinstance(value, tuple | list):
        from neurondbg.machine.isa.text import ascii_text

        name = ascii_text(tuple(int(v) for v in value))
        if name is not None:
            return name

    def one(v: int) -> str:
        if field.enum is not None:
            try:
                return f"{field.enum(v).name}({v:#x})"
            except ValueError:
                return f"?({v:#x})"
        return str(v) if abs(v) < 4096 else hex(v)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(one(int(v)) for v in value) + "]"
    return one(int(value))


class FieldTable(LineView):
    """offset size conf name value raw-bytes, one field a line."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.inst: Instruction | None = None
        self.changed: frozenset[str] = frozenset()

    def set_instruction(self, inst: Instruction | None, previous: Instruction | None
                        ) -> bool:
        """Show `inst`; False (and no repaint) when it is the instruction already shown."""
        if inst is not None and previous is not None and previous.opcode == inst.opcode:
            changed = frozenset(n for n, v in inst.fields.items()
                                if previous.fields.get(n) != v)
        else:
            changed = frozenset()
        same = (inst is None and self.inst is None) or (
            inst is not None and self.inst is not None and inst.raw == self.inst.raw
            and inst.offset == self.inst.offset)
        if same and changed == self.changed:
            return False
        old = self.inst
        before = [self.line_key(i) for i in range(self.line_count())]
        self.inst, self.changed = inst, changed
        if old is not None and inst is not None and old.struct is inst.struct:
            # the same fields: repaint only the lines whose field bytes or mark changed
            self.refresh_indices(i for i, key in enumerate(before) if key != self.line_key(i))
        else:
            self.update_size()
        return True

    def fields(self) -> tuple:
        return () if self.inst is None else self.inst.struct.fields

    def line_count(self) -> int:
        return len(self.fields())

    def content_width(self) -> int:
        return 2 + 3 + 3 + 2 + self._name_width() + 1 + VALUE_WIDTH + 1 + 3 * RAW_BYTES

    def _name_width(self) -> int:
        """The name column fits this struct's longest field name (at most NAME_WIDTH)."""
        return min(NAME_WIDTH, max((len(f.name) for f in self.fields()), default=0))

    def line_key(self, index: int) -> tuple:
        """A line shows its field's bytes (and the value they decode to) and its mark."""
        f = self.fields()[index]
        return (self.inst.struct.name, f.name, bytes(self.inst.raw[f.offset:f.end]),
                f.name in self.changed)

    def line_text(self, index: int) -> Text:
        f = self.fields()[index]
        value = self.inst.fields.get(f.name)
        raw = bytes(self.inst.raw[f.offset:min(f.end, f.offset + RAW_BYTES)]).hex(" ") + (
            "…" if f.size > RAW_BYTES else "")
        text = Text()
        text.append(f"{f.offset:2} {f.size:2} ", style="dim")
        text.append(f"{f.confidence[:1]} ", style=CONF_STYLE.get(f.confidence, ""))
        text.append("Δ" if f.name in self.changed else " ", style="bold yellow")
        text.append(f"{f.name:<{self._name_width()}} ",
                    style="dim" if f.role == "reserved" else "bold")
        text.append(f"{field_value_text(f, value) if value is not None else '-':<{VALUE_WIDTH}} ")
        text.append(raw, style="dim")
        return text


class HexDump(LineView):
    """4 x 16 bytes; the selected field's bytes highlighted; click a byte to select."""

    DEFAULT_CSS = "HexDump { height: 4; width: 1fr; overflow: hidden hidden; }"
    show_cursor: ClassVar[bool] = False

    class ByteClicked(Message):
        def __init__(self, offset: int) -> None:
            super().__init__()
            self.offset = offset

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.can_focus = False
        self.raw = b""
        self.span = (0, 0)

    def show(self, raw: bytes, span: tuple[int, int]) -> None:
        if (raw, span) != (self.raw, self.span):
            self.raw, self.span = raw, span
            self.update_size()

    def line_count(self) -> int:
        return 4

    def line_key(self, index: int) -> tuple:
        lo, hi = index * 16, index * 16 + 16
        return (self.raw[lo:hi], max(self.span[0], lo), min(self.span[1], hi), index)

    def line_text(self, row: int) -> Text:
        if not self.raw:
            return Text()  # no instruction: no offsets without bytes
        line = Text(f"{row * 16:02x}  ", style="dim")
        for col in range(16):
            i = row * 16 + col
            if i < len(self.raw):
                style = SELECTED_BYTES if self.span[0] <= i < self.span[1] else ""
                line.append(f"{self.raw[i]:02x}", style=style)
            if col % 4 == 3:
                line.append(" ")
        return line

    def byte_at(self, x: int, y: int) -> int | None:
        """The byte under a click: 4 groups of 4 bytes (8 hex digits + a space) per row."""
        col = x - 4
        if col < 0 or not 0 <= y < 4:
            return None
        group, within = divmod(col, 9)
        if within == 8 or group > 3:
            return None
        return y * 16 + group * 4 + within // 2

    def on_click(self, event: events.Click) -> None:
        index = self.byte_at(event.x, event.y)
        if index is not None:
            self.post_message(self.ByteClicked(index))


class StructHead(Static, KeptPaint):
    """The Struct pane's head line (its lines kept: views.kept)."""


class StructView(Vertical, KeptPaint):
    """Header line, the field table and the hex dump."""

    DEFAULT_CSS = """
    StructView { height: 1fr; }
    StructView FieldTable { height: 1fr; }
    StructView #struct-head { height: 1; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._head: tuple = ()  # what the head line says now: (instruction, note)
        # the head line's parts: (base, tails to try in order, the tail when none fits)
        self._head_text: tuple[Text, tuple[Text, ...], Text] = (Text(), (), Text())

    def on_resize(self) -> None:
        # a short slot (the kernel screen's tab at 100x30 has 4 rows) goes to the fields:
        # the dump only restates their bytes, and cut to two rows it showed half of them
        self.query_one(HexDump).display = self.size.height >= DUMP_FROM_HEIGHT
        self._draw_head()

    def compose(self) -> ComposeResult:
        yield StructHead(id="struct-head")
        yield FieldTable(id="struct-fields")
        yield HexDump(id="struct-hex")

    def show(self, snap: Snapshot) -> None:
        inst, previous, note = self.shown_instruction(snap)
        table = self.query_one(FieldTable)
        changed = table.set_instruction(inst, previous)
        head_key = (None if inst is None else (inst.offset, bytes(inst.raw)), note)
        if not changed and head_key == self._head:
            return
        self._head = head_key
        if inst is None:
            self._head_text = (Text(note, style="dim"), (), Text())
        else:
            base = Text.assemble((inst.mnemonic, "bold"), f" {inst.opcode:#04x} · "
                                 f"{inst.struct.name} · @{inst.offset:#x}")
            if note:  # why the PC's instruction is not shown: cut rather than left out
                said = Text(f"   {note}", style="bold yellow")
                self._head_text = (base, (said,), said)
            else:
                self._head_text = (base, (
                    Text(f"   Δ changed since the last {inst.mnemonic}", style="dim"),
                    Text("   Δ changed", style="dim")), Text())
        self._draw_head()
        self._update_dump()

    def _draw_head(self) -> None:
        """The head line: its base and the first tail that fits the width whole (the Δ
        legend was cut mid-phrase in the kernel screen's 54 columns); a note always."""
        base, tails, fallback = self._head_text
        width = self.size.width or 78  # before the first layout: the wide pane's
        tail = next((t for t in tails if base.cell_len + t.cell_len <= width), fallback)
        # layout=False: the head is one row high (DEFAULT_CSS) whatever it says
        self.query_one("#struct-head", Static).update(base + tail, layout=False)

    def shown_instruction(self, snap: Snapshot) -> tuple[Instruction | None,
                                                         Instruction | None, str]:
        """(instruction, the one its Δ compares with, a note for the head line).

        Decided (as pudb keeps the last line of a finished program highlighted): where the
        PC holds no instruction (a halted engine's PC is past its HALT; a branch left the
        program) the last instruction run (Snapshot.last_run) stays, fields and bytes, its
        head saying why. With nothing run the head says there is no instruction and the
        dump is empty (no bare offsets)."""
        if snap.instruction is not None:
            return snap.instruction, snap.previous_same, ""
        if snap.last_run is None:
            return None, None, "no instruction at the PC" + (" (halted)" if snap.halted else "")
        where = "halted" if snap.halted else f"no instruction at {snap.pc:#x}"
        return snap.last_run, None, f"{where} · last run"

    def _update_dump(self) -> None:
        table = self.query_one(FieldTable)
        fields = table.fields()
        raw = bytes(table.inst.raw) if table.inst is not None else b""
        span = (0, 0)
        if fields and 0 <= table.cursor < len(fields):
            f = fields[table.cursor]
            span = (f.offset, f.end)
        self.query_one(HexDump).show(raw, span)

    @on(LineView.Selected, "#struct-fields")
    def _field_selected(self, event: LineView.Selected) -> None:
        self._update_dump()

    @on(HexDump.ByteClicked)
    def _byte_clicked(self, event: HexDump.ByteClicked) -> None:
        table = self.query_one(FieldTable)
        for i, f in enumerate(table.fields()):
            if f.offset <= event.offset < f.end:
                table.cursor = i
                table.focus()
                break
