"""Plot pane (textual-plotext): input vs output and rounding error across the
lanes of the last conversion, or a histogram of the SBUF window."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from textual.binding import Binding, BindingType
from textual_plotext import PlotextPlot

from views.lab_model import values_of
from views.lanes import as_format
from views.snapshot import Snapshot

MAX_POINTS = 512  # plotext draws every point; a terminal cannot show more
OFF_SCALE = 1e6  # |value| above which a lane is left out of the plot (and counted)


def lane_values(lanes: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """(input values, output values) of the first MAX_POINTS lanes, if the handle has them."""
    if lanes is None:
        return None
    values = getattr(lanes, "values", None)  # machine.engines.record.Lanes: (inputs, outputs)
    x, y = values if isinstance(values, tuple) else (None, None)
    if x is None or y is None:
        xin, yout = getattr(lanes, "in_bits", None), getattr(lanes, "out_bits", None)
        if xin is None or yout is None:
            return None
        try:
            x = values_of(as_format(lanes.src), np.asarray(xin))
            y = values_of(as_format(lanes.dst), np.asarray(yout))
        except (AttributeError, ValueError):
            return None
    x = np.asarray(x, np.float64).ravel()[:MAX_POINTS]
    y = np.asarray(y, np.float64).ravel()[:MAX_POINTS]
    return x, y


class PlotView(PlotextPlot, can_focus=True):
    """`m` switches between the conversion plot and the SBUF histogram."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "mode", "plot mode", id="plot.mode"),
    ]
    MODES: ClassVar[tuple[str, ...]] = ("conversion", "histogram")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.mode = "conversion"
        self.lanes: Any = None
        self.hist_data = np.zeros(0)
        self._drawn = False

    def show(self, snap: Snapshot, region: np.ndarray | None = None) -> None:
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

    def draw(self) -> None:
        self._drawn = True
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        if self.mode == "histogram":
            data = self.hist_data[np.isfinite(self.hist_data)]
            plt.title("SBUF window histogram")
            if data.size:
                plt.hist(data.tolist(), bins=20)
        else:
            try:
                xy = lane_values(self.lanes)
            except Exception:  # the model's lane values are optional for the plot
                xy = None
            title = "lanes: in, out, error"
            if xy is not None:
                x, y = xy
                # lanes that overflow (3.4e38 -> inf / int max) would flatten the rest
                ok = np.isfinite(x) & np.isfinite(y) & (np.abs(x) <= OFF_SCALE) & (
                    np.abs(y) <= OFF_SCALE)
                hidden = int((~ok).sum())
                if hidden:
                    title += f" ({hidden} off-scale hidden)"
                lanes = np.arange(x.size)[ok]
                plt.scatter(lanes.tolist(), x[ok].tolist(), label="input", marker="dot")
                plt.scatter(lanes.tolist(), y[ok].tolist(), label="output", marker="dot")
                plt.plot(lanes.tolist(), (y[ok] - x[ok]).tolist(), label="error")
            plt.title(title)
        self.refresh()
