"""Read a typed number into an encoding: exact, one rounding (DESIGN "Conversion model").

The one parser behind `neurondbg convert VALUE` and the Convert Lab. VALUE is a decimal
(`1.233`, `-0`, `1e-3`, `.5`, `1_000`), `inf` / `infinity` / `nan` with an optional sign,
or a hex float (`0x1.8p-3`). Its exact value is rounded ONCE to the nearest value of the
format (ties to even), as IEEE 754 decimal-to-binary conversion does; `mode` is for the
conversion that follows, not for reading the input. Integer formats take integers only
(`1e3` and `2.0` are integers), and they must fit.

How it stays exact and bounded:
- no float on the way: digits become a Fraction, then a 62-bit significand rounded to
  odd (round-to-odd with >= 2 spare bits never double-rounds), then machine.convert's
  own encoder rounds that into the format;
- at most MAX_CHARS characters (longer is an error); past KEEP_DIGITS significant
  digits the rest only counts as "nonzero or not" (a sticky digit): every rounding
  boundary of a format of <= 64 bits has far fewer digits, so the result is unchanged;
- a magnitude beyond 10^+-MAX_DECIMAL_EXP (2^+-MAX_BINARY_EXP for hex floats) is
  replaced by that bound: it is beyond every format's range, or below half of every
  format's smallest value, so `1e999999999` costs nothing and still reads as inf.
Errors are ValueError with a one-line message naming the text and what was expected;
BadNumber (a ValueError) when the text is not a number at all. `encode_exact` and
`exact_value` are the two halves (an exact value into a format, and back) for callers
that hold a value rather than text (the Lab keeping a value across a format change).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

from neurondbg.machine.convert._exact import FINITE, INF, NAN, U64, Lanes, decode
from neurondbg.machine.convert.formats import Format, IntFormat, parse_format
from neurondbg.machine.convert.kernels import encode_lanes, float64_lanes
from neurondbg.machine.convert.modes import Mode
from neurondbg.machine.convert.options import Options
from neurondbg.machine.dtypes import Gen

MAX_CHARS = 100_000
KEEP_DIGITS = 800
MAX_DECIMAL_EXP = 400  # every format lies within 10^+-50; 10^400 is far past all of them
MAX_BINARY_EXP = 1400
_SIG_BITS = 62
_EXP_CLAMP = 10 ** 9
_SHOWN = 40
_DECIMAL = re.compile(r"([0-9]*)(?:\.([0-9]*))?(?:e([+-]?[0-9]+))?")
_HEX = re.compile(r"0x([0-9a-f]*)(?:\.([0-9a-f]*))?p([+-]?[0-9]+)")
_SPECIAL = {"nan": NAN, "inf": INF, "infinity": INF}


class BadNumber(ValueError):
    """The text is not a number in any accepted syntax."""


@dataclass(frozen=True)
class ParsedValue:
    """An encoding read from text.

    exact: the encoding's value is the text's value (inf / nan count as exact).
    overflow: a finite nonzero value beyond the format's range, read as inf or NaN.
    """

    bits: int
    exact: bool
    overflow: bool


def parse_value(text: str, fmt: Format | str, *, gen: Gen | None = None) -> ParsedValue:
    """The encoding of `text` in `fmt` (a Format, or a name resolved under `gen`)."""
    f = parse_format(fmt, gen) if isinstance(fmt, str) else fmt
    if len(text) > MAX_CHARS:
        raise ValueError(f"value of {len(text)} characters: at most {MAX_CHARS} are read")
    t = text.strip().lower().replace("_", "")
    neg = t.startswith("-")
    body = t[1:] if t[:1] in "+-" else t
    if body in _SPECIAL:
        return _special(text, f, _SPECIAL[body], neg)
    x = _hex(body) if body.startswith("0x") else _decimal(body)
    if x is None:
        raise BadNumber(f"value {_shown(text)}: expected a number such as 1.233, -inf, nan or "
                        "0x1p-3")
    if f.is_int:
        return ParsedValue(_integer(text, f, -x if neg else x), True, False)
    return encode_exact(x, f, neg=neg)


def _shown(text: str) -> str:
    """The text for a message: quoted, and cut short so an error stays one short line."""
    return repr(text) if len(text) <= _SHOWN else f"{text[:_SHOWN]!r}... ({len(text)} chars)"


def _special(text: str, f: Format, cls: int, neg: bool) -> ParsedValue:
    if f.is_int:
        word = "nan" if cls == NAN else "inf"
        raise ValueError(f"value {_shown(text)}: {f.name} has no {word}; expected an integer in "
                         f"[{f.min_value}, {f.max_value}] for {f.name}")
    return ParsedValue(_encode(f, cls, neg, 0, 0), True, False)


def _decimal(body: str) -> Fraction | None:
    """|value| of a decimal without sign; None when it is not one."""
    m = _DECIMAL.fullmatch(body)
    if m is None or not (m.group(1) or m.group(2)):
        return None
    whole, frac, exp_text = m.group(1), m.group(2) or "", m.group(3)
    digits = (whole + frac).lstrip("0")
    if not digits:
        return Fraction(0)
    exp = _bounded_exp(exp_text) - len(frac)
    top = exp + len(digits) - 1  # decimal exponent of the leading digit
    if top > MAX_DECIMAL_EXP:
        return Fraction(10) ** MAX_DECIMAL_EXP
    if top < -MAX_DECIMAL_EXP:
        return Fraction(1, 10 ** MAX_DECIMAL_EXP)
    if len(digits) > KEEP_DIGITS:  # the sticky digit stands for everything dropped
        dropped = digits[KEEP_DIGITS:]
        exp += len(dropped)
        digits = digits[:KEEP_DIGITS] + ("0" if dropped.strip("0") == "" else "1")
        exp -= 1
    return Fraction(int(digits)) * Fraction(10) ** exp


def _hex(body: str) -> Fraction | None:
    """|value| of a hex float (0x<hex>[.<hex>]p<exp>) without sign; None when it is not one."""
    m = _HEX.fullmatch(body)
    if m is None or not (m.group(1) or m.group(2)):
        return None
    whole, frac = m.group(1), m.group(2) or ""
    digits = (whole + frac).lstrip("0")
    if not digits:
        return Fraction(0)
    exp = _bounded_exp(m.group(3)) - 4 * len(frac)
    keep = KEEP_DIGITS // 4  # 200 hex digits = 800 bits, far more than any format keeps
    if len(digits) > keep:
        dropped = digits[keep:]
        exp += 4 * len(dropped)
        digits = digits[:keep] + ("0" if dropped.strip("0") == "" else "1")
        exp -= 4
    top = exp + 4 * len(digits)
    if top > MAX_BINARY_EXP:
        return Fraction(2) ** MAX_BINARY_EXP
    if top < -MAX_BINARY_EXP:
        return Fraction(1, 1 << MAX_BINARY_EXP)
    return Fraction(int(digits, 16)) * Fraction(2) ** exp


def _bounded_exp(text: str | None) -> int:
    """An exponent's value, clamped to +-10^9 without converting a huge digit string (the
    magnitude checks that follow then treat it as far out of range)."""
    if text is None:
        return 0
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-").lstrip("0") or "0"
    return sign * (_EXP_CLAMP if len(digits) > 9 else int(digits))


def _integer(text: str, f: IntFormat, x: Fraction) -> int:
    expected = f"expected an integer in [{f.min_value}, {f.max_value}] for {f.name}"
    if x.denominator != 1:
        raise ValueError(f"value {_shown(text)}: {f.name} takes an integer only; {expected}")
    if not f.min_value <= x <= f.max_value:
        raise ValueError(f"value {_shown(text)}: out of range; {expected}")
    return int(x) & ((1 << f.bits) - 1)


def encode_exact(x: Fraction, fmt: Format, *, neg: bool = False) -> ParsedValue:
    """|x| (with the sign `neg`, so -0 exists) rounded once into a float format, ties even."""
    x = abs(x)
    code = _encode(fmt, FINITE, neg, *_odd_significand(x))
    kind, _, got = exact_value(code, fmt)
    return ParsedValue(code, kind == "finite" and got == x, bool(x) and kind != "finite")


def exact_value(bits: int, fmt: Format) -> tuple[str, bool, Fraction]:
    """(kind: "finite" / "inf" / "nan", sign bit, |value|) of one encoding, exactly."""
    if fmt.is_int:  # read here: ISS lanes (int24, int48) have no container
        bits &= (1 << fmt.bits) - 1
        neg = fmt.signed and bool(bits >> (fmt.bits - 1))
        return "finite", neg, Fraction((1 << fmt.bits) - bits if neg else bits)
    lanes = decode(np.array([bits], fmt.container), fmt)
    kind = {FINITE: "finite", INF: "inf", NAN: "nan"}[int(lanes.cls[0])]
    return kind, bool(lanes.neg[0]), Fraction(int(lanes.mag[0])) * Fraction(2) ** int(
        lanes.exp[0])


def _odd_significand(x: Fraction) -> tuple[int, int]:
    """(m, e) with m * 2^e = x rounded to odd at 62 significant bits (exact when it fits)."""
    if x == 0:
        return 0, 0
    e = x.numerator.bit_length() - x.denominator.bit_length() - _SIG_BITS
    scaled = x / Fraction(2) ** e
    m = scaled.numerator // scaled.denominator
    if m >> _SIG_BITS:  # keep at most 62 bits
        e += 1
        scaled /= 2
        m = scaled.numerator // scaled.denominator
    if m != scaled:
        m |= 1  # sticky: rounding to odd keeps later rounding to <= 60 bits correct
    return m, e


def _encode(f: Format, cls: int, neg: bool, mag: int, exp: int) -> int:
    lanes = Lanes(np.array([cls], np.uint8), np.array([neg]), np.array([mag], U64),
                  np.array([exp], np.int64))
    return int(encode_lanes(lanes, Options(f, f, Mode.RINT, False, "ieee"))[0])


# --- many values at once ------------------------------------------------------------------

_PLAIN_INT = re.compile(r"\s*[+-]?[0-9]+\s*")
_NONZERO = re.compile(r"[1-9]")
_F64_TINY = 2.0 ** -1000  # below this float64 loses bits (subnormals): the exact reader


@dataclass(frozen=True)
class ParsedValues:
    """Encodings read from many texts (ParsedValue, lane by lane)."""

    bits: np.ndarray  # the format's container dtype
    overflow: np.ndarray  # bool, as ParsedValue.overflow


def parse_values(texts: list[str], fmt: Format,
                 slow: Callable[[int, str], ParsedValue] | None = None) -> ParsedValues:
    """parse_value of every text, equal lane by lane, without a Fraction per plain value.

    A plain decimal is read by float(): correctly rounded to float64, x. Every rounding
    boundary of a format of <= 32 bits is a float64, so the exact value and x round alike
    unless x sits on a boundary; x is therefore rounded twice, once as a hair below and
    once as a hair above (its significand with a sticky bit two places down), and only
    where the two differ does Decimal say on which side (or on) the exact value lies.
    Any other text (hex floats, specials, underscores, a float64 overflow or subnormal)
    goes to `slow(index, text)`, by default parse_value itself, which raises for a bad text.
    """
    read = slow if slow is not None else (lambda _i, t: parse_value(t, fmt))
    if fmt.is_int:
        return _parse_ints(texts, fmt, read)
    vals: list[float] = []
    slow_at: dict[int, ParsedValue] = {}
    for i, t in enumerate(texts):
        x = _plain_float(t)
        if x is None:
            slow_at[i] = read(i, t)
            x = 0.0
        vals.append(x)
    f64 = np.array(vals, np.float64)
    lanes = float64_lanes(f64)
    nonzero = lanes.mag != 0
    below = _encode_nudged(lanes, fmt, np.where(nonzero, -1, 0).astype(np.int8))
    bits = _encode_nudged(lanes, fmt, np.where(nonzero, 1, 0).astype(np.int8))
    on_edge = np.flatnonzero(below != bits)
    if on_edge.size:
        side = np.zeros(on_edge.size, np.int8)
        for k, i in enumerate(on_edge.tolist()):
            # copy_abs: exact, where abs() would round to the context's 28 digits
            exact = Decimal(texts[i].strip()).copy_abs()
            near = Decimal(float(f64[i])).copy_abs()
            side[k] = (exact > near) - (exact < near)
        bits[on_edge] = _encode_nudged(lanes.take(on_edge), fmt, side)
    overflow = (decode(bits, fmt).cls != FINITE) & nonzero
    for i, p in slow_at.items():
        bits[i] = p.bits
        overflow[i] = p.overflow
    return ParsedValues(bits, overflow)


def _plain_float(t: str) -> float | None:
    """float(t) when it is the correctly rounded float64 of a plain ASCII decimal the exact
    reader takes alike (float() alone also reads non-ASCII digits, inf and nan); None for
    anything else, and for a value float64 cannot hold (overflow, subnormal, underflow)."""
    if len(t) > 200 or not t.isascii():
        return None
    try:
        x = float(t)  # ASCII: a decimal, "1_0", inf / nan words; a hex float raises
    except ValueError:
        return None
    ax = abs(x)
    if _F64_TINY <= ax < math.inf:
        return x
    if ax == 0.0 and not _NONZERO.search(t.lower().partition("e")[0]):
        return x  # a zero, written as one
    return None


def _encode_nudged(lanes: Lanes, fmt: Format, side: np.ndarray) -> np.ndarray:
    """Lanes rounded into fmt after moving each a quarter float64 ulp by `side` (-1, 0, +1
    in magnitude): a value strictly between two float64s rounds as any value there does."""
    mag = (lanes.mag << U64(2)) + side.astype(np.int64).astype(U64)  # -1 wraps: mag*4 - 1
    with np.errstate(over="ignore"):  # a value past the format's range reads as inf, noted
        return encode_lanes(Lanes(lanes.cls, lanes.neg, mag, lanes.exp - 2),
                            Options(fmt, fmt, Mode.RINT, False, "ieee")).astype(fmt.container)


def _parse_ints(texts: list[str], fmt: IntFormat,
                read: Callable[[int, str], ParsedValue]) -> ParsedValues:
    """Integer formats: int() of a plain integer in range; any other text to `read`."""
    bits = np.zeros(len(texts), fmt.container)
    mask = (1 << fmt.bits) - 1
    plain = _PLAIN_INT.fullmatch
    for i, t in enumerate(texts):
        v = int(t) if plain(t) is not None else None
        if v is None or not fmt.min_value <= v <= fmt.max_value:
            v = read(i, t).bits  # the exact reader's value or its error
        bits[i] = v & mask
    return ParsedValues(bits, np.zeros(len(texts), bool))
