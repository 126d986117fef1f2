"""One-lane traces of the ISS conversion primitives of reference 003.

Readable per-lane code on plain Python ints, written from the document's bodies
(never calling the vectorized machine.convert._iss_vec), in the Trace / Step form of
machine.convert.trace: named steps (STEP_NAMES), bit strings before/after, marked
ranges by role (ROLES), one explanation each. Profile "iss".

Every rounding step that drops bits carries the two candidates of the float trace
(values["candidates"], and Trace.candidates), built by machine.convert._trace_round.
candidates: for float / ufloat / narrow in the target float format, for trunc / utrunc
and the packs in the integer result format, by the value the primitive rounds (pack and
packvr*: the Q-format value lane / 2^shift). `chosen` is the candidate the rounding
picked before any later step: a saturating clamp (flagged), or pack's `& 0x7fffffff`,
which for shift >= 16 lands in the result bits of a negative lane, may still change it.
A step that drops nothing (widen, shift 0) has none, as in the float trace.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from neurondbg.machine.convert._iss_vec import (
    FLOAT_FORMATS,
    FP16,
    FP32,
    INT_WIDTHS,
    PACK_IN,
    PACK_OUT,
    PACKL_IN,
    PACKL_OUT,
    PACKVR_ACC,
    SATS_WIDTHS,
    SHIFTS,
    TRUNC_WIDTHS,
    check_choice,
    mode_of,
    pack_bias,
)
from neurondbg.machine.convert._trace_codec import Decoded, bitstr, decode
from neurondbg.machine.convert._trace_model import (
    ROLES,
    STEP_NAMES,
    Mark,
    Step,
    StepValues,
    Trace,
    Value,
    count,
    show,
)
from neurondbg.machine.convert._trace_round import (
    HALF_UP,
    final_candidates,
    round_outcome,
)
from neurondbg.machine.convert.formats import FORMATS, FloatFormat, Format
from neurondbg.machine.convert.modes import Mode

PROFILE = "iss"
NO_ROUNDING = "none"  # Trace.mode of the primitives that never round (widen, sats, packl, ...)
MODE_TEXT: dict[str, str] = {
    Mode.RINT: "round to nearest, ties to even (RNE)", Mode.TRUNC: "toward zero (RTZ)",
    Mode.CEIL: "toward +inf (RPI)", Mode.FLOOR: "toward -inf (RMI)"}


class _Lane:
    """Collects the steps of one lane and the flags of its Trace."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.inexact = self.tie = self.saturated = self.overflow = False

    def add(self, name: str, title: str, text: str, before: str = "", after: str = "",
            marks: Sequence[Mark] = (), values: StepValues | None = None,
            marks_before: Sequence[Mark] = ()) -> None:
        assert name in STEP_NAMES and all(m[2] in ROLES for m in (*marks, *marks_before))
        self.steps.append(Step(name, title, text, before, after, tuple(marks), values or {},
                               tuple(marks_before)))

    def finish(self, in_bits: int, out_bits: int, src: str, dst: str, mode: str, sat: bool,
               vin: Value, vout: Value, in_cls: str, out_cls: str) -> Trace:
        err = vout - vin if isinstance(vin, Fraction) and isinstance(vout, Fraction) else None
        if err is None:
            text = f"output {show(vout)} vs input {show(vin)}: no finite error"
        else:
            text = f"output {show(vout)} - exact input {show(vin)} = {show(err)}"
        cand = final_candidates(self.steps)
        self.add("error", "Error vs the exact input", text, values={"error": err})
        nan = isinstance(vout, float) and math.isnan(vout)
        inf = isinstance(vout, float) and not nan
        return Trace(in_bits, out_bits, src, dst, mode, sat, PROFILE, vin, vout, err,
                     self.inexact or bool(err), self.tie, self.saturated, nan, inf,
                     self.overflow, tuple(self.steps), in_cls, out_cls, cand)


def _with_candidates(text: str, values: StepValues, dst: Format, sign: int, sig: int, exp2: int,
                     kept: int, q: int, up: int, rule: str, tie: bool = False) -> str:
    """Put the candidates of a rounding into a round step's values; return its text with
    the candidates' sentence (machine.convert._trace_round, as the float trace says it)."""
    sentence, extra = round_outcome(dst, sign, sig, exp2, kept, q, up, rule, tie,
                                    alternative=False)  # IEEE overflow, no saturation choice
    values.update(extra)
    return f"{text}. {sentence}"


