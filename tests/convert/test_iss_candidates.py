"""The two candidates on the ISS primitives' rounding steps: the same block as
the float trace, built by the same code, and true to the primitive's output."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.convert import iss, trace
from neurondbg.machine.convert._iss_vec import PACK_IN, pack_bias

ROUNDING = ("float", "ufloat", "narrow", "trunc", "utrunc", "pack", "packvr", "packvrnr",
            "packvru")
LANES = st.one_of(st.integers(0, 2**64 - 1), st.integers(-(2**47), 2**47),
                  st.integers(0, 2**32 - 1), st.integers(-300, 300))


def _mask_changed_it(name: str, lane: int, params: dict) -> bool:
    """pack's `& 0x7fffffff` after the rounding: with shift >= 16 the cleared bit 31 lands
    in the result bits, so the output is no longer the rounded value (the Mask step)."""
    shift = params.get("shift", 0)
    total = ((lane & ((1 << PACK_IN) - 1)) + pack_bias(shift)) & ((1 << PACK_IN) - 1)
    return name == "pack" and shift >= 16 and bool(total >> 31)


@settings(deadline=None, max_examples=600)
@given(st.sampled_from(ROUNDING), st.data())
def test_candidates_bracket_the_input_and_chosen_is_the_output(name: str,
                                                                data: st.DataObject) -> None:
    prim = iss.ISS_PRIMITIVES[name]
    params = {p.name: data.draw(st.sampled_from(p.choices), label=p.name) for p in prim.params}
    lane = data.draw(LANES, label="lane")
    t = prim.trace(lane, **params)
    rounds = [s for s in t.steps if s.name == "round"]
    assert len(rounds) <= 1
    c = t.candidates
    dropped = params.get("shift", 0) > 0 and t.inexact  # the packs' round steps
    v = rounds[0].values if rounds else {}
    past = v.get("past_threshold") is True or v.get("out_of_range") is True
    if rounds and v.get("inexact", dropped) and not past:
        assert c is not None, (name, params, hex(lane))  # every rounding names them
    if past:  # rounded out of range: no candidate without an encoding, no ulp error
        assert c is None and "ulp" not in rounds[0].text.replace("no ulp error", "")
    if c is None:  # a special value, or nothing dropped (shift 0, an integral float)
        assert not rounds or "candidates" not in rounds[0].values
        return
    assert rounds[0].values["candidates"] is c
    lo, hi, x = Fraction(c["below"]["value"]), Fraction(c["above"]["value"]), t.input_value
    assert lo <= x <= hi and lo < hi
    assert Fraction(c["halfway"]) == (lo + hi) / 2
    assert Fraction(c["distance_below"]) == x - lo and Fraction(c["distance_above"]) == hi - x
    picked = c[c["chosen"]]
    assert c["error_ulps"] == float((Fraction(picked["value"]) - x) / (hi - lo))
    if picked["bits"] is None or t.saturated or t.overflow or _mask_changed_it(name, lane,
                                                                                 params):
        return
    assert int(picked["bits"], 16) == t.output_bits, (name, params, hex(lane), c)


@settings(deadline=None, max_examples=300)
@given(st.integers(0, 2**32 - 1), st.sampled_from(range(4)))
def test_narrow_candidates_are_the_float_traces(bits: int, round_mode: int) -> None:
    t = iss.trace_narrow(bits, round_mode)
    want = trace(bits, "fp32", "fp16", iss.mode_of(round_mode))
    if t.input_class != "nan":
        assert t.candidates == want.candidates


@settings(deadline=None, max_examples=300)
@given(st.integers(-(2**31), 2**31 - 1), st.sampled_from((8, 16, 32)),
       st.sampled_from(("fp16", "fp32")), st.sampled_from(range(4)))
def test_float_candidates_are_the_float_traces(v: int, width: int, dst: str,
                                               round_mode: int) -> None:
    v = (v + (1 << (width - 1))) % (1 << width) - (1 << (width - 1))  # fits int`width`
    t = iss.trace_float(v, width, dst, round_mode)
    want = trace(v & ((1 << width) - 1), f"int{width}", dst, iss.mode_of(round_mode))
    assert t.candidates == want.candidates


@settings(deadline=None, max_examples=300)
@given(st.integers(0, 2**32 - 1), st.sampled_from((16, 32)))
def test_trunc_candidates_are_the_float_traces(bits: int, width: int) -> None:
    t = iss.trace_trunc(bits, "fp32", width)
    want = trace(bits, "fp32", f"int{width}", "trunc", True)
    if t.input_class not in ("nan", "inf"):
        assert t.candidates == want.candidates


def test_a_tie_in_narrow_names_both_candidates() -> None:
    bits = int(np.array([1 + 2**-11], np.float32).view(np.uint32)[0])  # halfway in fp16
    t = iss.trace_narrow(bits)
    c = t.candidates
    assert c["below"] == {"bits": "0x3c00", "value": 1.0}
    assert c["above"] == {"bits": "0x3c01", "value": 1.0 + 2**-10}
    assert (c["chosen"], c["error_ulps"], t.output_bits) == ("below", -0.5, 0x3C00)
    assert "tie: both are 0.00048828125 away; ties go to the even code, 0x3c00" in \
        t.step("round").text


def test_pack_and_packvr_candidates_are_the_fixed_point_neighbours() -> None:
    t = iss.trace_pack(0xFFFFFFE8, 4)  # -24 / 16 = -1.5: half up -> -1
    c = t.candidates
    assert (c["below"], c["above"], c["chosen"]) == (
        {"bits": "0xfffe", "value": -2.0}, {"bits": "0xffff", "value": -1.0}, "above")
    assert "half up sends ties toward +inf, to 0xffff" in t.step("round").text
    c = iss.trace_packvrnr(-24, 4).candidates  # the _nr form floors
    assert (c["chosen"], c["below"]["bits"]) == ("below", "0xfffe")
    c = iss.trace_utrunc(0xBF000000).candidates  # -0.5: -1 has no uint32 code
    assert (c["below"]["bits"], c["above"]["bits"], c["chosen"]) == (None, "0x00000000",
                                                                      "above")
    assert iss.trace_widen(0x3C00).candidates is None  # nothing rounded
    assert iss.trace_packvr(5, 0).candidates is None  # shift 0 drops nothing


def test_the_cli_and_the_views_show_the_iss_candidates() -> None:
    from click.testing import CliRunner

    from neurondbg.cli import cli
    from neurondbg.views.trace_text import steps_text

    res = CliRunner().invoke(cli, ["convert", "--iss", "narrow", "--bits", "0x3f801000",
                                   "--trace", "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)[0]["trace"]
    assert got["candidates"]["chosen"] == "below" and got["candidates"]["above"]["bits"] == \
        "0x3c01"
    (step,) = [s for s in got["steps"] if s["name"] == "round"]
    assert "Candidates 1 (0x3c00) below and 1.0009765625 (0x3c01) above" in step["text"]
    shown = steps_text(iss.trace_narrow(0x3F801000)).plain  # the lane view's number line
    assert "├" in shown and "chosen: below, error -0.5 ulp" in shown
