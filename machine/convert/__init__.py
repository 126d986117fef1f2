"""Bit-exact number conversion: vectorized kernels and per-lane traces.

Public API (DESIGN.md "Conversion API", stable):
    convert(bits, src, dst, mode="rint", sat=False, profile="ieee") -> numpy array
    trace(bits, src, dst, mode="rint", sat=False, profile="ieee") -> Trace

`convert` lives in machine.convert.kernels, `trace` in machine.convert.trace;
both validate their arguments with machine.convert.options.
"""

from __future__ import annotations

# Eager on purpose: the submodule `machine.convert.trace` would otherwise shadow the
# function of the same name once anything imported it.
from machine.convert.kernels import convert
from machine.convert.trace import trace

__all__ = ["convert", "trace"]