def _fixed_point(text: str, values: StepValues, dst: Format, v: int, shift: int,
                 rounded: int, rule: str) -> str:
    """_with_candidates for a signed integer lane v read as v / 2^shift (shift > 0) that
    the primitive rounded to the integer `rounded` (floor(v / 2^shift) or one above)."""
    sign, mag = int(v < 0), abs(v)
    kept = mag >> shift
    up = -rounded - kept if sign else rounded - kept  # the increment on the magnitude
    tie = mag & ((1 << shift) - 1) == 1 << (shift - 1)
    return _with_candidates(text, values, dst, sign, mag, -shift, kept, 0, up, rule, tie)


def _int_marks(width: int, is_signed: bool) -> tuple[Mark, ...]:
    return ((0, 1, "sign"), (1, width, "mantissa")) if is_signed else ((0, width, "mantissa"),)


def _as_int(bits: int, width: int, is_signed: bool) -> int:
    bits &= (1 << width) - 1
    return bits - (1 << width) if is_signed and bits >> (width - 1) else bits


def _int_name(width: int, is_signed: bool) -> str:
    return f"{'' if is_signed else 'u'}int{width}"


def _decode_int(lane: _Lane, bits: int, width: int, is_signed: bool, note: str = "") -> int:
    v = _as_int(bits, width, is_signed)
    b = bitstr(bits, width)
    kind = "two's complement" if is_signed else "unsigned"
    lane.add("decode", f"Decode {_int_name(width, is_signed)}",
             f"{width}-bit {kind} lane: {v}{note}", b, b, _int_marks(width, is_signed),
             {"value": v}, _int_marks(width, is_signed))
    return v


def _decode_float(lane: _Lane, bits: int, fmt: FloatFormat) -> Decoded:
    d = decode(bits, fmt)
    f = d.fields or {}
    b = bitstr(bits, fmt.bits)
    lane.add("decode", f"Decode {fmt.name}",
             f"sign={d.sign}, exponent=0b{bitstr(f['exponent'], fmt.exp_bits)} "
             f"({f['exponent']}), mantissa=0b{bitstr(f['mantissa'], fmt.man_bits)}: "
             f"class {d.cls}, value {show(d.value)}", b, b, d.marks,
             {"class": d.cls, **f, "value": d.value}, d.marks)
    return d


def _encode_float(lane: _Lane, code: int, fmt: FloatFormat, how: str) -> Decoded:
    d = decode(code, fmt)
    lane.add("encode", "Encoding", f"{how}: 0x{code:0{fmt.bits // 4}x} = {show(d.value)}", "",
             bitstr(code, fmt.bits), d.marks, {"code": code, "value": d.value})
    return d


def _encode_int(lane: _Lane, v: int, width: int, is_signed: bool, how: str) -> int:
    code = v & ((1 << width) - 1)
    lane.add("encode", "Encoding", f"{how}: 0x{code:0{(width + 3) // 4}x} = {v}", "",
             bitstr(code, width), _int_marks(width, is_signed), {"code": code, "value": v})
    return code


# -- the shared rounding narrow (float / ufloat / narrow) -----------------------------------

