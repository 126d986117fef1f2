"""The dtype enum against reference 000 §4 and isa-facts §8."""

import pytest

from neurondbg.machine.dtypes import Dtype, Gen, dtype_format, dtypes_of, parse_dtype, parse_gen


def test_base_ordinals_reference_000_section_4() -> None:
    expected = ["INVALID", "UINT64", "INT8", "UINT8", "INT16", "UINT16", "BF16", "FP16",
                "INT32", "UINT32", "FP32", "FP32R", "INT64", "FP8_EXP3", "FP8_EXP4", "FP8_EXP5"]
    assert [Dtype(i).name for i in range(16)] == expected


@pytest.mark.parametrize(("gen", "count"), [(Gen.SUNDA, 16), (Gen.CAYMAN, 16),
                                            (Gen.MARIANA, 24), (Gen.MAVERICK, 30)])
def test_enumerator_counts_per_generation(gen: Gen, count: int) -> None:
    assert len(dtypes_of(gen)) == count


def test_fp8_exp4_follows_generation() -> None:
    assert dtype_format(Dtype.FP8_EXP4, Gen.CAYMAN) == "fp8_e4m3"
    assert dtype_format(Dtype.FP8_EXP4, Gen.MARIANA) == "fp8_e4m3fn"
    assert dtype_format(Dtype.FP8_EXP3) == "fp8_e3m4"
    assert dtype_format(0x17) is None


def test_parse() -> None:
    assert parse_dtype("bfloat16") is Dtype.BF16
    assert parse_dtype("0xA") is Dtype.FP32
    assert parse_gen("Maverick") is Gen.MAVERICK
    with pytest.raises(ValueError, match="expected one of"):
        parse_dtype("fp12")
    with pytest.raises(ValueError, match="sunda, cayman, mariana, maverick"):
        parse_gen("tonga")


def test_dtype_name_of_every_byte() -> None:
    """The tabled names equal the enum's; unassigned codes (and numpy ints) show as hex."""
    import numpy as np

    from neurondbg.machine.dtypes import Dtype, dtype_name

    for code in range(256):
        want = Dtype(code).name if code in Dtype._value2member_map_ else f"0x{code:02X}"
        assert dtype_name(code) == dtype_name(np.uint8(code)) == want
    assert dtype_name(Dtype.BF16) == "BF16"
