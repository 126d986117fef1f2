"""SBUF / PSUM grid: partitions x elements in a chosen dtype (or raw hex),
the cells the last step wrote highlighted, go-to, and a heatmap view.

The elements are shown in the dtype of the instruction that last wrote the cells in
view (a conversion's output format: the model knows no other writer's), until the user
picks one (`d`, `dtype NAME`), which holds from then on. The pane remembers the last
WRITERS_KEPT writes it was shown; reversing forgets them (the last writer is no longer
known). The border says which writer's dtype is shown, or that it is not known.

The heatmap runs between the backgrounds of two component classes,
`memoryview--heat-low` and `memoryview--heat-high` (default blue to red), so a theme
or a user's CSS can recolour it; written cells use LineView's `lineview--written`.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from rich.color import Color, ColorTriplet
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message

from neurondbg.debug.lab_model import values_of
from neurondbg.debug.snapshot import Snapshot, WrittenRegion
from neurondbg.machine.convert.formats import FORMATS, IntFormat
from neurondbg.views.lineview import LineView

DTYPES: tuple[str, ...] = ("hex", "fp32", "bf16", "fp16", "fp8_e4m3", "fp8_e5m2", "int32",
                           "int16", "int8", "uint8")
ROW_LABEL = 5  # "p127 "
WRITERS_KEPT = 64  # writes remembered for the last-writer dtype (newest last)


def shows_as(fmt: str | None) -> str | None:
    """`fmt` if the grid can show elements of it (whole bytes, at most 32 bits)."""
    return fmt if fmt in FORMATS and FORMATS[fmt].bits in (8, 16, 32) else None


def cell_width(dtype: str) -> int:
    if dtype == "hex":
        return 2
    fmt = FORMATS[dtype]
    if isinstance(fmt, IntFormat):
        return len(str(fmt.min_value if fmt.signed else fmt.max_value))
    return 10


def elem_bytes(dtype: str) -> int:
    return 1 if dtype == "hex" else max(1, FORMATS[dtype].bits // 8)


def heat_style(t: float, low: ColorTriplet, high: ColorTriplet) -> Style:
    """The background for a value scaled to [0, 1], `low` to `high` in a straight line."""
    t = min(1.0, max(0.0, t))
    r, g, b = (int(a + (z - a) * t) for a, z in zip(low, high, strict=True))
    return Style(bgcolor=Color.from_rgb(r, g, b))


def touches(w: WrittenRegion, lo: int, hi: int) -> bool:
    """Did write `w` touch a byte column in [lo, hi)? (Its columns only: a mask of the
    whole partition per remembered write would cost a step milliseconds.)"""
    cols = w.columns
    if isinstance(cols, slice):
        start, stop = cols.start or 0, cols.stop if cols.stop is not None else hi
        return start < hi and stop > lo
    return bool(((cols >= lo) & (cols < hi)).any())


class MemoryView(LineView):
    """One line per partition; columns are elements from `start` (a byte offset)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"memoryview--heat-low", "memoryview--heat-high"}
    DEFAULT_CSS = """
    MemoryView > .memoryview--heat-low { background: rgb(40, 60, 200); }
    MemoryView > .memoryview--heat-high { background: rgb(240, 60, 40); }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "cycle_dtype", "dtype", id="mem.dtype", tooltip="next element format"),
        Binding("h", "heatmap", "heatmap", id="mem.heatmap", tooltip="heatmap on / off"),
        Binding("p", "space", "sbuf/psum", id="mem.space", tooltip="SBUF / PSUM"),
        Binding("left_square_bracket", "shift(-1)", "◀ cols", id="mem.left"),
        Binding("right_square_bracket", "shift(1)", "cols ▶", id="mem.right"),
        Binding("g", "goto_prompt", "go to", id="mem.goto",
                tooltip="go to an address (asks in the console)"),
    ]

    class GotoPrompt(Message):
        """Ask the console for a `goto PARTITION BYTE` line."""

    def action_goto_prompt(self) -> None:
        self.post_message(self.GotoPrompt())

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.snap = Snapshot()
        self.space = "sbuf"
        self.dtype = "fp32"
        self.chosen = False  # the user picked the dtype: it no longer follows the writer
        self.writers: list[WrittenRegion] = []  # the last writes shown, newest last
        self._steps_seen = 0
        self.start = 0
        self.heatmap = False
        self._range = (0.0, 1.0)
        self._codes = np.zeros((0, 0), np.uint8)
        self._values = np.zeros((0, 0))
        self._mask = np.zeros((0, 0), bool)

    # -- model ---------------------------------------------------------------
    def memory(self) -> np.ndarray | None:
        return self.snap.sbuf if self.space == "sbuf" else self.snap.psum

    def columns(self) -> int:
        return max(1, (self.size.width - ROW_LABEL) // (cell_width(self.dtype) + 1))

    def window(self) -> np.ndarray:
        """(partitions, columns) codes of the visible element window (vectorized)."""
        mem = self.memory()
        if mem is None or mem.size == 0:
            return np.zeros((0, 0), np.uint8)
        size = elem_bytes(self.dtype)
        stop = min(mem.shape[1], self.start + self.columns() * size)
        n = (stop - self.start) // size
        block = np.ascontiguousarray(mem[:, self.start:self.start + n * size])
        if self.dtype == "hex" or size == 1:
            return block
        return block.view(FORMATS[self.dtype].container)

    @property
    def shown_values(self) -> np.ndarray:
        """(partitions, columns) values of the cells on show, as last drawn (the Plot's
        histogram is of these)."""
        return self._values

    def window_values(self, codes: np.ndarray | None = None) -> np.ndarray:
        """The values of the window's codes (`codes`: `window()` already read)."""
        codes = self.window() if codes is None else codes
        if self.dtype == "hex":
            return codes.astype(np.float64)
        return values_of(FORMATS[self.dtype], codes)

    def written_mask(self, codes: np.ndarray | None = None) -> np.ndarray:
        """(partitions, columns) bool: the last step wrote some byte of the cell (`codes`:
        `window()` already read)."""
        mem = self.memory()
        codes = self.window() if codes is None else codes
        mask = np.zeros(codes.shape, bool)
        if mem is None:
            return mask
        size = elem_bytes(self.dtype)
        for w in self.snap.written:
            if w.space != self.space:
                continue
            cols = w.byte_mask(mem.shape[1])[self.start:self.start + codes.shape[1] * size]
            hit = cols.reshape(-1, size).any(axis=1)
            mask[w.p0:w.p1] |= hit
        return mask

    # -- updates -------------------------------------------------------------
    def show(self, snap: Snapshot) -> None:
        self.snap = snap
        start, dtype = self.start, self.dtype
        self._remember_writers(snap)
        self._follow_writes()
        if not self.chosen and (fmt := shows_as(self.last_writer_fmt())) is not None:
            self.dtype = fmt
            self.start -= self.start % elem_bytes(fmt)
        self._recompute(full=(start, dtype) != (self.start, self.dtype))

    def _remember_writers(self, snap: Snapshot) -> None:
        """Keep the snapshot's writes (a step's; a race stop's overlap is no write)."""
        if snap.steps < self._steps_seen:
            self.writers.clear()  # reversed: who wrote last is not known any more
        elif snap.steps > self._steps_seen and not snap.races:
            self.writers.extend(snap.written)
            del self.writers[:-WRITERS_KEPT]
        self._steps_seen = snap.steps

    def last_writer(self) -> WrittenRegion | None:
        """The newest remembered write to a cell in view (None: none seen)."""
        lo, hi = self.start, self.start + self.columns() * elem_bytes(self.dtype)
        return next((w for w in reversed(self.writers)
                     if w.space == self.space and touches(w, lo, hi)), None)

    def last_writer_fmt(self) -> str | None:
        w = self.last_writer()
        return w.fmt if w is not None else None

    def _follow_writes(self) -> None:
        """Bring the last step's writes into view when none of them is visible."""
        mine = [w for w in self.snap.written if w.space == self.space]
        mem = self.memory()
        if not mine or mem is None:
            return
        size = elem_bytes(self.dtype)
        lo, hi = self.start, self.start + self.columns() * size
        cols = np.flatnonzero(mine[0].byte_mask(mem.shape[1]))
        if cols.size and not ((cols >= lo) & (cols < hi)).any():
            if mine[0].fmt in DTYPES and not self.chosen:  # a conversion's output format
                self.dtype = mine[0].fmt
                size = elem_bytes(self.dtype)
            self.start = int(cols[0]) - int(cols[0]) % size

    def _recompute(self, full: bool = True) -> None:
        """Re-read the window; repaint every row (`full`) or only rows whose cells changed."""
        old_codes, old_mask, old_range = self._codes, self._mask, self._range
        codes = self.window()
        self._mask = self.written_mask(codes)
        # the same cells and marks (a step that wrote none of them): values and range stay
        same = not full and codes.shape == old_codes.shape and \
            np.array_equal(codes, old_codes) and np.array_equal(self._mask, old_mask)
        if not same:
            values = self.window_values(codes) if codes.size else np.zeros(codes.shape)
            finite = values[np.isfinite(values)] if values.size else values
            self._range = (float(finite.min()), float(finite.max())) if finite.size \
                else (0.0, 1.0)
            self._values = values
            self._codes = codes.copy()  # the window is a view of live memory
        text = self.describe()
        if text != self.border_subtitle:
            self.border_subtitle = text
            if self.parent is not None:
                self.parent.border_subtitle = text
        if same:
            return
        if full or codes.shape != old_codes.shape or (self.heatmap and self._range != old_range):
            self.update_size()
            return
        rows = (codes != old_codes).any(axis=1) | (self._mask != old_mask).any(axis=1)
        self.refresh_indices(np.flatnonzero(rows).tolist())

    def describe(self) -> str:
        size = elem_bytes(self.dtype)
        end = self.start + self.columns() * size
        note = next((n for sp, n in self.snap.stale if sp == self.space), "")
        return f"{self.space} {self.dtype} bytes {self.start:#x}..{end:#x}" + (
            " heatmap" if self.heatmap else "") + self._writer_note() + (
            f" · {note}" if note else "")

    def _writer_note(self) -> str:
        """Whose dtype is shown: "" while no write to the cells in view was seen."""
        w = self.last_writer()
        if w is None:
            return ""
        if w.fmt is None:
            return " · last writer's dtype not known"
        if w.fmt != self.dtype:
            return f" · last writer: {w.fmt}"
        return " · as written"

    def goto(self, partition: int, byte: int, space: str | None = None) -> None:
        if space:
            self.space = space
        size = elem_bytes(self.dtype)
        self.start = max(0, byte - byte % size)
        self._recompute()
        self.cursor = max(0, min(partition, self.line_count() - 1))

    def on_resize(self) -> None:
        self._recompute()

    def action_cycle_dtype(self) -> None:
        self.chosen = True
        self.dtype = DTYPES[(DTYPES.index(self.dtype) + 1) % len(DTYPES)]
        self.start -= self.start % elem_bytes(self.dtype)
        self._recompute()

    def set_dtype(self, dtype: str) -> None:
        self.chosen = True
        self.dtype = dtype
        self.start -= self.start % elem_bytes(dtype)
        self._recompute()

    def action_heatmap(self) -> None:
        self.heatmap = not self.heatmap
        self._recompute()

    def action_space(self) -> None:
        self.space = "psum" if self.space == "sbuf" else "sbuf"
        self.start = 0
        self._recompute()

    def action_shift(self, direction: int) -> None:
        mem = self.memory()
        step = self.columns() * elem_bytes(self.dtype)
        limit = max(0, (mem.shape[1] if mem is not None else 0) - step)
        self.start = max(0, min(limit, self.start + direction * step))
        self._recompute()

    # -- drawing ---------------------------------------------------------------
    def line_count(self) -> int:
        mem = self.memory()
        return 0 if mem is None else mem.shape[0]

    def _cell(self, p: int, j: int) -> str:
        if self.dtype == "hex":
            return f"{int(self._codes[p, j]):02x}"
        v = self._values[p, j]
        if isinstance(FORMATS[self.dtype], IntFormat):
            return f"{int(v):>{cell_width(self.dtype)}}"
        return f"{v:>10.4g}"

    def heat_colours(self) -> tuple[ColorTriplet, ColorTriplet]:
        """The heatmap's two ends (the component classes' backgrounds)."""
        ends = []
        for name in ("memoryview--heat-low", "memoryview--heat-high"):
            bg = self.get_component_rich_style(name, partial=True).bgcolor
            ends.append(bg.get_truecolor() if bg is not None else ColorTriplet(0, 0, 0))
        return ends[0], ends[1]

    def line_text(self, index: int) -> Text:
        text = Text(f"p{index:<3} ", style="dim")
        if index >= self._codes.shape[0]:
            return text
        lo, hi = self._range
        span = (hi - lo) or 1.0
        cold, hot = self.heat_colours() if self.heatmap else (None, None)
        written = self.written_style
        for j in range(self._codes.shape[1]):
            style: Style | str = ""
            if cold is not None and hot is not None and np.isfinite(self._values[index, j]):
                style = heat_style((self._values[index, j] - lo) / span, cold, hot)
            if self._mask[index, j]:
                style = written
            text.append(self._cell(index, j), style=style)
            text.append(" ")
        return text