def _round_float(lane: _Lane, sign: int, mag: int, exp2: int, fmt: FloatFormat, mode: str,
                 round_mode: int, lead: str) -> int:
    """Encode (-1)**sign * mag * 2**exp2 (mag > 0) in fmt: rebias, align, grs, round, carry,
    overflow, encode. Returns the encoding."""
    m_bits = fmt.man_bits
    e = mag.bit_length() - 1 + exp2
    biased = e + fmt.bias
    note = " (<= 0: the value is in the subnormal range)" if biased <= 0 else ""
    lane.add("rebias", "Exponent rebias",
             f"{lead}: unbiased exponent E = {e}; {fmt.name} biased exponent = {e} + "
             f"{fmt.bias} = {biased}{note}", "",
             bitstr(biased, fmt.exp_bits) if 0 < biased < (1 << fmt.exp_bits) else "",
             values={"unbiased_exponent": e, "target_bias": fmt.bias,
                     "target_biased_exponent": biased})
    q = max(e, fmt.emin) - m_bits  # weight of the lowest bit the target keeps
    hi, low = max(e, q + m_bits), min(exp2, q)  # leading zeros = the subnormal shift
    full = bitstr(mag << (exp2 - low), hi - low + 1)
    kw = hi - q + 1  # kept bits (from weight hi down to q)
    dropped = q - exp2 if q > exp2 else 0
    if e < fmt.emin:
        text = (f"E = {e} < emin {fmt.emin}: gradual underflow, the significand moves "
                f"{count(fmt.emin - e, 'place')} right into the subnormal range "
                f"({count(fmt.emin - e, 'leading zero')}; no flush-to-zero, ref 003 §9.3)")
    else:
        text = (f"normalised: the leading one becomes the implicit bit, {m_bits} mantissa bits "
                f"follow (lowest kept weight 2^{q})")
    marks_a = ((0, kw, "kept"),) + (((kw, len(full), "dropped"),) if dropped else ())
    lane.add("align", "Alignment", text, bitstr(mag, mag.bit_length()), full, marks_a,
             {"quantum_exponent": q, "kept_bits": kw, "shift": max(0, fmt.emin - e)})
    kept = mag >> dropped if dropped else mag << (exp2 - q)
    rem = mag & ((1 << dropped) - 1)
    g = (rem >> (dropped - 1)) & 1 if dropped else 0
    r = (rem >> (dropped - 2)) & 1 if dropped >= 2 else 0
    s = int(rem & ((1 << max(0, dropped - 2)) - 1) != 0)
    inexact, tie = rem != 0, dropped > 0 and rem == 1 << (dropped - 1)
    marks_g = [(0, kw, "kept")]
    for i, role in enumerate(("guard", "round")):
        if dropped > i:
            marks_g.append((kw + i, kw + i + 1, role))
    if dropped > 2:
        marks_g.append((kw + 2, len(full), "sticky"))
    named = ", ".join(f"{k}={v}" for k, v in (("guard", g), ("round", r), ("sticky", s))
                      [:min(dropped, 3)]) or "nothing"
    lane.add("grs", "Guard, round, sticky",
             f"{count(dropped, 'bit')} dropped: {named}"
             + ("" if inexact else " (exact: nothing lost)"), full, full, tuple(marks_g),
             {"guard": g, "round": r, "sticky": s, "dropped_bits": dropped})
    lane.inexact, lane.tie = inexact, tie
    word = f"round-mode word bits[1:0] = {round_mode & 3}: {MODE_TEXT[mode]}"
    if not inexact:
        up, why = 0, "exact, nothing to round"
    elif mode == Mode.RINT:
        up = g & (r | s | (kept & 1))
        why = (f"a tie; the kept bits end in {kept & 1}, so RNE goes {'up' if up else 'down'} "
               "to the even one (the cmp $0x3 ; sete tie-break)" if tie else
               f"{'above' if g else 'below'} halfway: to nearest, {'up' if up else 'down'}")
    elif mode == Mode.TRUNC:
        up, why = 0, "RTZ drops the extra bits"
    else:
        up = int((mode == Mode.CEIL) != bool(sign))
        why = f"inexact and {'negative' if sign else 'positive'}: " + \
            ("the magnitude goes up" if up else "the extra bits are dropped")
    wid = max(kw, (kept + up).bit_length())  # one width: a carry pads the kept bits
    values = {"increment": up, "inexact": inexact, "tie": tie, "mode": mode,
              "round_mode": round_mode}
    text = f"{word}; {why}"
    if dropped:
        text = _with_candidates(text, values, fmt, sign, mag, exp2, kept, q, up, mode, tie)
    lane.add("round", "Rounding decision", text, bitstr(kept, wid), bitstr(kept + up, wid),
             values=values)
    kept += up
    if kept == 1 << (m_bits + 1):
        kept, q = 1 << m_bits, q + 1
        lane.add("carry", "Carry into the exponent", "the increment carries out of the "
                 f"mantissa: the value becomes 2^{q + m_bits}, the exponent goes up by one",
                 values={"exponent": q + m_bits})
    elif up and e < fmt.emin and kept == 1 << m_bits:
        lane.add("carry", "Carry into the exponent", "the increment carries into the "
                 "exponent: the subnormal becomes the smallest normal",
                 values={"exponent": fmt.emin})
    else:
        lane.add("carry", "Carry into the exponent", "no carry: the exponent is unchanged")
    top = (1 << fmt.exp_bits) - 1
    mag_out = Fraction(kept) * Fraction(2) ** q
    if kept >> m_bits and q + m_bits > fmt.emax:
        lane.overflow = True
        to_inf = (mode == Mode.RINT or (mode == Mode.CEIL and not sign)
                  or (mode == Mode.FLOOR and sign))
        lane.saturated = not to_inf
        lane.add("overflow", "Overflow", f"{show(mag_out)} > largest finite "
                 f"{show(fmt.max_value)}: {MODE_TEXT[mode]} gives "
                 + ("infinity" if to_inf else "the largest finite value")
                 + " (IEEE-754 overflow, ref 003 §4.3 / §9.2)", values={"max": fmt.max_value})
        code = (sign << (fmt.bits - 1)) | (top << m_bits) - (0 if to_inf else 1)
        _encode_float(lane, code, fmt, "the overflow result")
        return code
    lane.add("overflow", "Overflow", f"{show(mag_out)} <= largest finite "
             f"{show(fmt.max_value)}: no overflow", values={"max": fmt.max_value})
    if kept >> m_bits:
        code = (sign << (fmt.bits - 1)) | ((q + m_bits + fmt.bias) << m_bits) | \
            (kept - (1 << m_bits))
        how = "sign | biased exponent | mantissa after the implicit one"
    else:
        code = (sign << (fmt.bits - 1)) | kept
        how = "subnormal: exponent field 0, mantissa = the kept bits" if kept else \
            "rounded to zero (underflow)"
    _encode_float(lane, code, fmt, how)
    return code


