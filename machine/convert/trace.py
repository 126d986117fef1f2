"""Per-lane conversion trace: `trace(bits, src, dst, mode, sat, profile) -> Trace`.

Computed by readable per-lane code on the bit patterns (machine.convert._trace_*),
never by the vectorized kernels, and property-tested to agree with them bit for bit.

Profiles (DESIGN.md "Conversion API"):
- ieee / ascend: one conversion src -> dst under `mode` and `sat`.
- neuron: two legs, src -> fp32 (int sources round to nearest even, float sources widen
  exactly) and fp32 -> dst (rint for float targets; trunc + saturate + NaN -> 0 for
  integer targets; ref 000 §6, ref 003 §3). The steps of each leg carry `stage`
  "to_fp32" / "from_fp32"; a "widen_fp32" step shows the hub value between them.

Decisions where DESIGN.md is silent (also in the report):
- NaN outputs are the canonical quiet NaN with the input's sign (as ml_dtypes writes).
- e8m0 has no zero and no sign: 0 and negative inputs give its NaN 0xFF (as ml_dtypes);
  a positive value below 2^-127 gives 2^-127 in every mode.
- hybrid is HiFloat8's rounding: other targets reject it (ValueError).
- An infinite input keeps infinity where the target has one, whatever the mode.

`decode(bits, fmt) -> Decoded` (class, sign, significand, exponent, fields and the marks
of each field on the bit string) is public here for the views: the one reader of an
encoding's parts that the traces use.
"""

from __future__ import annotations

import math
from fractions import Fraction

from neurondbg.machine.convert._trace_codec import Decoded, bitstr, decode
from neurondbg.machine.convert._trace_model import Step, StepValues, Trace, Value, show
from neurondbg.machine.convert._trace_round import MODE_WORDS, Leg, LegResult, final_candidates
from neurondbg.machine.convert.formats import FORMATS, Format
from neurondbg.machine.convert.modes import Mode
from neurondbg.machine.convert.options import resolve

__all__ = ["Decoded", "Step", "Trace", "decode", "trace"]

FP32 = FORMATS["fp32"]


def _decode_step(bits: int, fmt: Format, d: Decoded, stage: str) -> Step:
    f = d.fields or {}
    if fmt.is_int:
        text = f"{fmt.name} {'two' + chr(39) + 's complement' if fmt.signed else 'unsigned'}: " \
               f"{f.get('value')}"
    elif fmt.is_hif8:
        text = (f"HiFloat8: sign={d.sign}, dot field of {f.get('dot_width')} bits, "
                f"class {d.cls}: value {show(d.value)}")
    else:
        parts = [f"sign={d.sign}"] if fmt.signed else []
        parts.append(f"exponent=0b{bitstr(f.get('exponent', 0), fmt.exp_bits)} "
                     f"({f.get('exponent', 0)})")
        if fmt.man_bits:
            parts.append(f"mantissa=0b{bitstr(f.get('mantissa', 0), fmt.man_bits)}")
        text = ", ".join(parts) + f": class {d.cls}, value {show(d.value)}"
        if d.cls == "nan" and fmt.nan == "ieee" and fmt.man_bits >= 2:
            quiet = (f.get("mantissa", 0) >> (fmt.man_bits - 1)) & 1
            text += (" (quiet: the mantissa's top bit, the quiet bit, is 1)" if quiet else
                     " (signalling: the quiet bit, the mantissa's top bit, is 0)")
    b = bitstr(bits, fmt.bits)
    return Step("decode", f"Decode {fmt.name}", text, b, b, d.marks,
                {"class": d.cls, "sign": d.sign, **f, "value": d.value}, d.marks, stage)


def _leg(bits: int, src: Format, dst: Format, mode: str, sat: bool, profile: str,
         stage: str) -> tuple[Decoded, LegResult]:
    d = decode(bits, src)
    leg = Leg(src, dst, mode, sat, profile, stage, wrap_ints=profile == "ascend", src_bits=bits)
    res = leg.run(d)
    res.steps.insert(0, _decode_step(bits, src, d, stage))
    return d, res


def _as_value(v: Value) -> Value:
    return v


