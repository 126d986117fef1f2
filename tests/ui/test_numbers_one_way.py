"""Numbers print one way in the Lab and the trace text (debug.numfmt): at most 9
significant digits for a non-integer, integers exact up to 20 digits, never a 39-digit
integer for a format's largest value, and an fp32 value always reads back as itself."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets import Input

from neurondbg.debug.numfmt import number, shorten
from neurondbg.machine.convert.formats import parse_format
from neurondbg.machine.convert.trace import trace
from neurondbg.views.trace_text import steps_text, summary_text
from tests.ui.helpers import lab_started, type_value

NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.]|\.\d)")


def significant(token: str) -> int:
    return len(token.split("e")[0].lstrip("-").replace(".", "").strip("0"))


def numbers_in(text: str) -> list[str]:
    return [t for t in NUMBER.findall(text) if not set(t.lstrip("-")) <= {"0", "1"}]


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 0xFFFFFFFF))
def test_every_fp32_value_reads_back_in_at_most_9_digits(code: int) -> None:
    x = np.array([code], np.uint32).view(np.float32)[0]
    if not np.isfinite(x):
        return
    shown = number(float(x))
    assert np.float32(float(shown)) == x
    if not float(x).is_integer():
        assert significant(shown) <= 9, shown


@pytest.mark.parametrize("value, shown", [
    (1.0, "1.0"), (65504.0, "65504.0"), (2147483648.0, "2147483648.0"), (7, "7"),
    (1.0039063692092896, "1.00390637"), (float(np.float32(0.1)), "0.100000001"),
    (Fraction(2**128), "3.40282367e+38"), (2**64 - 1, "18446744073709551615"),
    (-(2**63), "-9223372036854775808"), (Fraction(1, 3), "0.333333333"),
    (Fraction(-3, 1024), "-0.0029296875"), (float("nan"), "nan"), (float("-inf"), "-inf"),
])
def test_number(value: object, shown: str) -> None:
    assert number(value) == shown  # type: ignore[arg-type]


def test_shorten_leaves_bits_and_short_numbers() -> None:
    assert shorten("value 1.00390636920928955078125, 3.4028235e38 > 65504 (0x7bff), "
                   "2^128, 0b0101, 11111111111111111111111, 0.389%") == \
        "value 1.00390637, 3.4028235e38 > 65504 (0x7bff), 2^128, 0b0101, " \
        "11111111111111111111111, 0.389%"


@pytest.mark.parametrize("bits, src, dst", [
    (0x7F7FFFFF, "fp32", "fp16"), (0x7F7FFFFF, "fp32", "int32"), (0x3F808001, "fp32", "bf16"),
    (0x4EFFFFFF, "fp32", "int64"), (0x00000001, "fp32", "fp8_e4m3fn"),
])
def test_trace_text_prints_numbers_one_way(bits: int, src: str, dst: str) -> None:
    t = trace(bits, src, dst, sat=True)
    text = steps_text(t).plain + summary_text(t, parse_format(src), parse_format(dst)).plain
    for token in numbers_in(text):
        if "." in token or "e" in token:
            assert significant(token) <= 9, token
        else:
            assert len(token.lstrip("-")) <= 20, token


async def test_the_lab_value_field_prints_the_same_way() -> None:
    async with lab_started() as (app, pilot, lab):
        await type_value(pilot, "1.00390625")
        await pilot.press("up")
        await pilot.pause()
        assert lab.bits == 0x3F808001
        assert app.screen.query_one("#lab-input", Input).value == "1.00390637"
