"""What the Convert Lab needs beyond machine.convert: reading what the user
typed, the value of an encoding, and the representable neighbours of a value.

These are display helpers (no rounding semantics of their own): a typed number
is read by machine.convert.parse_value, the reader `neurondbg convert` uses (exact,
one rounding to nearest, ties even), and values are read through ml_dtypes where
the format has a twin.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from neurondbg.debug.numfmt import number
from neurondbg.machine.convert.formats import FORMATS, FloatFormat, Format, HiF8Format, IntFormat
from neurondbg.machine.convert.parse import (
    BadNumber,
    ParsedValue,
    encode_exact,
    exact_value,
    parse_value,
)
from neurondbg.machine.convert.roles import field_marks
from neurondbg.machine.convert.trace import decode

_ISS_INT = re.compile(r"(u?)int(\d+)")


@dataclass(frozen=True)
class LabSetup:
    """The rounding set-up a Lab side starts on; from a lane, the one the machine used.

    gen and fp8_exp4 say which generation ran and what its FP8 configuration made of
    FP8_EXP4 (the lane's format names are already resolved, so they are shown, not
    re-applied); `origin` names the lane ("lane p0 e1 of step 1").
    """

    mode: str = "rint"
    profile: str = "ieee"
    sat: bool = False
    gen: str | None = None
    fp8_exp4: str | None = None
    origin: str = ""

    def describe(self) -> str:
        """One line: where the set-up came from and what it is."""
        parts = [f"{self.profile} · {self.mode} · {'sat' if self.sat else 'nosat'}"]
        if self.gen:
            parts.append(f"gen {self.gen}")
        if self.fp8_exp4:
            parts.append(f"FP8_EXP4 = {self.fp8_exp4}")
        head = f"{self.origin}: " if self.origin else ""
        return head + ", ".join(parts)


# Side B's preferred set-ups, best first: ties away from zero under ref 002 differs
# from side A's default (ieee, ties to even) on a tie; where ref 002 does not allow
# `round` for the pair, its own first mode; the ieee profile takes every pair.
SIDE_B_PREFERENCES: tuple[tuple[str, str], ...] = (
    ("ascend", "round"), ("ascend", ""), ("ieee", "round"), ("ieee", "rint"))


def side_b_default(src: Format, dst: Format) -> LabSetup:
    """Side B's set-up for src -> dst: the first of SIDE_B_PREFERENCES the options accept
    for the pair (an empty mode: the first mode ref 002 lists for it), saturating."""
    from neurondbg.machine.convert.options import ascend_modes, resolve

    for profile, mode in SIDE_B_PREFERENCES:
        if not mode:
            modes = ascend_modes(src, dst) if profile == "ascend" else ()
            if not modes:
                continue
            mode = str(modes[0])
        try:
            resolve(src, dst, mode, True, profile)
        except ValueError:
            continue
        return LabSetup(mode=mode, profile=profile, sat=True)
    return LabSetup(sat=True)  # an output-only source: every side says why it cannot


def adjacent_code(fmt: Format, bits: int, direction: int) -> int | None:
    """The encoding of the next (direction > 0) or previous representable value of `fmt`
    after the value `bits` stands for; past the largest finite value, the infinity of that
    sign where the format has one. None when there is none (NaN, or the end of the range).
    -0 and +0 are one value: the step from either goes to the nearest non-zero value."""
    mask = (1 << fmt.bits) - 1
    x = value_of(fmt, bits)
    if isinstance(fmt, IntFormat):
        v = int(x) + (1 if direction > 0 else -1)
        return v & mask if fmt.min_value <= v <= fmt.max_value else None
    if math.isnan(x):
        return None
    near = neighbours(fmt, float(x))
    if direction > 0:
        above = [code for code, v in near if v > x]
        if above:
            return above[0]
    else:
        below = [code for code, v in near if v < x]
        if below:
            return below[-1]
    if math.isinf(x):
        return None
    end = parse_value("inf" if direction > 0 else "-inf", fmt).bits
    return end if math.isinf(value_of(fmt, end)) else None


def width(fmt: Format) -> int:
    return fmt.bits


def encoding_marks(fmt: Format, bits: int | None = None) -> list[tuple[int, int, str]]:
    """Sign / exponent / mantissa ranges of an encoding, MSB first (bit string order).
    HiFloat8's layout depends on the code (its dot field): given `bits`, sign | dot |
    exponent sign | exponent | mantissa of that code, else its sign bit only."""
    if isinstance(fmt, FloatFormat):
        return field_marks(fmt.exp_bits, fmt.man_bits + fmt.pad_bits, fmt.signed)
    if fmt.is_hif8 and bits is not None:
        return list(decode(bits, fmt).marks)
    if fmt.signed:  # two's-complement sign, or HiFloat8's sign bit
        return [(0, 1, "sign")]
    return []


def iss_format(name: str) -> Format:
    """A format named by an ISS primitive (machine.convert.iss `formats`): a CLI format, or
    an integer lane of a width no CLI format has (int24, int48, uint48: accumulators)."""
    if name in FORMATS:
        return FORMATS[name]
    m = _ISS_INT.fullmatch(name)
    if m is None:
        raise ValueError(f"unknown ISS lane format {name!r}")
    return IntFormat(name, int(m.group(2)), not m.group(1))


def carry_value(old: Format, bits: int, new: Format) -> int:
    """The encoding in `new` of the value `bits` has in `old` (a new input format keeps the
    value, not the pattern), from the exact value: a float format rounds it once to nearest
    (ties even); an integer format truncates toward zero and clamps (inf to the range end,
    NaN to 0), as C's saturating float-to-int casts do."""
    kind, neg, mag = exact_value(bits & ((1 << old.bits) - 1), old)
    if isinstance(new, IntFormat):
        if kind == "nan":
            return 0
        v = new.max_value + 1 if kind == "inf" else int(mag)
        v = max(new.min_value, min(new.max_value, -v if neg else v))
        return v & ((1 << new.bits) - 1)
    if kind != "finite":
        return parse_value(f"{'-' if neg else ''}{kind}", new).bits
    return encode_exact(mag, new, neg=neg).bits


