"""machine.core.validate: each queue judged on its own engine, in `validate --json`'s shape."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.asm.sections import assemble_sections
from neurondbg.machine.core.kernel import load_kernel
from neurondbg.machine.core.validate import validate_kernel

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
        alone_doc = json.loads(r.output)
        assert alone_doc.pop("schema") == "neurondbg.validate/1"  # the document's, not a queue's
        assert doc["engines"][s.engine] == alone_doc


def test_a_plain_program_is_judged_on_its_engine(tmp_path: Path) -> None:
    doc = validate_kernel(load_kernel(DATA / "pool_part.asm", engine="act"))
    assert list(doc["engines"]) == ["act"]
    assert doc["count"] == 3 and doc["invalid"] == 0


def test_the_validate_command_of_a_kernel(capsys) -> None:
    from neurondbg.commands.validate import validate_kernel_command
    from neurondbg.machine.dtypes import Gen

    assert validate_kernel_command(str(WRONG), Gen.CAYMAN, False, True, False) == 1
    doc = validate_kernel(load_kernel(WRONG))
    printed = json.loads(capsys.readouterr().out)
    assert {k: printed[k] for k in doc} == doc
    assert printed["schema"] == "neurondbg.validate/1"
    assert validate_kernel_command(str(WRONG), Gen.CAYMAN, False, False, True) == 1
    doc = json.loads(capsys.readouterr().out)
    assert (doc["count"], doc["invalid"]) == (4, 1)
    assert doc["engines"]["pool"]["failures"] == {"engine_has_opcode(pool)": 1}
    assert doc["engines"]["dve"]["failures"] == {}
    assert validate_kernel_command(str(WRONG), Gen.SUNDA, True, False, False) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"#0 @0x000000 {WRONG}:3:5: COPY_PREDICATED (0x72): invalid")
    assert out[-2:] == ["2 instructions, 1 invalid (sunda, engine pool)",
                        "2 instructions, 0 invalid (sunda, engine dve)"]


def test_the_validate_command_of_a_bad_kernel_is_one_line(tmp_path: Path) -> None:
    import pytest

    from neurondbg.commands.validate import validate_kernel_command
    from neurondbg.errors import InputError
    from neurondbg.machine.dtypes import Gen

    bad = tmp_path / "k.asm"
    bad.write_text("HALT\n.engine pool\n")
    with pytest.raises(InputError) as e:
        validate_kernel_command(str(bad), Gen.CAYMAN, False, False, False)
    assert e.value.message == f"{bad}:1:1: instruction before the first .engine: every " \
        "instruction belongs to an engine's section (.engine pool | dve | act | pe | sp)"


def test_queue_trees_equal_one_record_explanations(monkeypatch) -> None:
    """queue_json explains the distinct records in batches (explain_many): each row's tree
    is explain(record).tree(), across batch boundaries and for repeated records."""
    import numpy as np

    from neurondbg.machine.core import validate as core_validate
    from neurondbg.machine.dtypes import Gen
    from neurondbg.machine.legality.explain import explain
    from neurondbg.machine.legality.explain import validate as validate_records
    from neurondbg.machine.legality.wire.registry import ALL_PREDICATES

    rng = np.random.default_rng(4)
    raw = rng.integers(0, 256, (40, 64), dtype=np.uint8)
    raw[:, 0] = rng.choice(sorted({c for p in ALL_PREDICATES for c in p.opcodes}), 40)
    raw[30:] = raw[:10]  # repeats share a tree
    monkeypatch.setattr(core_validate, "EXPLAIN_BATCH", 7)  # several batches
    for engine in ("pool", "dve"):
        result = validate_records(raw, Gen.CAYMAN, engine)
        doc = core_validate.queue_json(result, raw)
        assert [r["tree"] for r in doc["instructions"]] == \
            [explain(r.tobytes(), Gen.CAYMAN, engine).tree() for r in raw]
