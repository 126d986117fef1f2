"""One lane of one conversion leg: exact value -> target format, step by step.

Readable per-lane code on plain ints (never the vectorized kernels). The value
is (sign, sig, exp2) = (-1)**sign * sig * 2**exp2; the target keeps the bits of
sig at or above the quantum 2**q, and rounds on the rest (guard, round, sticky).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from machine.convert import _trace_policy as policy
from machine.convert._trace_codec import (
    HIF8_EMAX,
    HIF8_SUB_MIN_E,
    Decoded,
    bitstr,
    decode,
    float_code,
    hif8_encode,
    hif8_man_bits,
)
from machine.convert._trace_model import Step, show
from machine.convert.formats import Format, IntFormat
from machine.convert.modes import Mode

MODE_WORDS: dict[str, str] = {
    Mode.RINT: "rint (nearest, ties to even)", Mode.ROUND: "round (nearest, ties away from zero)",
    Mode.FLOOR: "floor (toward -inf)", Mode.CEIL: "ceil (toward +inf)",
    Mode.TRUNC: "trunc (toward zero)", Mode.ODD: "odd (round to odd)",
    Mode.HYBRID: "hybrid (HiFloat8, ref 002 Table 9/10)",
}


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
            marks: tuple = (), values: dict | None = None, marks_before: tuple = ()) -> None:
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
            self.out.overflow = True
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
                 values={"code": code})

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

    def _quantum(self, e: int) -> tuple[int, int, int]:
        """(q, kept mantissa bits, emin) for a value whose leading one has weight 2**e."""
        dst = self.dst
        if dst.is_hif8:
            if e >= -15:
                m = hif8_man_bits(min(e, HIF8_EMAX))
                return e - m, m, -15
            return max(e, HIF8_SUB_MIN_E), 0, -15
        assert dst.is_float
        return max(e, dst.emin) - dst.man_bits, dst.man_bits, dst.emin

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
        values: dict = {"unbiased_exponent": e, "source_bias": sb}
        after = ""
        if dst.is_float:
            tb = dst.bias
            values["target_bias"] = tb
            te = e + tb
            values["target_biased_exponent"] = te
            text += f"; target biased exponent = {e} + {tb} = {te}"
            if 0 < te < (1 << dst.exp_bits):
                after = bitstr(te, dst.exp_bits)
            elif te <= 0:
                text += " (<= 0: below the normal range)"
            else:
                text += " (beyond the exponent field: overflow)"
        else:
            values["target_bias"] = None
            text += f"; HiFloat8 keeps {hif8_man_bits(max(min(e, 15), -16))} mantissa bits at " \
                    f"this exponent (tapered precision)"
        before = bitstr((d.fields or {}).get("exponent", 0), src.exp_bits) \
            if src.is_float else ""
        self.add("rebias", "Exponent rebias", text, before, after, values=values)

    def _significand_str(self, sig: int, exp2: int, q: int) -> tuple[str, int, int]:
        """Bits of sig from its leading one down to its lowest bit or q, whichever is lower,
        left-padded so the string starts at weight max(top, q + kept_width)... returns
        (string, weight of the leftmost bit, weight of the rightmost bit)."""
        top = sig.bit_length() - 1 + exp2
        low = min(exp2, q)
        return bitstr(sig << (exp2 - low), top - low + 1), top, low

    def _to_float(self, d: Decoded) -> None:
        dst = self.dst
        sign, sig, exp2 = d.sign, d.sig, d.exp2
        e = sig.bit_length() - 1 + exp2
        self._rebias(d, e)
        q, m, emin = self._quantum(e)
        kept, inexact, tie, _g, _r, _s, up = self._round_bits(sign, sig, exp2, q, e, m, emin)
        kept2 = kept + up
        # carry: the kept significand may grow one bit (1.11..1 + 1 = 10.00..0)
        limit = 1 << (m + 1)
        if kept2 >= limit or (e < emin and kept2 == 1 << m and m > 0) or \
                (m == 0 and up):
            new_e = kept2.bit_length() - 1 + q
            text = (f"the increment carries out of the kept bits: the value becomes 2^{new_e}, "
                    f"the exponent goes up by one" if kept2 >= limit or m == 0 else
                    "the increment carries into the exponent: the subnormal becomes the "
                    "smallest normal")
            if dst.is_hif8 or kept2 >= limit:
                q2, _m2, _ = self._quantum(new_e)
                kept2 = 1 << (new_e - q2)
                q = q2
            self.add("carry", "Carry into the exponent", text, bitstr(kept, m + 1),
                     bitstr(kept + up, m + 2), marks=((0, 1, "carry"),),
                     values={"exponent": new_e})
        else:
            self.add("carry", "Carry into the exponent", "no carry: the exponent is unchanged",
                     values={"exponent": e})
        self._finish_float(sign, kept2, q, inexact, tie)

    def _round_bits(self, sign: int, sig: int, exp2: int, q: int, e: int, m: int,
                    emin: int) -> tuple[int, bool, bool, int, int, int, int]:
        """align + grs + round steps; returns kept, inexact, tie, guard, round, sticky, up."""
        shift = q - exp2  # low bits of sig below the quantum
        full, top, _low = self._significand_str(sig, exp2, q)
        kept_w = max(0, top - q + 1) if top >= q else 0
        if self.dst.is_int:
            text = ("the binary point sits after bit 2^0: bits below it are dropped"
                    if shift > 0 else "no fraction bits: the value is an integer")
        elif e < emin:
            text = (f"E = {e} is below the smallest normal exponent {emin}: the significand "
                    f"moves {emin - e} places right into the subnormal range")
        else:
            text = f"E = {e} is in the normal range: no alignment shift; {m} mantissa bits kept"
        padded = full if top >= q else "0" * (q - top - 1) + full
        marks_a: list = []
        kw = len(padded) - max(0, shift)
        if top < q:
            kw = 0
        if kw:
            marks_a.append((0, kw, "kept"))
        if len(padded) > kw:
            marks_a.append((kw, len(padded), "dropped"))
        self.add("align", "Alignment", text, bitstr(sig, sig.bit_length()), padded,
                 tuple(marks_a), {"shift": max(0, emin - e) if not isinstance(
                     self.dst, IntFormat) else 0, "quantum_exponent": q, "kept_bits": kw})
        if shift <= 0:
            kept = sig << -shift
            self.add("grs", "Guard, round, sticky", "nothing is dropped: exact",
                     padded, padded, tuple(marks_a), {"guard": 0, "round": 0, "sticky": 0})
            self.add("round", "Rounding decision", "exact: no rounding needed",
                     bitstr(kept, max(1, kept_w)), bitstr(kept, max(1, kept_w)),
                     values={"increment": 0, "inexact": False, "tie": False})
            return kept, False, False, 0, 0, 0, 0
        kept = sig >> shift
        rem = sig & ((1 << shift) - 1)
        g = (rem >> (shift - 1)) & 1
        r = (rem >> (shift - 2)) & 1 if shift >= 2 else 0
        s = int(rem & ((1 << max(0, shift - 2)) - 1) != 0)
        inexact = rem != 0
        tie = g == 1 and rem == 1 << (shift - 1)
        marks: list = [(0, kw, "kept")] if kw else []
        marks.append((kw, kw + 1, "guard"))
        if shift >= 2:
            marks.append((kw + 1, kw + 2, "round"))
        if shift >= 3:
            marks.append((kw + 2, len(padded), "sticky"))
        self.add("grs", "Guard, round, sticky",
                 f"{shift} bit(s) dropped: guard={g}, round={r}, sticky={s}"
                 + (" (exact: nothing lost)" if not inexact else ""),
                 padded, padded, tuple(marks), {"guard": g, "round": r, "sticky": s,
                                                "dropped_bits": shift})
        odd = self._lower_code_odd(kept, q)
        up, why = self._decide(sign, g, r, s, inexact, tie, odd)
        kbits = bitstr(kept, max(1, kw))
        self.add("round", "Rounding decision", why, kbits, bitstr(kept + up, max(1, kw)),
                 values={"increment": up, "inexact": inexact, "tie": tie, "mode": self.mode})
        self.out.inexact, self.out.tie = inexact, tie
        return kept, inexact, tie, g, r, s, up

    def _decide(self, sign: int, g: int, r: int, s: int, inexact: bool, tie: bool,
                odd: bool) -> tuple[int, str]:
        mode = self.mode
        head = f"guard={g}, round={r}, sticky={s}: "
        if not inexact:
            return 0, head + "exact, nothing to round"
        kind = "an exact tie" if tie else ("above halfway" if g else "below halfway")
        parity = "odd" if odd else "even"
        if mode == Mode.RINT:
            if tie:
                which = "rounds up: the lower one is odd" if odd else "the lower one, already even"
                return int(odd), head + f"{kind}; rint keeps the even candidate ({which})"
            return g, head + f"{kind}; rint rounds to nearest: {'up' if g else 'down'}"
        if mode == Mode.ROUND:
            return g, head + (f"{kind}; round breaks ties away from zero: up" if tie else
                              f"{kind}; round goes to nearest: {'up' if g else 'down'}")
        if mode == Mode.FLOOR:
            return int(bool(sign)), head + (
                "inexact and negative: floor moves away from zero (magnitude up)" if sign else
                "inexact and positive: floor drops the extra bits")
        if mode == Mode.CEIL:
            return int(not sign), head + (
                "inexact and positive: ceil moves up" if not sign else
                "inexact and negative: ceil drops the extra bits (toward zero)")
        if mode == Mode.TRUNC:
            return 0, head + "trunc drops the extra bits"
        # odd
        return int(not odd), head + (f"inexact; the lower candidate is {parity}: round-to-odd "
                                     + ("takes it" if odd else "takes the odd one above"))

    def _finish_float(self, sign: int, kept: int, q: int, inexact: bool, tie: bool) -> None:
        dst = self.dst
        assert not dst.is_int
        mag = Fraction(kept) * Fraction(2) ** q
        sat = policy.effective_sat(dst, self.sat, self.profile)
        if mag > dst.max_value:
            code, why, satd = policy.float_overflow(dst, sign, self.mode, sat, self.profile,
                                                    False)
            self.out.overflow, self.out.saturated = True, satd
            self.add("overflow", "Overflow and saturation",
                     f"{show(mag)} > largest finite {show(dst.max_value)}: {why}",
                     values={"max": dst.max_value, "saturated": satd})
            self._encode(code, "the overflow result")
            return
        self.add("overflow", "Overflow and saturation",
                 f"{show(mag)} <= largest finite {show(dst.max_value)}: no overflow",
                 values={"max": dst.max_value, "saturated": False})
        if kept == 0:
            if dst.is_float and dst.is_scale:
                # e8m0 has no zero: a value below 2^-127 lands on the smallest, 2^-127.
                self._encode(0x00, "e8m0 has no zero: the smallest value 2^-127")
                return
            code = float_code(dst, sign, 0, 0) if dst.is_float else 0
            self._encode(code, "rounded to zero (underflow)")
            return
        e = kept.bit_length() - 1 + q
        if dst.is_hif8:
            m = 0 if e < -15 else hif8_man_bits(e)
            code = hif8_encode(sign, e, kept - (1 << m) if m else 0)
            self._encode(code, f"HiFloat8 with E = {e} and {m} mantissa bit(s)")
            return
        if dst.man_bits and kept < (1 << dst.man_bits):
            code = float_code(dst, sign, 0, kept)
            self._encode(code, "subnormal: exponent field 0, mantissa = the kept bits")
            return
        biased = e + dst.bias
        code = float_code(dst, sign, biased, kept - (1 << dst.man_bits))
        self._encode(code, f"biased exponent {biased}, mantissa = the kept bits after the "
                     "implicit one")

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
        kept, _inexact, _tie, *_ , up = self._round_bits(d.sign, d.sig, d.exp2, 0, 0, 0, 0)
        mag = kept + up
        value = -mag if d.sign else mag
        code, why, satd = policy.int_range(dst, value, self.sat, self.profile, self.wrap_ints)
        self.out.saturated = satd
        self.out.overflow = not (dst.min_value <= value <= dst.max_value)
        self.add("range", "Integer range", why, values={"value": value, "saturated": satd})
        self._encode(code, f"{dst.name} two's complement" if dst.signed else dst.name)

    # -- HiFloat8 hybrid rounding (ref 002 Table 9 / Table 10) -------------------------------

    def _hybrid(self, d: Decoded) -> None:
        """Ref 002 Table 9 (fp32 source) / Table 10 (fp16 source), as written.

        Other float sources are first widened to fp32 exactly (Table 9 then reads their
        fp32 bits); fp16 subnormals are normalised first (Table 10 assumes a normal input).
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
            sat = policy.effective_sat(self.dst, self.sat, self.profile)
            code, why, satd = policy.float_overflow(self.dst, sign, Mode.HYBRID, sat,
                                                    self.profile, False)
            self.out.overflow, self.out.saturated, self.out.inexact = True, satd, True
            self.add("overflow", "Overflow and saturation", f"Ev = {ev} > 15: {why}")
            self._encode(code, "the overflow result")
            return
        if ev < -23:
            self.out.inexact = True
            self.add("round", "Rounding decision", f"Ev = {ev} < -23: HiF8 zero",
                     values={"increment": 0})
            self._encode(0, "zero")
            return
        if ev == -23:
            frac = ((1 << man_w) | man) >> (man_w + 1 - width)
            up = int(frac >= thr)
            self.out.inexact = True
            self.add("round", "Rounding decision",
                     f"Ev = -23: {{1, mantissa}} = 0b{frac:0{width}b} "
                     f"{'>=' if up else '<'} thr: {'min subnormal' if up else 'zero'}",
                     values={"increment": up, "frac": frac, "thr": thr})
            self._encode((sign << 7) | 1 if up else 0, "Table: min subnormal or zero")
            return
        m = 0 if ev < -15 else hif8_man_bits(ev)
        mfield = man >> (man_w - m) if m else 0
        ta = (man >> (man_w - m - 1)) & 1
        frac = (man >> (man_w - m - width)) & ((1 << width) - 1)  # the bits from TA down
        rest = man & ((1 << (man_w - m)) - 1)
        self.out.inexact = rest != 0
        if abs(ev) <= 3:
            up = ta
            why = f"|Ev| <= 3: TA bit = {ta}, rounded half away ({'up' if up else 'down'})"
        else:
            up = int(frac >= thr)
            why = (f"frac = 0b{frac:0{width}b} {'>=' if up else '<'} thr = 0b{thr:0{width}b}: "
                   f"{'up' if up else 'down'}")
            if up and rest == 0:
                why += ("; note: frac = thr = 0, so the table as written rounds an exactly "
                        "representable value away")
        self.add("grs", "TA bit and frac", f"M = 0b{mfield:0{max(m, 1)}b}, TA = {ta}, "
                 f"frac = 0b{frac:0{width}b}", values={"ta": ta, "frac": frac, "thr": thr,
                                                      "guard": ta})
        self.add("round", "Rounding decision", why, values={"increment": up, "mode": "hybrid"})
        q = ev - m
        kept = (1 << m) | mfield
        kept2 = kept + up
        if kept2 >> (m + 1):
            ev2 = ev + 1
            q2, _m2, _ = self._quantum(ev2)
            kept2, q = 1 << (ev2 - q2), q2
            self.add("carry", "Carry into the exponent", f"Ev becomes {ev2}",
                     values={"exponent": ev2})
        self._finish_float(sign, kept2, q, self.out.inexact, False)
