"""One exact reader of typed numbers (machine.convert.parse_value) behind the CLI and the Lab.

The property: for random decimal strings (many of them next to a rounding boundary of
the source format), the Lab's result (debug.lab_model.read_input, then the trace its
side runs), the CLI's (`neurondbg convert --json`) and an independent exact reference
(fractions.Fraction rounding, tests/convert/exact_reference.py) are the same bits.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.cli import cli
from neurondbg.debug.lab_model import read_input
from neurondbg.machine.convert import BadNumber, parse_value
from neurondbg.machine.convert.formats import FORMATS, IntFormat
from neurondbg.machine.convert.parse import KEEP_DIGITS, MAX_CHARS
from neurondbg.views.lab import run_trace
from tests.convert import exact_reference as ref

FLOAT_SRCS = ("fp32", "bf16", "fp16", "fp8_e4m3", "fp8_e4m3fn", "fp8_e5m2", "fp4_e2m1")
DSTS = ("bf16", "fp16", "fp8_e4m3fn", "fp8_e5m2", "fp8_e3m4", "fp4_e1m2", "int8", "uint16")
MODES = ("rint", "round", "floor", "ceil", "trunc", "odd")


def decimal_text(x: Fraction) -> str:
    """The exact decimal expansion of a dyadic rational (finite: 2^-k = 5^k / 10^k)."""
    neg, x = x < 0, abs(x)
    k = 0
    while x.denominator != 1:
        x *= 10
        k += 1
    digits = str(x.numerator).rjust(k + 1, "0")
    body = digits if k == 0 else f"{digits[:-k]}.{digits[-k:]}"
    return ("-" if neg else "") + body


def ref_source_bits(x: Fraction, neg: bool, name: str) -> int:
    """|x| with sign `neg` rounded once to nearest, ties to even, into a float format:
    the reference's own neighbour search and overflow rule (IEEE, no saturation)."""
    mag = abs(x)
    lo, hi = ref._neighbours(mag, name)
    pick = ref._choose(mag, neg, lo, hi, "rint")
    top = ref._fp32_max(name) if name == "fp32" else ref._max(name)[0]
    if pick[0] > top:
        return ref._overflow(name, neg, "rint", False, False)
    return ref._encode(pick[0], neg, name)


def exact(text: str) -> Fraction:
    return Fraction(text)  # only for texts short enough that Fraction is cheap


@st.composite
def near_boundary(draw: st.DrawFn, name: str) -> str:
    """A decimal at, just above or just below the midpoint of two neighbouring values of
    `name` (the ties the double-rounding bug got wrong), or cut to a few digits."""
    if name == "fp32":  # too many values to list: a random normal binade and mantissa
        e = draw(st.integers(-126, 127))
        m = draw(st.integers(0, (1 << 23) - 2))
        lo = (1 + Fraction(m, 1 << 23)) * Fraction(2) ** e
        hi = lo + Fraction(2) ** (e - 23)
    else:
        vals = ref._positive(name)[1]
        i = draw(st.integers(0, len(vals) - 2))
        lo, hi = vals[i], vals[i + 1]
    mid = (lo + hi) / 2
    text = decimal_text(-mid if draw(st.booleans()) else mid)
    how = draw(st.sampled_from(("mid", "above", "below", "cut")))
    if how == "above":
        return text + ("" if "." in text else ".") + "0" * draw(st.integers(0, 30)) + "1"
    if how == "below":  # the midpoint minus one unit of its last digit, digits appended
        unit = Fraction(1, 10 ** (len(text.split(".")[1]) if "." in text else 0))
        lower = abs(mid) - unit
        return ("-" if text.startswith("-") else "") + decimal_text(lower) + "9" * (
            draw(st.integers(0, 20)) if "." in decimal_text(lower) else 0)
    if how == "cut":
        digits = draw(st.integers(1, 12))
        return f"{float(exact(text)):.{digits}g}"
    return text


@st.composite
def plain_decimal(draw: st.DrawFn) -> str:
    sign = draw(st.sampled_from(("", "-", "+")))
    whole = draw(st.text("0123456789", min_size=0, max_size=12))
    frac = draw(st.text("0123456789", min_size=0, max_size=25))
    if not whole and not frac:
        whole = "0"
    exp = draw(st.one_of(st.just(""), st.integers(-50, 45).map(lambda e: f"e{e}")))
    return f"{sign}{whole}{'.' + frac if frac or not whole else ''}{exp}"


@st.composite
def case(draw: st.DrawFn) -> tuple[str, str, str, bool, list[str]]:
    src = draw(st.sampled_from(FLOAT_SRCS))
    dst = draw(st.sampled_from(DSTS))
    mode, sat = draw(st.sampled_from(MODES)), draw(st.booleans())
    texts = draw(st.lists(st.one_of(near_boundary(src), plain_decimal()), min_size=1,
                          max_size=6))
    return src, dst, mode, sat, texts


def cli_rows(texts: list[str], src: str, dst: str, mode: str, sat: bool) -> list[dict]:
    args = ["convert", *texts, "--from", src, "--to", dst, "--mode", mode, "--json"]
    res = CliRunner().invoke(cli, args + (["--sat"] if sat else []))
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case())
def test_lab_cli_and_the_exact_reference_agree(c: tuple[str, str, str, bool, list[str]]
                                               ) -> None:
    src, dst, mode, sat, texts = c
    rows = cli_rows(texts, src, dst, mode, sat)
    for text, row in zip(texts, rows, strict=True):
        x = exact(text)
        want_in = ref_source_bits(x, text.lstrip().startswith("-"), src)
        want_out = ref.convert_ieee(want_in, src, dst, mode, sat)
        lab_in = read_input(text, FORMATS[src]).bits
        lab_out = int(run_trace(lab_in, src, dst, mode, sat, "ieee").output_bits)
        assert (lab_in, lab_out) == (want_in, want_out), (text, src, dst, mode, sat)
        assert (int(row["input_bits"], 16), int(row["output_bits"], 16)) == (want_in,
                                                                             want_out), text


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(("int8", "uint8", "int16", "int4")),
       st.integers(-70000, 70000), st.sampled_from(("", ".0", "e0", ".5", "e-1", "e1")))
