"""Program listing: PC marker, breakpoint marks, invalid records flagged, labels."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widget import Widget

from neurondbg.debug.snapshot import ProgramLine, Snapshot
from neurondbg.views.kept import Row
from neurondbg.views.lineview import LineView
from neurondbg.views.pane import pane_of

# The full disassembly (re-assemblable, every field) is 100-250 characters; the
# listing shows the mnemonic and the operands a reader scans for (machine.isa.listing
# builds it from the decoded fields), and the Struct pane has every field. `f` in the
# Program pane toggles the full text, of every listing in the pane (a maximised kernel's
# partner listing follows the focused one's).

# Listings whose version (the key of their cached lines) is remembered: a kernel has one
# per engine, and a core step moves the focus, so the pane swaps listings every step.
LISTINGS_KEPT = 16


def _label_width(lines: Sequence[ProgramLine]) -> int:
    """The widest label plus its colon (0: none). A debug.listing_text.Listing says so
    without building its lines (that module is not imported here: it needs numpy, which
    the first frame does without)."""
    known = getattr(lines, "label_width", None)
    if isinstance(known, int):
        return known
    return max((len(x.label) + 1 for x in lines if x.label), default=0)


class ProgramView(LineView):
    """One line per 64-byte record; the cursor picks the record `b` toggles."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "toggle_full", "full text", id="program.full",
                tooltip="compact listing / the full disassembly of every record"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lines: Sequence[ProgramLine] = ()
        self.full = False
        # (listing version, full) -> its widest line: every line's when the listing is
        # built, else the widest drawn so far (a large debug.listing_text.Listing builds
        # its lines as they are drawn, so the width the pane scrolls to grows with them)
        self._widest: dict[tuple[int, bool], int] = {}
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
        # another engine's listing: repaint only the lines on screen that differ (update_size)
        before = self.on_screen() if new_listing else None
        if new_listing:
            self._source = snap.lines
            self._version = self._version_of(snap.lines)
            self.lines = snap.lines
            self._label_width = _label_width(snap.lines)
            last = self.lines[-1].offset if self.lines else 0
            self._offset_width = max(3, len(f"{last:x}"))
        old_pc, old_bps = self.pc_index, self.breakpoints
        self.pc_index = snap.pc_index
        self.breakpoints = snap.breakpoints
        if new_listing:
            self.update_size(before)
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
        kept = {v for _, v in self._versions}
        self._widest = {k: w for k, w in self._widest.items() if k[0] in kept}
        return self._last_version

    def _width_key(self) -> tuple[int, bool]:
        """The widest line's key for the listing shown, measured first when every line
        of it is built (a plain list, or a Listing that builds its lines up front)."""
        key = (self._version, self.full)
        if key not in self._widest:
            built = getattr(self.lines, "built", True)
            self._widest[key] = max((len(self.shown(i)) for i in range(len(self.lines))),
                                    default=0) if built is True else 0
        return key

    def shown(self, index: int) -> str:
        """What line `index` shows: its compact listing, or the full disassembly."""
        line = self.lines[index]
        return line.text if self.full or not line.listing else line.listing

    def action_toggle_full(self) -> None:
        full = not self.full
        pane = pane_of(self)
        for view in pane.query(ProgramView) if pane is not None else (self,):
            view.set_full(full)

    def set_full(self, full: bool) -> None:
        """The full disassembly (True) or the compact listing of every record."""
        self.full = full
        self._strips.clear()  # the other form's lines are not drawn again soon
        self.update_size()

    def line_count(self) -> int:
        return len(self.lines)

    def content_width(self) -> int:
        return self._widest[self._width_key()] + 6 + self._offset_width + self._label_width

    def line_key(self, index: int) -> tuple:
        return (self._version, self.full, index, index == self.pc_index,
                index in self.breakpoints)

    def line_ident(self, index: int) -> object:
        """What line_text draws from (without drawing it)."""
        line = self.lines[index]
        return (index in self.breakpoints, index == self.pc_index, line.valid, line.offset,
                self._offset_width, line.label, self._label_width, self.shown(index))

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
        shown = self.shown(index)
        text.append(shown, style=style.strip())
        key = self._width_key()
        if len(shown) > self._widest[key]:  # scroll as far as the widest line drawn reaches
            self._widest[key] = len(shown)
            self.call_after_refresh(self.update_size)
        return text


class PartnerProgramView(ProgramView, can_focus=False):
    """The second engine's listing beside the focused one's, shown only while the
    Program pane is maximised (z); read-only (the keys act on the focused engine)."""


def with_partner(id: str) -> Widget:
    """A kernel's Program pane: the focused engine's listing (`id`) and the partner's
    beside it (hidden by the stylesheet until the pane is maximised)."""
    return Row(ProgramView(id=id), PartnerProgramView(id=f"{id}-partner"),
                      id=f"{id}-pair")
