"""Bulk validation's fast paths keep every answer: verdicts shared by records with one
outcome equal the per-record ones, and groups gathered and judged block by block judge each
record as itself."""

from __future__ import annotations

import numpy as np
import pytest

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.explain import explain
from neurondbg.machine.legality.wire import bulk
from neurondbg.machine.legality.wire.bulk import validate_raw
from neurondbg.machine.legality.wire.samples import EXAMPLES, example

POOL = np.frombuffer(b"".join(example(n) for n in EXAMPLES), np.uint8).reshape(-1, 64)


def records(seed: int, n: int) -> np.ndarray:
    """n records: sample records with a few random bytes changed (mostly distinct)."""
    rng = np.random.default_rng(seed)
    raw = POOL[rng.integers(0, len(POOL), n)].copy()
    for row in raw:
        pos = rng.integers(1, 64, rng.integers(0, 3))
        row[pos] = rng.integers(0, 256, len(pos))
    return raw


def expected_verdict(result, i: int) -> dict:
    g, _ = result.locate(i)
    clauses = result.clauses_of(i)
    notes = {cl.name for cl in g.clauses if cl.note}
    return {"valid": bool(result.valid[i]), "predicate": g.predicate.name,
            "failed": result.failed_of(i),
            "notes": [n for n, ok in clauses.items() if n in notes and not ok],
            "clauses": clauses}


@pytest.mark.parametrize("dedup", [True, False])
def test_verdicts_equal_the_per_instruction_answers(dedup: bool) -> None:
    raw = records(1, 3000)
    result = validate_raw(raw, Gen.CAYMAN, "pool", dedup=dedup)
    verdicts = result.verdicts()
    assert len(verdicts) == int(result.column.max()) + 1
    for i in range(len(raw)):
        assert verdicts[int(result.column[i])] == expected_verdict(result, i)


def test_records_with_one_outcome_share_one_verdict_object() -> None:
    raw = records(2, 3000)
    result = validate_raw(raw, Gen.CAYMAN, "pool", dedup=False)
    verdicts = result.verdicts()
    assert len(verdicts) == 3000  # one per judged record...
    outcomes = {(v["predicate"], tuple(v["clauses"].items())) for v in verdicts}
    assert len({id(v) for v in verdicts}) == len(outcomes) < 3000  # ...one object per outcome


def test_per_group_gathering_equals_explaining_each_record(monkeypatch) -> None:
    monkeypatch.setattr(bulk, "SUB", 311)  # many passes, each with many small groups...
    monkeypatch.setattr(bulk, "BLOCK", 5)  # ...each judged in several blocks
    raw = records(3, 2000)
    result = validate_raw(raw, Gen.MAVERICK, "dve", dedup=False)
    for i in range(0, len(raw), 7):
        verdict = explain(raw[i].tobytes(), Gen.MAVERICK, "dve")
        assert result.clauses_of(i) == {c.name: c.passed for c in verdict.clauses}
    fails = {}
    for i in range(len(raw)):
        for name in result.failed_of(i):
            fails[name] = fails.get(name, 0) + 1
    assert result.failures == dict(sorted(fails.items(), key=lambda kv: (-kv[1], kv[0])))