# -- int -> fp (ref 003 §2) ---------------------------------------------------------------

def _trace_int_to_float(value: int, width: int, dst: str, round_mode: int,
                        is_signed: bool) -> Trace:
    check_choice("width", width, INT_WIDTHS)
    check_choice("dst", dst, tuple(FLOAT_FORMATS))
    mode = mode_of(round_mode)
    fmt = FLOAT_FORMATS[dst]
    lane = _Lane()
    bits = int(value) & ((1 << width) - 1)
    note = ""
    if is_signed and bits >> (width - 1):
        note = "; negative: the sign prologue (neg ; test ; js) keeps the sign and negates"
    elif not is_signed:
        note = "; ufloat has no sign prologue: the operand is a magnitude (ref 003 §2.2)"
    v = _decode_int(lane, bits, width, is_signed, note)
    if v == 0:
        code = 0
        lane.add("special", "Special value", "the input is 0: +0", "", bitstr(0, fmt.bits),
                 values={"code": 0})
    else:
        lead = f"the magnitude {abs(v)}'s leading one is bit {abs(v).bit_length() - 1}"
        code = _round_float(lane, int(v < 0), abs(v), 0, fmt, mode, round_mode, lead)
    out = decode(code, fmt)
    return lane.finish(bits, code, _int_name(width, is_signed), fmt.name, mode, False,
                       Fraction(v), out.value, "integer", out.cls)


def trace_float(value: int, width: int = 32, dst: str = "fp32", round_mode: int = 0) -> Trace:
    """One lane of ivp_float (signed int -> fp16/fp32; ref 003 §2.1)."""
    return _trace_int_to_float(value, width, dst, round_mode, True)


def trace_ufloat(value: int, width: int = 32, dst: str = "fp32", round_mode: int = 0) -> Trace:
    """One lane of ivp_ufloat (unsigned int -> fp16/fp32; ref 003 §2.2)."""
    return _trace_int_to_float(value, width, dst, round_mode, False)


# -- fp -> int (ref 003 §3) ---------------------------------------------------------------

def _trace_fp_to_int(bits: int, src: str, width: int, is_signed: bool) -> Trace:
    check_choice("src", src, tuple(FLOAT_FORMATS))
    check_choice("width", width, TRUNC_WIDTHS)
    fmt = FLOAT_FORMATS[src]
    bits = int(bits) & ((1 << fmt.bits) - 1)
    lane = _Lane()
    d = _decode_float(lane, bits, fmt)
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if is_signed else (0, (1 << width) - 1)
    dst = _int_name(width, is_signed)
    if d.cls == "nan":
        v = 0
        lane.add("special", "Special value", "the input is NaN: the result is 0 (DESIGN "
                 "decision; ref 003 §3.1 routes NaN to a 'special' result without its value: "
                 "MED)", "", bitstr(0, width), values={"code": 0})
        lane.inexact = True
    elif d.cls == "inf":
        v = lo if d.sign else hi
        lane.overflow = lane.saturated = True
        lane.add("special", "Special value", f"the input is {'-' if d.sign else '+'}inf: "
                 f"saturates to {v} ({dst} {'min' if d.sign else 'max'})", "",
                 bitstr(v & ((1 << width) - 1), width), values={"code": v})
    else:
        v = _truncate(lane, d, fmt, dst, lo, hi, is_signed)
    code = _encode_int(lane, v, width, is_signed, f"{dst} pattern")
    return lane.finish(bits, code, fmt.name, dst, "trunc", True, d.value, Fraction(v), d.cls,
                       "integer")


