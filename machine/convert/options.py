"""Validated conversion options: formats, rounding mode, saturation, profile.

`convert` and `trace` both call `resolve`, so they accept and reject exactly
the same argument combinations, with the same one-line messages.

Rules (DESIGN "Conversion API", ref 002 Tables 3-6):
- fp32r is output-only (ref 000 §6.2).
- `hybrid` is HiFloat8 rounding: the target must be hif8 and the source a float format
  (fp32 follows Table 9, fp16 Table 10, other floats Table 9 on their exact fp32 widening).
- neuron: mode `rint` only (its Cast rounds as numpy astype).
- ascend: the modes ref 002 lists for the pair (ASCEND_MODES); a pair the document does
  not list accepts the five IEEE-style modes (rint round floor ceil trunc); a pair it lists
  as exact (RoundMode::UNKNOWN) accepts any mode but hybrid, since the result cannot depend
  on it. bf16 -> fp8_e8m0 is listed as RoundMode::UNKNOWN but is not exact (e8m0 keeps
  only powers of two): one fixed rule, `rint` (nearest, ties to the even code, as
  ml_dtypes' astype and the ieee profile), and any other --mode is refused with that
  note (ASCEND_FIXED), so the answer never changes with --mode. `sat` with an fp32
  target is ignored (ref 002: fp32 output is non-saturating only); a narrow -> wide
  integer conversion always saturates (ref 002: "only the saturation mode is supported",
  int16 -1 -> uint32 0). The returned Options carry the effective `sat`.
"""

from __future__ import annotations

from dataclasses import dataclass

from neurondbg.machine.convert.formats import Format, parse_format
from neurondbg.machine.convert.modes import MODES, Mode

PROFILES: tuple[str, ...] = ("ieee", "neuron", "ascend")

_FIVE = (Mode.RINT, Mode.ROUND, Mode.FLOOR, Mode.CEIL, Mode.TRUNC)
_EXACT: tuple[str, ...] = ()  # RoundMode::UNKNOWN: the conversion is exact
# (src, dst) -> modes, ref 002 Table 3 (float -> int), 4 (float -> float), 5 (int -> float).
ASCEND_MODES: dict[tuple[str, str], tuple[str, ...]] = {
    **{(s, d): _FIVE for s, d in (
        ("fp16", "int4"), ("fp32", "int16"), ("fp16", "int8"), ("fp16", "uint8"),
        ("fp32", "int64"), ("fp32", "int32"), ("fp16", "int16"), ("fp16", "int32"))},
    ("fp16", "fp32"): _EXACT, ("bf16", "fp32"): _EXACT, ("hif8", "fp16"): _EXACT,
    ("fp32", "bf16"): _FIVE, ("fp32", "fp16"): (Mode.ODD, *_FIVE),
    ("fp16", "hif8"): (Mode.ROUND, Mode.HYBRID), ("fp32", "hif8"): (Mode.ROUND, Mode.HYBRID),
    ("fp32", "fp8_e5m2"): (Mode.RINT,), ("fp32", "fp8_e4m3fn"): (Mode.RINT,),
    ("hif8", "fp32"): _EXACT, ("fp8_e4m3fn", "fp32"): _EXACT, ("fp8_e5m2", "fp32"): _EXACT,
    ("bf16", "fp4_e2m1"): _FIVE, ("bf16", "fp4_e1m2"): _FIVE,
    ("fp4_e2m1", "bf16"): _EXACT, ("fp4_e1m2", "bf16"): _EXACT,
    ("bf16", "fp16"): _FIVE, ("fp16", "bf16"): _FIVE,
    ("bf16", "fp8_e8m0"): (Mode.RINT,), ("fp8_e8m0", "bf16"): _EXACT,
    **{(s, d): _EXACT for s, d in (
        ("int4", "fp16"), ("int4", "bf16"), ("uint8", "fp16"), ("int8", "fp16"),
        ("int16", "fp32"))},
    ("int64", "fp32"): _FIVE, ("int16", "fp16"): _FIVE, ("int32", "fp32"): _FIVE,
}


