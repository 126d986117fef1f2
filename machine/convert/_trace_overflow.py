"""The rounding step's sentence at the top of a float target's range: the overflow threshold.

When the candidate above a value (by magnitude) is beyond the largest finite value, the two
candidates do not teach anything (one has no encoding). The sentence names instead the
threshold past which the mode rounds out of range, says whether the value is past it, and
what saturation or infinity then gives. An ulp error is given only for a value that rounds
to a finite neighbour (not past the threshold): a saturated, infinite or NaN output has none.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from neurondbg.machine.convert import _trace_policy as policy
from neurondbg.machine.convert._trace_codec import decode
from neurondbg.machine.convert._trace_model import StepValues, json_number, show, show_short
from neurondbg.machine.convert.formats import FloatFormat, HiF8Format
from neurondbg.machine.convert.modes import Mode

HALF_UP = "half_up"  # the ISS packs' add-half-then-shift rounding (ties toward +inf)


@dataclass(frozen=True)
class Top:
    """A value whose upper neighbour (by magnitude) is beyond `dst`'s largest finite."""

    dst: FloatFormat | HiF8Format
    sign: int
    magnitude: Fraction  # |x|, exact
    largest: Fraction  # the largest finite magnitude
    step: Fraction  # the grid step at the largest finite (the next value would be largest+step)
    rounded: Fraction  # |x| after the mode's rounding, before the range is applied
    largest_code_odd: bool  # the largest finite's code is odd (ties to even then go beyond)


def threshold(top: Top, mode: str) -> tuple[Fraction | None, str]:
    """(the magnitude past which `mode` rounds out of range, why); None when the mode has
    no fixed threshold (hybrid's frac >= thr rule)."""
    mx, nxt = top.largest, top.largest + top.step
    half = (mx + nxt) / 2
    between = (f"halfway between the largest finite {show_short(mx)} and the next step "
               f"{show_short(nxt)}, which {top.dst.name} cannot hold")
    away = (mode == Mode.CEIL and not top.sign) or (mode == Mode.FLOOR and top.sign)
    toward = mode == Mode.TRUNC or (mode in (Mode.FLOOR, Mode.CEIL) and not away)
    if mode == Mode.RINT:
        tie = "beyond, to the even code" if top.largest_code_odd else \
            "to the largest finite, whose code is even"
        return half, f"{between}; a tie there goes {tie}"
    if mode in (Mode.ROUND, HALF_UP):
        return half, f"{between}; a tie there goes away from zero, beyond"
    if away:
        return mx, f"{mode} rounds any magnitude above the largest finite beyond it"
    if toward:
        return nxt, (f"{mode} rounds toward zero: only a magnitude of at least the next step "
                     f"{show_short(nxt)} leaves the range")
    if mode == Mode.ODD:
        if top.largest_code_odd:
            return nxt, ("round-to-odd keeps the largest finite (its code is odd) below the "
                         f"next step {show_short(nxt)}")
        return mx, ("round-to-odd takes the odd code above the largest finite (whose code is "
                    "even)")
    return None, "the hybrid rule (frac >= thr) decides"


def top_sentence(top: Top, mode: str, sat: bool, profile: str, chosen_ulps: float | None,
                 chosen_bits: str | None, alternative: bool = True) -> tuple[str, StepValues]:
    """The round step's sentence and values for a value at the top of the range.

    chosen_ulps / chosen_bits: the error and the code of the finite neighbour chosen when
    the value is not past the threshold (None when it is); alternative: also name what the
    other saturation choice gives (not for a primitive that has none)."""
    t, why = threshold(top, mode)
    mag = show_short(top.magnitude)
    who = f"|x| = {mag}" if top.sign else mag
    past = top.rounded > top.largest
    values: StepValues = {"overflow_threshold": json_number(t) if t is not None else None,
                    "past_threshold": past}
    head = (f"Overflow threshold {show_short(t)} ({why}): {who} is "
            f"{'past' if past else 'not past'} it" if t is not None else
            f"At the top of {top.dst.name}'s range, {why}: {who} "
            f"{'rounds beyond the largest finite' if past else 'stays in range'}")
    if not past:
        return (f"{head}: it rounds to {show_short(top.rounded)} ({chosen_bits}); error "
                f"{chosen_ulps:+.3g} ulp"), values
    eff = policy.effective_sat(top.dst, sat, profile)
    code, rule, _ = policy.float_overflow(top.dst, top.sign, mode, eff, profile, False)
    alt, _alt_rule, _ = policy.float_overflow(top.dst, top.sign, mode, not eff, profile, False)
    text = f"{head}; {rule}: {_named(top.dst, code)}"
    if alternative and alt != code and not (profile == "ascend" and top.dst.is_fp32):
        text += f" ({'without' if eff else 'with'} saturation: {_named(top.dst, alt)})"
    values["result"] = f"0x{code:0{(top.dst.bits + 3) // 4}x}"
    return text + "; no ulp error (the output is not a rounding of the value)", values


def _named(dst: FloatFormat | HiF8Format, code: int) -> str:
    return f"{show(decode(code, dst).value)} (0x{code:0{(dst.bits + 3) // 4}x})"
