"""`validate --json` explains records in batches (explain_many, repair.plan_many): the
batch path must give every record the very verdict, tree and fix the one-record path
(explain, repair.plan) gives it."""

from __future__ import annotations

import importlib
import io
import json

import numpy as np
import pytest

from neurondbg.commands import validate as validate_cmd
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.codec import record_fields
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.legality.explain import explain, explain_many, validate
from neurondbg.machine.legality.wire import repair
from neurondbg.machine.legality.wire.registry import ALL_PREDICATES, predicate_for
from neurondbg.machine.legality.wire.samples import EXAMPLES, example

explain_mod = importlib.import_module("neurondbg.machine.legality.explain")  # the package
# exports the function under the module's name
OPCODES = sorted({code for p in ALL_PREDICATES for code in p.opcodes})


def distinct(n: int, seed: int) -> np.ndarray:
    """Random records under every documented opcode (and a few undocumented bytes)."""
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, (n, 64), dtype=np.uint8)
    raw[:, 0] = rng.choice([*OPCODES, 0x00, 0xFE], n)
    return raw


def near_valid(n: int, seed: int) -> np.ndarray:
    """Each predicate's valid example with one to three random bytes changed: records that
    fail a few clauses, so the fix search combines several candidates per clause."""
    rng = np.random.default_rng(seed)
    base = np.array([np.frombuffer(example(name), np.uint8) for name in EXAMPLES])
    raw = base[rng.integers(0, len(base), n)]
    for row in raw:
        for _ in range(int(rng.integers(1, 4))):
            row[rng.integers(1, 64)] = rng.integers(0, 256)
    return raw


def one_by_one(raw: np.ndarray, gen: Gen, engine: str | None) -> list:
    return [explain(r.tobytes(), gen, engine) for r in raw]


@pytest.mark.parametrize(("gen", "engine", "make", "seed"), [
    (Gen.CAYMAN, "pool", distinct, 1),
    (Gen.CAYMAN, "pool", near_valid, 2),
    (Gen.MARIANA, None, near_valid, 3),
    (Gen.SUNDA, "dve", distinct, 4),
    (Gen.MAVERICK, "act", near_valid, 5),
])
def test_explain_many_is_explain_of_each_record(gen, engine, make, seed) -> None:
    raw = make(160, seed)
    many = explain_many(raw, gen, engine)
    one = one_by_one(raw, gen, engine)
    assert len(many) == len(raw)
    for i, (a, b) in enumerate(zip(one, many, strict=True)):
        assert a == b, f"record {i}: {raw[i].tobytes().hex()}"
    assert any(v.fix_fields for v in many) and any(not v.valid for v in many)


def test_the_search_cut_into_small_passes_finds_the_same_fixes(monkeypatch) -> None:
    raw = near_valid(120, 6)
    whole = explain_many(raw, Gen.CAYMAN, "pool")
    monkeypatch.setattr(repair, "ROWS_MAX", 7)  # a pass per record or two
    monkeypatch.setattr(repair, "SCAN_RECORDS", 3)
    assert explain_many(raw, Gen.CAYMAN, "pool") == whole


def test_plan_many_is_plan_of_each_record() -> None:
    from neurondbg.machine.legality.wire.bulk import evaluate
    from neurondbg.machine.legality.wire.clause import Ctx, Rows

    ctx = Ctx(Gen.CAYMAN, "pool")
    raw = near_valid(300, 7)
    found = []
    for op in np.unique(raw[:, 0]).tolist():
        pred = predicate_for(op)
        struct = STRUCTS[pred.struct]
        rec = np.ascontiguousarray(raw[raw[:, 0] == op]).view(struct.dtype).reshape(-1)
        values = [record_fields(struct, r) for r in rec]
        clauses, _ = evaluate(pred, rec, ctx)
        failing = []
        for i in range(len(rec)):  # every failing leaf, as explain collects them
            rows = Rows(rec[i:i + 1], ctx)
            failing.append([(path, cl) for top in clauses for path, cl in top.walk()
                            if not cl.children and not cl.note and not cl.check(rows)[0]])
        many = repair.plan_many(pred, struct, rec, values, ctx, failing)
        for i in range(len(rec)):
            assert many[i] == repair.plan(pred, struct, rec[i:i + 1], values[i], ctx,
                                          failing[i])
        found += [(p.combined, bool(f)) for p, f in zip(many, failing, strict=True)]
    assert any(c for c, _ in found) and not all(f for _, f in found)


