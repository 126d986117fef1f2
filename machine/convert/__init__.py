"""Bit-exact number conversion: vectorized kernels and per-lane traces.

Public API (DESIGN.md "Conversion API", stable):
    convert(bits, src, dst, mode="rint", sat=False, profile="ieee") -> numpy array
    trace(bits, src, dst, mode="rint", sat=False, profile="ieee") -> Trace

`convert` lives in machine.convert.kernels, `trace` in machine.convert.trace;
both validate their arguments with machine.convert.options.
"""

from __future__ import annotations

from typing import Any

__all__ = ["convert", "trace"]


def __getattr__(name: str) -> Any:
    # Lazy: importing machine.convert for the formats must not build every kernel.
    if name == "convert":
        from machine.convert.kernels import convert

        return convert
    if name == "trace":
        from machine.convert.trace import trace

        return trace
    raise AttributeError(name)
