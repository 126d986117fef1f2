"""Formats as data, modes as an enum: the descriptor flags the kernels branch on."""

from __future__ import annotations

import json

import numpy as np
import pytest

from neurondbg.machine.convert import FORMATS, Mode, convert, trace
from neurondbg.machine.convert.modes import MODES
from neurondbg.machine.convert.options import parse_mode, resolve


def names(flag: str) -> list[str]:
    return [n for n, f in FORMATS.items() if getattr(f, flag)]


def test_descriptor_flags_pick_the_formats_the_rules_name() -> None:
    assert names("is_fp32") == ["fp32"]
    assert names("is_fp16") == ["fp16"]
    assert names("is_scale") == ["fp8_e8m0"]
    assert names("output_only") == ["fp32r"]
    assert names("is_hif8") == ["hif8"]
    assert names("is_minifloat") == ["fp8_e3m4", "fp8_e4m3", "fp8_e4m3fn", "fp8_e5m2",
                                     "fp4_e2m1", "fp4_e1m2"]
    assert names("is_int") == [n for n in FORMATS if "int" in n]
    assert names("is_float") == [n for n in FORMATS if n not in [*names("is_int"), "hif8"]]


def test_every_format_has_exactly_one_family() -> None:
    for f in FORMATS.values():
        assert [f.is_float, f.is_int, f.is_hif8].count(True) == 1, f.name


def test_modes_are_the_cli_strings() -> None:
    assert MODES == ("rint", "round", "floor", "ceil", "trunc", "odd", "hybrid")
    assert [m.value for m in Mode] == list(MODES)
    assert Mode.RINT == "rint" and str(Mode.ODD) == "odd" and f"{Mode.CEIL}" == "ceil"
    assert json.dumps({"mode": Mode.TRUNC}) == '{"mode": "trunc"}'
    assert [m for m in Mode if m.directed] == [Mode.FLOOR, Mode.CEIL, Mode.TRUNC]


def test_resolve_gives_a_mode_and_keeps_its_messages() -> None:
    assert resolve("fp32", "bf16", "round").mode is Mode.ROUND
    assert parse_mode("odd") is Mode.ODD
    with pytest.raises(ValueError, match=r"^unknown mode 'up'; expected one of: rint, round, "
                                         r"floor, ceil, trunc, odd, hybrid$"):
        resolve("fp32", "bf16", "up")
    with pytest.raises(ValueError, match=r"not 'floor'; use --profile"):
        resolve("fp32", "bf16", Mode.FLOOR, profile="neuron")
    with pytest.raises(ValueError, match="fp32r is an output-only format"):
        resolve("fp32r", "fp32")


@pytest.mark.parametrize("mode", list(Mode)[:-1])
def test_a_mode_member_and_its_string_convert_alike(mode: Mode) -> None:
    bits = np.arange(0, 1 << 16, 7, dtype=np.uint16)
    by_member = convert(bits, "fp16", "fp8_e4m3", mode, True)
    by_string = convert(bits, "fp16", "fp8_e4m3", mode.value, True)
    assert by_member.tobytes() == by_string.tobytes()
    t = trace(0x3C01, "fp16", "fp8_e4m3", mode)
    assert t.output_bits == trace(0x3C01, "fp16", "fp8_e4m3", mode.value).output_bits


@pytest.mark.parametrize(("src", "nan", "hub"), [
    ("fp16", 0x7E01, 0x7FC02000), ("fp16", 0xFD55, 0xFFAAA000),
    ("bf16", 0x7FC1, 0x7FC10000), ("bf16", 0xFF81, 0xFF810000),
])
def test_neuron_widening_keeps_a_16_bit_nan_payload(src: str, nan: int, hub: int) -> None:
    # the payload shift follows the descriptor (23 - man_bits): fp16 << 13, bf16 << 16
    assert trace(nan, src, "fp32", profile="neuron").output_bits == hub
    assert int(convert(np.array([nan], np.uint16), src, "fp32", profile="neuron")[0]) == hub
