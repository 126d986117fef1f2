"""Traces of special values show their fields; wording agrees with the output and in number."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.convert import convert, trace
from neurondbg.machine.convert.formats import FORMATS
from neurondbg.machine.convert.roles import plain_bits


def f32(x: float) -> int:
    return int(np.array([x], np.float32).view(np.uint32)[0])


def test_a_nan_output_shows_its_fields_and_the_quiet_bit() -> None:
    t = trace(0x7FC00000, "fp32", "fp16")
    s = t.step("special")
    assert plain_bits(s.bits_after, s.marks) == "0|11111|1000000000"
    assert "(quiet: the mantissa's top bit, the quiet bit, is 1)" in t.step("decode").text
    d = trace(0x7F800001, "fp32", "fp16").step("decode")
    assert "(signalling: the quiet bit, the mantissa's top bit, is 0)" in d.text
    inf = trace(0xFF800000, "fp32", "bf16").step("special")
    assert plain_bits(inf.bits_after, inf.marks) == "1|11111111|0000000"


def test_neuron_nan_to_fp4_e2m1_trace_agrees_with_its_output() -> None:
    for nan, code in ((0x7FC00000, 0x8), (0xFFC00000, 0x0)):
        t = trace(nan, "fp32", "fp4_e2m1", profile="neuron")
        kernel = int(convert(np.array([nan], np.uint32), "fp32", "fp4_e2m1", profile="neuron")[0])
        assert t.output_bits == kernel == code
        s = t.step("special", "from_fp32")
        assert s.bits_after == format(code, "04b") and s.values["code"] == code
        assert f"0x{code:x} = {'-0' if code else '0'}" in s.text
        assert "converts to 0" not in s.text


def test_fp16_nan_payload_step_names_the_code_written() -> None:
    t = trace(0x7F800001, "fp32", "fp16", profile="neuron")  # payload below fp16's 10 bits
    assert t.output_bits == 0x7C01
    assert "0x7c01" in t.step("special", "from_fp32").text


def test_e8m0_speaks_of_no_mantissa() -> None:
    t = trace(f32(3.5), "fp32", "fp8_e8m0")
    assert "has no mantissa" in t.step("align").text and "0 mantissa" not in t.step("align").text
    assert "fp8_e8m0 has no mantissa: the code is the biased exponent 129" in \
        t.step("encode").text
    low = trace(f32(1e-39), "fp32", "fp8_e8m0")
    r = low.step("round")
    assert low.output_bits == 0 and "none" not in r.text and "not representable" not in r.text
    assert "has no zero" in r.text and "ulp" not in r.text.replace("no ulp error", "")


def test_singulars() -> None:
    a = trace(f32(1.5 * 2.0**-7), "fp32", "fp8_e4m3fn").step("align").text
    assert "moves 1 place right" in a and "(1 leading zero)" in a
    g = trace(0x39, "fp8_e4m3", "fp4_e1m2").step("grs").text  # 3 mantissa bits -> 2
    assert g.startswith("1 bit dropped")


def test_an_integer_rounded_out_of_range_has_no_candidates() -> None:
    for profile, out in (("ieee", 127), ("ascend", 301 & 0xFF)):
        t = trace(f32(300.7), "fp32", "int8", "rint", False, profile)
        r = t.step("round")
        assert t.output_bits == out and t.candidates is None and r.values["out_of_range"]
        assert "it rounds to 301, outside int8 [-128, 127]" in r.text
        assert "none" not in r.text and "ulp" not in r.text.replace("no ulp error", "")


PLURAL_SLIPS = re.compile(r"\b1 (places|leading zeros|bits|mantissa bits|bit positions)\b"
                          r"|bit\(s\)|\b0 mantissa bits")
SRCS = [n for n in FORMATS if n != "fp32r"]


@settings(deadline=None, max_examples=300)
@given(st.sampled_from(SRCS), st.sampled_from(list(FORMATS)),
       st.sampled_from(("rint", "round", "floor", "ceil", "trunc", "odd", "hybrid")),
       st.booleans(), st.sampled_from(("ieee", "ascend", "neuron")), st.integers(0, 2**64 - 1))
def test_no_plural_slips(src: str, dst: str, mode: str, sat: bool, profile: str,
                         raw: int) -> None:
    bits = raw & ((1 << FORMATS[src].bits) - 1)
    try:
        t = trace(bits, src, dst, mode, sat, profile)
    except ValueError:
        return
    for s in t.steps:
        assert not PLURAL_SLIPS.search(s.text), s.text
        assert "chosen: none" not in s.text and ": none;" not in s.text, s.text
