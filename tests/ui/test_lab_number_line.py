"""The Lab's and the Convert-trace pane's trace text: parts kept apart, the candidates'
number line, long parts elided."""

from __future__ import annotations

import numpy as np

from neurondbg.machine.convert import trace
from neurondbg.views.trace_text import LINE_WIDTH, number_line, steps_text


def f32(x: float) -> int:
    return int(np.array([x], np.float32).view(np.uint32)[0])


def test_steps_text_separates_parts_and_draws_the_candidates() -> None:
    plain = steps_text(trace(f32(1.0625), "fp32", "fp8_e4m3fn")).plain
    assert "0 01111111 00010000000000000000000" in plain  # the fp32 encoding
    assert "1000 1 0 000000000000000000" in plain  # kept guard round sticky
    line = next(ln for ln in plain.splitlines() if "├" in ln)
    assert line.strip().startswith("1 (0x38) ├") and line.endswith("┤ 1.125 (0x39)")
    # a tie: the exact input sits on the halfway mark, in the middle of the line
    bar = line[line.index("├"):line.index("┤") + 1]
    assert len(bar) == LINE_WIDTH and bar.index("●") == LINE_WIDTH // 2
    assert "chosen: below, error -0.5 ulp" in plain
    assert "candidates={" not in plain  # the dict is drawn, not dumped


def test_number_line_puts_the_input_nearer_the_chosen_end() -> None:
    c = trace(f32(1.2), "fp32", "fp8_e4m3fn").candidates  # 1.2: between 1.125 and 1.25
    text = number_line(c)
    bar = text.plain[text.plain.index("├"):text.plain.index("┤") + 1]
    assert bar.index("●") > bar.index("┼")  # above halfway
    chosen = [s for s in text.spans if "reverse" in str(s.style)]
    assert len(chosen) == 1 and text.plain[chosen[0].start:chosen[0].end] == "1.25 (0x3a)"


def test_long_parts_are_elided_in_the_pane() -> None:
    plain = steps_text(trace(1, "fp32", "fp16", "odd")).plain  # 2^-149: 125 dropped bits
    assert "0000…(125 bits)…0001" in plain
    assert max(len(ln) for ln in plain.splitlines()) < 100