def _truncate(lane: _Lane, d: Decoded, fmt: FloatFormat, dst: str, lo: int, hi: int,
              is_signed: bool) -> int:
    e = d.sig.bit_length() - 1 + d.exp2 if d.sig else fmt.emin
    sh = -d.exp2  # right shift of the significand: mantissa-width + bias - exponent
    lane.add("rebias", "Exponent rebias",
             f"unbiased exponent E = {e}; right-shift amount sh = {fmt.man_bits} - E = {sh} "
             "(mantissa width + bias - exponent, ref 003 §3.1)",
             values={"unbiased_exponent": e, "source_bias": fmt.bias, "shift": sh})
    sig_w = fmt.man_bits + 1
    s = bitstr(d.sig, sig_w)
    if sh <= 0:
        marks: tuple[Mark, ...] = ((0, sig_w, "kept"),)
        mag = d.sig << -sh
        text = f"no fraction bits: the significand moves {count(-sh, 'place')} left"
    else:
        kw = max(0, sig_w - sh)
        mag = d.sig >> sh
        marks = (((0, kw, "kept"),) if kw else ()) + \
            (((kw, sig_w, "dropped"),) if kw < sig_w else ())
        text = f"significand >> {sh}: the bits below 2^0 are the fraction"
    lane.add("align", "Alignment", text, s, s, marks, {"shift": sh})
    frac = d.sig & ((1 << sh) - 1) if sh > 0 else 0
    lane.inexact = frac != 0
    text = ("always toward zero: the fraction bits are discarded; trunc has no round-mode "
            "operand, the FSR mode is never read (ref 003 §3 CORRECTION)")
    values = {"increment": 0, "inexact": frac != 0, "mode": "trunc"}
    if sh > 0 and d.sig:  # a zero has nothing to round (as the float trace: no candidates)
        text = _with_candidates(text, values, FORMATS[dst], d.sign, d.sig, d.exp2, mag, 0, 0,
                                Mode.TRUNC)
    lane.add("round", "Rounding decision", text, values=values)
    v = -mag if d.sign else mag
    if not is_signed and d.sign and v != 0:
        out, why = 0, "a negative value clamps to 0 (utrunc, ref 003 §3.2, MED)"
    elif v > hi or v < lo:
        out = hi if v > hi else lo
        why = f"{v} is outside {dst} [{lo}, {hi}]: saturates to {out}"
    else:
        out, why = v, f"{v} fits {dst} [{lo}, {hi}]"
    if out != v:
        lane.saturated = True
        lane.overflow = v > hi or v < lo
    lane.add("range", "Integer range", why, values={"value": v, "saturated": out != v})
    return out


def trace_trunc(bits: int, src: str = "fp32", width: int = 32) -> Trace:
    """One lane of ivp_trunc (fp -> signed int, toward zero, saturating; ref 003 §3)."""
    return _trace_fp_to_int(bits, src, width, True)


def trace_utrunc(bits: int, src: str = "fp32", width: int = 32) -> Trace:
    """One lane of ivp_utrunc (fp -> unsigned int, toward zero, negatives -> 0; ref 003 §3.2)."""
    return _trace_fp_to_int(bits, src, width, False)


# -- fp16 <-> fp32 (ref 003 §4) -----------------------------------------------------------

