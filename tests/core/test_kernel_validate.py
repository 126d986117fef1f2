"""machine.core.validate: each queue judged on its own engine, in `validate --json`'s shape."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from machine.asm.sections import assemble_sections
from machine.core.kernel import load_kernel
from machine.core.validate import validate_kernel
from neurondbg.cli import cli

DATA = Path(__file__).parent / "data"
WRONG = DATA / "wrong_engine.asm"


def test_an_op_on_the_wrong_engine_fails_engine_has_opcode() -> None:
    doc = validate_kernel(load_kernel(WRONG))
    assert (doc["gen"], doc["count"], doc["invalid"]) == ("cayman", 4, 1)
    assert list(doc["engines"]) == ["pool", "dve"]
    pool, dve = doc["engines"]["pool"], doc["engines"]["dve"]
    assert pool["engine"] == "pool" and dve["engine"] == "dve"
    assert [r["failed"] for r in pool["instructions"]] == [["engine_has_opcode(pool)"], []]
    assert pool["instructions"][0]["clauses"]["engine_has_opcode(pool)"] is False
    assert (pool["invalid"], dve["invalid"]) == (1, 0)
    assert all(r["valid"] for r in dve["instructions"])


def test_each_engine_entry_is_the_one_program_validate_json(tmp_path: Path) -> None:
    """The same document `validate PROGRAM --engine E --json` prints for that queue alone."""
    doc = validate_kernel(load_kernel(WRONG))
    sa = assemble_sections(WRONG.read_text(), str(WRONG))
    for s in sa.sections:
        alone = tmp_path / f"{s.engine}.bin"
        alone.write_bytes(s.assembly.records)
        r = CliRunner().invoke(cli, ["validate", str(alone), "--engine", s.engine, "--json"])
        assert r.exit_code == (1 if s.engine == "pool" else 0), r.output
        assert doc["engines"][s.engine] == json.loads(r.output)


def test_a_plain_program_is_judged_on_its_engine(tmp_path: Path) -> None:
    doc = validate_kernel(load_kernel(DATA / "pool_part.asm", engine="act"))
    assert list(doc["engines"]) == ["act"]
    assert doc["count"] == 3 and doc["invalid"] == 0