def bit_string(fmt: Format, bits: int) -> str:
    return format(bits & ((1 << fmt.bits) - 1), f"0{fmt.bits}b")


def parse_input(text: str, fmt: Format) -> int:
    """Bits of `fmt` for what the user typed (see read_input). ValueError says why."""
    return read_input(text, fmt).bits


def read_input(text: str, fmt: Format) -> ParsedValue:
    """What the user typed, as an encoding of `fmt`: 0x.. / 0b.. is a bit pattern (a hex
    float such as 0x1.8p-3 has its `p` exponent and is a number), anything else a number
    (1.5, -3e-2, inf, nan) read by machine.convert.parse_value. ValueError says why."""
    t = text.strip().replace("_", "")
    if not t:
        raise ValueError("type a number (1.5, -3e-2, inf) or a bit pattern (0x3f80, 0b1010)")
    low = t.lower()
    if low.startswith(("0x", "0b", "-0x", "-0b")) and "p" not in low:
        if t.startswith("-"):
            raise ValueError(f"{t[:40]!r}: a bit pattern has no sign")
        if len(t[2:].lstrip("0")) > fmt.bits:  # every digit is at least one bit
            raise ValueError(f"{t[:40]!r}: does not fit in {fmt.bits} bits of {fmt.name}")
        try:
            bits = int(t, 0)
        except ValueError:
            raise ValueError(f"{t[:40]!r}: not a hex/binary bit pattern") from None
        if bits >> fmt.bits:
            raise ValueError(f"{t[:40]!r}: does not fit in {fmt.bits} bits of {fmt.name}")
        return ParsedValue(bits, True, False)
    try:
        return parse_value(text, fmt)
    except BadNumber as exc:  # the CLI's message, with the Lab's own way to type bits
        raise ValueError(f"{exc}, or a 0x/0b bit pattern") from None


def input_note(text: str, fmt: Format, parsed: ParsedValue) -> str:
    """What reading `text` did, when it was not exact (empty otherwise)."""
    if parsed.exact:
        return ""
    shown = text.strip() if len(text.strip()) <= 40 else text.strip()[:40] + "..."
    got = fmt_value(value_of(fmt, parsed.bits))
    if parsed.overflow:
        return f"note: {shown} is beyond {fmt.name}'s range: read as {got}"
    return f"note: {shown} is not a {fmt.name} value: read as the nearest, {got} (ties to even)"


def _generic_float(fmt: FloatFormat, bits: int) -> float:
    """Value of a FloatFormat encoding from its descriptor (formats with no numpy twin)."""
    man = (bits >> fmt.pad_bits) & ((1 << fmt.man_bits) - 1)
    exp = (bits >> (fmt.pad_bits + fmt.man_bits)) & ((1 << fmt.exp_bits) - 1)
    neg = fmt.signed and (bits >> (fmt.bits - 1)) & 1
    top = (1 << fmt.exp_bits) - 1
    if fmt.nan == "code" and bits == fmt.nan_code:
        return math.nan
    if fmt.nan == "allones" and exp == top and man == (1 << fmt.man_bits) - 1:
        return math.nan
    if fmt.nan == "ieee" and exp == top:
        return math.nan if man else (-math.inf if neg else math.inf)
    if exp == 0 and fmt.subnormals:
        mag = man / (1 << fmt.man_bits) * 2.0 ** fmt.emin
    else:
        mag = (1 + man / (1 << fmt.man_bits)) * 2.0 ** (exp - fmt.bias)
    return -mag if neg else mag


def value_of(fmt: Format, bits: int) -> float | int:
    """The number an encoding stands for (int for integer formats)."""
    bits &= (1 << fmt.bits) - 1
    if isinstance(fmt, IntFormat):
        return bits - (1 << fmt.bits) if fmt.signed and bits >> (fmt.bits - 1) else bits
    if isinstance(fmt, HiF8Format):
        return float(_hif8_values()[bits])
    if fmt.name == "fp32r":
        return float(np.array([bits], np.uint32).view(np.float32)[0])
    if fmt.ml_dtype is not None:
        arr = np.array([bits], fmt.container).view(fmt.ml_dtype)
        return float(arr.astype(np.float64)[0])
    return _generic_float(fmt, bits)


