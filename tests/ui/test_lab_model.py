"""The Convert Lab's display helpers: input parsing, values, neighbours."""

import itertools
import math

import numpy as np
import pytest

from neurondbg.debug.lab_model import neighbours, parse_input, value_of, values_of
from neurondbg.machine.convert.formats import FORMATS

F = FORMATS


@pytest.mark.parametrize(("text", "fmt", "bits"), [
    ("1.5", "fp32", 0x3FC00000),
    ("0x3f80", "bf16", 0x3F80),
    ("0b0101", "fp4_e2m1", 0b0101),
    ("-1", "int8", 0xFF),
    ("255", "uint8", 0xFF),
    ("1.00390625", "bf16", 0x3F80),  # a tie, rounded to even by machine.convert
    ("inf", "fp16", 0x7C00),
    ("-2", "int4", 0xE),
])
def test_parse_input(text: str, fmt: str, bits: int) -> None:
    assert parse_input(text, F[fmt]) == bits


@pytest.mark.parametrize(("text", "fmt", "fragment"), [
    ("", "fp32", "type a number"),
    ("0x1ff", "uint8", "does not fit in 8 bits"),
    ("1.5", "int8", "takes an integer"),
    ("300", "int8", "out of range"),
    ("abc", "fp32", "expected a number"),
    ("-0x3", "fp16", "no sign"),
])
def test_parse_input_errors(text: str, fmt: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        parse_input(text, F[fmt])


@pytest.mark.parametrize("name", [n for n, f in F.items() if f.bits <= 8])
def test_values_of_matches_value_of_on_every_code(name: str) -> None:
    fmt = F[name]
    codes = np.arange(1 << fmt.bits, dtype=np.uint32)
    vec = values_of(fmt, codes)
    one = np.array([value_of(fmt, int(c)) for c in codes], np.float64)
    np.testing.assert_array_equal(vec, one)


def test_special_values() -> None:
    assert math.isnan(value_of(F["fp8_e4m3fn"], 0x7F))
    assert value_of(F["fp8_e4m3fn"], 0x7E) == 448.0
    assert value_of(F["fp8_e4m3"], 0x77) == 240.0
    assert value_of(F["hif8"], 0x6F) == math.inf
    assert value_of(F["fp4_e1m2"], 0b0111) == 1.75
    assert value_of(F["int4"], 0x8) == -8
    assert value_of(F["uint64"], 2**64 - 1) == 2**64 - 1


def test_neighbours_float() -> None:
    near = neighbours(F["bf16"], 1.00390625)
    assert near == [(0x3F7F, 0.99609375), (0x3F80, 1.0), (0x3F81, 1.0078125),
                    (0x3F82, 1.015625)]


def test_neighbours_fp32_and_fp32r() -> None:
    lo = float(np.float32(0.1))  # 0.1 rounds up in fp32, so 0.1 lies below it
    near = neighbours(F["fp32"], 0.1)
    assert [v for _, v in near][2] == lo
    assert all(a < b for (_, a), (_, b) in itertools.pairwise(near))
    r = neighbours(F["fp32r"], 0.1)
    assert all(code % 1024 == 0 for code, _ in r)
    assert r[1][1] <= 0.1 < r[2][1]


def test_neighbours_int_and_edges() -> None:
    assert neighbours(F["int8"], -3.5) == [(0xFB, -5), (0xFC, -4), (0xFD, -3), (0xFE, -2)]
    assert [v for _, v in neighbours(F["uint8"], 1000.0)] == [254, 255]
    assert neighbours(F["fp16"], math.nan) == []
    top = neighbours(F["fp8_e4m3fn"], 1000.0)
    assert top[-1] == (0x7E, 448.0)
