"""Bulk validation's deduplication: exact (never merges different records) and invisible
(the per-clause arrays, counts and per-instruction answers equal the undeduplicated ones)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.cli import cli
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.explain import explain
from neurondbg.machine.legality.wire import _dedup, bulk
from neurondbg.machine.legality.wire.bulk import BulkResult, validate_raw
from neurondbg.machine.legality.wire.samples import EXAMPLES, example

POOL = np.frombuffer(b"".join(example(n) for n in EXAMPLES), np.uint8).reshape(-1, 64)


def mixed(seed: int, n: int, distinct: int) -> np.ndarray:
    """n records drawn from `distinct` variants of the sample records (random bytes changed)."""
    rng = np.random.default_rng(seed)
    base = POOL[rng.integers(0, len(POOL), distinct)].copy()
    for row in base:
        pos = rng.integers(0, 64, rng.integers(0, 5))
        row[pos] = rng.integers(0, 256, len(pos))
    return base[rng.integers(0, distinct, n)]


def check_exact(raw: np.ndarray, keep: np.ndarray, inverse: np.ndarray) -> None:
    np.testing.assert_array_equal(raw[keep[inverse]], raw)
    assert inverse.min() >= 0 and inverse.max() < len(keep)


@pytest.mark.parametrize("n,distinct", [(1, 1), (100, 3), (5000, 40), (70_000, 700)])
def test_dedup_is_exact_and_merges_every_duplicate(n: int, distinct: int) -> None:
    raw = mixed(n, n, distinct)
    found = _dedup.dedup(raw.view(np.uint64))
    assert found is not None
    keep, inverse = found
    check_exact(raw, keep, inverse)
    assert len(keep) == len(np.unique(raw, axis=0))  # each distinct record kept once


def test_mostly_distinct_records_are_not_deduplicated() -> None:
    raw = np.random.default_rng(1).integers(0, 256, (3000, 64), dtype=np.uint8)
    assert _dedup.dedup(raw.view(np.uint64)) is None
    keep, inverse = _dedup.dedup(raw.view(np.uint64), max_fraction=1.0)  # bucket collisions
    check_exact(raw, keep, inverse)
    assert sorted(keep.tolist()) == list(range(3000))


def test_rows_sharing_a_hash_are_compared_not_merged(monkeypatch) -> None:
    # every row hashes alike: each round's representative absorbs only its exact copies
    monkeypatch.setattr(_dedup, "row_hash", lambda w: np.zeros(len(w), np.uint64))
    raw = mixed(2, 400, 6)
    keep, inverse = _dedup.dedup(raw.view(np.uint64), max_fraction=1.0)
    check_exact(raw, keep, inverse)
    assert len(np.unique(raw, axis=0)) <= len(keep)


def assert_same(a: BulkResult, b: BulkResult) -> None:
    assert (a.count, a.invalid, a.failures, a.note_failures) == \
        (b.count, b.invalid, b.failures, b.note_failures)
    np.testing.assert_array_equal(a.valid, b.valid)
    assert set(a.clause_names) == set(b.clause_names)
    for name in a.clause_names:
        np.testing.assert_array_equal(a.passed(name), b.passed(name), err_msg=name)
        np.testing.assert_array_equal(a.applies(name), b.applies(name), err_msg=name)
    for i in range(0, a.count, max(1, a.count // 25)):
        assert a.clauses_of(i) == b.clauses_of(i)
        assert a.failed_of(i) == b.failed_of(i)
        assert a.predicate_of(i) == b.predicate_of(i)


@settings(deadline=None, max_examples=25)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3000), st.integers(1, 60),
       st.sampled_from(list(Gen)), st.sampled_from([None, "pool", "dve"]),
       st.sampled_from([1 << 20, 257]))
def test_dedup_gives_the_same_per_clause_arrays(seed: int, n: int, distinct: int, gen: Gen,
                                                 engine: str | None, chunk: int) -> None:
    raw = mixed(seed, n, distinct)
    fast = validate_raw(raw, gen, engine, chunk=chunk)
    slow = validate_raw(raw, gen, engine, chunk=chunk, dedup=False)
    assert_same(fast, slow)
    assert sum(g.size for g in fast.groups) <= sum(g.size for g in slow.groups)


def test_random_bytes_same_with_and_without_dedup(monkeypatch) -> None:
    monkeypatch.setattr(bulk, "SUB", 997)  # judged in several passes when not deduplicated
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 256, (2000, 64), dtype=np.uint8)
    raw[:, 0] = POOL[rng.integers(0, len(POOL), 2000), 0]
    raw = np.concatenate([raw, raw[::3], raw[5::7]])  # some repeats, still mostly distinct
    for gen in (Gen.SUNDA, Gen.MAVERICK):
        assert_same(validate_raw(raw, gen), validate_raw(raw, gen, dedup=False))


def test_deduplicated_counts_match_explain() -> None:
    raw = mixed(11, 20_000, 12)
    bulk = validate_raw(raw, Gen.CAYMAN)
    assert sum(g.size for g in bulk.groups) == len(np.unique(raw, axis=0))
    expect: dict[str, int] = {}
    invalid = 0
    uniq, counts = np.unique(raw, axis=0, return_counts=True)
    for rec, k in zip(uniq, counts.tolist(), strict=True):
        v = explain(rec.tobytes(), Gen.CAYMAN)
        invalid += k * (not v.valid)
        for name in v.failed:
            expect[name] = expect.get(name, 0) + k
    assert bulk.invalid == invalid
    assert bulk.failures == dict(sorted(expect.items(), key=lambda kv: (-kv[1], kv[0])))


def test_cli_summary_on_a_large_repetitive_file(tmp_path) -> None:
    raw = mixed(3, 50_000, 30)
    path = tmp_path / "big.bin"
    raw.tofile(path)
    out = CliRunner().invoke(cli, ["validate", str(path), "--summary", "--gen", "mariana",
                                  "--engine", "any"])  # wire-level clauses only, as below
    slow = validate_raw(raw, Gen.MARIANA, dedup=False)
    assert out.exit_code == (1 if slow.invalid else 0)
    doc = json.loads(out.output)
    assert (doc["count"], doc["invalid"]) == (50_000, slow.invalid)
    assert doc["failures"] == slow.failures and doc["notes"] == slow.note_failures


def test_streamed_json_is_the_json_document() -> None:
    import io

    from neurondbg.commands.validate import _full, _write_full

    raw = np.concatenate([mixed(4, 1000, 20), mixed(5, 100, 100)])
    for dedup in (True, False):
        result = validate_raw(raw, Gen.MAVERICK, "dve", dedup=dedup)
        out = io.StringIO()
        _write_full(result, raw, out)
        assert out.getvalue() == json.dumps(_full(result, raw)) + "\n"
        assert json.loads(out.getvalue())["count"] == len(raw)
