"""The Timeline pane: swimlanes per engine, one column per scheduler step.

Each cell is what that engine did at that step: the instruction's mnemonic (zoomed
in) or its first letter, `╌` while it waited on a semaphore, `·` when it could run but
the scheduler picked another engine, blank once halted, `▫` for a step taken earlier
and undone (the future Enter can travel back to). Under the lanes, `↑` marks a
semaphore update that satisfied a later wait and `↓` the wait it satisfied; `✖` marks
both accesses of a race. The line at the bottom describes the cursor's column.

Keys: ← → move the cursor, Home / End, + / - zoom (5 characters a step, 1, then one
cell per 10 or 100 steps), Enter travels the machine to the cursor's step (reverse or
forward). Only the visible columns are computed: the cost of a frame does not grow
with the length of the run.

Decision: at 100x30 (`collapsed`) the lanes are the focused engine's and those of the
engines it shares a semaphore with.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Span, Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive

from neurondbg.debug.snapshot import Cell, TimelineData
from neurondbg.views.textlines import TextLines

ZOOMS: tuple[tuple[int, int], ...] = ((5, 1), (1, 1), (1, 10), (1, 100))  # (chars, steps)
LABEL = 6  # the lane name column
LANE_STYLES = ("bold cyan", "bold green", "bold magenta", "bold yellow", "bold blue")


class TimelineView(TextLines, can_focus=True):
    """Swimlanes of the schedule taken (see the module docstring)."""

    DEFAULT_CSS = "TimelineView { height: auto; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "earlier", show=False, id="timeline.left"),
        Binding("right", "move(1)", "later", show=False, id="timeline.right"),
        Binding("home", "edge(0)", "first step", show=False, id="timeline.home"),
        Binding("end", "edge(1)", "last step", show=False, id="timeline.end"),
        Binding("plus,equals_sign", "zoom(-1)", "zoom in", show=False, id="timeline.zoomin"),
        Binding("minus", "zoom(1)", "zoom out", show=False, id="timeline.zoomout"),
        Binding("enter", "travel", "travel here", show=False, id="timeline.travel"),
    ]

    class Travel(Message):
        """Move the machine to right after step `step` (1-based: the count taken)."""

        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    cursor: reactive[int] = reactive(0)  # a global step index (0-based column)
    zoom: reactive[int] = reactive(0)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.data: TimelineData | None = None
        self.collapsed = False
        self.follow = True  # the cursor follows the newest step until the user moves it
        self._left = 0

    def show(self, data: TimelineData | None) -> None:
        self.data = data
        if data is not None and (self.follow or self.cursor >= max(data.horizon, 1)):
            # without watch_cursor's full repaint: the lines below repaint what changed
            self.set_reactive(TimelineView.cursor, max(0, data.steps - 1))
        # built now, at the width drawn: only the rows that changed repaint (the lanes
        # scroll under a cursor that follows the newest step; a focus move changes two)
        self.repaint_lines(self.lines())

    # -- keys -------------------------------------------------------------------------
    def _per(self) -> tuple[int, int]:
        return ZOOMS[self.zoom]

    def action_move(self, by: int) -> None:
        if self.data is None:
            return
        self.follow = False
        self.cursor = max(0, min(self.data.horizon - 1, self.cursor + by * self._per()[1]))

    def action_edge(self, end: int) -> None:
        if self.data is not None:
            self.follow = bool(end)
            self.cursor = max(0, self.data.horizon - 1) if end else self.data.origin

    def action_zoom(self, by: int) -> None:
        self.zoom = max(0, min(len(ZOOMS) - 1, self.zoom + by))

    def action_travel(self) -> None:
        if self.data is not None and self.data.horizon:
            self.follow = False
            self.post_message(self.Travel(self.cursor + 1))

    def watch_cursor(self) -> None:
        self.refresh()

    def watch_zoom(self) -> None:
        self.refresh()

    # -- drawing ----------------------------------------------------------------------
    def line_count(self) -> int:
        """The ruler, the lanes shown, the marks and the detail line (or one line)."""
        d = self.data
        return len(self.lanes()) + 3 if d is not None and d.horizon else 1

    def lanes(self) -> list[int]:
        """Indices of the engines drawn (all, or the focused one and its partners)."""
        d = self.data
        if d is None:
            return []
        if not self.collapsed:
            return list(range(len(d.engines)))
        return [i for i, e in enumerate(d.engines) if e == d.focus or e in d.linked]

    def window(self, width: int) -> tuple[int, int]:
        """The first step shown and how many cells fit, keeping the cursor in view."""
        chars, per = self._per()
        cells = max(1, (width - LABEL) // chars)
        cur = self.cursor // per
        left = self._left
        if cur < left:
            left = cur
        elif cur >= left + cells:
            left = cur - cells + 1
        self._left = left
        return left * per, cells

    def text(self) -> Text:
        lines = self.lines()
        if len(lines) == 1:
            return lines[0]
        text = Text("\n", no_wrap=True, overflow="crop").join(lines)
        text.no_wrap = True
        return text

    def lines(self) -> list[Text]:
        d = self.data
        if d is None or not d.horizon:
            return [Text("no steps yet: S steps the core, s the focused engine, c continues",
                         style="dim")]
        chars, per = self._per()
        lo, cells = self.window(self.size.width or 80)
        hi = min(d.horizon, lo + cells * per)
        cols = d.columns(lo, hi)
        lanes = self.lanes()
        cur = (self.cursor - lo) // per
        out = [self._ruler(lo, hi, chars, per, cur)]
        for i in lanes:
            out.append(self._lane(d.engines[i], cols[i], chars, per, cur,
                                  LANE_STYLES[i % len(LANE_STYLES)], d.engines[i] == d.focus))
        out.append(self._marks(d, lo, hi, chars, per, cur))
        out.append(self._detail(d, cols, lo))
        return out

    def _ruler(self, lo: int, hi: int, chars: int, per: int, cur: int) -> Text:
        n = (hi - lo + per - 1) // per
        buf = [" "] * (n * chars)
        free = 0
        for c in range(n):  # a step number wherever one fits
            x = c * chars
            label = str(lo + c * per + 1)
            if x >= free and x + len(label) <= len(buf):
                buf[x:x + len(label)] = label
                free = x + len(label) + 2
        return Text("step".ljust(LABEL) + "".join(buf), style="dim", no_wrap=True)

    def _lane(self, name: str, row: list[Cell], chars: int, per: int, cur: int, style: str,
              focused: bool) -> Text:
        head = ("▶" if focused else " ") + name[:LABEL - 2].ljust(LABEL - 1)
        parts = [head]
        spans: list[Span] = []
        at = len(head)  # where the run starts in the line
        run: list[str] = []
        run_style = ""
        for c in range(0, len(row), per):  # consecutive cells of one style: one span
            text, st = _cell_text(row[c:c + per] if per > 1 else [row[c]], chars, style)
            if c // per == cur:
                st = f"{st} reverse".strip()
            if st != run_style:
                at = _flush(parts, spans, at, run, run_style)
                run, run_style = [], st
            run.append(text)
        _flush(parts, spans, at, run, run_style)
        # the spans Text.append would give the same runs (built here: a lane is dozens)
        return Text("".join(parts), style="bold" if focused else "", no_wrap=True,
                    overflow="crop", spans=spans)

    def _marks(self, d: TimelineData, lo: int, hi: int, chars: int, per: int,
               cur: int) -> Text:
        n = (hi - lo + per - 1) // per
        marks: list[set[str]] = [set() for _ in range(n)]
        for e in d.edges(lo, hi):
            for g, what in ((e.src, "up"), (e.dst, "down")):
                if lo <= g < hi:
                    marks[(g - lo) // per].add(what)
        for _, a, b in d.races:
            for g in (a, b):
                if lo <= g < hi:
                    marks[(g - lo) // per].add("race")
        parts = ["sem".ljust(LABEL)]
        spans: list[Span] = []
        at = LABEL
        for c, m in enumerate(marks):  # a span a column, as Text.append would give
            glyph, style = _mark(m)
            at = _flush(parts, spans, at, [glyph.ljust(chars)],
                        style + (" reverse" if c == cur else ""))
        return Text("".join(parts), style="dim", spans=spans)

    def _detail(self, d: TimelineData, cols: list[list[Cell]], lo: int) -> Text:
        g = self.cursor
        k = g - lo
        parts = [f"step {g + 1}" + (" (undone: Enter replays to it)" if g >= d.steps else "")]
        for i, e in enumerate(d.engines):
            if 0 <= k < len(cols[i]):
                cell = cols[i][k]
                if cell.kind == "run":
                    parts.append(f"{e} {cell.text}")
                elif cell.kind == "wait":
                    parts.append(f"{e} waiting")
        for e in d.edges(g, g + 1):
            parts.append(f"sem[{e.sem}]: {e.src_engine} step {e.src + 1} → {e.dst_engine}")
        for n, a, b in d.races:
            if g in (a, b):
                parts.append(f"race #{n}: steps {a + 1} and {b + 1}")
        return Text(" · ".join(parts), style="italic")


def _flush(parts: list[str], spans: list[Span], at: int, run: list[str], style: str) -> int:
    """Add a run of cells of one style to a lane's text; where the next run starts."""
    text = "".join(run)
    if text:
        parts.append(text)
        if style:
            spans.append(Span(at, at + len(text), style))
    return at + len(text)