def trace_widen(bits: int) -> Trace:
    """One lane of CVTF32F16 (fp16 -> fp32, exact; ref 003 §4.2)."""
    bits = int(bits) & 0xFFFF
    lane = _Lane()
    d = _decode_float(lane, bits, FP16)
    sign = d.sign << 31
    m10 = bits & 0x3FF
    if d.cls in ("nan", "inf", "zero"):
        if d.cls == "zero":
            code, what = sign, "a zero keeps its sign"
        else:
            code = sign | 0x7F800000 | (m10 << 13)
            what = ("Inf -> Inf (0x7f800000)" if d.cls == "inf" else
                    "NaN -> NaN: exponent 0x1f -> 0xff, payload << 13, the quiet bit "
                    f"({'set' if m10 >> 9 else 'clear: a signaling NaN stays signaling'}) "
                    "preserved")
        lane.add("special", "Special value", what, bitstr(bits, 16), bitstr(code, 32),
                 values={"code": code})
    else:
        e = d.sig.bit_length() - 1 + d.exp2
        biased = e + FP32.bias
        lead = (f"exponent field {bits >> 10 & 0x1F} - {FP16.bias}" if d.cls == "normal" else
                f"subnormal: the mantissa's leading one is bit {m10.bit_length() - 1} "
                f"(bsr), normalised")
        lane.add("rebias", "Exponent rebias", f"{lead}: E = {e}; fp32 biased exponent = {e} + "
                 f"{FP32.bias} = {biased}", bitstr(bits >> 10 & 0x1F, 5), bitstr(biased, 8),
                 values={"unbiased_exponent": e, "source_bias": FP16.bias,
                         "target_bias": FP32.bias, "target_biased_exponent": biased})
        m23 = (d.sig << (FP32.man_bits + 1 - d.sig.bit_length())) & 0x7FFFFF
        lane.add("align", "Alignment", "the mantissa moves to the top of the 23-bit field "
                 f"(<< {FP32.man_bits + 1 - d.sig.bit_length()}); nothing is dropped",
                 bitstr(m10, 10), bitstr(m23, 23), ((0, 23, "kept"),))
        lane.add("round", "Rounding decision", "exact: fp32 holds every fp16 value, no "
                 "rounding (ref 003 §4.2)", values={"increment": 0, "inexact": False})
        code = sign | (biased << 23) | m23
    out = _encode_float(lane, code, FP32, "fp32")
    return lane.finish(bits, code, "fp16", "fp32", NO_ROUNDING, False, d.value, out.value, d.cls,
                       out.cls)


def trace_narrow(bits: int, round_mode: int = 0) -> Trace:
    """One lane of CVTF16F32 (fp32 -> fp16, rounded per the mode word; ref 003 §4.3)."""
    mode = mode_of(round_mode)
    bits = int(bits) & 0xFFFFFFFF
    lane = _Lane()
    d = _decode_float(lane, bits, FP32)
    if d.cls == "nan":
        payload = (bits & 0x7FFFFF) >> 13
        code = (d.sign << 15) | 0x7C00 | (payload or 1)
        lane.add("special", "Special value", "NaN -> fp16 NaN: 0x7c00 + the top 10 payload "
                 "bits" + ("" if payload else " (all zero, so 0x7c01 keeps it a NaN, as numpy)"),
                 bitstr(bits, 32), bitstr(code, 16), values={"code": code})
        out = _encode_float(lane, code, FP16, "fp16 NaN")
    elif d.cls in ("inf", "zero"):
        code = (d.sign << 15) | (0x7C00 if d.cls == "inf" else 0)
        lane.overflow = d.cls == "inf"
        lane.add("special", "Special value", "Inf -> 0x7c00" if d.cls == "inf" else
                 "a zero keeps its sign", bitstr(bits, 32), bitstr(code, 16),
                 values={"code": code})
        out = _encode_float(lane, code, FP16, "fp16")
    else:
        e8 = bits >> 23 & 0xFF
        lead = (f"exponent field {e8} - {FP32.bias}" if d.cls == "normal" else
                "an fp32 subnormal, normalised")
        code = _round_float(lane, d.sign, d.sig, d.exp2, FP16, mode, round_mode, lead)
        out = decode(code, FP16)
    return lane.finish(bits, code, "fp32", "fp16", mode, False, d.value, out.value, d.cls,
                       out.cls)


# -- integer narrows and packs (ref 003 §6, §7) --------------------------------------------

def _clamp(lane: _Lane, v: int, lo: int, hi: int, dst: str, why_in: str) -> int:
    out = min(max(v, lo), hi)
    if out != v:
        lane.saturated = lane.overflow = True
        why = f"{v} is outside {dst} [{lo}, {hi}]: clamps to {out}"
    else:
        why = f"{v} fits {dst} [{lo}, {hi}]: {why_in}"
    lane.add("range", "Saturation", why, values={"value": v, "saturated": out != v})
    return out


