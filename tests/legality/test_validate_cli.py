"""`neurondbg validate`: exit codes, JSON shapes (DESIGN.md), text report, error lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.commands import validate as validate_cmd
from neurondbg.machine.dtypes import Dtype
from neurondbg.machine.legality.wire.samples import example

GOOD = example("is_valid_copy")
BAD = example("is_valid_copy", out_dtype=Dtype.BF16)
MOVE = example("is_valid_ctrl_mv")


def run(*args: str):
    return CliRunner().invoke(cli, ["validate", *args])


@pytest.fixture
def prog(tmp_path: Path):
    def write(*recs: bytes, name: str = "p.bin") -> str:
        p = tmp_path / name
        p.write_bytes(b"".join(recs))
        return str(p)
    return write


def test_all_valid_exit_0(prog) -> None:
    r = run(prog(GOOD, MOVE))
    assert r.exit_code == 0, r.output
    assert r.output.strip() == "2 instructions, 0 invalid (cayman, engine pool)"


def test_text_report_names_index_offset_mnemonic_clause(prog) -> None:
    r = run(prog(GOOD, BAD, MOVE))
    assert r.exit_code == 1
    lines = r.output.splitlines()
    assert lines[0] == "#1 @0x000040 COPY (0x46): invalid [is_valid_copy]"
    assert lines[1].startswith("  s4d4_tr_same_src_dst_type: out_dtype BF16 (0x6) != in_dtype "
                               "FP32 (0xA): Copy keeps the dtype; Cast (0x47) converts")
    assert lines[-1] == "3 instructions, 1 invalid (cayman, engine pool)"


def test_json_shape(prog) -> None:
    r = run(prog(GOOD, BAD), "--json", "--gen", "mariana")
    assert r.exit_code == 1
    doc = json.loads(r.output)
    assert {"gen", "count", "invalid", "instructions"} <= set(doc)
    assert (doc["gen"], doc["count"], doc["invalid"]) == ("mariana", 2, 1)
    first, second = doc["instructions"]
    for inst in (first, second):
        assert {"index", "offset", "opcode", "mnemonic", "valid", "failed", "clauses"} <= set(inst)
        assert inst["opcode"] == 0x46 and inst["mnemonic"] == "COPY"
        assert all(isinstance(v, bool) for v in inst["clauses"].values())
    assert first["valid"] and first["failed"] == []
    assert (second["index"], second["offset"], second["valid"]) == (1, 64, False)
    assert second["failed"] == ["s4d4_tr_same_src_dst_type"]
    assert second["clauses"]["s4d4_tr_same_src_dst_type"] is False


def test_summary_shape(prog) -> None:
    r = run(prog(GOOD, BAD, BAD, MOVE), "--summary", "--engine", "pool")
    assert r.exit_code == 1
    doc = json.loads(r.output)
    assert {"gen", "count", "invalid", "failures"} <= set(doc)
    assert doc["count"] == 4 and doc["invalid"] == 2
    assert doc["failures"] == {"s4d4_tr_same_src_dst_type": 2}


def test_engine_option_adds_dispatch_clause(prog) -> None:
    pred = example("is_valid_copy_cast_predicated")
    assert run(prog(pred), "--engine", "dve").exit_code == 0
    r = run(prog(pred), "--engine", "pool", "--summary")
    assert r.exit_code == 1
    assert json.loads(r.output)["failures"] == {"engine_has_opcode(pool)": 1}


def test_generation_changes_the_verdict(prog) -> None:
    rs = prog(example("is_valid_range_select"))
    assert run(rs, "--gen", "cayman", "--engine", "dve").exit_code == 0  # RANGE_SELECT is DVE's
    r = run(rs, "--gen", "sunda", "--engine", "dve", "--summary")
    assert r.exit_code == 1
    assert json.loads(r.output)["failures"] == {"has_valid_neuron_header": 1,
                                                "has_valid_nc_rs": 1}


def test_assembly_input(tmp_path: Path) -> None:
    src = tmp_path / "p.asm"
    src.write_text("COPY src=sb[0, 0] num=[4,1,1,1] dst=sb[0, 0x400] dst.num=[4,1,1,1] "
                   "in_dtype=FP32 out_dtype=BF16 nac=128\nMOVE R3=5\n")
    r = run(str(src), "--summary")
    assert r.exit_code == 1, r.output
    assert json.loads(r.output)["failures"] == {"s4d4_tr_same_src_dst_type": 1}


@pytest.mark.parametrize("content,name,expected", [
    (bytes(100), "p.bin", "p.bin: size 100 bytes is not a multiple of 64: offset 64"),
    (b"COPY foo=1\n", "p.asm", "p.asm:1:6: unknown field 'foo'"),
])
def test_bad_input_is_one_line_exit_2(tmp_path: Path, content: bytes, name: str,
                                      expected: str) -> None:
    p = tmp_path / name
    p.write_bytes(content)
    r = run(str(p))
    assert r.exit_code == 2
    assert len(r.output.strip().splitlines()) == 1
    assert r.output.startswith("neurondbg: error: ") and expected in r.output


def test_missing_file_and_usage_errors(tmp_path: Path, prog) -> None:
    r = run(str(tmp_path / "nope.bin"))
    assert r.exit_code == 2 and "nope.bin: no such program" in r.output
    assert run(prog(GOOD), "--json", "--summary").exit_code == 2
    assert run(prog(GOOD), "--gen", "tonga").exit_code == 2
    assert run(prog(GOOD), "--engine", "gpu").exit_code == 2


def test_empty_program_is_refused(prog) -> None:
    path = prog()
    message = f"{path}: empty program: 0 bytes; expected at least one 64-byte record"
    for args in ((), ("--summary",)):
        r = run(path, *args)
        assert r.exit_code == 2
        assert r.output == f"neurondbg: error: {message}\n"
    r = run(path, "--json")  # the same words as the error document (docs/json.md)
    assert r.exit_code == 2
    assert json.loads(r.output) == {"schema": "neurondbg.error/1", "error": message,
                                    "file": str(path), "exit": 2}


def test_engine_choices_match_the_library() -> None:
    from neurondbg.machine.legality.explain import ENGINE_CHOICES
    assert validate_cmd.ENGINES == ENGINE_CHOICES


def test_as_a_process_no_traceback(tmp_path: Path) -> None:
    p = tmp_path / "bad.bin"
    p.write_bytes(bytes(65))
    out = subprocess.run([sys.executable, "-m", "neurondbg", "validate", str(p)],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert out.stderr.startswith("neurondbg: error: ")


def test_text_report_shows_the_path_to_the_failing_rule(prog) -> None:
    bad = example("is_valid_copy", dst_mem_pattern__start_addr=0x401)
    r = run(prog(bad))
    assert r.exit_code == 1
    lines = r.output.splitlines()
    assert lines[1] == (
        "  tensor4d_valid(dst) › tensor_start_addr_valid › addr_aligned_dtype: "
        "dst_mem_pattern.start_addr 0x00000401 is not aligned to the 4-byte element of "
        "out_dtype FP32 (fix: set dst_mem_pattern.start_addr = 0x00000400 (align "
        "dst_mem_pattern.start_addr to 4 bytes))")


def test_json_tree_beside_failed_and_clauses(prog) -> None:
    bad = example("is_valid_copy", dst_mem_pattern__start_addr=0x401)
    doc = json.loads(run(prog(GOOD, bad), "--json").output)
    good_row, bad_row = doc["instructions"]
    assert bad_row["failed"] == ["tensor4d_valid(dst)"]  # top-level clauses, as before
    assert bad_row["clauses"]["tensor4d_valid(dst)"] is False
    names = [n["name"] for n in bad_row["tree"]]
    assert names == list(bad_row["clauses"])  # the tree's top level is the clause list
    node = bad_row["tree"][names.index("tensor4d_valid(dst)")]
    assert node["ok"] is False and node["fix"]["fields"] == {
        "dst_mem_pattern.start_addr": 0x400}
    assert all(n["ok"] for n in good_row["tree"]) and good_row["valid"]