def _mark(m: set[str]) -> tuple[str, str]:
    """The glyph under the lanes for one column: a race wins, then the edges' ends."""
    if "race" in m:
        return "✖", "bold red"
    if {"up", "down"} <= m:
        return "↕", "cyan"
    if m:
        return ("↑" if "up" in m else "↓"), "cyan"
    return " ", ""


def _cell_text(cells: list[Cell], chars: int, style: str) -> tuple[str, str]:
    """The text and style of one drawn cell (one step, or a bucket of steps)."""
    if len(cells) > 1:  # zoomed out: did the engine run, wait or idle in this bucket
        kinds = {c.kind for c in cells}
        if "run" in kinds:
            return "▮".ljust(chars), style
        if kinds == {"wait"}:
            return "╌".ljust(chars), "yellow"
        if "future" in kinds:
            return "▫".ljust(chars), "dim"
        return " " * chars, ""
    c = cells[0]
    if c.kind == "run":
        text = c.text[:chars - 1] if chars > 1 else c.text[:1]
        return text.ljust(chars), style
    glyph = {"wait": "╌", "ready": "·", "halted": " ", "future": "▫"}[c.kind]
    return (glyph * chars if c.kind == "wait" else glyph.ljust(chars),
            "yellow" if c.kind == "wait" else "dim")
