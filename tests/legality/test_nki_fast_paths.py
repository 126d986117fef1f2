"""check-nki's fast paths equal the plain ones: `scan_calls` parses what json.loads
parses (and declines what it rejects), `dumps_indented` writes json.dumps(indent=2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.cli import cli
from neurondbg.commands.check_nki import PREFIX, dumps_indented, scan_calls

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "nki_calls.json"
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_dumps_indented_is_json_dumps_indent_2(value) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2)


def test_dumps_indented_non_string_keys_and_tuples() -> None:
    value = {1: (2, [3.5, {}]), False: None, None: float("nan"), 2.5: ()}
    assert dumps_indented(value) == json.dumps(value, indent=2)


@settings(max_examples=300, deadline=None)
@given(st.lists(JSON, max_size=6), st.sampled_from(["", " ", "\n", "\t \r\n"]),
       st.integers(0, 5))
def test_scan_calls_parses_what_json_loads_parses(items, space: str, repeats: int) -> None:
    items = items + items[:repeats]  # texts that repeat
    text = space + "[" + space + f"{space},{space}".join(json.dumps(v) for v in items) \
        + space + "]" + space
    keys, values = scan_calls(text)
    got = [values[k] for k in keys]
    assert json.dumps(got) == json.dumps(json.loads(text))  # NaN != NaN: compare the text


def test_repeated_objects_are_recognised_by_their_text() -> None:
    calls = json.loads(EXAMPLE.read_text())
    text = json.dumps(calls * 50)
    keys, values = scan_calls(text)
    assert len(keys) == 100 and len(values) == 2
    assert [values[k] for k in keys] == calls * 50
    assert all(len(k) > PREFIX for k in values)


@pytest.mark.parametrize("text", [
    "", "[", "[1,]", "[1 2]", "[1] x", "{}", '"[]"', "[{]", "[{}", "\ufeff[]",
    "[" * 100_000 + "]" * 100_000, "[1" + "0" * 5000 + "]", "[NaN, Infinity]x",
    '[{"a": 1}, {"a": 1}} ]',
])
def test_scan_calls_declines_what_is_not_a_well_formed_list(text: str) -> None:
    assert scan_calls(text) is None


def test_scan_calls_accepts_what_json_loads_accepts() -> None:
    assert scan_calls(" [ ] \n") == ([], {})
    keys, values = scan_calls('[NaN, {"a": 1, "a": 2}, 1e400]')
    assert json.dumps([values[k] for k in keys]) == '[NaN, {"a": 2}, Infinity]'


@pytest.mark.parametrize("text,error", [
    ("[1,]", "calls.json:1:4: invalid JSON"),
    ("\ufeff[]", "calls.json:1:1: invalid JSON: Unexpected UTF-8 BOM"),
    ('{"op": 1}', "calls.json: expected a JSON list of calls, got dict"),
    ("[1" + "0" * 5000 + "]", "an integer with more than 4300 digits"),
])
def test_bad_input_keeps_its_one_line_error(tmp_path: Path, text: str, error: str) -> None:
    f = tmp_path / "calls.json"
    f.write_text(text, encoding="utf-8")
    r = CliRunner().invoke(cli, ["check-nki", str(f), "--json"])
    assert r.exit_code == 2
    assert error in r.output and len(r.output.strip().splitlines()) == 1


def test_calls_spelled_differently_print_the_same(tmp_path: Path) -> None:
    calls = json.loads(EXAMPLE.read_text())
    tight = tmp_path / "tight.json"
    tight.write_text(json.dumps(calls * 3, separators=(",", ":")))
    loose = tmp_path / "loose.json"
    loose.write_text(json.dumps(calls * 3, indent=4))
    a = CliRunner().invoke(cli, ["check-nki", str(tight), "--json"])
    b = CliRunner().invoke(cli, ["check-nki", str(loose), "--json"])
    assert a.output == b.output and json.loads(a.output)[5]["index"] == 5


def test_shared_clause_results_equal_fresh_ones(monkeypatch) -> None:
    from neurondbg.machine.legality.nki import check
    from neurondbg.machine.legality.nki.check import evaluate, parse_call
    from neurondbg.machine.legality.result import ClauseResult

    calls = json.loads(EXAMPLE.read_text())
    first = [evaluate(*parse_call(c)) for c in calls]
    again = [evaluate(*parse_call(c)) for c in calls]
    for a, b in zip(first, again, strict=True):
        assert a == b and a is not b
        assert all(x is y for x, y in zip(a.clauses, b.clauses, strict=True))  # shared
    intrinsic = parse_call(calls[1])[0]
    for r, spec in zip(first[1].clauses, intrinsic.clauses, strict=True):
        assert r == ClauseResult(spec.name, r.passed, r.message, None if r.passed else spec.fix,
                                 spec.provenance, spec.reads, spec.note)
    monkeypatch.setattr(check, "MEMO", 3)  # emptied as it fills: still the same verdicts
    check._RESULTS.clear()
    assert [evaluate(*parse_call(c)) for c in calls] == first
    assert len(check._RESULTS) <= 3