def trace(bits: int, src: str | Format, dst: str | Format, mode: str = "rint",
          sat: bool = False, profile: str = "ieee") -> Trace:
    """Trace one lane: `bits` is the source encoding as an unsigned int (DESIGN bit convention)."""
    o = resolve(src, dst, mode, sat, profile)
    if o.mode == Mode.HYBRID and not o.dst.is_hif8:
        raise ValueError("mode 'hybrid' is HiFloat8 rounding (ref 002 Table 9/10): "
                         "the target must be hif8")
    bits = int(bits)
    if bits < 0 or bits >> o.src.bits:
        raise ValueError(f"bit pattern 0x{bits:x} does not fit {o.src.name} ({o.src.bits} bits)")
    steps: list[Step] = []
    if o.profile == "neuron" and o.src == o.dst:
        d_in, res = _bit_move(bits, o.src, steps)
    elif o.profile == "neuron":
        d_in, res = _neuron(bits, o.src, o.dst, o.sat, steps)
    else:
        d_in, res = _leg(bits, o.src, o.dst, o.mode, o.sat, o.profile, "")
        steps.extend(res.steps)
    out = decode(res.code, o.dst)
    vin, vout = d_in.value, out.value
    err = vout - vin if isinstance(vin, Fraction) and isinstance(vout, Fraction) else None
    cand = final_candidates(steps)
    steps.append(_error_step(vin, vout, err, res))
    return Trace(bits, res.code, o.src.name, o.dst.name, o.mode, o.sat, o.profile, vin, vout,
                 err, inexact=bool(res.inexact or err not in (None, 0)
                                   or (err is None and not _same_special(vin, vout))),
                 tie=res.tie,
                 saturated=res.saturated, nan=out.cls == "nan", inf=out.cls == "inf",
                 overflow=res.overflow, steps=tuple(steps), input_class=d_in.cls,
                 output_class=out.cls, candidates=cand)


def _same_special(vin: Value, vout: Value) -> bool:
    """Both NaN, or the same infinity: the one case of a non-finite side that is exact
    (inf saturated to the largest finite, or NaN turned into 0, changed the value)."""
    if isinstance(vin, float) and isinstance(vout, float):
        return (math.isnan(vin) and math.isnan(vout)) or vin == vout
    return False


def _bit_move(bits: int, fmt: Format, steps: list[Step]) -> tuple[Decoded, LegResult]:
    """Ref 000 §6.1: with in_dtype == out_dtype the Cast is the Copy bit move (no hub)."""
    d_in = decode(bits, fmt)
    steps.append(Step("decode", f"Decode {fmt.name}", f"value {show(d_in.value)}",
                      bitstr(bits, fmt.bits), bitstr(bits, fmt.bits), d_in.marks))
    steps.append(Step("encode", "Bit move", f"in_dtype == out_dtype: the Cast degenerates to "
                      f"the Copy bit move (ref 000 §6.1), no fp32 hub; 0x{bits:x} is copied "
                      "unchanged", bitstr(bits, fmt.bits), bitstr(bits, fmt.bits), d_in.marks))
    return d_in, LegResult(bits)


