"""`validate --json` and `--summary`: a program and a kernel share one top-level shape."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from neurondbg.cli import cli

KERNEL = Path(__file__).resolve().parents[1] / "core" / "data" / "wrong_engine.asm"
PROGRAM = Path(__file__).resolve().parents[2] / "examples" / "copy_type_mismatch.asm"


def _doc(*args: str) -> tuple[int, dict]:
    r = CliRunner().invoke(cli, ["validate", *map(str, args)])
    return r.exit_code, json.loads(r.stdout)


def test_json_top_level_keys_are_one_shape() -> None:
    pcode, program = _doc(PROGRAM, "--json")
    kcode, kernel = _doc(KERNEL, "--json")
    assert (pcode, kcode) == (1, 1)
    shared = {"schema", "gen", "engine", "count", "invalid", "instructions"}
    assert set(program) == shared and set(kernel) == shared | {"engines"}
    assert program["engine"] == "pool" and kernel["engine"] is None


def test_a_kernels_rows_are_each_engines_rows_naming_it() -> None:
    _, kernel = _doc(KERNEL, "--json")
    expected = [{"engine": e, **row} for e, d in kernel["engines"].items()
                for row in d["instructions"]]
    assert kernel["instructions"] == expected
    assert [r["engine"] for r in kernel["instructions"]] == ["pool", "pool", "dve", "dve"]
    assert len(kernel["instructions"]) == kernel["count"] == 4
    assert sum(not r["valid"] for r in kernel["instructions"]) == kernel["invalid"] == 1


def test_summary_top_level_keys_are_one_shape() -> None:
    _, program = _doc(PROGRAM, "--summary")
    _, kernel = _doc(KERNEL, "--summary")
    shared = {"schema", "gen", "engine", "count", "invalid", "failures", "notes"}
    assert set(program) == shared and set(kernel) == shared | {"engines"}
    assert kernel["failures"] == {"engine_has_opcode(pool)": 1}
    assert kernel["failures"] == {
        k: sum(e["failures"].get(k, 0) for e in kernel["engines"].values())
        for k in kernel["failures"]}
    assert (kernel["count"], kernel["invalid"]) == (4, 1)
