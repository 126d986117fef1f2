"""Traces that teach: the round and carry steps, the candidates, marks, flags and help."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.cli import cli
from neurondbg.machine.convert import convert, trace
from neurondbg.machine.convert.formats import FORMATS
from neurondbg.machine.convert.options import resolve
from neurondbg.machine.convert.roles import bit_parts, plain_bits


def f32(x: float) -> int:
    return int(np.array([x], np.float32).view(np.uint32)[0])


def bf16(x: float) -> int:
    return f32(x) >> 16  # x must be a bf16 value


def cli_out(*args: str) -> str:
    res = CliRunner().invoke(cli, ["convert", *args])
    assert res.exit_code == 0, res.output
    return res.output


# --- the round and carry steps keep one width ----------------------------------------------

CARRIES = [  # (bits, src, dst, mode, round before, round after)
    (f32(1.9999), "fp32", "fp8_e4m3fn", "rint", "01111", "10000"),
    (f32(0.0029296875), "fp32", "fp8_e4m3fn", "rint", "0001", "0010"),  # subnormal: no carry
    (bf16(0.76171875), "bf16", "fp4_e2m1", "rint", "01", "10"),  # subnormal -> smallest normal
    (f32(2047.9), "fp32", "fp16", "rint", "011111111111", "100000000000"),
    (f32(3.5), "fp32", "fp8_e8m0", "rint", "01", "10"),
    (f32(1.9999), "fp32", "hif8", "round", "01111", "10000"),
]


@pytest.mark.parametrize("bits,src,dst,mode,before,after", CARRIES)
def test_round_step_shows_the_carry_at_one_width(bits: int, src: str, dst: str, mode: str,
                                                 before: str, after: str) -> None:
    t = trace(bits, src, dst, mode)
    r = t.step("round")
    assert (r.bits_before, r.bits_after) == (before, after)
    c = t.step("carry")
    assert len(c.bits_before) == len(c.bits_after)
    if c.bits_after:
        assert c.bits_before == r.bits_after and c.marks[0] == (0, 1, "carry")


def test_subnormal_tie_encodes_what_the_round_step_shows() -> None:
    t = trace(f32(0.0029296875), "fp32", "fp8_e4m3fn")
    assert t.output_bits == 0x02 and t.step("round").bits_after == "0010"
    assert "no carry" in t.step("carry").text


# --- the align step -------------------------------------------------------------------------

def test_align_shows_the_subnormal_shift_as_leading_zeros() -> None:
    a = trace(f32(0.0029296875), "fp32", "fp8_e4m3fn").step("align")
    assert a.values["shift"] == 3
    assert a.bits_after == "000" + a.bits_before  # 3 places right
    assert a.bits_after != a.bits_before


def test_align_e8m0_has_no_subnormal_range() -> None:
    a = trace(0x0001, "bf16", "fp8_e8m0").step("align")  # 2^-133, below 2^-127
    assert "subnormal range" not in a.text and "no subnormals" in a.text
    assert a.bits_after.startswith("0" * 6) and a.values["shift"] == 6


def test_align_hif8_denormals_are_powers_of_two() -> None:
    a = trace(f32(1.5 * 2.0**-18), "fp32", "hif8", "round").step("align")
    assert a.values["shift"] == 0  # no fixed-quantum shift: the grid is 2^-22 .. 2^-16
    assert "powers of two" in a.text and "2^-18 and 2^-17" in a.text


# --- plain text: | between parts, long parts elided ------------------------------------------

def test_piped_trace_separates_parts_with_bars() -> None:
    out = cli_out("1.0625", "--from", "fp32", "--to", "fp8_e4m3fn", "--trace")
    assert "0|0111|000" in out  # the encoding: sign|exponent|mantissa
    assert "1000|1|0|000000000000000000" in out  # grs: kept|guard|round|sticky
    assert "0|0111|000" in cli_out("1.0625", "--from", "fp32", "--to", "fp8_e4m3fn",
                                   "--trace", "--color", "never")


def test_huge_bit_strings_are_elided_with_a_count() -> None:
    out = cli_out("1e-45", "--from", "fp32", "--to", "fp16", "--mode", "odd", "--trace")
    assert "0000…(125 bits)…0001" in out and "0000…(123 bits)…0001" in out
    assert "leading" in out and "align" in out
    assert max(len(line) for line in out.splitlines()) <= 160
    assert plain_bits("1" + "0" * 116 + "1", ((0, 118, "sticky"),), 24) == "1000…(118 bits)…0001"


# --- small ones -----------------------------------------------------------------------------

def test_largest_finite_reads_short_with_its_code() -> None:
    t = trace(0x3C00, "fp16", "fp32")
    assert "3.4028235e38 (0x7f7fffff)" in t.step("overflow").text
    assert "338953138925153547590470800371487866880" not in t.step("overflow").text


def test_no_round_or_sticky_bit_where_none_exists() -> None:
    g = trace(0x31, "fp8_e3m4", "fp8_e4m3").step("grs")  # one bit dropped
    assert g.values["dropped_bits"] == 1 and "round" not in g.values
    assert "round=" not in g.text and "sticky=" not in g.text
    assert [m[2] for m in g.marks] == ["kept", "guard"]


def test_rebias_flags_overflow_and_underflow_differently() -> None:
    over = trace(f32(65536.0), "fp32", "fp16").step("rebias")
    assert over.values["exponent_range"] == "above" and "overflow" in over.text
    assert over.bits_after == ""  # 11111 is the infinity exponent, not a finite one
    under = trace(f32(2.0**-20), "fp32", "fp16").step("rebias")
    assert under.values["exponent_range"] == "below" and "subnormal" in under.text
    e8 = trace(f32(2.0**-127), "fp32", "fp8_e8m0").step("rebias")  # e8m0's 0x00 is normal
    assert e8.values["exponent_range"] == "normal" and e8.bits_after == "00000000"


def test_iss_hex_value_without_bits_suggests_the_command() -> None:
    res = CliRunner().invoke(cli, ["convert", "--iss", "pack", "0x7fff"])
    assert res.exit_code == 2
    assert "--bits" in res.output and "convert --iss pack --bits 0x7fff" in res.output


def test_hif8_marks_dot_d_and_the_exponent_sign() -> None:
    d = trace(0x5C, "hif8", "fp32").step("decode")  # 0 10 1 11 00: dot 10, D = 3, E = -7
    assert [m[2] for m in d.marks] == ["sign", "dot", "exp_sign", "exponent", "mantissa"]
    assert plain_bits(d.bits_after, d.marks) == "0|10|1|11|00"
    g = trace(f32(1.3), "fp32", "hif8", "hybrid", profile="ascend").step("grs")
    assert {m[2] for m in g.marks_before} >= {"kept", "guard", "frac"}
    assert [m[2] for m in g.marks] == ["thr"] and len(g.bits_before) == 23


def test_ascend_bf16_to_e8m0_is_one_fixed_rule() -> None:
    with pytest.raises(ValueError, match=r"UNKNOWN.*rint"):
        resolve("bf16", "fp8_e8m0", "floor", False, "ascend")
    three = np.array([bf16(3.0)], np.uint16)
    assert int(convert(three, "bf16", "fp8_e8m0", "rint", False, "ascend")[0]) == 128  # tie: even


# --- the two candidates -----------------------------------------------------------------------

def test_candidates_of_a_tie() -> None:
    t = trace(f32(1.0625), "fp32", "fp8_e4m3fn")
    c = t.candidates
    assert c["below"] == {"bits": "0x38", "value": 1.0}
    assert c["above"] == {"bits": "0x39", "value": 1.125}
    assert c["halfway"] == 1.0625 and c["chosen"] == "below" and c["error_ulps"] == -0.5
    assert "tie: both are 0.0625 away; ties go to the even code, 0x38" in t.step("round").text


def test_candidates_of_a_negative_value_are_by_value() -> None:
    t = trace(f32(-1.2), "fp32", "fp8_e4m3fn")  # -1.25 (0xba) below, -1.125 (0xb9) above
    c = t.candidates
    assert (c["below"]["bits"], c["above"]["bits"], c["chosen"]) == ("0xba", "0xb9", "below")
    assert c["below"]["value"] == -1.25 and -0.5 < c["error_ulps"] < 0 and t.output_bits == 0xBA


def test_candidates_in_json_and_the_flags_column() -> None:
    rows = json.loads(cli_out("1.0625", "--from", "fp32", "--to", "fp8_e4m3fn", "--json",
                              "--trace"))
    assert rows[0]["flags"] == ["inexact", "tie"]
    assert rows[0]["trace"]["candidates"]["chosen"] == "below"
    out = cli_out("1.0625", "1", "--from", "fp32", "--to", "fp8_e4m3fn")
    assert "flags" in out and "inexact tie" in out and "exact" in out
    big = json.loads(cli_out("1000", "--from", "fp32", "--to", "fp8_e4m3fn", "--sat", "--json"))
    assert big[0]["flags"] == ["inexact", "saturated", "overflow"]


def test_neuron_to_int_is_labelled_trunc() -> None:
    out = cli_out("2.7", "--from", "fp32", "--to", "int8", "--profile", "neuron")
    assert "(neuron, trunc, nosat)" in out
    rows = json.loads(cli_out("2.7", "--from", "fp32", "--to", "int8", "--profile", "neuron",
                              "--json"))
    assert rows[0]["mode"] == "trunc" and rows[0]["output_value"] == 2


def test_compare_marks_the_differing_modes() -> None:
    rows = json.loads(cli_out("1.0625", "--from", "fp32", "--to", "fp8_e4m3fn", "--compare",
                              "--json"))
    got = {r["mode"]: (r["output_bits"], r["differs"]) for r in rows[0]["results"]}
    assert got == {"rint": ("0x38", False), "round": ("0x39", True), "floor": ("0x38", False),
                   "ceil": ("0x39", True), "trunc": ("0x38", False), "odd": ("0x39", True)}
    out = cli_out("1.0625", "--from", "fp32", "--to", "fp8_e4m3fn", "--compare", "--profiles")
    assert "neuron rint" in out and "ascend rint" in out and "*0x39" in out
    res = CliRunner().invoke(cli, ["convert", "1", "--from", "fp32", "--to", "fp16",
                                   "--profiles"])
    assert res.exit_code == 2 and "--compare" in res.output


# --- property: the parts concatenate, widths hold, chosen agrees ------------------------------

SRCS = [n for n in FORMATS if n != "fp32r"]


@settings(deadline=None, max_examples=300)
@given(st.sampled_from(SRCS), st.sampled_from(list(FORMATS)),
       st.sampled_from(("rint", "round", "floor", "ceil", "trunc", "odd", "hybrid")),
       st.booleans(), st.sampled_from(("ieee", "ascend", "neuron")), st.integers(0, 2**64 - 1))
def test_trace_parts_widths_and_candidates(src: str, dst: str, mode: str, sat: bool,
                                           profile: str, raw: int) -> None:
    fmt = FORMATS[src]
    bits = raw & ((1 << fmt.bits) - 1)
    try:
        t = trace(bits, src, dst, mode, sat, profile)
    except ValueError:  # a combination the options reject
        return
    prev = None
    for s in t.steps:
        if s.name in ("grs", "round", "carry", "decode") and s.bits_before and s.bits_after:
            assert len(s.bits_before) == len(s.bits_after), (s.name, s.bits_before)
        if s.name == "grs" and prev is not None and prev.name == "align":
            parts = plain_bits(s.bits_after, s.marks).split("|")
            assert "".join(parts) == prev.bits_after
            assert [r for _, r in bit_parts(s.bits_after, s.marks)][:2] in (
                ["kept"], ["kept", "guard"], ["kept", "dropped"])
        prev = s
    c = t.candidates
    if c is not None:
        lo, hi = Fraction(c["below"]["value"]), Fraction(c["above"]["value"])
        assert lo < hi and Fraction(c["halfway"]) == (lo + hi) / 2
        picked = c[c["chosen"]]["bits"]
        if picked is not None and not t.overflow and not t.saturated:
            assert int(picked, 16) == t.output_bits, (hex(bits), src, dst, mode, c)


def test_help_says_what_every_mode_and_profile_does() -> None:
    from neurondbg.commands.convert import MODE_HELP, PROFILE_HELP

    out = " ".join(cli_out("--help").split())
    for name, text in (*MODE_HELP.items(), *PROFILE_HELP.items()):
        assert f"{name}: {' '.join(text.split())}" in out
    assert set(MODE_HELP) == {"rint", "round", "floor", "ceil", "trunc", "odd", "hybrid"}
