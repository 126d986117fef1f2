"""The Plot pane's log scale (`l`): one lane at 65504 does not flatten lanes near 1;
zero magnitudes, which have no logarithm, are counted, not drawn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.views.plot import PlotView, decade_ticks, log_points, select_lanes
from tests.ui.helpers import started

WIDE = """\
.data sb[0, 0] fp32 65504 1.00390625 0.1 2.5 0 -3.25 7 0.75
CAST in_dtype=FP32 out_dtype=FP16 nac=1 src=sb[0, 0] step=[1,0,0,0] num=[8,1,1,1] \
dst=sb[0, 64] step=[1,0,0,0] num=[8,1,1,1]
HALT
"""


def test_log_selection_keeps_every_finite_lane_and_counts_zeros() -> None:
    x = np.array([65504.0, 1.0, 3e38, 0.0, np.nan, 0.1])
    y = np.array([65504.0, 1.0, np.inf, 0.0, 1.0, 0.10009765625])
    linear = select_lanes(x, y)
    log = select_lanes(x, y, log=True)
    assert linear.keep.tolist() == [True, True, False, True, False, True]
    assert log.keep.tolist() == [True, True, False, True, False, True]
    # zeros: lane 3's |in| and |out|, and the exact lanes' errors (0, 1, 3)
    assert (log.off_scale, log.zeros) == (0, 5)
    assert log.note() == "2 of 6 not plotted: 1 inf, 1 NaN; 5 zero values not drawn (log scale)"
    one = select_lanes(np.array([1.0, 2.0]), np.array([1.0, 2.5]), log=True)
    assert one.note() == "1 zero value not drawn (log scale)"


def test_log_points_drop_zeros_and_take_log10() -> None:
    at, logs = log_points(np.array([0, 1, 2, 3]), np.array([-100.0, 0.0, 0.001, 1.0]))
    assert at == [0, 2, 3] and logs == pytest.approx([2.0, -3.0, 0.0])


@settings(max_examples=200, deadline=None)
@given(st.floats(-40, 40), st.floats(0, 80))
def test_decade_ticks_span_the_data_in_whole_decades(low: float, width: float) -> None:
    high = low + width
    ticks, labels = decade_ticks(low, high)
    assert ticks[0] <= low and ticks[-1] >= high
    assert 2 <= len(ticks) <= 8
    assert all(t == int(t) for t in ticks)
    assert labels == ["1" if t == 0 else f"1e{int(t)}" for t in ticks]


async def test_l_switches_the_plot_to_a_log_scale(tmp_path: Path) -> None:
    program = tmp_path / "wide.asm"
    program.write_text(WIDE)
    async with started(program) as (app, pilot):
        await pilot.press("s")
        await pilot.pause()
        plot = app.screen.query_one(PlotView)
        linear = plot.render().plain
        assert "65504.0┤" in linear and "1e" not in linear
        plot.focus()
        await pilot.press("l")
        await pilot.pause()
        drawn = plot.render().plain
        assert plot.log_scale and "log: |in| |out| |err|" in drawn
        for decade in ("1e5┤", "1e-1┤", "1e-5┤"):  # 65504, the lanes near 1, 0.1's error
            assert decade in drawn
        assert plot.note == "9 zero values not drawn (log scale)"
        await pilot.press("l")
        await pilot.pause()
        assert not plot.log_scale and "65504.0┤" in plot.render().plain and plot.note == ""