def trace_sats(value: int, width: int = 16) -> Trace:
    """One lane of sats_`width`_`2*width` (ref 003 §6.2)."""
    check_choice("width", width, SATS_WIDTHS)
    w2 = 2 * width
    bits = int(value) & ((1 << w2) - 1)
    lane = _Lane()
    v = _decode_int(lane, bits, w2, True)
    low = _as_int(bits, width, True)
    lane.add("align", "Alignment", f"the low {width} bits sign-extended: {low}"
             + (" == the input" if low == v else " != the input: overflow"),
             bitstr(bits, w2), bitstr(bits, w2),
             ((0, width, "dropped"), (width, w2, "kept")))
    out = _clamp(lane, v, -(1 << (width - 1)), (1 << (width - 1)) - 1, f"int{width}",
                 "the low bits pass")
    code = _encode_int(lane, out, width, True, f"int{width}")
    return lane.finish(bits, code, f"int{w2}", f"int{width}", NO_ROUNDING, True, Fraction(v),
                       Fraction(out), "integer", "integer")


def trace_packl(value: int) -> Trace:
    """One lane of packl_16_48: the low 16 bits, no clamp (wrap; ref 003 §7.1a, §13.2)."""
    bits = int(value) & ((1 << PACKL_IN) - 1)
    lane = _Lane()
    v = _decode_int(lane, bits, PACKL_IN, True)
    keep = PACKL_IN - PACKL_OUT
    lane.add("range", "Wrap", f"movzwl: the low {PACKL_OUT} bits are kept and the high "
             f"{keep} dropped, with no clamp (packl wraps; _nosat is byte-identical)",
             bitstr(bits, PACKL_IN), bitstr(bits, PACKL_IN),
             ((0, keep, "dropped"), (keep, PACKL_IN, "kept")), {"value": v, "saturated": False})
    out = _as_int(bits, PACKL_OUT, True)
    lane.overflow = out != v
    code = _encode_int(lane, out, PACKL_OUT, True, f"int{PACKL_OUT}")
    return lane.finish(bits, code, f"int{PACKL_IN}", f"int{PACKL_OUT}", NO_ROUNDING, False,
                       Fraction(v), Fraction(out), "integer", "integer")


def trace_pack(value: int, shift: int) -> Trace:
    """One lane of pack: ((load + bias) & 0x7fffffff) >> shift, low 16 bits (ref 003 §7.1b).

    Read literally from the bytes (lea -1 ; and $0xf ; shl): bias = 1 << ((shift-1) & 15),
    so shift 0 adds 0x8000 and shifts above 16 add a smaller bias (MED). The load is a
    32-bit lane; the input value shown is it read as signed, divided by 2^shift.
    """
    check_choice("shift", shift, SHIFTS)
    bits = int(value) & ((1 << PACK_IN) - 1)
    lane = _Lane()
    v = _decode_int(lane, bits, PACK_IN, True)
    bias = pack_bias(shift)
    total = (bits + bias) & ((1 << PACK_IN) - 1)
    quirk = "" if 1 <= shift <= 16 else f" (the & 0xf makes shift {shift} add 2^{(shift - 1) & 15})"
    text = (f"add the round-half bias 1 << ((shift-1) & 0xf) = {bias}{quirk}: half of the "
            "last kept unit rounds up")
    values: StepValues = {"increment": bias, "mode": HALF_UP}
    if shift:
        rounded = (v >> shift) + (((bits & ((1 << shift) - 1)) + bias) >> shift)
        rule = HALF_UP if shift <= 16 else f"adding {bias}"
        text = _fixed_point(text, values, FORMATS[f"int{PACK_OUT}"], v, shift, rounded, rule)
    lane.add("round", "Rounding decision", text, bitstr(bits, PACK_IN), bitstr(total, PACK_IN),
             values=values)
    cleared = total & 0x7FFFFFFF
    lane.add("range", "Mask", "& 0x7fffffff clears bit 31" +
             (" (it was set)" if total >> 31 else ""), bitstr(total, PACK_IN),
             bitstr(cleared, PACK_IN), ((0, 1, "dropped"),))
    kw = PACK_IN - shift
    val = cleared >> shift
    lane.inexact = bits & ((1 << shift) - 1) != 0
    lane.add("align", "Alignment",
             f">> {shift}: the low {count(shift, 'bit')} {'is' if shift == 1 else 'are'} dropped",
             bitstr(cleared, PACK_IN), bitstr(val, PACK_IN),
             marks_before=((0, kw, "kept"),) + (((kw, PACK_IN, "dropped"),) if shift else ()),
             values={"shift": shift})
    out = _as_int(val, PACK_OUT, True)
    lane.overflow = out != val and out + (1 << PACK_OUT) != val
    code = _encode_int(lane, out, PACK_OUT, True, f"& 0xffff, read as int{PACK_OUT}")
    return lane.finish(bits, code, f"int{PACK_IN}", f"int{PACK_OUT}", HALF_UP, False,
                       Fraction(v, 1 << shift), Fraction(out), "integer", "integer")


