"""Rounding modes as an enum (DESIGN "Conversion model"; after gfloat's RoundMode).

A Mode is a StrEnum whose value is the CLI / API string, so `convert(..., mode="rint")`
and `mode=Mode.RINT` are the same call, and a Mode prints, hashes and serialises as its
string. The kernels and traces compare against members, never against literals.
"""

from __future__ import annotations

from enum import StrEnum


class Mode(StrEnum):
    """How a value between two representable neighbours is rounded."""

    RINT = "rint"  # nearest, ties to even
    ROUND = "round"  # nearest, ties away from zero
    FLOOR = "floor"  # toward -inf
    CEIL = "ceil"  # toward +inf
    TRUNC = "trunc"  # toward zero
    ODD = "odd"  # round to odd (sticky into the lsb)
    HYBRID = "hybrid"  # HiFloat8 (ref 002 Table 9/10)

    @property
    def directed(self) -> bool:
        """Rounds in a fixed direction (floor, ceil, trunc) rather than to nearest."""
        return self in (Mode.FLOOR, Mode.CEIL, Mode.TRUNC)


MODES: tuple[str, ...] = tuple(m.value for m in Mode)
