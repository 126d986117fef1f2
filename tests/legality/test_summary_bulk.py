"""`validate --summary` counts chunk by chunk (summarize_raw), equal to the
whole BulkResult's counts, in the same order."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.explain import summarize, validate
from neurondbg.machine.legality.wire.bulk import Summary, summarize_raw, validate_raw
from neurondbg.machine.legality.wire.samples import EXAMPLES, example


def records(n: int, distinct: bool) -> np.ndarray:
    """Valid examples of every predicate and single-field corruptions, mixed."""
    recs = []
    for name in EXAMPLES:
        recs += [example(name), example(name, header__inst_word_len=15),
                 example(name, events__wait_mode=0x10)]
    t = np.frombuffer(b"".join(recs), dtype=np.uint8).reshape(-1, 64)
    raw = t[np.random.default_rng(3).integers(0, len(t), n)]
    if distinct:  # random bytes after the opcode: nothing to deduplicate
        rnd = np.random.default_rng(4).integers(0, 256, raw.shape, dtype=np.uint8)
        rnd[:, 0] = raw[:, 0]
        return rnd
    return raw


@pytest.mark.parametrize("distinct", [False, True])
@pytest.mark.parametrize("chunk", [997, 4096, 1 << 20])
@pytest.mark.parametrize("engine", [None, "pool"])
def test_summarize_equals_validate(distinct: bool, chunk: int, engine: str | None) -> None:
    raw = records(6000, distinct)
    whole = validate_raw(raw, Gen.CAYMAN, engine)
    s = summarize_raw(raw, Gen.CAYMAN, engine, chunk)
    assert (s.count, s.invalid, s.engine, s.gen) == (6000, whole.invalid, engine, Gen.CAYMAN)
    assert list(s.failures.items()) == list(whole.failures.items())
    assert list(s.note_failures.items()) == list(whole.note_failures.items())
    assert whole.invalid > 0 and s.failures


def test_summary_cli_is_the_full_results_counts(tmp_path: Path) -> None:
    raw = records(3000, False)
    path = tmp_path / "p.bin"
    raw.tofile(path)
    r = CliRunner().invoke(cli, ["validate", str(path), "--summary"])
    full = validate(raw, "cayman", "pool")
    assert r.exit_code == 1
    assert json.loads(r.stdout) == {"schema": "neurondbg.validate-summary/1",
                                    "gen": "cayman", "engine": "pool", "count": 3000,
                                    "invalid": full.invalid, "failures": full.failures,
                                    "notes": full.note_failures}
    assert summarize(raw, "cayman", "pool").failures == full.failures


SUMMARY_FIELDS = {"gen": (Gen.CAYMAN, Gen.SUNDA), "count": (6, 7), "engine": (None, "pool"),
                  "invalid": (0, 1), "failures": ({}, {"x": 1}),
                  "note_failures": ({}, {"n": 2})}


@pytest.mark.parametrize("changed", sorted(SUMMARY_FIELDS))
def test_summaries_are_equal_exactly_when_every_count_is(changed: str) -> None:
    first = {k: v[0] for k, v in SUMMARY_FIELDS.items()}
    s = Summary(**first)
    other = {**first, changed: SUMMARY_FIELDS[changed][1]}
    assert s == Summary(**first) and s != Summary(**other)
    assert s != tuple(first.values())  # equal to Summaries only
    assert getattr(s, changed) == first[changed]