def test_integer_sources_agree_or_refuse_alike(name: str, n: int, tail: str) -> None:
    fmt = FORMATS[name]
    assert isinstance(fmt, IntFormat)
    text = f"{n}{tail}"
    x = exact(text)
    fits = x.denominator == 1 and fmt.min_value <= x <= fmt.max_value
    res = CliRunner().invoke(cli, ["convert", text, "--from", name, "--to", "fp32", "--json"])
    if not fits:
        assert res.exit_code == 2 and "expected an integer in" in res.output
        with pytest.raises(ValueError, match="expected an integer in"):
            read_input(text, fmt)
        return
    want = int(x) & ((1 << fmt.bits) - 1)
    assert read_input(text, fmt).bits == want
    assert int(json.loads(res.stdout)[0]["input_bits"], 16) == want


def test_the_reported_double_rounding_case() -> None:
    # 1.0039063 is just above the bf16 tie 1.00390625; through float32 it lands on the tie.
    assert read_input("1.0039063", FORMATS["bf16"]).bits == 0x3F81
    rows = cli_rows(["1.0039063"], "bf16", "fp32", "rint", False)
    assert rows[0]["input_bits"] == "0x3f81"


@pytest.mark.parametrize(("text", "name", "bits", "is_exact", "overflow"), [
    ("1e999999999", "bf16", 0x7F80, False, True),
    ("-1e999999999", "fp8_e4m3fn", 0xFF, False, True),  # no infinity: NaN
    ("1e999999999", "fp4_e2m1", 0x7, False, False),  # no inf, no NaN: the largest value
    ("1e-999999999", "fp32", 0x0, False, False),
    ("-1e-999999999", "fp16", 0x8000, False, False),
    ("0e999999999", "fp16", 0x0, True, False),
    ("1e" + "9" * 5000, "fp32", 0x7F800000, False, True),  # an exponent of 5000 digits
    ("0x1p99999999999", "fp16", 0x7C00, False, True),
    ("0x1.8p-3", "fp32", 0x3E400000, True, False),
    ("0x1.000001p0", "fp32", 0x3F800000, False, False),  # 1 + 2^-24: the tie, to even
    ("0x1.0000010000000000000000001p0", "fp32", 0x3F800001, False, False),  # past the tie
    ("1_000.5", "fp32", 0x447A2000, True, False),
    (".5", "fp8_e4m3fn", 0x30, True, False),
    ("-0", "bf16", 0x8000, True, False),
    ("-inf", "fp16", 0xFC00, True, False),
    ("nan", "bf16", 0x7FC0, True, False),
])
def test_bounded_and_special_inputs(text: str, name: str, bits: int, is_exact: bool,
                                    overflow: bool) -> None:
    got = parse_value(text, name)
    assert (got.bits, got.exact, got.overflow) == (bits, is_exact, overflow)


def test_long_digit_strings_round_exactly() -> None:
    # The bf16 tie 1.00390625, then thousands of zeros, then a 1: just above the tie.
    # Everything past KEEP_DIGITS only counts as nonzero, which is all the rounding needs.
    above = "1.00390625" + "0" * (KEEP_DIGITS * 3) + "1"
    assert parse_value(above, "bf16").bits == 0x3F81
    assert parse_value("1.00390625" + "0" * (KEEP_DIGITS * 3), "bf16").bits == 0x3F80
    below = "1.00390624" + "9" * (KEEP_DIGITS * 3)
    assert parse_value(below, "bf16").bits == 0x3F80
    assert parse_value("1" * 5000, "fp32").bits == 0x7F800000  # past int()'s digit limit
    with pytest.raises(ValueError, match=f"at most {MAX_CHARS}"):
        parse_value("1" * (MAX_CHARS + 1), "fp32")


@pytest.mark.parametrize("text", ["x1", "1e", ".", "1/3", "0x", "--1", "1.2.3", "0x1p", "e5",
                                  "1e+", "in f", ""])
def test_garbage_is_a_one_line_error(text: str) -> None:
    with pytest.raises(BadNumber, match="expected a number such as") as info:
        parse_value(text, "fp32")
    assert "\n" not in str(info.value)


def test_error_messages_stay_short_for_huge_texts() -> None:
    with pytest.raises(BadNumber) as info:
        parse_value("z" * 90_000, "fp32")
    assert len(str(info.value)) < 200 and "90000 chars" in str(info.value)
    res = CliRunner().invoke(cli, ["convert", "9" * 400 + "x", "--from", "fp32", "--to",
                                   "bf16"])
    assert res.exit_code == 2
    assert len([ln for ln in res.output.splitlines() if ln.strip()]) == 1


def test_the_cli_notes_an_overflowing_decimal() -> None:
    res = CliRunner().invoke(cli, ["convert", "1e999999999", "--from", "bf16", "--to",
                                   "fp32", "--json"])
    assert res.exit_code == 0
    assert json.loads(res.stdout)[0]["input_bits"] == "0x7f80"
    assert "beyond bf16's range: read as inf" in res.stderr