# pairs whose ref 002 rounding is UNKNOWN but not exact: the rule neurondbg fixes, and why
ASCEND_FIXED: dict[tuple[str, str], str] = {
    ("bf16", "fp8_e8m0"): "ref 002 lists this pair's rounding as UNKNOWN; neurondbg fixes it to "
                          "rint: nearest, ties to the even code, as ml_dtypes astype",
}


@dataclass(frozen=True)
class Options:
    src: Format
    dst: Format
    mode: Mode
    sat: bool
    profile: str


def parse_mode(mode: str) -> Mode:
    """A Mode from its name; ValueError (one line, listing the modes) otherwise."""
    try:
        return Mode(mode)
    except ValueError:
        raise ValueError(f"unknown mode {str(mode)!r}; expected one of: "
                         f"{', '.join(MODES)}") from None


def parse_profile(profile: str) -> str:
    """A profile name, checked; ValueError (one line, listing the profiles) otherwise."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; expected one of: {', '.join(PROFILES)}")
    return profile


def ascend_modes(src: Format, dst: Format) -> tuple[str, ...]:
    """Modes the ascend profile accepts for src -> dst (see the module docstring)."""
    listed = ASCEND_MODES.get((src.name, dst.name))
    if listed is None:
        if src.is_int and dst.is_int:
            return MODES[:-1]  # int -> int: exact or wrapped/saturated, no rounding
        return _FIVE + ((Mode.HYBRID,) if dst.is_hif8 else ())
    return listed or MODES[:-1]


def resolve(src: str | Format, dst: str | Format, mode: str = "rint", sat: bool = False,
            profile: str = "ieee") -> Options:
    """Check names and combinations; ValueError (one line, listing choices) otherwise."""
    s = src if not isinstance(src, str) else parse_format(src)
    d = dst if not isinstance(dst, str) else parse_format(dst)
    m = parse_mode(mode)
    profile = parse_profile(profile)
    mode = m.value  # messages quote the plain name
    if s.output_only:
        raise ValueError(f"{s.name} is an output-only format; source formats: fp32, fp16, bf16, "
                         "fp8_*, hif8, fp4_*, int*/uint*")
    if profile == "neuron" and m is not Mode.RINT:
        raise ValueError(f"profile 'neuron' rounds as numpy astype (mode 'rint' only), "
                         f"not {mode!r}; use --profile ieee or ascend to choose a mode")
    if m is Mode.HYBRID and (not d.is_hif8 or s.is_int):
        raise ValueError(f"mode 'hybrid' is HiFloat8 rounding (ref 002 Table 9/10): it needs "
                         f"a float source and --to hif8, not {s.name} -> {d.name}; "
                         f"other modes: {', '.join(MODES[:-1])}")
    if profile == "ascend":
        allowed = ascend_modes(s, d)
        if mode not in allowed:
            fixed = ASCEND_FIXED.get((s.name, d.name))
            why = f" ({fixed})" if fixed else " (ref 002 Tables 3-6)"
            raise ValueError(f"profile 'ascend' converts {s.name} -> {d.name} with "
                             f"mode{'s' if len(allowed) > 1 else ''} {', '.join(allowed)}"
                             f"{why}, not {mode!r}")
        if d.is_fp32:
            sat = False  # ref 002: fp32 output supports only the non-saturating mode
        if s.is_int and d.is_int and d.bits > s.bits:
            sat = True  # ref 002: narrow -> wide integers only saturate (negative -> 0)
    return Options(s, d, m, bool(sat), profile)


def applied_mode(opt: Options) -> Mode:
    """The rounding the conversion really applies (for labels): the neuron Cast truncates
    toward zero into an integer target (ref 003 §3) whatever `mode` says."""
    return Mode.TRUNC if opt.profile == "neuron" and opt.dst.is_int else opt.mode


def rules(src: Format, dst: Format, profiles: tuple[str, ...] = ("ieee",),
          sats: tuple[bool, ...] = (False,)) -> list[Options]:
    """Every (profile, mode, sat) the options accept for src -> dst, in PROFILES x MODES
    order, each once (a profile that forces `sat` does not repeat a rule)."""
    out: list[Options] = []
    for profile in profiles:
        for mode in MODES:
            for sat in sats:
                try:
                    opt = resolve(src, dst, mode, sat, profile)
                except ValueError:
                    continue
                if opt not in out:
                    out.append(opt)
    return out
