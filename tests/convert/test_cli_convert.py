"""`neurondbg convert`: values, --bits, JSON shape, the trace table, one-line errors (exit 2)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.commands.convert import parse_value


def run(*args: str):
    return CliRunner().invoke(cli, ["convert", *args])


def run_json(*args: str) -> list[dict]:
    res = run(*args, "--json")
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_json_shape_and_values() -> None:
    rows = run_json("1.233", "-inf", "nan", "0x1p-3", "-0", "--from", "fp32", "--to",
                    "fp8_e4m3fn")
    assert [r["input"] for r in rows] == ["1.233", "-inf", "nan", "0x1p-3", "-0"]
    for r in rows:
        assert {"input", "input_bits", "output_bits", "output_value", "profile", "mode",
                "sat"} <= set(r)
        assert r["profile"] == "ieee" and r["mode"] == "rint" and r["sat"] is False
    assert [r["input_bits"] for r in rows] == ["0x3f9dd2f2", "0xff800000", "0x7fc00000",
                                               "0x3e000000", "0x80000000"]
    # ref 002 worked example: fp32 1.233 -> fp8_e4m3fn 0 0111 010 = 1.25
    assert [r["output_bits"] for r in rows] == ["0x3a", "0xff", "0x7f", "0x20", "0x80"]
    assert rows[0]["output_value"] == 1.25 and rows[3]["output_value"] == 0.125
    assert rows[1]["output_value"] == "nan"  # e4m3fn has no infinity


def test_bits_mode_sat_profile_and_aliases() -> None:
    rows = run_json("0x3f9dd2f2", "7f800000", "--bits", "--from", "FP32", "--to", "FP8_EXP5",
                    "--mode", "trunc", "--sat")
    assert [r["output_bits"] for r in rows] == ["0x3c", "0x7b"]
    assert rows[0]["mode"] == "trunc" and rows[0]["sat"] is True
    rows = run_json("16777217", "--from", "int32", "--to", "uint32", "--profile", "neuron")
    assert rows[0]["output_value"] == 16777216  # through the fp32 hub
    rows = run_json("16777217", "--from", "int32", "--to", "int32", "--profile", "neuron")
    assert rows[0]["output_value"] == 16777217  # same dtype: the Copy bit move
    rows = run_json("257", "--from", "fp16", "--to", "uint8", "--profile", "ascend")
    assert rows[0]["output_bits"] == "0x01" and rows[0]["output_value"] == 1
    rows = run_json("0x7", "--bits", "--from", "fp4_e2m1", "--to", "fp32")
    assert rows[0]["input_bits"] == "0x7" and rows[0]["output_value"] == 6.0
    rows = run_json("-1", "--from", "int64", "--to", "uint64", "--sat")
    assert rows[0]["output_value"] == 0 and rows[0]["output_bits"] == "0x0000000000000000"


def test_decimal_parsing_is_one_exact_rounding() -> None:
    # 1 + 2^-24 + 2^-60 is just above an fp32 midpoint: a float64 detour would land on the
    # midpoint (1 + 2^-24) and round to even (down); the exact parse rounds up.
    text = repr(1 + 2**-24) + "0000000001"
    assert parse_value(text, _fmt("fp32")) == 0x3F800001
    assert parse_value("1.233", _fmt("fp16")) == 0x3CEF
    assert parse_value("65520", _fmt("fp16")) == 0x7C00  # the fp16 overflow threshold
    assert parse_value("-0", _fmt("bf16")) == 0x8000


def _fmt(name: str):
    from neurondbg.machine.convert.formats import FORMATS

    return FORMATS[name]


def test_table_output_and_trace_render() -> None:
    res = run("1.233", "--from", "fp32", "--to", "fp8_e4m3fn")
    assert res.exit_code == 0
    assert "0x3a" in res.output and "1.25" in res.output
    res = run("1.233", "--from", "fp32", "--to", "fp8_e4m3fn", "--trace")
    assert res.exit_code == 0, res.output
    for word in ("decode", "grs", "round", "encode", "0|0111|010"):  # piped: parts split by |
        assert word in res.output
    res = run("1.233", "--from", "fp32", "--to", "fp8_e4m3fn", "--trace", "--json")
    steps = json.loads(res.output)[0]["trace"]["steps"]
    assert steps[0]["name"] == "decode" and steps[-1]["name"] == "error"


def test_trace_bits_are_coloured_by_role() -> None:
    from rich.console import Console

    from neurondbg.commands.convert import ROLE_STYLES, colour_bits

    text = colour_bits("0011", ((0, 1, "sign"), (1, 3, "guard"), (3, 4, "sticky")))
    spans = {(s.start, s.end): str(s.style) for s in text.spans}
    assert spans == {(0, 1): ROLE_STYLES["sign"], (1, 3): ROLE_STYLES["guard"],
                     (3, 4): ROLE_STYLES["sticky"]}
    console = Console(force_terminal=True, color_system="truecolor", width=40)
    with console.capture() as cap:
        console.print(text)
    assert "\x1b[" in cap.get()


@pytest.mark.parametrize("args,needle", [
    (["1", "--from", "fp33", "--to", "fp16"], "unknown format 'fp33'"),
    (["1", "--from", "fp32", "--to", "fp16", "--mode", "foo"], "unknown mode 'foo'"),
    (["1", "--from", "fp32", "--to", "fp16", "--profile", "arm"], "unknown profile 'arm'"),
    (["x1", "--from", "fp32", "--to", "fp16"], "expected a number"),
    (["1.5", "--from", "int8", "--to", "fp16"], "expected an integer"),
    (["300", "--from", "int8", "--to", "fp16"], "[-128, 127]"),
    (["nan", "--from", "int8", "--to", "fp16"], "int8 has no nan"),
    (["0x1ff", "--bits", "--from", "fp8_e4m3", "--to", "fp32"], "too wide for fp8_e4m3"),
    (["0xzz", "--bits", "--from", "fp16", "--to", "fp32"], "hex bit pattern"),
    (["1", "--from", "fp32", "--to", "bf16", "--profile", "neuron", "--mode", "floor"],
     "rint"),
    (["1", "--from", "fp32", "--to", "fp16", "--mode", "hybrid"], "hybrid"),
    (["1", "--from", "fp32", "--to", "fp8_e4m3fn", "--profile", "ascend", "--mode", "floor"],
     "ascend"),
    (["1", "--from", "fp32r", "--to", "fp32"], "output-only"),
    (["1", "--to", "fp16"], "missing --from"),
    (["1", "--from", "fp16"], "missing --to"),
    (["--from", "fp32", "--to", "fp16"], "at least one VALUE"),
])
def test_errors_are_one_line_exit_2(args: list[str], needle: str) -> None:
    res = CliRunner().invoke(cli, ["convert", *args])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("neurondbg: error: "), res.output
    assert needle in lines[0]
    assert res.exception is None or isinstance(res.exception, SystemExit)


def test_real_entry_point_has_no_traceback() -> None:
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-m", "neurondbg", "convert", "-inf", "--from",
                          "fp32", "--to", "fp9"], capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip().splitlines() == [res.stderr.strip()]


def test_error_lists_the_choices() -> None:
    out = run("1", "--from", "fp32", "--to", "fp16", "--mode", "foo").output
    assert "rint, round, floor, ceil, trunc, odd, hybrid" in out
    out = run("1", "--from", "nope", "--to", "fp16").output
    assert "fp8_e4m3fn" in out and "hif8" in out


# --- --gen: Neuron dtype names per generation ---------------------------------------------

def test_gen_resolves_fp8_exp4() -> None:
    # 0x78 = 0 1111 000: IEEE-style e4m3 (sunda/cayman) reads +inf, OCP e4m3fn (mariana+) 256
    # (isa-facts §8.2, machine.dtypes.fp8_exp4_format).
    for gen, src, value in (("sunda", "fp8_e4m3", "inf"), ("cayman", "fp8_e4m3", "inf"),
                            ("mariana", "fp8_e4m3fn", 256.0),
                            ("maverick", "fp8_e4m3fn", 256.0)):
        row = run_json("0x78", "--bits", "--from", "FP8_EXP4", "--to", "fp32", "--gen", gen)[0]
        assert (row["src"], row["output_value"]) == (src, value), gen
    default = run_json("0x78", "--bits", "--from", "FP8_EXP4", "--to", "fp32")[0]
    assert default["src"] == "fp8_e4m3"  # cayman
    row = run_json("256", "--from", "fp32", "--to", "FP8_EXP4", "--gen", "MARIANA")[0]
    assert (row["dst"], row["output_bits"]) == ("fp8_e4m3fn", "0x78")


# --- --iss: the ISS primitives of reference 003 -------------------------------------------

def iss_json(*args: str) -> list[dict]:
    return run_json("--iss", *args)


@pytest.mark.parametrize("args,src,dst,bits", [
    # packvr shift 4: (-1000 + 8) >> 4 = -62 (round half up), ref 003 §7.2
    (["packvr", "--param", "shift=4", "-1000"], "int48", "int16", ["0xffc2"]),
    # 8-bit lanes take a 24-bit accumulator; (0x7fffff + 8) >> 4 saturates to 127
    (["packvr", "--param", "shift=4", "--param", "width=8", "--bits", "0x7fffff"],
     "int24", "int8", ["0x7f"]),
    (["float", "--param", "width=8", "-5", "127"], "int8", "fp32",
     ["0xc0a00000", "0x42fe0000"]),
    # trunc: toward zero, +-inf / overflow saturate, NaN -> 0 (ref 003 §3.1)
    (["trunc", "-1.5", "nan", "inf", "-inf", "3e9"], "fp32", "int32",
     ["0xffffffff", "0x00000000", "0x7fffffff", "0x80000000", "0x7fffffff"]),
    (["utrunc", "-3", "65535.9"], "fp32", "uint32", ["0x00000000", "0x0000ffff"]),
    (["widen", "--bits", "0x0001", "0xfc00"], "fp16", "fp32", ["0x33800000", "0xff800000"]),
    # narrow: RNE overflows 65520 to inf; RTZ (round_mode=1) keeps the largest finite value
    (["narrow", "65520"], "fp32", "fp16", ["0x7c00"]),
    (["narrow", "--param", "round_mode=1", "65520"], "fp32", "fp16", ["0x7bff"]),
    (["sats", "70000", "-70000", "-5"], "int32", "int16", ["0x7fff", "0x8000", "0xfffb"]),
    (["packl", "--bits", "0x123456789abc"], "int48", "int16", ["0x9abc"]),
    # pack shift 4: (0x12345678 + (1 << 3)) >> 4, low 16 bits
    (["pack", "--param", "shift=4", "--bits", "0x12345678"], "int32", "int16", ["0x4568"]),
    (["sext", "--bits", "0x8001"], "int16", "int32", ["0xffff8001"]),
    (["zeroext", "--bits", "0xffffffff"], "uint32", "uint48", ["0x0000ffffffff"]),
])
def test_iss_values(args: list[str], src: str, dst: str, bits: list[str]) -> None:
    rows = iss_json(*args)
    assert [r["output_bits"] for r in rows] == bits
    for r in rows:
        assert (r["src"], r["dst"], r["primitive"]) == (src, dst, args[0])
        assert "profile" not in r and "mode" not in r
        assert {"input", "input_bits", "input_value", "output_value", "params"} <= set(r)


def test_iss_json_values_params_and_trace() -> None:
    row = iss_json("packvr", "--param", "shift=4", "-1000", "--trace")[0]
    assert row["params"] == {"shift": 4, "width": 16}
    assert row["input_bits"] == "0xfffffffffc18" and row["input_value"] == -1000
    assert row["output_value"] == -62 and row["section"] == "ref 003 §7.2"
    steps = row["trace"]["steps"]
    assert steps[0]["name"] == "decode" and steps[-1]["name"] == "error"
    assert row["trace"]["output_bits"] == "0xffc2"
    row = iss_json("float", "--param", "width=16", "--param", "dst=fp16", "--param",
                   "round_mode=3", "2049")[0]  # 2049 between 2048 and 2050: toward -inf
    assert row["params"] == {"width": 16, "dst": "fp16", "round_mode": 3}
    assert row["output_value"] == 2048.0 and row["dst"] == "fp16"
    assert iss_json("zeroext", "--bits", "0xffffffff")[0]["output_value"] == 0xFFFFFFFF


def test_iss_table_and_trace_text() -> None:
    res = run("--iss", "packvr", "--param", "shift=4", "-1000", "--trace")
    assert res.exit_code == 0, res.output
    for word in ("ISS packvr(shift=4, width=16): int48 -> int16", "ref 003 §7.2", "0xffc2",
                 "-62", "decode", "round", "encode", "1|111111111000010"):
        assert word in res.output


@pytest.mark.parametrize("args,needle", [
    (["--iss", "foo", "1"], "unknown ISS primitive 'foo'; expected one of: float, ufloat"),
    (["--iss", "packvr", "--param", "shift", "1"], "expected NAME=VALUE"),
    (["--iss", "packvr", "--param", "shift=x", "1"], "shift takes an integer, got 'x'"),
    (["--iss", "packvr", "--param", "shift=40", "1"], "shift must be one of 0..31; got 40"),
    (["--iss", "packvr", "--param", "bogus=1", "1"], "has no parameter bogus"),
    (["--iss", "trunc", "--param", "src=fp64", "1"], "src must be one of fp16, fp32"),
    (["--iss", "narrow", "--mode", "floor", "1"], "does not take --mode"),
    (["--iss", "narrow", "--mode", "rint", "1"], "does not take --mode"),
    (["--iss", "narrow", "--from", "fp32", "--sat", "1"], "does not take --from, --sat"),
    (["--param", "shift=1", "--from", "fp32", "--to", "fp16", "1"], "--param needs --iss"),
    (["--iss", "trunc"], "at least one VALUE"),
    (["--iss", "sats", "70000.5"], "expected an integer in [-2147483648, 2147483647]"),
    (["--iss", "sats", "--param", "width=8", "70000"], "[-32768, 32767] for int16"),
    (["--iss", "packl", "--bits", "0x1000000000000"], "too wide for int48"),
    (["--from", "FP8_EXP4", "--to", "fp32", "--gen", "zzz", "1"],
     "unknown generation 'zzz'; expected one of: sunda, cayman, mariana, maverick"),
])
def test_iss_and_gen_errors_are_one_line_exit_2(args: list[str], needle: str) -> None:
    res = CliRunner().invoke(cli, ["convert", *args])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    # bad input names the command; a bad option value is a usage error naming its path
    heads = ("neurondbg: error: convert: ", "neurondbg: error: neurondbg convert: ")
    assert len(lines) == 1 and lines[0].startswith(heads), res.output
    assert needle in lines[0]
    assert res.exception is None or isinstance(res.exception, SystemExit)


def test_a_decimal_beyond_the_source_range_is_noted() -> None:
    out = CliRunner().invoke(cli, ["convert", "1e40", "--from", "fp32", "--to", "bf16", "--json"])
    assert out.exit_code == 0
    assert out.stderr == "neurondbg: note: 1e40 is beyond fp32's range: read as inf\n"
    quiet = CliRunner().invoke(cli, ["convert", "1e30", "--from", "fp32", "--to", "bf16"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
