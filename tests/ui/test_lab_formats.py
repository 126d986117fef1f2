"""The Lab's rendering works for every format pair (no pair may take the UI down)."""

from __future__ import annotations

import pytest

from neurondbg.debug.lab_model import neighbours, value_of
from neurondbg.machine.convert.formats import FORMAT_NAMES, FORMATS
from neurondbg.views.lab import run_trace
from neurondbg.views.trace_text import neighbours_text, steps_text, summary_text


def probes(name: str) -> list[int]:
    """Zero, one-ish, the top code and the all-ones pattern of a format."""
    bits = FORMATS[name].bits
    top = (1 << bits) - 1
    return sorted({0, 1, top >> 1, top, (top >> 2) + 1})


@pytest.mark.parametrize("profile", ["ieee", "neuron", "ascend"])
@pytest.mark.parametrize("src", FORMAT_NAMES)
def test_every_pair_renders(src: str, profile: str) -> None:
    sat = profile == "ascend"
    s = FORMATS[src]
    for dst in FORMAT_NAMES:
        d = FORMATS[dst]
        for bits in probes(src):
            try:
                t = run_trace(bits, src, dst, "rint", sat, profile)
            except ValueError:
                continue  # a refused combination (e.g. fp32r is output only): shown as text
            x = float(value_of(s, bits))
            text = summary_text(t, s, d)
            assert f"0x{int(t.output_bits):0{(d.bits + 3) // 4}X}" in text.plain
            near = neighbours(d, x)
            neighbours_text(d, int(t.output_bits), x, near)
            assert steps_text(t).plain.strip()
