"""The ISS conversion primitives of reference 003, vectorized and traced, plus a registry.

Each primitive has a vectorized function (whole numpy arrays; inputs are integer
lanes or encodings, outputs unsigned encodings in the format's container) and a
one-lane `trace_*` function returning a machine.convert Trace (profile "iss").
`ISS_PRIMITIVES[name]` describes each one (parameters with their allowed values,
reference section, confidence) so the Convert Lab and the CLI can list and call
them generically: `p.vector(values, **params)`, `p.trace(lane, **params)`.

Decisions where reference 003 is silent or ambiguous (confidence in brackets):
- Round-mode word: only bits [1:0] are read; 0 = RNE (default, HIGH), 1 = RTZ,
  2 = toward +inf, 3 = toward -inf [MED: the document's RNE/RTZ/RPI/RMI order].
- float / ufloat / narrow overflow follows IEEE-754 per mode: RNE -> inf, RTZ -> the
  largest finite value, directed modes -> inf on their side [MED: "INF_or_clamp"].
- trunc / utrunc: finite overflow and +-inf saturate to the integer range, NaN -> 0
  (DESIGN's neuron rule), utrunc of a negative value -> 0 [MED].
- narrow of a NaN: sign | 0x7c00 | top 10 payload bits, 0x7c01 when those are all zero
  (numpy's choice) [LOW]. widen keeps the payload and the quiet bit as they are [HIGH].
- pack: read literally, bias = 1 << ((shift-1) & 0xf), so shift 0 adds 0x8000 [MED];
  the mode word is not read (its body has no mode operand) [MED].
- packvr*: shift 0 adds no bias; acc + bias is computed without wrapping [MED]; the
  96-bit accumulator variant (32_96_32) is not modelled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from neurondbg.machine.convert import _iss_vec as vec
from neurondbg.machine.convert._iss_trace import (
    trace_float,
    trace_narrow,
    trace_pack,
    trace_packl,
    trace_packvr,
    trace_packvrnr,
    trace_packvru,
    trace_sats,
    trace_sext,
    trace_trunc,
    trace_ufloat,
    trace_utrunc,
    trace_widen,
    trace_zeroext,
)
from neurondbg.machine.convert._iss_vec import (
    ROUND_MODES,
    float_,
    mode_of,
    narrow,
    pack,
    packl,
    packvr,
    packvrnr,
    packvru,
    sats,
    sext,
    trunc,
    ufloat,
    utrunc,
    widen,
    zeroext,
)
from neurondbg.machine.convert._trace_model import Trace

__all__ = [
    "ISS_PRIMITIVES",
    "ROUND_MODES",
    "IssParam",
    "IssPrimitive",
    "float_",
    "mode_of",
    "narrow",
    "pack",
    "packl",
    "packvr",
    "packvrnr",
    "packvru",
    "sats",
    "sext",
    "trace_float",
    "trace_narrow",
    "trace_pack",
    "trace_packl",
    "trace_packvr",
    "trace_packvrnr",
    "trace_packvru",
    "trace_sats",
    "trace_sext",
    "trace_trunc",
    "trace_ufloat",
    "trace_utrunc",
    "trace_widen",
    "trace_zeroext",
    "trunc",
    "ufloat",
    "utrunc",
    "widen",
    "zeroext",
]


IssValue = int | str  # a parameter's value: a width, a shift, a mode word, a format name


@dataclass(frozen=True)
class IssParam:
    """One parameter of a primitive: its allowed values and the default."""

    name: str
    choices: tuple[IssValue, ...]
    default: IssValue
    doc: str


@dataclass(frozen=True)
class IssPrimitive:
    """One ISS primitive: what it is, where it is specified, how to call it."""

    name: str
    description: str
    section: str  # "ref 003 §..."
    confidence: str  # HIGH / MED as the document (and the decisions above) give it
    params: tuple[IssParam, ...]
    vector: Callable[..., np.ndarray]
    trace: Callable[..., Trace]
    formats: Callable[..., tuple[str, str]]  # (input, output) format names for **params

    def bind(self, **params: IssValue) -> dict[str, IssValue]:
        """`params` completed with defaults and checked (ValueError names the choices)."""
        names = {p.name for p in self.params}
        unknown = set(params) - names
        if unknown:
            raise ValueError(f"{self.name} has no parameter {', '.join(sorted(unknown))}; "
                             f"parameters: {', '.join(p.name for p in self.params) or 'none'}")
        out = {p.name: params.get(p.name, p.default) for p in self.params}
        for p in self.params:
            if out[p.name] not in p.choices:
                raise ValueError(f"{self.name}: {p.name} must be one of "
                                 f"{_show_choices(p.choices)}; got {out[p.name]!r}")
        return out


def _show_choices(choices: tuple[IssValue, ...]) -> str:
    ints = [c for c in choices if isinstance(c, int)]
    if len(choices) > 6 and len(ints) == len(choices):
        return f"{min(ints)}..{max(ints)}"
    return ", ".join(map(str, choices))


def _int(width: int, is_signed: bool = True) -> str:
    return f"{'' if is_signed else 'u'}int{width}"


_RM = IssParam("round_mode", tuple(range(len(ROUND_MODES))), 0,
               "FSR round-mode word, bits [1:0]: " +
               ", ".join(f"{i} = {m}" for i, m in enumerate(ROUND_MODES)))
_FDST = IssParam("dst", tuple(vec.FLOAT_FORMATS), "fp32", "float result format")
_FSRC = IssParam("src", tuple(vec.FLOAT_FORMATS), "fp32", "float source format")
_IW = IssParam("width", vec.INT_WIDTHS, 32, "integer source width")
_TW = IssParam("width", vec.TRUNC_WIDTHS, 32, "integer result width")
_SH = IssParam("shift", vec.SHIFTS, 0,
               "right shift (Q-format scale) of the 32-bit shift operand")
_PW = IssParam("width", tuple(vec.PACKVR_ACC), 16, "lane width; accumulator "
               + ", ".join(f"{w}->{a}" for w, a in vec.PACKVR_ACC.items()))


def _acc(width: int = 16, **_: IssValue) -> str:
    return _int(vec.PACKVR_ACC[width])


ISS_PRIMITIVES: dict[str, IssPrimitive] = {p.name: p for p in (
    IssPrimitive("float", "signed int -> fp16/fp32, rounded per the round-mode word",
                 "ref 003 §2.1, §8", "HIGH", (_IW, _FDST, _RM), float_, trace_float,
                 lambda width=32, dst="fp32", **_: (_int(width), dst)),
    IssPrimitive("ufloat", "unsigned int -> fp16/fp32, rounded per the round-mode word",
                 "ref 003 §2.2, §8", "HIGH", (_IW, _FDST, _RM), ufloat, trace_ufloat,
                 lambda width=32, dst="fp32", **_: (_int(width, False), dst)),
    IssPrimitive("trunc", "fp16/fp32 -> signed int, toward zero, saturating, NaN -> 0",
                 "ref 003 §3.1", "HIGH (saturation / NaN: MED)", (_FSRC, _TW), trunc,
                 trace_trunc, lambda src="fp32", width=32, **_: (src, _int(width))),
    IssPrimitive("utrunc", "fp16/fp32 -> unsigned int, toward zero, negatives -> 0",
                 "ref 003 §3.2", "HIGH (negative clamp: MED)", (_FSRC, _TW), utrunc,
                 trace_utrunc, lambda src="fp32", width=32, **_: (src, _int(width, False))),
    IssPrimitive("widen", "CVTF32F16: fp16 -> fp32, exact, denormals normalised",
                 "ref 003 §4.2", "HIGH", (), widen, trace_widen,
                 lambda **_: ("fp16", "fp32")),
    IssPrimitive("narrow", "CVTF16F32: fp32 -> fp16, rounded per the round-mode word, "
                 "gradual underflow, overflow -> inf", "ref 003 §4.3, §9", "HIGH", (_RM,),
                 narrow, trace_narrow, lambda **_: ("fp32", "fp16")),
    IssPrimitive("sats", "saturating signed narrow 2w -> w bits", "ref 003 §6.2", "HIGH",
                 (IssParam("width", vec.SATS_WIDTHS, 16, "result width (source is twice it)"),),
                 sats, trace_sats, lambda width=16, **_: (_int(2 * width), _int(width))),
    IssPrimitive("packl", "48-bit lane -> low 16 bits, no clamp (wrap)", "ref 003 §7.1a",
                 "HIGH", (), packl, trace_packl,
                 lambda **_: (_int(vec.PACKL_IN), _int(vec.PACKL_OUT))),
    IssPrimitive("pack", "32-bit load + round-half bias, >> shift, low 16 bits",
                 "ref 003 §7.1b", "HIGH (shift 0 / > 16: MED)", (_SH,), pack, trace_pack,
                 lambda **_: (_int(vec.PACK_IN), _int(vec.PACK_OUT))),
    IssPrimitive("packvr", "accumulator >> shift, round half up, saturate to signed",
                 "ref 003 §7.2", "HIGH", (_SH, _PW), packvr, trace_packvr,
                 lambda width=16, **_: (_acc(width), _int(width))),
    IssPrimitive("packvrnr", "accumulator >> shift without round bias, saturate to signed",
                 "ref 003 §7.2", "HIGH", (_SH, _PW), packvrnr, trace_packvrnr,
                 lambda width=16, **_: (_acc(width), _int(width))),
    IssPrimitive("packvru", "accumulator >> shift, round half up, saturate to unsigned",
                 "ref 003 §7.2", "MED", (_SH, _PW), packvru, trace_packvru,
                 lambda width=16, **_: (_acc(width), _int(width, False))),
    IssPrimitive("sext", "sign-extend 16 -> 32 bits", "ref 003 §6.1, §13.3", "HIGH", (), sext,
                 trace_sext, lambda **_: ("int16", "int32")),
    IssPrimitive("zeroext", "zero-extend 32 -> 48 bits", "ref 003 §6.1", "HIGH", (), zeroext,
                 trace_zeroext, lambda **_: ("uint32", "uint48")),
)}
