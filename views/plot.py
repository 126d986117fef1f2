"""Plot pane (textual-plotext): input vs output and rounding error across the
lanes of the last conversion, or a histogram of the SBUF window.

Lanes that cannot be drawn on one linear scale are left out and counted in the
pane's bottom border ("3 of 8 not plotted: 2 inf, 1 NaN"): a NaN or an infinity
on either side, and lanes off-scale, i.e. more than OFF_SCALE times the median
magnitude of the finite lanes (3.4e38 beside values near 1 would flatten them).
The scale is relative, so a conversion whose lanes are all large (2e6, 3e6, or
int32 near 2^31) is still drawn. When nothing is left the plot says so.

`l` switches the conversion plot to a log scale of magnitudes: |input|, |output| and
|error| per lane, so one lane at 65504 no longer flattens lanes near 1 (and none is
off-scale). A zero has no logarithm: zero magnitudes (an exact lane's error, a zero
input) are not drawn and the border counts them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

import numpy as np
from rich.console import RenderableType
from textual.binding import Binding, BindingType
from textual_plotext import PlotextPlot

from neurondbg.debug.snapshot import Snapshot
from neurondbg.views.pane import contain

if TYPE_CHECKING:
    from neurondbg.machine.engines.record import Lanes

MAX_POINTS = 512  # plotext draws every point; a terminal cannot show more
OFF_SCALE = 1e6  # a lane this many times the median finite magnitude is left out


def lane_values(lanes: Lanes | None) -> tuple[np.ndarray, np.ndarray, int] | None:
    """(input values, output values) of the first MAX_POINTS lanes and the lane count
    (the machine decodes them: Lanes.values)."""
    if lanes is None:
        return None
    x, y = lanes.values
    x, y = np.asarray(x, np.float64).ravel(), np.asarray(y, np.float64).ravel()
    return x[:MAX_POINTS], y[:MAX_POINTS], int(x.size)


@dataclass(frozen=True)
class Selection:
    """Which lanes a conversion plot draws, and how many of each kind it leaves out."""

    keep: np.ndarray  # bool per lane
    nan: int
    inf: int
    off_scale: int
    total: int  # lanes of the conversion (may exceed the MAX_POINTS looked at)
    zeros: int = 0  # on a log scale: zero magnitudes among the kept lanes (not drawn)

    def note(self) -> str:
        """'3 of 8 not plotted: 2 inf, 1 NaN' ('' when every lane is drawn)."""
        parts = [f"{n} {what}" for n, what in ((self.inf, "inf"), (self.nan, "NaN"),
                                                (self.off_scale, "off-scale")) if n]
        first = "" if self.total <= self.keep.size else f"first {self.keep.size} lanes; "
        zeros = f"{self.zeros} zero {'value' if self.zeros == 1 else 'values'} not drawn " \
            "(log scale)" if self.zeros else ""
        if not parts:
            return "; ".join(p for p in (first.removesuffix("; "), zeros) if p)
        hidden = self.nan + self.inf + self.off_scale
        more = f"; {zeros}" if zeros else ""
        return f"{first}{hidden} of {self.keep.size} not plotted: {', '.join(parts)}{more}"


def select_lanes(x: np.ndarray, y: np.ndarray, total: int | None = None,
                 log: bool = False) -> Selection:
    """The lanes drawable on one linear scale, or (`log`) on a log scale of magnitudes,
    where only NaN and infinite lanes are left out (see the module docstring)."""
    nan = np.isnan(x) | np.isnan(y)
    inf = ~nan & (np.isinf(x) | np.isinf(y))
    finite = ~nan & ~inf
    total = x.size if total is None else total
    if log:
        series = (np.abs(x), np.abs(y), np.abs(y - np.where(finite, x, 0.0)))
        zeros = sum(int((finite & (s == 0)).sum()) for s in series)
        return Selection(finite, int(nan.sum()), int(inf.sum()), 0, total, zeros)
    size = np.maximum(np.abs(np.where(finite, x, 0.0)), np.abs(np.where(finite, y, 0.0)))
    scale = max(1.0, float(np.median(size[finite]))) if finite.any() else 1.0
    off = finite & (size > OFF_SCALE * scale)
    return Selection(finite & ~off, int(nan.sum()), int(inf.sum()), int(off.sum()), total)


def log_points(lanes: np.ndarray, values: np.ndarray) -> tuple[list[int], list[float]]:
    """The (lane, log10 |value|) points a log scale can draw: the non-zero magnitudes.
    (The plot draws log10 on a linear axis and labels it in decades: plotext's own log
    scale fails on the figure's other data.)"""
    mags = np.abs(values)
    drawn = mags > 0
    return lanes[drawn].tolist(), np.log10(mags[drawn]).tolist()


def decade_ticks(low: float, high: float, most: int = 8) -> tuple[list[float], list[str]]:
    """Tick positions (log10 values, whole decades) spanning [low, high] and their labels
    ('1e-3', '1', '1e4'); at most `most` of them (every k-th decade when wider)."""
    first, last = int(np.floor(low)), int(np.ceil(high))
    if first == last:
        last += 1
    every = max(1, -(-(last - first) // (most - 1)))
    powers = list(range(first, last + every, every))  # the last one at or past `last`
    return [float(p) for p in powers], ["1" if p == 0 else f"1e{p}" for p in powers]


class ShownValues(Protocol):
    """What the histogram reads of the grid beside it (views.memory.MemoryView)."""

    @property
    def shown_values(self) -> np.ndarray: ...


class PlotView(PlotextPlot, can_focus=True):
    """`m` switches between the conversion plot and the SBUF histogram."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "mode", "plot mode", id="plot.mode",
                tooltip="the last conversion's lanes / a histogram of the SBUF window"),
        Binding("l", "log", "log scale", id="plot.log",
                tooltip="the lanes on a log scale of magnitudes (|in|, |out|, |error|) / "
                        "linear"),
    ]
    MODES: ClassVar[tuple[str, ...]] = ("conversion", "histogram")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.mode = "conversion"
        self.lanes: Lanes | None = None
        self.hist_data = np.zeros(0)
        self.note = ""  # what the plot left out, also in the pane's bottom border
        self.log_scale = False  # the conversion plot's scale: log of magnitudes, or linear
        self._drawn = False

    def show(self, snap: Snapshot, beside: ShownValues | None = None) -> None:
        """The snapshot's lanes; the histogram of the values `beside` (the SBUF grid)
        has on show."""
        region = None if beside is None else beside.shown_values.ravel()
        same_lanes = snap.lanes is self.lanes
        same_data = region is None or (region.shape == self.hist_data.shape and bool(
            np.array_equal(region, self.hist_data, equal_nan=True)))
        self.lanes = snap.lanes
        if region is not None:
            self.hist_data = region
        # plotext redraws the whole figure: only when what it shows changed
        if not (same_lanes if self.mode == "conversion" else same_data) or not self._drawn:
            self.draw()

    def action_mode(self) -> None:
        self.mode = self.MODES[(self.MODES.index(self.mode) + 1) % len(self.MODES)]
        self.draw()

    def action_log(self) -> None:
        self.log_scale = not self.log_scale
        self.draw()

    def render(self) -> RenderableType:
        # plotext builds the figure here, at paint time: inside the pane's boundary
        return contain(self, "draw", super().render, fallback="")

    def draw(self) -> None:
        self._drawn = True
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        note = ""
        if self.mode == "histogram":
            finite = np.isfinite(self.hist_data)
            data = self.hist_data[finite]
            plt.title("SBUF window histogram")
            if data.size:
                plt.hist(data.tolist(), bins=20)
            if data.size < self.hist_data.size:
                note = f"{self.hist_data.size - data.size} non-finite values not counted"
        else:
            xy = lane_values(self.lanes)
            title = "log: |in| |out| |err|" if self.log_scale else \
                "lanes: in, out, error"
            if xy is not None:
                x, y, total = xy
                chosen = select_lanes(x, y, total, log=self.log_scale)
                note = chosen.note()
                ok = chosen.keep
                if self.log_scale:
                    if not self._draw_log(x, y, ok):
                        title = "no lane has a non-zero magnitude to plot"
                elif ok.any():  # plotext fails on a labelled empty series
                    lanes = np.flatnonzero(ok).tolist()
                    plt.scatter(lanes, x[ok].tolist(), label="input", marker="dot")
                    plt.scatter(lanes, y[ok].tolist(), label="output", marker="dot")
                    plt.plot(lanes, (y[ok] - x[ok]).tolist(), label="error")
                else:
                    title = "no lane can be plotted"
            plt.title(title)
        self.note = note
        self.border_subtitle = note
        if self.parent is not None:
            self.parent.border_subtitle = note
        self.refresh()

    def _draw_log(self, x: np.ndarray, y: np.ndarray, ok: np.ndarray) -> bool:
        """Draw the kept lanes' non-zero magnitudes on a log y scale; False if none."""
        lanes = np.flatnonzero(ok)
        series = [(label, *log_points(lanes, values)) for label, values in (
            ("|input|", x[ok]), ("|output|", y[ok]), ("|error|", y[ok] - x[ok]))]
        if not any(points for _, points, _ in series):
            return False
        plt = self.plt
        logs = [v for _, _, mags in series for v in mags]
        plt.yticks(*decade_ticks(min(logs), max(logs)))
        for label, at, mags in series:
            if at:  # plotext fails on a labelled empty series
                plt.scatter(at, mags, label=label, marker="dot")
        return True