def _neuron(bits: int, src: Format, dst: Format, sat: bool,
            steps: list[Step]) -> tuple[Decoded, LegResult]:
    """Ref 000 §6.1: in -> widen-to-fp32 -> narrow-to-out."""
    if src.is_fp32:
        d_in = decode(bits, src)
        hub, hub_res = bits, LegResult(bits)
    else:
        d_in, hub_res = _leg(bits, src, FP32, Mode.RINT, False, "ieee", "to_fp32")
        if d_in.cls == "nan" and src.is_float and src.bits == 16:
            # numpy / ml_dtypes widen a 16-bit NaN with its payload (ref 003 §4.2: "NaN/Inf
            # propagate with the qNaN bit preserved"); fp8 NaNs widen to the canonical NaN.
            payload = bits & ((1 << src.man_bits) - 1)
            hub_res.code = (bits >> 15 << 31) | 0x7F800000 | (payload << (23 - src.man_bits))
        hub = hub_res.code
        if src.is_int:
            steps.extend(hub_res.steps)
            how = ("int -> fp32 rounds to nearest even (ref 003 §2): "
                   + ("exact" if not hub_res.inexact else
                      "fp32 keeps 24 significant bits, so this integer loses its low bits"))
        else:
            steps.append(hub_res.steps[0])
            how = f"{src.name} -> fp32 is exact: fp32 holds every {src.name} value"
        hd = decode(hub, FP32)
        steps.append(Step("widen_fp32", "Widen to the fp32 hub",
                          f"{how}; hub value {show(hd.value)}", bitstr(bits, src.bits),
                          bitstr(hub, 32), hd.marks, {"hub_bits": hub, "value": hd.value},
                          stage="to_fp32"))
    if dst.is_fp32:
        res = hub_res if not src.is_fp32 else LegResult(bits)
        if src.is_fp32:
            steps.append(Step("decode", "Decode fp32", f"value {show(d_in.value)}",
                              bitstr(bits, 32), bitstr(bits, 32), d_in.marks, stage=""))
        return d_in, res
    mode = Mode.TRUNC if dst.is_int else Mode.RINT
    _, res = _leg(hub, FP32, dst, mode, sat, "neuron", "from_fp32")
    if decode(hub, FP32).cls == "nan":
        _astype_nan(hub, dst, sat, res)
    if dst.is_int:
        res.steps[0] = _retitle(res.steps[0], "fp32 -> integer truncates toward zero and "
                                "saturates; NaN -> 0 (ref 003 §3, ref 000 §6.4)")
    steps.extend(res.steps)
    res.inexact = res.inexact or hub_res.inexact
    res.overflow = res.overflow or hub_res.overflow
    return d_in, res


def _astype_nan(hub: int, dst: Format, sat: bool, res: LegResult) -> None:
    """NaN as numpy/ml_dtypes `astype` writes it (the neuron Cast is numpy astype, ref 000 §6.1):
    fp32 -> fp16 keeps the payload's top bits (numpy); ml_dtypes writes an fp4_e2m1 NaN as
    a zero whose sign bit is the inverse of the NaN's (observed, ml_dtypes 0.6). The special
    step is rewritten to say so, with the code the lane really gets."""
    sign = hub >> 31
    if dst.is_fp16:
        code = 0x7C00 | ((hub & 0x7FFFFF) >> 13)
        res.code = (sign << 15) | (code if code != 0x7C00 else 0x7C01)
        why = ("NaN stays NaN: numpy's astype keeps the payload's top 10 bits (a payload "
               "that would vanish becomes 1, so the result stays a NaN)")
    elif dst.is_float and dst.nan == "none" and dst.ml_dtype is not None and not sat:
        res.code = 0x0 if sign else 0x8
        why = (f"{dst.name} has no NaN: numpy astype (ml_dtypes) writes a zero whose sign bit "
               "is the inverse of the NaN's")
    else:
        return
    for i, s in enumerate(res.steps):
        if s.name == "special":
            d = decode(res.code, dst)
            res.steps[i] = Step(s.name, s.title, f"the input is NaN; {why}: "
                                f"0x{res.code:0{(dst.bits + 3) // 4}x} = "
                                f"{'-0' if d.cls == 'zero' and d.sign else show(d.value)}",
                                s.bits_before, bitstr(res.code, dst.bits), d.marks,
                                {**s.values, "code": res.code}, s.marks_before, s.stage)


def _retitle(step: Step, note: str) -> Step:
    return Step(step.name, step.title, f"{step.text}. {note}", step.bits_before,
                step.bits_after, step.marks, step.values, step.marks_before, step.stage)


def _error_step(vin: Value, vout: Value, err: Fraction | None, res: LegResult) -> Step:
    if err is None:
        text = f"output {show(vout)} vs input {show(vin)}: no finite error"
        values: StepValues = {"error": None}
    else:
        rel = ""
        if isinstance(vin, Fraction) and vin != 0 and err != 0:  # a finite err has a finite vin
            rel = f" ({float(abs(err / vin)) * 100:.3g}% of the input)"
        text = f"output {show(vout)} - exact input {show(vin)} = {show(err)}{rel}"
        values = {"error": err, "abs_error": abs(err)}
        if isinstance(vin, Fraction) and vin != 0:
            values["relative_error"] = float(err / vin)
    if isinstance(vout, float) and math.isnan(vout):
        text = f"output is NaN (input {show(vin)})"
    return Step("error", "Error vs the exact input", text, values=values)


def mode_word(mode: str) -> str:
    return MODE_WORDS.get(mode, mode)