@lru_cache(maxsize=1)
def _hif8_values() -> np.ndarray:
    # HiFloat8 -> fp32 is exact (every hif8 value is an fp32 value), so the kernel decodes it.
    from neurondbg.machine.convert import convert

    out = convert(np.arange(256, dtype=np.uint8), "hif8", "fp32", profile="ieee")
    return np.asarray(out, np.uint32).view(np.float32).astype(np.float64)


@lru_cache(maxsize=32)
def _sorted_codes(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(values ascending, codes) of every finite code of a format of <= 16 bits; -0 dropped."""
    from neurondbg.machine.convert.formats import FORMATS

    fmt = FORMATS[name]
    codes = np.arange(1 << fmt.bits, dtype=np.uint32)
    if isinstance(fmt, HiF8Format):
        values = _hif8_values()
    elif isinstance(fmt, FloatFormat) and fmt.ml_dtype is not None:
        with np.errstate(invalid="ignore"):
            values = codes.astype(fmt.container).view(fmt.ml_dtype).astype(np.float64)
    else:
        values = np.array([value_of(fmt, int(c)) for c in codes], np.float64)
    keep = np.isfinite(values) & ~((values == 0) & np.signbit(values))
    order = np.argsort(values[keep], kind="stable")
    return values[keep][order], codes[keep][order]


def neighbours(fmt: Format, x: float, k: int = 2) -> list[tuple[int, float | int]]:
    """The k representable values at or below `x` and the k above it, ascending,
    as (code, value). Empty when x is NaN."""
    if math.isnan(x):
        return []
    if isinstance(fmt, IntFormat):
        if math.isinf(x):  # floor(inf) has no int: the range end on that side
            x = fmt.max_value if x > 0 else fmt.min_value
        lo = max(fmt.min_value, min(fmt.max_value, math.floor(x)))
        first = max(fmt.min_value, lo - k + 1)
        last = min(fmt.max_value, lo + k)
        return [(v & ((1 << fmt.bits) - 1), v) for v in range(first, last + 1)]
    if fmt.bits <= 16:
        values, codes = _sorted_codes(fmt.name)
        i = int(np.searchsorted(values, x, side="right"))
        sel = range(max(0, i - k), min(len(values), i + k))
        return [(int(codes[j]), float(values[j])) for j in sel]
    return _fp32_neighbours(fmt, x, k)


def _fp32_neighbours(fmt: Format, x: float, k: int) -> list[tuple[int, float | int]]:
    step = 1 << getattr(fmt, "pad_bits", 0)  # fp32r keeps every 2**10-th fp32 code
    max_code = 0x7F7FFFFF - (step - 1)
    lo = np.float32(x)
    if float(lo) > x:
        lo = np.nextafter(lo, np.float32(-np.inf))
    # lo <= x; round down to the format's grid (sign-magnitude, so toward -inf by sign)
    code = int(np.array([lo], np.float32).view(np.uint32)[0])
    if step > 1:
        code = (code + step - 1) // step * step if code >> 31 else code // step * step

    def signed_index(c: int) -> int:
        return -(c & 0x7FFFFFFF) if c >> 31 else c

    def from_index(i: int) -> int:
        return (0x80000000 | -i) if i < 0 else i

    base = signed_index(code)
    out: list[tuple[int, float | int]] = []
    for off in range(-k + 1, k + 1):
        i = base + off * step
        if abs(i) > max_code:
            continue
        c = from_index(i)
        out.append((c, float(np.array([c], np.uint32).view(np.float32)[0])))
    return out


def fmt_value(v: float | int) -> str:
    """A value as every pane prints numbers (debug.numfmt.number)."""
    return number(v)


def values_of(fmt: Format, codes: np.ndarray) -> np.ndarray:
    """Vectorized `value_of` over an array of encodings (float64; ints exact to 2**53)."""
    codes = np.asarray(codes)
    if isinstance(fmt, IntFormat):
        if fmt.bits < 8:
            raw = codes.astype(np.int64) & ((1 << fmt.bits) - 1)
            if fmt.signed:
                raw = np.where(raw >> (fmt.bits - 1), raw - (1 << fmt.bits), raw)
            return raw.astype(np.float64)
        return codes.astype(fmt.container).view(fmt.value_dtype).astype(np.float64)
    if isinstance(fmt, HiF8Format):
        return _hif8_values()[codes.astype(np.uint8)]
    if fmt.name == "fp32r":
        return codes.astype(np.uint32).view(np.float32).astype(np.float64)
    if fmt.ml_dtype is not None:
        with np.errstate(invalid="ignore"):
            return codes.astype(fmt.container).view(fmt.ml_dtype).astype(np.float64)
    return np.array([_generic_float(fmt, int(c)) for c in codes.ravel()],
                    np.float64).reshape(codes.shape)
