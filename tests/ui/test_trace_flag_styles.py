"""The Convert Lab and the Lanes pane show every flag a trace can raise, each styled."""

from __future__ import annotations

import numpy as np

from neurondbg.machine.convert import trace
from neurondbg.machine.convert._trace_model import LANE_FLAGS
from neurondbg.views.trace_text import FLAG_NAMES, FLAG_STYLES, trace_flags


def test_every_raised_flag_but_exact_has_a_style() -> None:
    assert set(FLAG_NAMES) == set(LANE_FLAGS) - {"exact"}
    assert set(FLAG_STYLES) == set(FLAG_NAMES)


def test_a_subnormal_result_shows_underflow() -> None:
    bits = int(np.array([1e-6], np.float32).view(np.uint32)[0])
    assert trace_flags(trace(bits, "fp32", "fp16", "rint", False)) == ["inexact", "underflow"]
