"""How a number is printed in the Convert Lab, the Convert-trace pane and the Plot: one
rule, so a value never shows as 17 digits beside another's 9.

- An integer (an int, or a Fraction or float that is one) of at most MAX_INT_DIGITS
  digits prints exactly: every int64 / uint64 lane fits.
- A float that is an integer below 1e16 prints as Python's repr does (2147483648.0).
- Anything else prints as the shortest decimal that reads back as the same double
  (Python's repr) when that takes at most SIGNIFICANT significant digits, and else is
  rounded to SIGNIFICANT: 9 digits tell every fp32 value (so every narrower float) from
  its neighbours, so a value of the formats shown is never confused with another, and
  an inexact reading stays visible (0.1 read into fp32 is 0.100000001); the largest
  fp32 value prints as 3.40282347e+38, not as its 39-digit integer.
- NaN and the infinities print as nan, inf and -inf.

`shorten` applies the rule to the numbers inside a trace's sentences (machine.convert
writes them exactly) that it would print shorter, so a pane's prose agrees with its
named values; a number the sentence already gives short (3.4028235e38) stays.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

SIGNIFICANT = 9  # fp32 needs 9 significant digits to round-trip
MAX_INT_DIGITS = 20  # uint64's largest value, 18446744073709551615, has 20


def number(v: int | float | Fraction) -> str:
    """`v` printed by the module's rule."""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, Fraction) and v.denominator == 1:
        v = v.numerator
    if isinstance(v, int):
        if len(str(abs(v))) <= MAX_INT_DIGITS:
            return str(v)
        return format(float(v), f".{SIGNIFICANT}g")
    x = float(v)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if isinstance(v, Fraction) and Fraction(x) != v:  # not a double: no repr to keep
        return format(x, f".{SIGNIFICANT}g")
    shortest = repr(x)
    if x.is_integer() and abs(x) < 1e16:  # exact as it stands: 2147483648.0
        return shortest
    mantissa = shortest.split("e")[0].lstrip("-").replace(".", "").lstrip("0")
    if len(mantissa.rstrip("0")) <= SIGNIFICANT and abs(x) < 1e16:
        return shortest
    return format(x, f".{SIGNIFICANT}g")


# a decimal number standing alone in prose (not part of 0x.., 0b.., a name or a version)
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.]|\.\d)")


def shorten(text: str) -> str:
    """`text` (a sentence of a trace) with each number in it printed by `number`: an
    exact 39-digit integer or a 24-digit decimal becomes 9 significant digits. A run of
    only 0s and 1s is left alone (a bit string, not a number)."""

    def one(m: re.Match[str]) -> str:
        token = m.group(0)
        if set(token.lstrip("-")) <= {"0", "1"}:
            return token
        shown = number(Fraction(token))
        return shown if len(shown) < len(token) else token

    return _NUMBER.sub(one, text)
