"""Issue 17: many values at once. machine.convert.parse.parse_values equals parse_value
lane by lane, and `convert --input` prints what the one-value form computes."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from machine.convert._exact import decode
from machine.convert.formats import FORMAT_NAMES, parse_format
from machine.convert.parse import ParsedValue, parse_value, parse_values

FLOATS = [n for n in FORMAT_NAMES if not parse_format(n).is_int]
INTS = [n for n in FORMAT_NAMES if parse_format(n).is_int]


def exact_decimal(x: Fraction, digits: int = 60) -> str:
    """x as a decimal text with `digits` significant digits (exact when x's is short)."""
    from decimal import Decimal, getcontext

    getcontext().prec = digits
    return str(Decimal(x.numerator) / Decimal(x.denominator))


def midpoints(name: str, count: int, rng: random.Random) -> list[str]:
    """Texts exactly at, and a hair either side of, midpoints between neighbours of fmt."""
    fmt = parse_format(name)
    codes = np.array(rng.sample(range(1 << min(fmt.bits, 16)), min(count, 1 << fmt.bits)),
                     np.uint64)
    if fmt.bits > 16:
        codes = np.array([rng.getrandbits(fmt.bits) for _ in range(count)], np.uint64)
    lanes = decode(codes.astype(fmt.container), fmt)
    out = []
    for c, m, e, neg in zip(lanes.cls, lanes.mag, lanes.exp, lanes.neg, strict=True):
        if c != 0 or m == 0:
            continue
        v = Fraction(int(m)) * Fraction(2) ** int(e)
        # half a unit of the lane's last place: the midpoint to the next magnitude up
        mid = v + Fraction(2) ** (int(e) - 1) if int(m) & 1 else v
        sign = "-" if neg else ""
        for d in (mid, mid * (1 + Fraction(1, 10 ** 30)), mid * (1 - Fraction(1, 10 ** 30))):
            out.append(sign + exact_decimal(d, 80))
    return out


def slow(texts: list[str], name: str) -> tuple[list[int], list[bool]]:
    got = [parse_value(t, parse_format(name)) for t in texts]
    return [p.bits for p in got], [p.overflow for p in got]


@pytest.mark.parametrize("name", FLOATS)
def test_parse_values_equals_parse_value_at_midpoints(name: str) -> None:
    rng = random.Random(name)
    texts = midpoints(name, 300, rng) + [repr(rng.uniform(-1e6, 1e6)) for _ in range(200)]
    texts += ["0", "-0", "0.0e9", "1e-400", "-1e-400", "1e400", "3.5e38", "-7e4", "65520",
              "448", "464", "1_000", "0x1p-3", "inf", "-nan", " 2.5 ", "+.5", "5.", "1E3",
              "2.0000000000000000000000000000001", "1" + "0" * 300, "4.9e-324"]
    fast = parse_values(texts, parse_format(name))
    bits, over = slow(texts, name)
    assert fast.bits.tolist() == bits
    assert fast.overflow.tolist() == over


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(FLOATS), digits=st.text("0123456789", min_size=1, max_size=40),
       point=st.integers(0, 40), exp=st.integers(-60, 60), neg=st.booleans())
def test_parse_values_equals_parse_value_on_any_decimal(name: str, digits: str, point: int,
                                                        exp: int, neg: bool) -> None:
    p = min(point, len(digits))
    text = f"{'-' if neg else ''}{digits[:p]}.{digits[p:]}e{exp}".replace("-.e", "-0.e")
    if text.lstrip("-").startswith(".e"):
        text = text.replace(".e", "0.e", 1)
    fast = parse_values([text], parse_format(name))
    exact: ParsedValue = parse_value(text, parse_format(name))
    assert (int(fast.bits[0]), bool(fast.overflow[0])) == (exact.bits, exact.overflow)


@pytest.mark.parametrize("name", INTS)
def test_parse_values_integers(name: str) -> None:
    fmt = parse_format(name)
    texts = [str(fmt.min_value), str(fmt.max_value), "0", "-0", " 7 ", "2.0", "0_1", "5e0"]
    assert parse_values(texts, fmt).bits.tolist() == slow(texts, name)[0]


def test_a_bad_value_goes_to_the_slow_reader_with_its_index() -> None:
    seen: list[tuple[int, str]] = []

    def read(i: int, t: str) -> ParsedValue:
        seen.append((i, t))
        return parse_value(t, parse_format("fp32"))

    with pytest.raises(ValueError, match="expected a number"):
        parse_values(["1", "2", "one"], parse_format("fp32"), read)
    assert seen == [(2, "one")]
    with pytest.raises(ValueError, match="out of range"):
        parse_values(["1", "300"], parse_format("int8"))
