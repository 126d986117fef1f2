"""`run` and `validate` of a program with no record: "empty program", one line, exit 2,
the words `asm` uses for a source with no instruction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli

TEXT = "no instruction or .raw record (comments, labels and data directives alone make none)"
SOURCES = {"empty.asm": "", "comments.asm": "# nothing here\n\n", "label.s": "start:\n",
           "data.asm": ".data sb[0, 0] fp32 1 2\n"}
COMMANDS = [["run"], ["run", "--json"], ["validate"], ["validate", "--json"],
            ["validate", "--summary"]]


def _one_line(argv: list[str]) -> str:
    r = CliRunner().invoke(cli, argv)
    assert r.exit_code == 2 and "Traceback" not in r.output, (r.exit_code, r.output)
    line, = r.output.strip().splitlines()
    if "--json" in argv:  # the same words, as the error document (docs/json.md)
        doc = json.loads(line)
        assert (doc["schema"], doc["exit"]) == ("neurondbg.error/1", 2)
        return f"neurondbg: error: {doc['error']}"
    return line


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_assembly_without_a_record(tmp_path: Path, command: list[str], name: str) -> None:
    src = tmp_path / name
    src.write_text(SOURCES[name])
    assert _one_line([*command, str(src)]) == f"neurondbg: error: {src}:1:1: empty program: {TEXT}"


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", ["empty.bin", "empty.inst", "empty"])
def test_zero_byte_binary(tmp_path: Path, command: list[str], name: str) -> None:
    p = tmp_path / name
    p.write_bytes(b"")
    line = _one_line([*command, str(p)])
    assert line in (f"neurondbg: error: {p}: empty program: 0 bytes; expected at least one "
                    "64-byte record", f"neurondbg: error: {p}:1:1: empty program: {TEXT}"), line


def test_session_naming_an_emptied_program(tmp_path: Path) -> None:
    src = tmp_path / "p.asm"
    src.write_text("MOVE R1=1\nHALT\n")
    session = tmp_path / "s.toml"
    r = CliRunner().invoke(cli, ["run", str(src), "--save-session", str(session)])
    assert r.exit_code == 0, r.output
    src.write_text("# emptied\n")
    line = _one_line(["run", str(session)])
    assert line.endswith(f"{src}:1:1: empty program: {TEXT}"), line


def test_one_record_is_not_empty(tmp_path: Path) -> None:
    src = tmp_path / "p.asm"
    src.write_text("HALT\n")
    for command in COMMANDS:
        r = CliRunner().invoke(cli, [*command, str(src)])
        assert r.exit_code in (0, 1) and "empty program" not in r.output, r.output
