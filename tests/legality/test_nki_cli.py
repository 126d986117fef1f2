"""`neurondbg check-nki`: exit codes, JSON shape, one-line errors without traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli

LEGAL = {"op": "select_reduce", "gen": "trn2", "args": {
    "dst": {"dtype": "float32", "shape": [128, 64]},
    "predicate": {"dtype": "uint8", "shape": [128, 64]},
    "on_true": {"dtype": "float32", "shape": [128, 64]}, "on_false": 0.0,
    "reduce_cmd": "reset_reduce"}}
ILLEGAL = {**LEGAL, "args": {**LEGAL["args"], "reduce_cmd": "reset"}}
NOTE_ONLY = {"op": "range_select", "gen": "trn2", "args": {
    "on_true_tile": {"dtype": "bf16", "shape": [128, 64]}, "comp_op0": "np.greater",
    "comp_op1": "np.less", "bound0": {"dtype": "fp32", "shape": [128, 1]},
    "bound1": {"dtype": "fp32", "shape": [128, 1]}, "reduce_cmd": "reduce",
    "reduce_res": {"dtype": "bf16", "shape": [128, 1]}}}


def run(tmp_path: Path, content: str | bytes | list[Any], *extra: str) -> Any:
    path = tmp_path / "calls.json"
    if isinstance(content, list):
        content = json.dumps(content, indent=1)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    return CliRunner().invoke(cli, ["check-nki", str(path), *extra])


def test_all_legal_exit_0(tmp_path: Path) -> None:
    result = run(tmp_path, [LEGAL, NOTE_ONLY])
    assert result.exit_code == 0, result.output
    assert "call 0: select_reduce on cayman (trn2): legal" in result.output
    assert "note reduce_res_fp32" in result.output  # a note is shown, not fatal


def test_illegal_exit_1_and_names_clause(tmp_path: Path) -> None:
    result = run(tmp_path, [LEGAL, ILLEGAL])
    assert result.exit_code == 1
    out = result.output
    assert "call 1: select_reduce on cayman (trn2): illegal" in out
    assert "FAIL _check_select_reduce_supported_reduce_cmd: reduce_cmd reset (1)" in out
    assert "fix: select_reduce takes idle, reduce or reset_reduce" in out
    assert "for reset use reset_reduce" in out
    assert "ref 004" in out


def test_json_shape(tmp_path: Path) -> None:
    result = run(tmp_path, [LEGAL, ILLEGAL, NOTE_ONLY], "--json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert [d["index"] for d in data] == [0, 1, 2]
    for d in data:
        assert {"index", "op", "gen", "valid", "failed", "clauses", "messages"} <= set(d)
        assert set(d["clauses"]) == set(d["messages"])
        assert all(isinstance(v, bool) for v in d["clauses"].values())
    assert data[0]["op"] == "select_reduce" and data[0]["gen"] == "cayman"
    assert data[0]["valid"] is True and data[0]["failed"] == []
    assert data[1]["valid"] is False
    assert data[1]["failed"] == ["_check_select_reduce_supported_reduce_cmd"]
    assert data[1]["clauses"]["_check_select_reduce_supported_reduce_cmd"] is False
    assert "reset (1)" in data[1]["messages"]["_check_select_reduce_supported_reduce_cmd"]
    assert data[2]["valid"] is True and data[2]["notes"] == ["reduce_res_fp32"]


def test_a_missing_required_argument_is_that_calls_error(tmp_path: Path) -> None:
    """The other calls are still judged; the file is not bad input (exit 1, not 2)."""
    result = run(tmp_path, [LEGAL, {"op": "max8", "args": {}}, LEGAL], "--json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    assert [d["valid"] for d in data] == [True, False, True]
    assert data[1]["clauses"]["signature"] is False
    assert data[1]["messages"]["signature"].startswith(
        "max8() missing required argument(s) 'src'")


def test_empty_list_is_legal(tmp_path: Path) -> None:
    assert run(tmp_path, []).exit_code == 0
    result = run(tmp_path, [], "--json")
    assert result.exit_code == 0 and json.loads(result.output) == []


@pytest.mark.parametrize(("content", "fragment"), [
    ("[1,\n", "calls.json:2:1: invalid JSON"),
    ("{\"op\": 1}", "calls.json: expected a JSON list of calls, got dict"),
    (b"\xff\xfe[]", "calls.json: offset 0: expected UTF-8"),
    ([{"op": "nope"}], "calls.json: call 0.op: unknown intrinsic 'nope'"),
    ([{"op": "max8", "args": {"src": {"dtype": "float32", "shape": "x"}}}],
     "calls.json: call 0.args.src.shape: expected a non-empty list"),
    ([{"op": "max8", "gen": "trn7", "args": {}}], "calls.json: call 0.gen: unknown generation"),
])
def test_bad_input_one_line_exit_2(tmp_path: Path, content: Any, fragment: str) -> None:
    result = run(tmp_path, content)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("neurondbg: error: ")
    assert fragment in lines[0]
    assert "Traceback" not in result.output


def test_missing_file_exit_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["check-nki", str(tmp_path / "none.json")])
    assert result.exit_code == 2
    assert "none.json: no such calls file" in result.output


def test_real_process_no_traceback(tmp_path: Path) -> None:
    """Through the console entry point: stderr is one line, stdout empty."""
    bad = tmp_path / "bad.json"
    bad.write_text("[{\"op\": \"range_select\", \"args\": {\"on_true_tile\": 3}}]")
    proc = subprocess.run([sys.executable, "-m", "neurondbg", "check-nki", str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "bad.json: call 0.args.on_true_tile: expected a tile object" in proc.stderr


def test_gen_option_defaults_calls_without_gen(tmp_path: Path) -> None:
    call = {"op": "range_select", "args": NOTE_ONLY["args"]}
    assert run(tmp_path, [call], "--gen", "trn1").exit_code == 1
    assert run(tmp_path, [call], "--gen", "mariana").exit_code == 0
    assert run(tmp_path, [{**call, "gen": "trn2"}], "--gen", "trn1").exit_code == 0  # explicit
    bad = run(tmp_path, [call], "--gen", "trn9")
    assert bad.exit_code == 2
    assert "Invalid value for '--gen': unknown generation 'trn9'" in bad.output


def test_list_intrinsics(tmp_path: Path) -> None:
    from neurondbg.machine.legality.nki import INTRINSICS

    result = CliRunner().invoke(cli, ["check-nki", "--list", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["schema"] == "neurondbg.check-nki-list/1"
    assert set(data) - {"schema"} == set(INTRINSICS)
    assert [c["name"] for c in data["select_reduce"]["clauses"]] == [
        c.name for c in INTRINSICS["select_reduce"]]
    text = CliRunner().invoke(cli, ["check-nki", "--list"])
    assert text.exit_code == 0 and "_check_range_select_supported_reduce_cmd" in text.output
    none = CliRunner().invoke(cli, ["check-nki"])
    assert none.exit_code == 2 and "expected a CALLS.json argument" in none.output
