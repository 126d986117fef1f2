"""neurondbg.params: one click type per kind of value, the same names in every subcommand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.shell_completion import ShellComplete
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.convert.options import Mode
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen, parse_gen_name
from neurondbg.params import ENGINE, FORMAT, GEN, MODE, PROFILE, EngineType

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
LOOP = str(EXAMPLES / "loop.asm")


def completions(*words: str, incomplete: str) -> list[tuple[str, str | None]]:
    comp = ShellComplete(cli, {}, "neurondbg", "_NEURONDBG_COMPLETE")
    return [(c.value, c.help) for c in comp.get_completions(list(words), incomplete)]


@pytest.mark.parametrize(("text", "gen"), [
    ("cayman", Gen.CAYMAN), ("MARIANA", Gen.MARIANA), ("trn1", Gen.SUNDA), ("inf2", Gen.SUNDA),
    ("TRN2", Gen.CAYMAN), (" trn3 ", Gen.MARIANA), ("gen5", Gen.MAVERICK),
])
def test_generation_names(text: str, gen: Gen) -> None:
    assert parse_gen_name(text) is gen and GEN.convert(text, None, None) is gen


@pytest.mark.parametrize("text", ["trn9", "gen9", "tonga", ""])
def test_unknown_generation_lists_codenames_then_products(text: str) -> None:
    with pytest.raises(ValueError, match=r"expected one of: sunda, cayman, mariana, maverick, "
                                         r"trn1, inf2, trn2, trn3$"):
        parse_gen_name(text)


def test_product_names_are_accepted_by_every_gen_option(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["run", LOOP, "--gen", "trn3", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["gen"] == "mariana"
    r = CliRunner().invoke(cli, ["validate", LOOP, "--gen", "trn1", "--summary"])
    assert json.loads(r.stdout)["gen"] == "sunda"
    out = tmp_path / "loop.bin"
    assert CliRunner().invoke(cli, ["asm", LOOP, "-o", str(out), "--gen", "trn2"]).exit_code == 0
    assert CliRunner().invoke(cli, ["disasm", str(out), "--gen", "trn2"]).exit_code == 0
    # FP8_EXP4 under trn3 (mariana) is OCP e4m3fn: 0x78 is 256, not +inf
    r = CliRunner().invoke(cli, ["convert", "0x78", "--bits", "--from", "FP8_EXP4", "--to",
                                 "fp32", "--gen", "trn3", "--json"])
    assert json.loads(r.stdout)[0]["output_value"] == 256.0


def test_defaults_are_the_default_generation() -> None:
    r = CliRunner().invoke(cli, ["run", LOOP, "--json"])
    assert json.loads(r.stdout)["gen"] == DEFAULT_GEN.label


@pytest.mark.parametrize(("args", "line"), [
    (["run", LOOP, "--gen", "trn9"],
     "neurondbg: error: run: Invalid value for '--gen': "
     "unknown generation 'trn9'; expected one of: sunda, cayman, "
     "mariana, maverick, trn1, inf2, trn2, trn3"),
    (["run", LOOP, "--engine", "gpu"],
     "neurondbg: error: run: Invalid value for '--engine': "
     "unknown engine 'gpu'; expected one of: pool, dve, act, "
     "pe, sp"),
    (["validate", LOOP, "--engine", "gpu"],
     "neurondbg: error: validate: Invalid value for '--engine': "
     "unknown engine 'gpu'; expected one of: pool, dve, "
     "act, pe, sp, any"),
    (["convert", "1", "--from", "fp9", "--to", "fp16"],
     "neurondbg: error: convert: Invalid value for '--from': "
     "unknown format 'fp9'; expected one of: fp32, fp32r, "
     "fp16, bf16, fp8_e3m4, fp8_e4m3, fp8_e4m3fn, fp8_e5m2, fp8_e8m0, hif8, fp4_e2m1, "
     "fp4_e1m2, int4, uint4, int8, uint8, int16, uint16, int32, uint32, int64, uint64 (or a "
     "Neuron dtype name such as FP8_EXP4, BFLOAT16)"),
    (["convert", "1", "--from", "fp32", "--to", "fp16", "--mode", "up"],
     "neurondbg: error: convert: Invalid value for '--mode': "
     "unknown mode 'up'; expected one of: rint, round, "
     "floor, ceil, trunc, odd, hybrid"),
    (["convert", "1", "--from", "fp32", "--to", "fp16", "--profile", "arm"],
     "neurondbg: error: convert: Invalid value for '--profile': "
     "unknown profile 'arm'; expected one of: ieee, "
     "neuron, ascend"),
])
def test_bad_values_are_one_line_exit_2(args: list[str], line: str) -> None:
    r = CliRunner().invoke(cli, args)
    cmd = f"neurondbg {args[0]}"
    assert r.exit_code == 2 and r.output == f"{line} (see `{cmd} --help`)\n"


def test_the_entry_point_prints_them_as_usage_errors() -> None:
    r = subprocess.run([sys.executable, "-m", "neurondbg", "disasm", LOOP, "--gen", "trn9"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == ("neurondbg: error: disasm: Invalid value for '--gen': unknown "
                        "generation 'trn9'; expected one of: sunda, cayman, mariana, maverick, "
                        "trn1, inf2, trn2, trn3 (see `neurondbg disasm --help`)\n")


def test_engines_are_case_insensitive_and_validate_adds_any() -> None:
    assert ENGINE.convert("DVE", None, None) == "dve"
    assert EngineType(extra=("any",)).convert("Any", None, None) == "any"
    with pytest.raises(click.BadParameter):
        ENGINE.convert("any", None, None)


def test_modes_are_the_enum_and_formats_stay_names() -> None:
    assert MODE.convert("odd", None, None) is Mode.ODD
    assert PROFILE.convert("ascend", None, None) == "ascend"
    assert FORMAT.convert("FP8_EXP4", None, None) == "FP8_EXP4"  # resolved under --gen later


@pytest.mark.parametrize(("words", "incomplete", "expected"), [
    (("run", LOOP, "--gen"), "tr", [("trn1", "sunda"), ("trn2", "cayman"), ("trn3", "mariana")]),
    (("tui", "--gen"), "ma", [("mariana", None), ("maverick", None)]),
    (("validate", LOOP, "--engine"), "", [(e, None) for e in ("pool", "dve", "act", "pe", "sp",
                                                              "any")]),
    (("replay", "t.jsonl", LOOP, "--engine"), "d", [("dve", None)]),
    (("convert", "1", "--from"), "fp8_e4", [("fp8_e4m3", None), ("fp8_e4m3fn", None)]),
    (("convert", "1", "--mode"), "r", [("rint", None), ("round", None)]),
    (("convert", "1", "--profile"), "", [("ieee", None), ("neuron", None), ("ascend", None)]),
    (("check-nki", "c.json", "--gen"), "TRN", [("trn1", "sunda"), ("trn2", "cayman"),
                                               ("trn3", "mariana")]),
    (("asm", LOOP, "--gen"), "s", [("sunda", None)]),
])
def test_shell_completion(words: tuple[str, ...], incomplete: str,
                          expected: list[tuple[str, str | None]]) -> None:
    assert completions(*words, incomplete=incomplete) == expected
