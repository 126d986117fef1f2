"""HiFloat8 `hybrid` rounding keeps exactly representable values (ref 002 Table 9 / 10).

Table 9 compares frac (the discarded bits from TA down) with thr (the source's low 14
bits); read literally, an exact value has frac = thr = 0 and "frac >= thr" would round
it up. neurondbg reads the table as rounding only inexact values (machine.convert._hif8).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.cli import cli
from neurondbg.machine.convert import convert, trace
from neurondbg.machine.convert._trace_codec import HIF8_VALUES

FINITE = np.flatnonzero(np.isfinite(HIF8_VALUES) & (np.arange(256) != 0x80))


def f32(x: float) -> int:
    return int(np.array([x], np.float32).view(np.uint32)[0])


@pytest.mark.parametrize("profile", ["ieee", "ascend"])
@pytest.mark.parametrize("src,np_type", [("fp32", np.float32), ("fp16", np.float16)])
def test_every_hif8_value_survives_a_round_trip(profile: str, src: str, np_type: type) -> None:
    vals = HIF8_VALUES[FINITE].astype(np_type)
    # fp16 cannot hold HiF8's largest and smallest values: only those it holds exactly
    held = vals.astype(np.float64) == HIF8_VALUES[FINITE]
    bits = vals.view(np.uint32 if src == "fp32" else np.uint16)
    back = convert(bits, src, "hif8", "hybrid", False, profile)
    assert (back[held] == FINITE[held].astype(np.uint8)).all()
    assert held.sum() >= 200


def test_exact_16_stays_16_and_inexact_values_still_use_the_threshold() -> None:
    out = convert(np.array([f32(16.0), f32(18.0), f32(17.0)], np.uint32), "fp32", "hif8",
                  "hybrid")
    # 16 = 0|10|0|00|00 exactly; 18 is halfway between 16 and 20: frac = 0b1000.. >= thr 0
    # goes up; 17 (frac 0b0100.., thr 0) also goes up: the table rounds by the threshold.
    assert [float(HIF8_VALUES[c]) for c in out.tolist()] == [16.0, 20.0, 20.0]


@settings(deadline=None, max_examples=200)
@given(st.sampled_from(FINITE.tolist()), st.sampled_from(["ieee", "ascend"]))
def test_trace_of_an_exact_value_is_exact(code: int, profile: str) -> None:
    t = trace(f32(float(HIF8_VALUES[code])), "fp32", "hif8", "hybrid", False, profile)
    assert t.output_bits == code and t.error == 0 and "exact" in t.flags
    if code != 0:  # zero is a special value: no round step
        r = t.step("round")
        assert r.values["increment"] == 0 and "exact, not rounded" in r.text


def test_hybrid_round_step_names_both_candidates_and_the_ulp_error() -> None:
    t = trace(f32(17.0), "fp32", "hif8", "hybrid")
    r = t.step("round")
    c = t.candidates
    assert c is not None and r.values["candidates"] == c
    assert (c["below"], c["above"]) == ({"bits": "0x40", "value": 16.0},
                                        {"bits": "0x41", "value": 20.0})
    assert c["chosen"] == "above" and c["error_ulps"] == 0.75
    assert "Candidates 16 (0x40) below and 20 (0x41) above" in r.text
    assert "the threshold rule (frac >= thr) takes the one above" in r.text
    assert "error +0.75 ulp" in r.text
    assert t.output_value == Fraction(20)


def test_cli_convert_16_hybrid_is_16() -> None:
    res = CliRunner().invoke(cli, ["convert", "16", "--from", "fp32", "--to", "hif8", "--mode",
                                   "hybrid", "--json"])
    assert res.exit_code == 0, res.output
    assert '"output_value": 16.0' in res.output and '"exact"' in res.output
