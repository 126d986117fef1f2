"""Bit-exact number conversion: vectorized kernels and per-lane traces.

Public API (DESIGN.md "Conversion API", stable):
    convert(bits, src, dst, mode="rint", sat=False, profile="ieee") -> numpy array
    trace(bits, src, dst, mode="rint", sat=False, profile="ieee") -> Trace
    parse_value(text, fmt, *, gen=None) -> ParsedValue   (typed number -> encoding)
    Mode                 the rounding modes (a StrEnum: Mode.RINT == "rint")
    FORMATS[name]        format descriptors (machine.convert.formats)

`convert` lives in machine.convert.kernels, `trace` in machine.convert.trace;
both validate their arguments with machine.convert.options. `parse_value` (in
machine.convert.parse) is the one exact reader of typed numbers: the CLI and the
Convert Lab both use it.
"""

from __future__ import annotations

# Eager on purpose: the submodule `machine.convert.trace` would otherwise shadow the
# function of the same name once anything imported it.
from neurondbg.machine.convert.formats import FORMATS
from neurondbg.machine.convert.kernels import convert
from neurondbg.machine.convert.modes import Mode
from neurondbg.machine.convert.parse import (
           BadNumber,
           ParsedValue,
           encode_exact,
           exact_value,
           parse_value,
)
from neurondbg.machine.convert.trace import trace

__all__ = ["FORMATS", "BadNumber", "Mode", "ParsedValue", "convert", "encode_exact", "exact_value",
           "parse_value", "trace"]
