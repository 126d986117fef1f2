"""The data a conversion trace is made of: Step and Trace (plain, frozen, JSON-able)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from neurondbg.machine.convert.roles import ROLES

__all__ = ["LANE_FLAGS", "ROLES", "STEP_NAMES", "Mark", "Step", "StepValues", "Trace", "Value",
           "count", "json_number", "show", "show_short"]

STEP_NAMES: tuple[str, ...] = ("decode", "special", "widen_fp32", "rebias", "align", "grs",
                               "round", "carry", "overflow", "range", "encode", "error")

# what a conversion did, in the order a table lists them: "exact" or "inexact", then the rest
LANE_FLAGS: tuple[str, ...] = ("exact", "inexact", "tie", "saturated", "overflow", "underflow",
                               "nan", "inf")

Value = Fraction | float  # exact finite value, or float inf / nan
Mark = tuple[int, int, str]  # (start, end, role) of a bit string, as Step.marks holds them
# A step's named values: read by key, of many kinds (ints, Fractions, Modes, the candidates
# dict), and made JSON-ready by Step.to_dict; as open as JSON, so Any.
StepValues = dict[str, Any]


@dataclass(frozen=True)
class Step:
    """One named step. `marks` are (start, end, role) ranges of `bits_after`
    (string positions, 0 = leftmost = MSB, end exclusive); `marks_before` of `bits_before`.
    `stage` says which conversion of a two-leg (fp32 hub) trace the step belongs to:
    "" (a single conversion), "to_fp32" or "from_fp32"."""

    name: str
    title: str
    text: str
    bits_before: str = ""
    bits_after: str = ""
    marks: tuple[Mark, ...] = ()
    values: StepValues = field(default_factory=dict)
    marks_before: tuple[Mark, ...] = ()
    stage: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "text": self.text,
                "bits_before": self.bits_before, "bits_after": self.bits_after,
                "marks": [list(m) for m in self.marks],
                "marks_before": [list(m) for m in self.marks_before],
                "values": {k: _jsonable(v) for k, v in self.values.items()},
                "stage": self.stage}


@dataclass(frozen=True)
class Trace:
    """One lane's conversion, step by step, with the exact input and output values."""

    input_bits: int
    output_bits: int
    src: str
    dst: str
    mode: str
    sat: bool
    profile: str
    input_value: Value
    output_value: Value
    error: Value | None  # output - exact input; None when either is not finite
    inexact: bool
    tie: bool
    saturated: bool
    nan: bool  # the output is NaN
    inf: bool  # the output is infinite
    overflow: bool
    steps: tuple[Step, ...]
    input_class: str = ""
    output_class: str = ""
    # the last rounding step's two candidates (JSON-ready, see _trace_round._candidates);
    # None when nothing was rounded (exact, or a special value)
    candidates: StepValues | None = None

    def step(self, name: str, stage: str | None = None) -> Step:
        """The first step called `name` (in `stage`, when given)."""
        for s in self.steps:
            if s.name == name and (stage is None or s.stage == stage):
                return s
        raise KeyError(name)

    @property
    def underflow(self) -> bool:
        """A nonzero finite input gave a subnormal or zero output (float targets; an integer
        output's class is "integer", never flagged). Unlike IEEE's underflow exception this
        also flags an exact subnormal result: the value left the normal range."""
        nonzero = isinstance(self.input_value, Fraction) and self.input_value != 0
        return nonzero and self.output_class in ("subnormal", "zero")

    @property
    def flags(self) -> list[str]:
        """LANE_FLAGS this lane raises: "exact" or "inexact" first, then tie, saturated, ..."""
        raised = {"exact": not self.inexact, "inexact": self.inexact, "tie": self.tie,
                  "saturated": self.saturated, "overflow": self.overflow,
                  "underflow": self.underflow, "nan": self.nan, "inf": self.inf}
        return [f for f in LANE_FLAGS if raised[f]]

    @property
    def step_names(self) -> list[str]:
        return [s.name for s in self.steps]

    def to_dict(self) -> dict[str, Any]:
        return {"input_bits": hex(self.input_bits), "output_bits": hex(self.output_bits),
                "src": self.src, "dst": self.dst, "mode": self.mode, "sat": self.sat,
                "profile": self.profile, "input_value": _jsonable(self.input_value),
                "output_value": _jsonable(self.output_value), "error": _jsonable(self.error),
                "input_class": self.input_class, "output_class": self.output_class,
                "inexact": self.inexact, "tie": self.tie, "saturated": self.saturated,
                "nan": self.nan, "inf": self.inf, "overflow": self.overflow,
                "underflow": self.underflow,
                "flags": self.flags, "candidates": self.candidates,
                "steps": [s.to_dict() for s in self.steps]}


def json_number(v: Fraction) -> float | str:
    """An exact value for JSON: a float when float64 holds it exactly, else "p/q"."""
    d = v.denominator
    if d & (d - 1) == 0 and abs(v.numerator).bit_length() <= 53 and d.bit_length() < 1070:
        return float(v)  # a dyadic with a 53-bit numerator: float64 holds it exactly
    return str(v)


def count(n: int, word: str, plural: str | None = None) -> str:
    """`1 place`, `4 places`: a number and its noun, agreeing."""
    return f"{n} {word if n == 1 else plural or word + 's'}"


def show_short(v: Value) -> str:
    """Like `show`, but a huge integer reads as ~8 digits (3.4028235e38), not 39."""
    if isinstance(v, Fraction) and v.denominator == 1 and abs(v) >= 10**16:
        return f"{float(v):.8g}".replace("e+", "e")
    return show(v)


def _jsonable(v: Any) -> Any:
    """Exact values as strings ("5/4"), non-finite floats as "inf"/"-inf"/"nan"."""
    if isinstance(v, Fraction):
        return str(v)
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v


def show(v: Value | None) -> str:
    """A value for a sentence: shortest exact decimal if short, else ~9 significant digits."""
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return "NaN" if math.isnan(v) else ("+inf" if v > 0 else "-inf")
    if v.denominator == 1:
        return str(v.numerator)
    d = v.denominator
    if d & (d - 1) == 0 and d.bit_length() <= 30:  # a short dyadic: print it exactly
        s = f"{float(v):.{d.bit_length()}f}".rstrip("0")
        if Fraction(s) == v:
            return s
    return f"{float(v):.9g}"
