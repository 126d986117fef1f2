"""A bad input under `--json` is one `neurondbg.error/1` object on stderr, with the exit
code of today; without `--json` the one-line text stays."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from neurondbg.cli import main
from neurondbg.documents import Kind
from neurondbg.errors import error_json
from neurondbg.sessions import examples
from tests.json.check import errors, invoke

LOOP_BIN = examples.path("loop.bin")


def _files(tmp_path: Path) -> dict[str, str]:
    bad = tmp_path / "bad.asm"
    bad.write_text("HALT\n    FOO x=1\n")
    part = tmp_path / "part.bin"
    part.write_bytes(LOOP_BIN.read_bytes()[:100])
    calls = tmp_path / "calls.json"
    calls.write_text("[{\"op\": \"nope\"}]")
    return {"bad": str(bad), "part": str(part), "calls": str(calls),
            "missing": str(tmp_path / "missing.asm")}


# (command line with {names} of _files, what the object says beside `error`)
CASES = [
    (["run", "{missing}"], {"file": "{missing}"}),
    (["validate", "{bad}"], {"file": "{bad}", "line": 2, "column": 5}),
    (["validate", "{part}"], {"file": "{part}", "offset": 64}),
    (["disasm", "{part}"], {"file": "{part}", "offset": 64}),
    (["check-nki", "{calls}"], {"file": "{calls}"}),
    (["convert", "1.5", "--from", "int8", "--to", "fp32"], {"file": None}),
    (["replay", "{missing}", "{bad}"], {"file": "{missing}"}),
]
IDS = ["run-missing", "validate-line", "validate-offset", "disasm-offset", "check-nki",
       "convert", "replay"]


@pytest.mark.parametrize(("args", "where"), CASES, ids=IDS)
def test_bad_input_is_one_json_object_on_stderr(args: list[str], where: dict[str, object],
                                                tmp_path: Path) -> None:
    names = _files(tmp_path)
    argv = [a.format(**names) for a in args]
    text = invoke(*argv)
    assert text.exit_code == 2 and text.stdout == ""
    line = text.stderr
    assert line.startswith("neurondbg: error: ") and line.count("\n") == 1
    r = invoke(*argv, "--json")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr.count("\n") == 1
    doc = json.loads(r.stderr)
    assert errors(doc, Kind.ERROR) == []
    assert list(doc)[:2] == ["schema", "error"] and doc["schema"] == "neurondbg.error/1"
    assert doc["error"] == line.removeprefix("neurondbg: error: ").rstrip("\n")
    want = {k: v.format(**names) if isinstance(v, str) else v for k, v in where.items()}
    assert {k: doc[k] for k in want} == want
    assert set(doc) - {"schema", "error", "exit"} == set(want)
    assert doc["exit"] == 2


@pytest.mark.parametrize(("argv", "error"), [
    (["validate", str(LOOP_BIN), "--json", "--summary"],
     "validate: --json and --summary are exclusive (see `neurondbg validate --help`)"),
    (["run", str(LOOP_BIN), "--gen", "nope", "--json"], None),
    (["run", "--json", str(LOOP_BIN), "--max-steps", "x"], None),
])
def test_a_usage_error_under_json(argv: list[str], error: str | None,
                                  monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Through `main`, as the console script runs: a usage error (found while the options
    are parsed, --json before or after it) is the same object, exit 2."""
    monkeypatch.setattr(sys, "argv", ["neurondbg", *argv])
    with pytest.raises(SystemExit) as exit_:
        main()
    out, err = capsys.readouterr()
    assert (exit_.value.code, out) == (2, "")
    doc = json.loads(err)
    assert errors(doc, Kind.ERROR) == [] and doc["file"] is None and doc["exit"] == 2
    assert doc["error"].startswith(f"{argv[0]}: ")
    if error is not None:
        assert doc["error"] == error


def test_a_usage_error_without_json_stays_a_line(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["neurondbg", "run", str(LOOP_BIN), "--gen", "nope"])
    with pytest.raises(SystemExit):
        main()
    err = capsys.readouterr().err
    assert err.startswith("neurondbg: error: run: Invalid value for '--gen'")
    assert err.count("\n") == 1


def test_json_after_a_double_dash_is_an_argument(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["neurondbg", "run", "--gen", "nope", "--", "--json"])
    with pytest.raises(SystemExit):
        main()
    assert capsys.readouterr().err.startswith("neurondbg: error: run: ")


@pytest.mark.parametrize(("message", "where"), [
    ("a.asm:12:3: unknown mnemonic", {"file": "a.asm", "line": 12, "column": 3}),
    ("a.bin: offset 0x40: partial record", {"file": "a.bin", "offset": 64}),
    ("a.bin: size 100: offset 64: partial", {"file": "a.bin", "offset": 64}),
    ("a.bin: no such file", {"file": "a.bin"}),
    ("convert: bad value 'a.bin'", {"file": None}),
    ("--break 'x': unknown kind", {"file": None}),
    ("b.asm:1:1: empty", {"file": None}),  # not an argument, not a file
])
def test_where_an_error_is(message: str, where: dict[str, object]) -> None:
    doc = json.loads(error_json(message, 2, frozenset({"a.asm", "a.bin"})))
    assert doc == {"schema": "neurondbg.error/1", "error": message, **where, "exit": 2}
