"""Validated conversion options: formats, rounding mode, saturation, profile.

`convert` and `trace` both call `resolve`, so they accept and reject exactly
the same argument combinations, with the same one-line messages.
"""

from __future__ import annotations

from dataclasses import dataclass

from machine.convert.formats import Format, parse_format

MODES: tuple[str, ...] = ("rint", "round", "floor", "ceil", "trunc", "odd", "hybrid")
PROFILES: tuple[str, ...] = ("ieee", "neuron", "ascend")


@dataclass(frozen=True)
class Options:
    src: Format
    dst: Format
    mode: str
    sat: bool
    profile: str


def resolve(src: str | Format, dst: str | Format, mode: str = "rint", sat: bool = False,
            profile: str = "ieee") -> Options:
    """Check names and combinations; ValueError (one line, listing choices) otherwise."""
    s = src if not isinstance(src, str) else parse_format(src)
    d = dst if not isinstance(dst, str) else parse_format(dst)
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of: {', '.join(MODES)}")
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; expected one of: {', '.join(PROFILES)}")
    if profile == "neuron" and mode != "rint":
        raise ValueError(f"profile 'neuron' rounds as numpy astype (mode 'rint' only), "
                         f"not {mode!r}; use --profile ieee or ascend to choose a mode")
    return Options(s, d, mode, bool(sat), profile)