def _trace_packvr(value: int, shift: int, width: int, rounding: bool, is_signed: bool) -> Trace:
    check_choice("shift", shift, SHIFTS)
    check_choice("width", width, tuple(PACKVR_ACC))
    acc_w = PACKVR_ACC[width]
    bits = int(value) & ((1 << acc_w) - 1)
    lane = _Lane()
    acc = _decode_int(lane, bits, acc_w, True, f" (a {acc_w}-bit accumulator)")
    bias = 1 << (shift - 1) if rounding and shift else 0
    if rounding:
        text = (f"add the round bias 1 << (shift-1) = {bias}: round half up" if shift else
                "shift 0: nothing to round")
    else:
        text = "no round bias (the _nr form): the shift floors"
    total = acc + bias
    shifted = total >> shift
    rule = HALF_UP if rounding else Mode.FLOOR
    values: StepValues = {"increment": bias, "mode": str(rule)}
    if shift:
        text = _fixed_point(text, values, FORMATS[_int_name(width, is_signed)], acc, shift,
                            shifted, rule)
    lane.add("round", "Rounding decision", text, values=values)
    lane.inexact = acc & ((1 << shift) - 1) != 0
    wide = acc_w + 1  # the sum is kept one bit wider, so adding the bias never wraps
    kw = wide - shift
    lane.add("align", "Alignment", f"arithmetic shift right by {shift}: {total} >> {shift} = "
             f"{shifted}", bitstr(total, wide), bitstr(shifted, wide),
             marks_before=((0, kw, "kept"),) + (((kw, wide, "dropped"),) if shift else ()),
             values={"shift": shift})
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if is_signed else (0, (1 << width) - 1)
    dst = _int_name(width, is_signed)
    out = _clamp(lane, shifted, lo, hi, dst, "passes")
    code = _encode_int(lane, out, width, is_signed, dst)
    return lane.finish(bits, code, f"int{acc_w}", dst, str(rule),
                       True, Fraction(acc, 1 << shift), Fraction(out), "integer", "integer")


def trace_packvr(value: int, shift: int, width: int = 16) -> Trace:
    """One lane of packvr (accumulator round + saturate; ref 003 §7.2)."""
    return _trace_packvr(value, shift, width, True, True)


def trace_packvrnr(value: int, shift: int, width: int = 16) -> Trace:
    """One lane of packvrnr (no round bias; ref 003 §7.2)."""
    return _trace_packvr(value, shift, width, False, True)


def trace_packvru(value: int, shift: int, width: int = 16) -> Trace:
    """One lane of packvru (unsigned saturate; ref 003 §7.2)."""
    return _trace_packvr(value, shift, width, True, False)


def trace_sext(value: int) -> Trace:
    """One lane of sext_32_16 (ref 003 §6.1, §13.3)."""
    bits = int(value) & 0xFFFF
    lane = _Lane()
    v = _decode_int(lane, bits, 16, True)
    lane.add("range", "Sign extension", f"movswl: bit 15 ({bits >> 15}) fills bits 31..16",
             bitstr(bits, 16), bitstr(v, 32), ((0, 16, "sign"), (16, 32, "kept")))
    code = _encode_int(lane, v, 32, True, "int32")
    return lane.finish(bits, code, "int16", "int32", NO_ROUNDING, False, Fraction(v),
                       Fraction(v), "integer", "integer")


def trace_zeroext(value: int) -> Trace:
    """One lane of zeroext_48_32 (ref 003 §6.1)."""
    bits = int(value) & 0xFFFFFFFF
    lane = _Lane()
    v = _decode_int(lane, bits, 32, False)
    lane.add("range", "Zero extension", "the high 16 bits are 0 (movl $0,4(%rdx))",
             bitstr(bits, 32), bitstr(bits, 48), ((0, 16, "pad"), (16, 48, "kept")))
    code = _encode_int(lane, v, 48, False, "uint48")
    return lane.finish(bits, code, "uint32", "uint48", NO_ROUNDING, False, Fraction(v),
                       Fraction(v), "integer", "integer")
