"""Bit-exact number conversion: vectorized kernels and per-lane traces.

Public API (DESIGN.md "Conversion API", stable):
    convert(bits, src, dst, mode="rint", sat=False, profile="ieee") -> numpy array
    trace(bits, src, dst, mode="rint", sat=False, profile="ieee") -> Trace
"""
