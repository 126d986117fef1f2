"""Many VALUEs on the command line take the vectorized path of `convert --input`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.commands.convert import TABLE_MAX

OPTS = ["--from", "fp32", "--to", "fp8_e4m3fn"]


def texts(n: int) -> list[str]:
    rng = np.random.default_rng(5)
    out = [f"{v:.5g}" for v in rng.standard_normal(n) * 300]
    out[:4] = ["-inf", "nan", "-0x1p-3", "1e6"]  # specials, a hex float, beyond the range
    return out


@pytest.mark.parametrize("extra", [[], ["--json"], ["--mode", "trunc", "--sat"]])
def test_many_values_print_as_a_file_of_them_does(tmp_path: Path, extra: list[str]) -> None:
    vals = texts(TABLE_MAX + 50)
    f = tmp_path / "v.txt"
    f.write_text("\n".join(vals) + "\n")
    runner = CliRunner()
    args = runner.invoke(cli, ["convert", *vals, *OPTS, *extra])
    file = runner.invoke(cli, ["convert", "--input", str(f), *OPTS, *extra])
    assert args.exit_code == 0 == file.exit_code, args.output
    assert args.stdout == file.stdout
    assert len([ln for ln in args.stdout.splitlines() if not ln.startswith("#")]) == len(vals)


def test_many_values_trace_no_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    import neurondbg.commands.convert as command

    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("a per-value parse or trace on the many-values path")

    monkeypatch.setattr(command, "_trace", refuse)
    monkeypatch.setattr(command, "parse_value", refuse)
    res = CliRunner().invoke(cli, ["convert", *texts(TABLE_MAX + 1), *OPTS, "--json"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(ln) for ln in res.stdout.splitlines()]
    assert rows[0]["input"] == "-inf" and rows[2]["output_value"] == -0.125


def test_a_bad_value_among_many_names_its_position() -> None:
    vals = texts(TABLE_MAX + 10)
    vals[TABLE_MAX] = "1.2.3"
    res = CliRunner().invoke(cli, ["convert", *vals, *OPTS])
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1
    assert lines[0].startswith(f"neurondbg: error: convert: VALUE {TABLE_MAX + 1}: ")


@pytest.mark.parametrize("flag", ["--trace", "--compare"])
def test_per_value_forms_refuse_many_values(flag: str) -> None:
    res = CliRunner().invoke(cli, ["convert", *texts(TABLE_MAX + 1), *OPTS, flag])
    assert res.exit_code == 2
    assert f"{flag} takes at most {TABLE_MAX} VALUEs, got {TABLE_MAX + 1}" in res.output


def test_negative_values_between_options_keep_their_order() -> None:
    res = CliRunner().invoke(cli, ["convert", "-1.5", "--from", "fp32", "-inf", "--to",
                                   "bf16", "-0x1p-3", "--json", "-.5", "--", "-2"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert [r["input"] for r in rows] == ["-1.5", "-inf", "-0x1p-3", "-.5", "-2"]
    assert [r["output_value"] for r in rows] == [-1.5, "-inf", -0.125, -0.5, -2.0]
    bad = CliRunner().invoke(cli, ["convert", "1", "--from", "fp32", "--to", "bf16",
                                   "--mode"])
    assert bad.exit_code == 2 and "--mode" in bad.output
