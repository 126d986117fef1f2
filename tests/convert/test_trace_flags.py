"""A trace's flags say what happened: underflow, and no "exact" for a changed special value."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.cli import cli
from neurondbg.machine.convert import trace
from neurondbg.machine.convert.formats import FORMATS


def f32(x: float) -> int:
    return int(np.array([x], np.float32).view(np.uint32)[0])


@pytest.mark.parametrize("bits,src,dst,sat,flags", [
    (f32(1e-6), "fp32", "fp16", False, ["inexact", "underflow"]),  # a rounded subnormal
    (f32(2.0**-20), "fp32", "fp16", False, ["exact", "underflow"]),  # an exact subnormal
    (f32(1e-30), "fp32", "fp16", False, ["inexact", "underflow"]),  # flushed to zero
    (f32(-1e-30), "fp32", "bf16", False, ["inexact"]),  # bf16 holds it as a normal
    (f32(1e-30), "fp32", "hif8", False, ["inexact", "underflow"]),
    (f32(2.0**-20), "fp32", "hif8", False, ["exact", "underflow"]),  # a HiF8 denormal
    (0, "fp32", "fp16", False, ["exact"]),  # zero from zero: nothing left the range
    (f32(0.25), "fp32", "int8", False, ["inexact"]),  # integer targets: no underflow
    (0x7F800000, "fp32", "fp8_e4m3fn", True, ["inexact", "saturated", "overflow"]),
    (0xFF800000, "fp32", "fp16", True, ["inexact", "saturated", "overflow"]),
    (0x7F800000, "fp32", "fp16", False, ["exact", "inf"]),  # inf stays inf: no overflow
    (0x7F800000, "fp32", "fp8_e4m3fn", False, ["inexact", "overflow", "nan"]),  # no inf
    (0x7FC00000, "fp32", "fp16", False, ["exact", "nan"]),  # NaN stays NaN
    (0x7FC00000, "fp32", "int8", False, ["inexact"]),  # NaN -> 0 is no longer NaN
])
def test_flags(bits: int, src: str, dst: str, sat: bool, flags: list[str]) -> None:
    assert trace(bits, src, dst, "rint", sat).flags == flags


def test_cli_inf_saturated_is_not_exact() -> None:
    res = CliRunner().invoke(cli, ["convert", "inf", "--from", "fp32", "--to", "fp8_e4m3fn",
                                   "--sat", "--json"])
    assert res.exit_code == 0, res.output
    row = json.loads(res.output)[0]
    assert row["output_value"] == 448.0 and row["flags"] == ["inexact", "saturated", "overflow"]


FLOATS = [n for n, f in FORMATS.items() if not f.is_int and n != "fp32r"]


@settings(deadline=None, max_examples=300)
@given(st.sampled_from(FLOATS), st.sampled_from([*FLOATS, "fp32r"]), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_underflow_is_a_tiny_output_of_a_nonzero_input(src: str, dst: str, sat: bool,
                                                       raw: int) -> None:
    bits = raw & ((1 << FORMATS[src].bits) - 1)
    try:
        t = trace(bits, src, dst, "rint", sat)
    except ValueError:
        return
    tiny = t.output_class in ("subnormal", "zero")
    nonzero_finite = t.input_class in ("normal", "subnormal")
    assert ("underflow" in t.flags) is (tiny and nonzero_finite)
    assert ("exact" in t.flags) is (t.output_value == t.input_value
                                    or (t.nan and t.input_class == "nan"))