def test_field_values_read_by_column_are_record_fields() -> None:
    raw = distinct(50, 8)
    for struct in {STRUCTS[predicate_for(int(op)).struct] for op in raw[:, 0]}:
        rec = np.ascontiguousarray(raw).view(struct.dtype).reshape(-1)
        assert explain_mod._values_many(struct, rec) == [record_fields(struct, r) for r in rec]


def test_tree_json_is_json_dumps_of_the_tree() -> None:
    raw = np.concatenate([distinct(60, 9), near_valid(60, 10)])
    for v in explain_many(raw, Gen.CAYMAN, "pool"):
        assert v.tree_json() == json.dumps(v.tree())
    # a fix whose text is None but whose fields are set, and non-ASCII text
    node = v.clauses[0]
    from dataclasses import replace
    odd = replace(node, fix=None, fix_fields={"num_elem": (1, 2)}, message="µ › \"q\"")
    assert odd.tree_json() == json.dumps(odd.tree_dict())


@pytest.mark.parametrize("engine", ["pool", None])
def test_validate_json_of_distinct_records_is_the_one_by_one_document(engine,
                                                                      monkeypatch) -> None:
    raw = np.concatenate([distinct(75, 11), near_valid(75, 12), distinct(5, 11)])
    result = validate(raw, Gen.CAYMAN, engine)
    expected = json.dumps(validate_cmd._full(result, raw)) + "\n"  # explain() per record
    # 5 blocks of rows, 2 fix batches a block, the tree cache dropped at each new block
    monkeypatch.setattr(validate_cmd, "ROWS_PER_WRITE", 32)
    monkeypatch.setattr(explain_mod, "FIX_BATCH", 25)
    monkeypatch.setattr(validate_cmd, "TREE_CACHE", 50)
    calls: list[bytes] = []
    real = explain_mod.explain
    monkeypatch.setattr(explain_mod, "explain", lambda r, *a: calls.append(r) or real(r, *a))
    out = io.StringIO()
    validate_cmd._write_full(result, raw, out)
    assert out.getvalue() == expected
    assert calls == []  # every tree came from a batch, none from a one-record explanation


def test_a_byte_scan_shared_by_records_is_each_records_own() -> None:
    from neurondbg.machine.legality.wire.clause import Ctx

    raw = np.concatenate([distinct(40, 13), near_valid(60, 14)])
    ctx = Ctx(Gen.CAYMAN, "pool")
    shared = 0
    for op in np.unique(raw[:, 0]).tolist():
        pred = predicate_for(op)
        struct = STRUCTS[pred.struct]
        rec = np.ascontiguousarray(raw[raw[:, 0] == op]).view(struct.dtype).reshape(-1)
        if len(rec) < 2:
            continue
        for top in pred.clauses_for(ctx.gen):
            for _, cl in top.walk():
                if cl.children:
                    continue
                own = [repair._byte_scan(cl, struct, rec[i:i + 1], ctx) for i in range(len(rec))]
                assert repair._byte_scan_many(cl, struct, rec, ctx) == own, cl.name
                shared += any(repair._shared_scan(cl, struct, rec, ctx, f, np.arange(256))
                              is not None for f in repair._scan_fields(cl, struct)
                              if not f.signed)
    assert shared  # some clauses' scans were shared, so the equality above tested them
