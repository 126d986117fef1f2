"""Program listing: PC marker, breakpoint marks, invalid records flagged, labels."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType

from views.lineview import LineView
from views.pane import pane_of
from views.snapshot import ProgramLine, Snapshot

# The full disassembly (re-assemblable, every field) is 100-250 characters; the
# listing shows the mnemonic and the operands a reader scans for (machine.isa.listing
# builds it from the decoded fields), and the Struct pane has every field. `f` in the
# Program pane toggles the full text, of every listing in the pane (a maximised kernel's
# partner listing follows the focused one's).

# Listings whose version (the key of their cached lines) is remembered: a kernel has one
# per engine, and a core step moves the focus, so the pane swaps listings every step.
LISTINGS_KEPT = 16


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
        self._source: object = None  # the listing shown (held: compared with `is`)
        self._version = 0  # the listing's version: the key of its cached lines
        # Listings shown lately and their versions, held (so compared with `is`, never
        # id(): a freed listing's id can be a new one's): a listing shown again draws
        # from its cached lines. A new listing, or one forgotten, gets a new version.
        self._versions: list[tuple[object, int]] = []
        self._last_version = 0
        self.pc_index: int | None = None
        self.breakpoints: frozenset[int] = frozenset()
        self._label_width = 0
        self._offset_width = 5

    def show(self, snap: Snapshot) -> None:
        new_listing = snap.lines is not self._source
        if new_listing:
            self._source = snap.lines
            self._version = self._version_of(snap.lines)
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
        if (new_listing or old_pc != self.pc_index) and self.pc_index is not None and \
                0 <= self.pc_index < len(self.lines):  # another engine's listing: its PC
            self.cursor = self.pc_index

    def _version_of(self, listing: object) -> int:
        """The version of `listing`: its own while remembered, else a new one."""
        for held, version in self._versions:
            if held is listing:
                return version
        self._last_version += 1
        self._versions.append((listing, self._last_version))
        del self._versions[:-LISTINGS_KEPT]
        return self._last_version

    def _make_texts(self) -> None:
        self.texts = [x.text if self.full or not x.listing else x.listing for x in self.lines]

    def action_toggle_full(self) -> None:
        full = not self.full
        pane = pane_of(self)
        for view in pane.query(ProgramView) if pane is not None else (self,):
            view.set_full(full)

    def set_full(self, full: bool) -> None:
        """The full disassembly (True) or the compact listing of every record."""
        self.full = full
        self._make_texts()
        self._strips.clear()  # the other form's lines are not drawn again soon
        self.update_size()

    def line_count(self) -> int:
        return len(self.lines)

    def content_width(self) -> int:
        return max((len(x) for x in self.texts), default=0) + 6 + self._offset_width + \
            self._label_width

    def line_key(self, index: int) -> tuple:
        return (self._version, self.full, index, index == self.pc_index,
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
