"""One lane of one conversion leg: exact value -> target format, step by step.

Readable per-lane code on plain ints (never the vectorized kernels). The value
is (sign, sig, exp2) = (-1)**sign * sig * 2**exp2; the target keeps the bits of
sig at or above the quantum 2**q, and rounds on the rest (guard, round, sticky).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from neurondbg.machine.convert import _trace_policy as policy
from neurondbg.machine.convert._trace_codec import (
    HIF8_EMAX,
    HIF8_SUB_MIN_E,
    Decoded,
    bitstr,
    decode,
    float_code,
    hif8_encode,
    hif8_man_bits,
    inf_code,
    max_code,
)
from neurondbg.machine.convert._trace_model import (
    Mark,
    Step,
    StepValues,
    count,
    json_number,
    show,
    show_short,
)
from neurondbg.machine.convert._trace_overflow import HALF_UP, Top, top_sentence
from neurondbg.machine.convert.formats import Format
from neurondbg.machine.convert.modes import Mode

MODE_WORDS: dict[str, str] = {
    Mode.RINT: "rint (nearest, ties to even)", Mode.ROUND: "round (nearest, ties away from zero)",
    Mode.FLOOR: "floor (toward -inf)", Mode.CEIL: "ceil (toward +inf)",
    Mode.TRUNC: "trunc (toward zero)", Mode.ODD: "odd (round to odd)",
    Mode.HYBRID: "hybrid (HiFloat8, ref 002 Table 9/10)",
}


def _hex(code: int | None, digits: int) -> str | None:
    return None if code is None else f"0x{code:0{digits}x}"


def candidate_sentence(c: StepValues, exact: dict[str, Fraction], mode: str, tie: bool) -> str:
    """One sentence on the two candidates: which the mode picks, and why. `c` is the
    JSON-ready candidates dict, `exact` its values as Fractions (below, above, halfway,
    distance_below, distance_above); `mode` a Mode, HALF_UP, or a short phrase naming the
    rule ("adding 8")."""
    def val(which: str) -> str:
        return f"{show(exact[which])} ({c[which]['bits'] or 'not representable'})"

    chosen = c["chosen"]
    other = "above" if chosen == "below" else "below"
    code = c[chosen]["bits"] or "none"
    d_ch, d_ot = show(exact[f"distance_{chosen}"]), show(exact[f"distance_{other}"])
    head = (f"Candidates {val('below')} below and {val('above')} above, halfway "
            f"{show(exact['halfway'])}: ")
    nearest = (Mode.RINT, Mode.ROUND, HALF_UP)
    if tie and mode in nearest:
        rule = {Mode.RINT: f"ties go to the even code, {code}",
                Mode.ROUND: f"ties go away from zero, to {code}",
                HALF_UP: f"half up sends ties toward +inf, to {code}"}[mode]
        why = f"tie: both are {d_ch} away; {rule}"
    elif mode in nearest:
        why = f"the one {chosen} is nearer ({d_ch} away, the other {d_ot}): {code}"
    else:
        took_of: dict[str, str] = {
            Mode.FLOOR: "floor takes the one below", Mode.CEIL: "ceil takes the one above",
            Mode.TRUNC: "trunc takes the one nearer zero",
            Mode.ODD: "round-to-odd takes the one with the odd code",
            Mode.HYBRID: "hybrid takes the one its threshold picks"}
        took = took_of.get(mode, f"{mode} takes the one {chosen}")
        why = f"{took}, {code} ({d_ch} away)"
    return f"{head}{why}; error {c['error_ulps']:+.3g} ulp"


def quantum(dst: Format, e: int) -> tuple[int, int, int]:
    """(q, kept mantissa bits, emin) in float target dst for a value whose leading one has
    weight 2**e."""
    if dst.is_hif8:
        if e >= -15:
            m = hif8_man_bits(min(e, HIF8_EMAX))
            return e - m, m, -15
        return max(e, HIF8_SUB_MIN_E), 0, -15
    assert dst.is_float
    return max(e, dst.emin) - dst.man_bits, dst.man_bits, dst.emin


def code_of(dst: Format, sign: int, kept: int, q: int) -> tuple[int, str]:
    """Encoding in float target dst of a finite nonzero in-range kept * 2**q (kept at its
    quantum), and how it is built."""
    e = kept.bit_length() - 1 + q
    if dst.is_hif8:
        if e < -15:
            return (hif8_encode(sign, e, 0), f"a HiFloat8 denormal (dot 0000, no mantissa): "
                    f"2^{e}, its 3-bit field M = {e + 23}")
        m = hif8_man_bits(e)
        return (hif8_encode(sign, e, kept - (1 << m) if m else 0),
                f"HiFloat8 with E = {e} and {count(m, 'mantissa bit')}")
    assert dst.is_float
    if dst.man_bits and kept < (1 << dst.man_bits):
        return (float_code(dst, sign, 0, kept),
                "subnormal: exponent field 0, mantissa = the kept bits")
    biased = e + dst.bias
    if not dst.man_bits:
        return (float_code(dst, sign, biased, 0),
                f"{dst.name} has no mantissa: the code is the biased exponent {biased}")
    return (float_code(dst, sign, biased, kept - (1 << dst.man_bits)),
            f"biased exponent {biased}, mantissa = the kept bits after the implicit one")


def code_at(dst: Format, sign: int, k: int, q: int) -> int | None:
    """Encoding of (-1)**sign * k * 2**q in dst, None if it has none."""
    if dst.is_int:
        v = -k if sign else k
        return v & ((1 << dst.bits) - 1) if dst.min_value <= v <= dst.max_value else None
    if Fraction(k) * Fraction(2) ** q > dst.max_value:
        return None
    if k == 0:
        if dst.is_float and dst.is_scale:
            return None  # e8m0 has no zero
        return float_code(dst, sign, 0, 0) if dst.is_float else 0
    e = k.bit_length() - 1 + q
    q2, _m, _ = quantum(dst, e)
    k2 = k << (q - q2) if q >= q2 else k >> (q2 - q)
    return code_of(dst, sign, k2, q2)[0]


def candidates(dst: Format, sign: int, sig: int, exp2: int, kept: int, q: int,
               up: int) -> tuple[StepValues, dict[str, Fraction]]:
    """The representable values of dst just below and above the exact input
    (-1)**sign * sig * 2**exp2 (by value, not magnitude), their encodings, the halfway
    point, the one chosen, the error in ulps; and the same values exactly (for the
    sentence). `kept` is the magnitude cut at the quantum 2**q, `up` the increment (0 or 1)
    the rounding added to it. Every rounding step of every trace (the profiles' and the
    ISS primitives') builds its candidates here.

    A candidate beyond the target's range (or e8m0's missing zero) has bits None: the
    overflow step (or e8m0's rule) then decides. JSON-ready: bits "0x..", values as
    float where float64 holds them exactly, else an exact fraction string."""
    unit = Fraction(2) ** q
    x = Fraction(sig) * Fraction(2) ** exp2
    lo_v, hi_v = kept * unit, (kept + 1) * unit
    lo_c, hi_c = code_at(dst, sign, kept, q), code_at(dst, sign, kept + 1, q)
    if sign:
        x, lo_v, hi_v = -x, -hi_v, -lo_v
        lo_c, hi_c = hi_c, lo_c
    chosen = ("below" if sign else "above") if up else ("above" if sign else "below")
    chosen_v = lo_v if chosen == "below" else hi_v
    digits = (dst.bits + 3) // 4
    exact = {"below": lo_v, "above": hi_v, "halfway": (lo_v + hi_v) / 2,
             "distance_below": x - lo_v, "distance_above": hi_v - x}
    return {
        "below": {"bits": _hex(lo_c, digits), "value": json_number(lo_v)},
        "above": {"bits": _hex(hi_c, digits), "value": json_number(hi_v)},
        "halfway": json_number(exact["halfway"]),
        "chosen": chosen,
        "error_ulps": float((chosen_v - x) / unit),
        "distance_below": json_number(exact["distance_below"]),
        "distance_above": json_number(exact["distance_above"]),
    }, exact


def final_candidates(steps: list[Step] | tuple[Step, ...]) -> StepValues | None:
    """A trace's candidates: those of the last leg's rounding step (a neuron trace has two
    legs; the last step's stage names the last leg)."""
    if not steps:
        return None
    stage = steps[-1].stage
    for s in reversed(steps):
        if s.stage != stage:
            break
        if s.name == "round" and "candidates" in s.values:
            cand: StepValues = s.values["candidates"]
            return cand
    return None


def round_outcome(dst: Format, sign: int, sig: int, exp2: int, kept: int, q: int, up: int,
                  rule: str, tie: bool, sat: bool = False, profile: str = "ieee",
                  code_odd: Callable[[int, int], bool] | None = None,
                  alternative: bool = True) -> tuple[str, StepValues]:
    """A round step's closing sentence and values: the two candidates (`candidates`), or,
    when the one above (by magnitude) is beyond a float target's range, the overflow
    threshold (machine.convert._trace_overflow). `rule` is a Mode, HALF_UP or a short
    phrase; code_odd(kept, q) whether kept * 2**q's code is odd (default: kept's lsb);
    alternative: also say what the other saturation choice would give."""
    cand, exact = candidates(dst, sign, sig, exp2, kept, q, up)
    if dst.is_float and dst.is_scale and kept == 0:  # below 2^-127: e8m0 has no zero
        return (f"{dst.name} has no zero: a value below its smallest 2^{q} gives "
                f"{cand['above' if not sign else 'below']['bits']} (2^{q}) in every mode; no "
                "ulp error (a rule, not a rounding)"), {}
    if dst.is_int and cand[cand["chosen"]]["bits"] is None:  # rounded outside the range
        n = (kept + up) * (-1 if sign else 1)
        return (f"it rounds to {n}, outside {dst.name} [{dst.min_value}, {dst.max_value}]: "
                "the range step decides (saturation, or the low bits); no ulp error (the "
                "output is not a rounding of the value)"), {"out_of_range": True}
    if dst.is_int or code_at(dst, sign, kept + 1, q) is not None:
        return candidate_sentence(cand, exact, rule, tie), {"candidates": cand}
    if exact[f"distance_{cand['chosen']}"] == 0:  # exact: no overflow question to answer
        return (f"exact: {show(exact[cand['chosen']])} ({cand[cand['chosen']]['bits']}) "
                "is the value itself"), {"candidates": cand}
    mx = Fraction(dst.max_value)
    e_top = mx.numerator.bit_length() - mx.denominator.bit_length()
    if Fraction(2) ** e_top > mx:
        e_top -= 1
    q_top = quantum(dst, e_top)[0]
    kept_top = int(mx / Fraction(2) ** q_top)
    top = Top(dst, sign, abs(Fraction(sig) * Fraction(2) ** exp2), mx, Fraction(2) ** q_top,
              (kept + up) * Fraction(2) ** q,
              code_odd(kept_top, q_top) if code_odd else bool(kept_top & 1))
    past = top.rounded > mx
    text, values = top_sentence(top, rule, sat, profile,
                                None if past else cand["error_ulps"],
                                None if past else cand[cand["chosen"]]["bits"], alternative)
    if not past:
        values["candidates"] = cand
    return text, values


@dataclass
class LegResult:
    code: int
    inexact: bool = False
    tie: bool = False
    saturated: bool = False
    overflow: bool = False
    steps: list[Step] = field(default_factory=list)


@dataclass
class Leg:
    """One conversion src -> dst under a profile's rules (mode already fixed)."""

    src: Format
    dst: Format
    mode: str
    sat: bool
    profile: str
    stage: str = ""
    wrap_ints: bool = False  # ascend: non-saturating -> int keeps the low bits
    src_bits: int = 0  # the source encoding (hybrid reads its low bits as the threshold)
    out: LegResult = field(default_factory=lambda: LegResult(0))

    def add(self, name: str, title: str, text: str, before: str = "", after: str = "",
            marks: Sequence[Mark] = (), values: StepValues | None = None,
            marks_before: Sequence[Mark] = ()) -> None:
        self.out.steps.append(Step(name, title, text, before, after, tuple(marks),
                                   values or {}, tuple(marks_before), self.stage))

    # -- entry -----------------------------------------------------------------------------

    def run(self, d: Decoded) -> LegResult:
        dst = self.dst
        sat = policy.effective_sat(dst, self.sat, self.profile)
        if d.cls == "nan":
            code, why, satd = policy.nan_result(dst, d.sign, self.sat, self.profile)
            self._special(code, f"the input is NaN; {why}", satd)
        elif d.cls == "inf":
            if dst.is_int:
                code, why, satd = policy.int_infinity(dst, d.sign)
            else:
                code, why, satd = policy.float_overflow(dst, d.sign, self.mode, sat,
                                                        self.profile, True)
            # an infinity that stays one did not overflow; one made finite (or NaN) did
            self.out.overflow = code != inf_code(dst, d.sign)
            self._special(code, f"the input is {'-' if d.sign else '+'}inf; {why}", satd)
        elif dst.is_scale and self.profile == "ascend" and d.sign:
            # ref 002 (bf16 -> e8m0) speaks of "the absolute value": the magnitude converts.
            self.add("special", "Special value", "e8m0 has no sign: ref 002 converts |x|")
            self.run(Decoded(d.cls, 0, d.sig, d.exp2, d.fields, d.marks))
        elif dst.is_scale and self.profile != "ascend" and (d.sign or d.sig == 0):
            # e8m0 (2**k only) has no sign and no zero; like ml_dtypes, these are NaN.
            self._special(0xFF, "e8m0 holds only 2^k > 0: zero and negative inputs give "
                          "its NaN 0xFF")
        elif d.sig == 0:
            self._zero(d.sign)
        elif dst.is_int:
            self._to_int(d)
        elif self.mode == Mode.HYBRID:
            self._hybrid(d)
        else:
            self._to_float(d)
        return self.out

    def _special(self, code: int, text: str, saturated: bool = False) -> None:
        self.out.code = code
        self.out.saturated = saturated
        self.add("special", "Special value", text, "", bitstr(code, self.dst.bits),
                 decode(code, self.dst).marks, values={"code": code})

    def _zero(self, sign: int) -> None:
        dst = self.dst
        if dst.is_scale:  # ascend (ref 002 gives no rule): 0 -> the smallest, 0x00
            self._special(0x00, "e8m0 has no zero: 0 gives its smallest value 2^-127 (0x00)")
            return
        code = 0
        if dst.is_float and dst.signed:
            code = float_code(dst, sign, 0, 0)
        self._special(code, f"the input is {'-' if sign and code else ''}0: the zero of "
                      f"{dst.name}")

    # -- float targets ---------------------------------------------------------------------

    def _lower_code_odd(self, kept: int, q: int) -> bool:
        """Is the encoding of the lower candidate kept * 2**q odd? (ties-to-even and
        round-to-odd compare whole codes, so e8m0 ties go to the even exponent code)."""
        dst = self.dst
        if dst.is_int:
            return bool(kept & 1)
        if dst.is_hif8:
            if kept == 0:
                return False
            if q < -15 and kept == 1:
                return bool((q + 23) & 1)  # subnormal code is e + 23
            return bool(kept & 1)
        assert dst.is_float
        if dst.man_bits == 0:
            return bool(kept) and bool((q + dst.bias) & 1)
        return bool(kept & 1)

    def _rebias(self, d: Decoded, e: int) -> None:
        """Unbiased exponent and the target's biased exponent; one flag for each way out of
        the target's exponent range (below: the align step shifts; above: overflow)."""
        dst, src = self.dst, self.src
        if src.is_int:
            text = f"the integer's leading one is bit {e}: unbiased exponent E = {e}"
            sb = None
        elif src.is_hif8:
            text = f"HiFloat8 stores E directly (sign-magnitude, no bias): E = {e}"
            sb = 0
        else:
            sb = src.bias
            fe = (d.fields or {}).get("exponent", 0)
            text = (f"unbiased exponent E = {fe} - {sb} = {e}" if d.cls == "normal" else
                    f"subnormal input: normalised, its leading one has weight 2^{e}: E = {e}")
        values: StepValues = {"unbiased_exponent": e, "source_bias": sb}
        after = ""
        marks: tuple[Mark, ...] = ()
        if dst.is_float:
            tb = dst.bias
            values["target_bias"] = tb
            te = e + tb
            values["target_biased_exponent"] = te
            text += f"; target biased exponent = {e} + {tb} = {te}"
            lo, hi = dst.emin + tb, dst.emax + tb
            if te < lo:
                values["exponent_range"] = "below"
                text += (f" (below {lo}, the smallest normal: the align step shifts into the "
                         "subnormal range)" if dst.subnormals else
                         f" (below {lo}, the smallest exponent; {dst.name} has no subnormals)")
            elif te > hi:
                values["exponent_range"] = "above"
                text += (f" (above {hi}, the largest finite exponent: the value overflows; "
                         "the overflow step decides the result)")
            else:
                values["exponent_range"] = "normal"
                after = bitstr(te, dst.exp_bits)
                marks = ((0, dst.exp_bits, "exponent"),)
        else:
            values["target_bias"] = None
            if e > HIF8_EMAX:
                values["exponent_range"] = "above"
                text += f"; above HiFloat8's largest exponent {HIF8_EMAX}: the value overflows"
            elif e < -15:
                values["exponent_range"] = "below"
                text += "; below HiFloat8's normal range (|E| <= 15): a denormal or zero"
            else:
                values["exponent_range"] = "normal"
                text += (f"; HiFloat8 keeps {count(hif8_man_bits(e), 'mantissa bit')} at this "
                         "exponent (tapered precision)")
        before = bitstr((d.fields or {}).get("exponent", 0), src.exp_bits) \
            if src.is_float else ""
        mb = ((0, len(before), "exponent"),) if before else ()
        self.add("rebias", "Exponent rebias", text, before, after, marks, values, mb)

    def _align_text(self, e: int, m: int, emin: int, lead: int, shift: int) -> str:
        dst = self.dst
        if dst.is_int:
            return ("the binary point sits after bit 2^0: the bits below it are dropped"
                    if shift > 0 else "no fraction bits: the value is an integer")
        if dst.is_hif8:
            if e < -22:
                return (f"E = {e} is below 2^-22, HiFloat8's smallest denormal: shown from "
                        f"weight 2^-22 ({count(lead, 'leading zero')}); it rounds between 0 and "
                        "2^-22")
            if e < -15:
                return (f"E = {e} is below HiFloat8's normal range (|E| <= 15): its denormals "
                        "are the powers of two 2^-22 .. 2^-16 (dot 0000, value 2^(M-23)), so "
                        f"no mantissa bit is kept: it rounds between 2^{e} and 2^{e + 1}")
            return (f"E = {e}: HiFloat8 keeps {count(m, 'mantissa bit')} here; no alignment "
                    "shift")
        if e < emin and not dst.subnormals:
            return (f"E = {e} is below {dst.name}'s smallest exponent {emin} ({dst.name} has "
                    f"no subnormals): shown from weight 2^{emin}, {count(lead, 'leading zero')}"
                    + (f"; {dst.name} has no zero either: it gives 2^{emin}" if dst.is_scale
                       else f"; the candidates are 0 and 2^{emin}"))
        if e < emin:
            return (f"E = {e} is below the smallest normal exponent {emin}: the significand "
                    f"moves {count(lead, 'place')} right into the subnormal range "
                    f"({count(lead, 'leading zero')}); {count(m + 1, 'bit position')} down to "
                    f"2^{emin - m} are kept")
        if not m:
            return (f"E = {e} is in the normal range: no alignment shift; {dst.name} has no "
                    f"mantissa, only the power of two 2^E is kept")
        return (f"E = {e} is in the normal range: no alignment shift; "
                f"{count(m, 'mantissa bit')} kept")

    def _to_float(self, d: Decoded) -> None:
        dst = self.dst
        sign, sig, exp2 = d.sign, d.sig, d.exp2
        e = sig.bit_length() - 1 + exp2
        self._rebias(d, e)
        q, m, emin = quantum(self.dst, e)
        kept, inexact, tie, up, shown = self._round_bits(sign, sig, exp2, q, e, m, emin)
        kept2 = kept + up
        # carry: the kept significand may grow one bit (1.11..1 + 1 = 10.00..0)
        wide = kept2 >= 1 << (m + 1)
        to_normal = e < emin and kept2 == 1 << m and m > 0 and dst.is_float and dst.subnormals
        if wide or to_normal:
            new_e = kept2.bit_length() - 1 + q
            if wide:
                text = (f"the increment carries out of the kept bits: the value becomes "
                        f"2^{new_e}, the exponent goes up by one (E = {new_e})")
                marks = ((0, 1, "carry"), (1, len(shown), "kept"))
            else:
                text = ("the increment carries into the implicit bit: the subnormal becomes "
                        f"the smallest normal 2^{new_e}")
                marks = ((0, 1, "carry"), (1, len(shown), "kept"))
            if dst.is_hif8 or wide:
                q2, _m2, _ = quantum(self.dst, new_e)
                kept2 = 1 << (new_e - q2)
                q = q2
            self.add("carry", "Carry into the exponent", text, shown, shown, marks,
                     {"exponent": new_e}, ((0, len(shown), "kept"),))
        elif up and kept == 0 and m == 0:
            self.add("carry", "Carry into the exponent", f"no carry: rounding up from 0 gives "
                     f"the smallest step 2^{q}", values={"exponent": q})
        else:
            self.add("carry", "Carry into the exponent", "no carry: the exponent is unchanged",
                     values={"exponent": e})
        self._finish_float(sign, kept2, q, inexact, tie)

    def _round_bits(self, sign: int, sig: int, exp2: int, q: int, e: int, m: int,
                    emin: int) -> tuple[int, bool, bool, int, str]:
        """align + grs + round steps; returns kept, inexact, tie, increment and the round
        step's after-bits (the kept bits plus the increment, at the step's one width).

        The aligned string runs from the leftmost kept position (weight q + m for a float
        target, or the integer's top bit) down to the lowest source bit or the quantum 2**q;
        its leading zeros are the alignment shift."""
        top = sig.bit_length() - 1 + exp2
        kt = max(top, q + m)
        low = min(exp2, q)
        aligned = bitstr(sig << (exp2 - low), kt - low + 1)
        kw = kt - q + 1  # kept width
        shift = q - exp2  # source bits below the quantum
        lead = kt - top
        marks_a: list[Mark] = [(0, kw, "kept")]
        if shift > 0:
            marks_a.append((kw, len(aligned), "dropped"))
        self.add("align", "Alignment", self._align_text(e, m, emin, lead, shift),
                 bitstr(sig, sig.bit_length()), aligned, tuple(marks_a),
                 {"shift": lead, "quantum_exponent": q, "kept_bits": kw})
        if shift <= 0:
            kept = sig << -shift
            self.add("grs", "Guard, round, sticky", "nothing is dropped: exact",
                     aligned, aligned, tuple(marks_a), {"dropped_bits": 0},
                     tuple(marks_a))
            kb = bitstr(kept, kw)
            self.add("round", "Rounding decision", "exact: no rounding needed", kb, kb,
                     ((0, kw, "kept"),), {"increment": 0, "inexact": False, "tie": False},
                     ((0, kw, "kept"),))
            return kept, False, False, 0, kb
        kept = sig >> shift
        rem = sig & ((1 << shift) - 1)
        g = (rem >> (shift - 1)) & 1
        r = (rem >> (shift - 2)) & 1 if shift >= 2 else 0
        s = int(rem & ((1 << max(0, shift - 2)) - 1) != 0)
        inexact = rem != 0
        tie = g == 1 and rem == 1 << (shift - 1)
        marks: list[Mark] = [(0, kw, "kept"), (kw, kw + 1, "guard")]
        named = f"guard={g}"
        values: StepValues = {"guard": g}
        if shift >= 2:
            marks.append((kw + 1, kw + 2, "round"))
            named += f", round={r}"
            values["round"] = r
        if shift >= 3:
            marks.append((kw + 2, len(aligned), "sticky"))
            named += f", sticky={s}"
            values["sticky"] = s
        values["dropped_bits"] = shift
        only = {1: " (no round or sticky bit)", 2: " (no sticky bit)"}.get(shift, "")
        self.add("grs", "Guard, round, sticky",
                 f"{count(shift, 'bit')} dropped: {named}{only}"
                 + (" (exact: nothing lost)" if not inexact else ""),
                 aligned, aligned, tuple(marks), values, tuple(marks))
        odd = self._lower_code_odd(kept, q)
        up, rule = self._decide(sign, g, inexact, tie, odd)
        sentence, extra = self.outcome(sign, sig, exp2, kept, q, up, self.mode, tie)
        wid = kw + 1 if (kept + up) >> kw else kw
        before, after = bitstr(kept, wid), bitstr(kept + up, wid)
        marks_r = ((0, 1, "carry"), (1, wid, "kept")) if wid > kw else ((0, wid, "kept"),)
        head = f"{named}: {'an exact tie' if tie else 'above halfway' if g else 'below halfway'}"
        self.add("round", "Rounding decision", f"{head}; {rule}. {sentence}",
                 before, after, marks_r,
                 {"increment": up, "inexact": inexact, "tie": tie, "mode": self.mode, **extra},
                 ((0, wid, "kept"),))
        self.out.inexact, self.out.tie = inexact, tie
        return kept, inexact, tie, up, after

    def outcome(self, sign: int, sig: int, exp2: int, kept: int, q: int, up: int, rule: str,
                tie: bool) -> tuple[str, StepValues]:
        """`round_outcome` under this leg's target, saturation and profile."""
        return round_outcome(self.dst, sign, sig, exp2, kept, q, up, rule, tie, self.sat,
                             self.profile, self._lower_code_odd)

    def _decide(self, sign: int, g: int, inexact: bool, tie: bool,
                odd: bool) -> tuple[int, str]:
        """The increment (0 or 1, on the magnitude) and the mode's rule in a few words."""
        mode = self.mode
        if not inexact:
            return 0, "exact, nothing to round"
        if mode == Mode.RINT:
            if tie:
                return int(odd), "rint keeps the even candidate"
            return g, "rint rounds to nearest"
        if mode == Mode.ROUND:
            return g, "round breaks ties away from zero" if tie else "round goes to nearest"
        if mode == Mode.FLOOR:
            return int(bool(sign)), "floor rounds toward -inf"
        if mode == Mode.CEIL:
            return int(not sign), "ceil rounds toward +inf"
        if mode == Mode.TRUNC:
            return 0, "trunc drops the extra bits (toward zero)"
        return int(not odd), "round-to-odd takes the candidate whose code is odd"

    def _finish_float(self, sign: int, kept: int, q: int, inexact: bool, tie: bool) -> None:
        dst = self.dst
        assert not dst.is_int
        mag = Fraction(kept) * Fraction(2) ** q
        sat = policy.effective_sat(dst, self.sat, self.profile)
        mx = f"{show_short(dst.max_value)} (0x{max_code(dst, 0):0{(dst.bits + 3) // 4}x})"
        if mag > dst.max_value:
            code, why, satd = policy.float_overflow(dst, sign, self.mode, sat, self.profile,
                                                    False)
            self.out.overflow, self.out.saturated = True, satd
            self.add("overflow", "Overflow and saturation",
                     f"{show_short(mag)} > largest finite {mx}: {why}",
                     values={"max": dst.max_value, "saturated": satd})
            self._encode(code, "the overflow result")
            return
        self.add("overflow", "Overflow and saturation",
                 f"{show_short(mag)} <= largest finite {mx}: no overflow",
                 values={"max": dst.max_value, "saturated": False})
        if kept == 0:
            if dst.is_float and dst.is_scale:
                # e8m0 has no zero: a value below 2^-127 lands on the smallest, 2^-127.
                self._encode(0x00, "e8m0 has no zero: the smallest value 2^-127")
                return
            code = float_code(dst, sign, 0, 0) if dst.is_float else 0
            self._encode(code, "rounded to zero (underflow)")
            return
        self._encode(*code_of(self.dst, sign, kept, q))

    def _encode(self, code: int, how: str) -> None:
        dst = self.dst
        self.out.code = code
        d = decode(code, dst)
        self.add("encode", "Encoding", f"{how}: 0x{code:0{(dst.bits + 3) // 4}x} = "
                 f"{show(d.value)}", "", bitstr(code, dst.bits), d.marks,
                 {"code": code, "value": d.value})

    # -- integer targets -------------------------------------------------------------------

    def _to_int(self, d: Decoded) -> None:
        dst = self.dst
        assert dst.is_int
        kept, _inexact, _tie, up, _shown = self._round_bits(d.sign, d.sig, d.exp2, 0, 0, 0, 0)
        mag = kept + up
        value = -mag if d.sign else mag
        code, why, satd = policy.int_range(dst, value, self.sat, self.profile, self.wrap_ints)
        self.out.saturated = satd
        self.out.overflow = not (dst.min_value <= value <= dst.max_value)
        self.add("range", "Integer range", why, values={"value": value, "saturated": satd})
        self._encode(code, f"{dst.name} two's complement" if dst.signed else dst.name)

    # -- HiFloat8 hybrid rounding (ref 002 Table 9 / Table 10) -------------------------------

    def _hybrid(self, d: Decoded) -> None:
        """Ref 002 Table 9 (fp32 source) / Table 10 (fp16 source).

        Other float sources are first widened to fp32 exactly (Table 9 then reads their
        fp32 bits); fp16 subnormals are normalised first (Table 10 assumes a normal input).
        An exactly representable value is not rounded (machine.convert._hif8: the table's
        "frac >= thr" holds for frac = thr = 0, read as applying to inexact values only).
        """
        sign, sig, exp2 = d.sign, d.sig, d.exp2
        ev = sig.bit_length() - 1 + exp2
        if self.src.is_fp16:
            width, man_w = 2, 10
            man = (sig << (man_w + 1 - sig.bit_length())) & ((1 << man_w) - 1)
            thr = ((self.src_bits & 1) << 1) | 1
            table = "Table 10"
        else:
            width, man_w = 14, 23
            man = (sig << (man_w + 1 - sig.bit_length())) & ((1 << man_w) - 1) \
                if sig.bit_length() <= man_w + 1 else (sig >> (sig.bit_length() - man_w - 1)) \
                & ((1 << man_w) - 1)
            thr = man & 0x3FFF
            table = "Table 9"
        self.add("rebias", "Exponent", f"Ev = {ev}; thr = 0b{thr:0{width}b} (ref 002 {table})",
                 values={"unbiased_exponent": ev, "thr": thr, "source_bias": None,
                         "target_bias": None})
        if ev > HIF8_EMAX:
            dst = self.dst
            assert dst.is_hif8  # hybrid rounding is HiFloat8's (the trace chose this leg)
            sat = policy.effective_sat(dst, self.sat, self.profile)
            code, why, satd = policy.float_overflow(dst, sign, Mode.HYBRID, sat,
                                                    self.profile, False)
            self.out.overflow, self.out.saturated, self.out.inexact = True, satd, True
            self.add("overflow", "Overflow and saturation", f"Ev = {ev} > 15: {why}")
            self._encode(code, "the overflow result")
            return
        if ev <= -23:
            # the grid here is {0, 2^-22}: every nonzero value is inexact
            frac = ((1 << man_w) | man) >> (man_w + 1 - width)
            up = int(ev == -23 and frac >= thr)
            rule = (f"Ev = {ev} < -23: the table gives zero" if ev < -23 else
                    f"Ev = -23: {{1, mantissa}} = 0b{frac:0{width}b} {'>=' if up else '<'} "
                    f"thr = 0b{thr:0{width}b}: {'the smallest denormal' if up else 'zero'}")
            self.out.inexact = True
            sentence, extra = self.outcome(sign, sig, exp2, 0, HIF8_SUB_MIN_E, up,
                                           f"{table}'s rule", False)
            self.add("round", "Rounding decision", f"{rule}. {sentence}",
                     values={"increment": up, "inexact": True, "tie": False,
                             "mode": Mode.HYBRID, "frac": frac, "thr": thr, **extra})
            self._finish_float(sign, up, HIF8_SUB_MIN_E, True, False)
            return
        m = 0 if ev < -15 else hif8_man_bits(ev)
        mfield = man >> (man_w - m) if m else 0
        ta = (man >> (man_w - m - 1)) & 1
        frac = (man >> (man_w - m - width)) & ((1 << width) - 1)  # the bits from TA down
        rest = man & ((1 << (man_w - m)) - 1)
        inexact = rest != 0
        tie = ta == 1 and rest == 1 << (man_w - m - 1)
        self.out.inexact, self.out.tie = inexact, tie and abs(ev) <= 3
        if not inexact:
            up, why, rule = 0, "nothing is dropped: exact, not rounded (the table's frac >= thr " \
                "applies to inexact values)", ""
        elif abs(ev) <= 3:
            up, rule = ta, Mode.ROUND
            why = f"|Ev| <= 3: TA bit = {ta}, rounded half away ({'up' if up else 'down'})"
        else:
            up = int(frac >= thr)
            rule = f"the threshold rule ({'frac >= thr' if up else 'frac < thr'})"
            why = (f"frac = 0b{frac:0{width}b} {'>=' if up else '<'} thr = 0b{thr:0{width}b}: "
                   f"{'up' if up else 'down'}")
        pattern = bitstr(man, man_w)
        used = min(man_w, m + width)
        marks_b = [(0, m, "kept"), (m, m + 1, "guard"), (m + 1, used, "frac")]
        if used < man_w:
            marks_b.append((used, man_w, "dropped"))
        thr_at = man_w - width if not self.src.is_fp16 else man_w - 1
        self.add("grs", "TA bit and frac", f"the {'fp16' if self.src.is_fp16 else 'fp32'} "
                 f"mantissa: M = 0b{mfield:0{max(m, 1)}b} (kept), TA = {ta} (the bit after "
                 f"M), frac = 0b{frac:0{width}b} (TA and the bits after it); after: thr, from "
                 f"the {'lowest bit' if self.src.is_fp16 else f'low {width} bits'}",
                 pattern, pattern, ((thr_at, man_w, "thr"),),
                 values={"ta": ta, "frac": frac, "thr": thr, "guard": ta},
                 marks_before=tuple(x for x in marks_b if x[0] < x[1]))
        q = ev - m
        kept = (1 << m) | mfield
        values: StepValues = {"increment": up, "inexact": inexact, "tie": self.out.tie,
                        "mode": Mode.HYBRID}
        if inexact:
            sentence, extra = self.outcome(sign, sig, exp2, kept, q, up, rule, self.out.tie)
            why = f"{why}. {sentence}"
            values.update(extra)
        self.add("round", "Rounding decision", why, values=values)
        kept2 = kept + up
        if kept2 >> (m + 1):
            ev2 = ev + 1
            q2, _m2, _ = quantum(self.dst, ev2)
            kept2, q = 1 << (ev2 - q2), q2
            self.add("carry", "Carry into the exponent", f"Ev becomes {ev2}",
                     values={"exponent": ev2})
        self._finish_float(sign, kept2, q, inexact, self.out.tie)
