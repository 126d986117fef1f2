"""Program listing: PC marker, breakpoint marks, invalid records flagged, labels."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType

from views.lineview import LineView
from views.snapshot import ProgramLine, Snapshot

# -- compact listing lines -----------------------------------------------------
# The full disassembly (re-assemblable, every field) is 100-250 characters; the
# listing shows the mnemonic and the operands a reader scans for, and the Struct
# pane has every field. `f` in the Program pane toggles the full text.

RENAME = {"src0_lo": "src0", "src1_lo": "src1",
          "dst_lo": "dst", "immediate": "imm", "cmp_immediate": "imm", "cmp_reg0": "reg"}
DROP = frozenset({"debug_hint", "src1_datasrc", "move_source", "target_mode", "num_mov",
                  "dst_registers", "step", "num"})
DTYPE_KEYS = ("in_dtype", "in0_dtype", "in1_dtype", "dtype", "dst_dtype", "out_dtype")


def split_operands(text: str) -> list[str]:
    """Space-separated tokens, keeping `sb[0, 0x0]` and `[1, 0]` whole."""
    tokens, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == " " and depth == 0:
            if i > start:
                tokens.append(text[start:i])
            start = i + 1
    if start < len(text):
        tokens.append(text[start:])
    return tokens


def _items(value: str) -> list[str]:
    return [v.strip() for v in value.strip("[]").split(",")]


def _shape(num: str | None, step: str | None) -> str:
    """`×8` for num=[8,1,1,1] step=[1,0,0,0]; the step only when it is not unit."""
    if num is None:
        return ""
    dims = _items(num)
    while len(dims) > 1 and dims[-1] == "1":
        dims.pop()
    out = "×" + "x".join(dims)
    if step is not None:
        steps = _items(step)[:len(dims)]
        if steps != ["1"] + ["0"] * (len(dims) - 1):
            out += "/" + ",".join(steps)
    return out


def compact_text(text: str, offset: int, labels: dict[int, str]) -> str:
    """The listing form of one disassembly line (see the comment above)."""
    mnemonic, _, rest = text.partition(" ")
    tokens = split_operands(rest)
    pairs = [(k.rsplit(".", 1)[-1], v) for k, _, v in (t.partition("=") for t in tokens)]
    keys = dict(pairs)
    out, tail = [mnemonic], []
    dtypes = [keys[k] for k in DTYPE_KEYS if k in keys]
    if dtypes:  # in_dtype=FP32 out_dtype=BF16 -> FP32→BF16
        ins, res = dtypes[:-1], dtypes[-1]
        out.append(res if all(d == res for d in ins) else ",".join(dict.fromkeys(ins)) + "→" + res)
    if "dst_registers" in keys and "immediate" in keys:  # MOVE R1=0 R2=3
        count = int(keys.get("num_mov", "8"), 0)
        regs, imms = _items(keys["dst_registers"]), _items(keys["immediate"])
        out += [f"{r}={v}" for r, v in list(zip(regs, imms, strict=False))[:count]]
        keys.pop("immediate")
    for i, (key, value) in enumerate(pairs):
        if key in DROP or key in DTYPE_KEYS or key not in keys:
            continue
        if value.startswith(("sb[", "ps[", "psum[", "sbuf[")):  # an access pattern
            after = dict(pairs[i + 1:i + 3])
            pattern = value.replace(", ", ",") + _shape(after.get("num"), after.get("step"))
            out.append(("→ " if key.startswith("dst") else "") + pattern)
        elif key == "br_immediate" and keys.get("target_mode") == "REL_IMM":
            target = offset + int(value, 0)
            out.append("→" + labels.get(target, f"{target:#x}"))
        elif key == "op" or key.endswith("_op") or key[:-1] == "op":
            out.append(value)
        elif key == "num_active_channels":
            if value != "128":  # all partitions is the usual case: only a partial count shows
                tail.append(f"nac={value}")
        else:
            if value.startswith("["):  # [7,0] -> 7: trailing zeros are unused slots
                items = _items(value)
                while len(items) > 1 and items[-1] == "0":
                    items.pop()
                value = items[0] if len(items) == 1 else "[" + ",".join(items) + "]"
            out.append(f"{RENAME.get(key, key)}={value}")
    return " ".join(out + tail)


class ProgramView(LineView):
    """One line per 64-byte record; the cursor picks the record `b` toggles."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "toggle_full", "full text", id="program.full",
                tooltip="compact listing / the full disassembly of every record"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lines: list[ProgramLine] = []
        self.texts: list[str] = []  # what each line shows: compact, or the full disassembly
        self.full = False
        self._source: object = None
        self.pc_index: int | None = None
        self.breakpoints: frozenset[int] = frozenset()
        self._label_width = 0
        self._offset_width = 5

    def show(self, snap: Snapshot) -> None:
        new_listing = snap.lines is not self._source
        if new_listing:
            self._source = snap.lines
            self.lines = list(snap.lines)
            self._label_width = max((len(x.label) + 1 for x in self.lines if x.label), default=0)
            last = self.lines[-1].offset if self.lines else 0
            self._offset_width = max(3, len(f"{last:x}"))
            self._make_texts()
        old_pc, old_bps = self.pc_index, self.breakpoints
        self.pc_index = snap.pc_index
        self.breakpoints = snap.breakpoints
        if new_listing:
            self.update_size()
        else:  # only the lines whose markers changed
            self.refresh_indices(i for i in (old_pc, self.pc_index, *(old_bps ^ self.breakpoints))
                                 if i is not None)
        if old_pc != self.pc_index and self.pc_index is not None and \
                0 <= self.pc_index < len(self.lines):
            self.cursor = self.pc_index

    def _make_texts(self) -> None:
        if self.full:
            self.texts = [x.text for x in self.lines]
            return
        labels = {x.offset: x.label for x in self.lines if x.label}
        self.texts = [compact_text(x.text, x.offset, labels) for x in self.lines]

    def action_toggle_full(self) -> None:
        self.full = not self.full
        self._make_texts()
        self._strips.clear()
        self.update_size()

    def line_count(self) -> int:
        return len(self.lines)

    def content_width(self) -> int:
        return max((len(x) for x in self.texts), default=0) + 6 + self._offset_width + \
            self._label_width

    def line_key(self, index: int) -> tuple:
        return (id(self._source), self.full, index, index == self.pc_index,
                index in self.breakpoints)

    def line_text(self, index: int) -> Text:
        line = self.lines[index]
        text = Text()
        text.append("●" if index in self.breakpoints else " ", style="bold red")
        text.append("▶" if index == self.pc_index else " ", style="bold green")
        text.append("✗" if line.valid is False else " ", style="bold red")
        text.append(f" {line.offset:0{self._offset_width}x} ", style="dim")
        if self._label_width:
            text.append(f"{(line.label + ':') if line.label else '':<{self._label_width}} ",
                        style="bold yellow")
        style = "bold" if index == self.pc_index else ""
        if line.valid is False:
            style += " red"
        text.append(self.texts[index], style=style.strip())
        return text
