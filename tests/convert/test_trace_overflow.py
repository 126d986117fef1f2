"""The round step at the top of a float target's range names the overflow threshold.

It shows no candidate without an encoding ("not representable", "chosen: none"), says
whether the value is past the threshold and what saturation or infinity gives, and puts
no ulp error next to a saturated or infinite output.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.convert import convert, trace
from neurondbg.machine.convert.formats import FORMATS


def f32(x: float) -> int:
    return int(np.array([x], np.float32).view(np.uint32)[0])


@pytest.mark.parametrize("x,past,out", [
    (70000.0, True, 0x7C00), (65520.0, True, 0x7C00), (65519.0, False, 0x7BFF),
    (-70000.0, True, 0xFC00), (65504.0, None, 0x7BFF)])
def test_fp16_rint_threshold_is_65520(x: float, past: bool | None, out: int) -> None:
    t = trace(f32(x), "fp32", "fp16")
    assert t.output_bits == out
    r = t.step("round")
    if past is None:  # 65504 is exact: nothing to round
        assert r.values["increment"] == 0 and "threshold" not in r.text
        return
    assert r.values["overflow_threshold"] == 65520.0 and r.values["past_threshold"] is past
    assert "not representable" not in r.text and "none" not in r.text
    assert "Overflow threshold 65520" in r.text
    assert ("is past it" in r.text) is past and ("is not past it" in r.text) is not past
    if past:
        assert "ulp" not in r.text.replace("no ulp error", "") and t.candidates is None
        assert "-inf (0xfc00)" in r.text if x < 0 else "+inf (0x7c00)" in r.text
        assert "with saturation: " + ("-" if x < 0 else "") + "65504" in r.text
    else:
        assert "it rounds to 65504 (0x7bff); error -0.469 ulp" in r.text


def test_saturation_names_the_clamp_and_the_infinity_it_replaces() -> None:
    r = trace(f32(70000.0), "fp32", "fp16", sat=True).step("round")
    assert "saturation clamps to the largest finite value: 65504 (0x7bff)" in r.text
    assert "without saturation: +inf (0x7c00)" in r.text and "no ulp error" in r.text


@pytest.mark.parametrize("mode,threshold", [("rint", 464.0), ("round", 464.0),
                                            ("ceil", 448.0), ("trunc", 480.0),
                                            ("floor", 480.0)])
def test_e4m3fn_threshold_per_mode(mode: str, threshold: float) -> None:
    # 448 (0x7e, even code) is the largest finite; 480 would be 0x7f, the NaN
    r = trace(f32(470.0), "fp32", "fp8_e4m3fn", mode).step("round")
    assert r.values["overflow_threshold"] == threshold
    assert r.values["past_threshold"] is (470.0 > threshold)


def test_a_rint_tie_at_the_threshold_follows_the_largest_codes_parity() -> None:
    # e4m3fn: 464 is halfway between 448 (even code 0x7e) and 480: the tie stays at 448
    t = trace(f32(464.0), "fp32", "fp8_e4m3fn")
    assert t.output_bits == 0x7E and t.step("round").values["past_threshold"] is False
    assert "whose code is even" in t.step("round").text


TOPS = [(n, float(f.max_value)) for n, f in FORMATS.items() if not f.is_int and f.bits < 32]


@settings(deadline=None, max_examples=400)
@given(st.sampled_from(TOPS), st.floats(0.9, 3.0), st.booleans(), st.booleans(),
       st.sampled_from(["rint", "round", "floor", "ceil", "trunc", "odd"]),
       st.sampled_from(["ieee", "ascend"]))
def test_past_the_threshold_exactly_when_the_output_overflows(top: tuple[str, float],
                                                              k: float, neg: bool, sat: bool,
                                                              mode: str, profile: str) -> None:
    dst, mx = top
    x = float(np.float32(min(mx * k, 3.4e38))) * (-1 if neg else 1)
    try:
        t = trace(f32(x), "fp32", dst, mode, sat, profile)
    except ValueError:  # a mode the profile does not list for the pair
        return
    assert t.output_bits == int(convert(np.array([f32(x)], np.uint32), "fp32", dst, mode,
                                        sat, profile)[0])
    r = t.step("round") if "round" in t.step_names else None
    if r is None or "past_threshold" not in r.values:
        return
    assert r.values["past_threshold"] is t.overflow
    assert ("ulp" in r.text.replace("no ulp error", "")) is (not t.overflow)
