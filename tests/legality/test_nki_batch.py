"""check-nki judges each distinct call once and renders its report once, and
prints byte for byte what judging every call on its own prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.commands.check_nki import _as_json
from neurondbg.documents import Kind, stamp_rows
from neurondbg.machine.legality.nki.check import evaluate, parse_call

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "nki_calls.json"


def calls() -> list[dict]:
    base = json.loads(EXAMPLE.read_text())
    other = json.loads(json.dumps(base[0]))
    other["args"]["dst"]["shape"] = [64, 64]  # a third distinct call
    reordered = {"args": base[1]["args"], "gen": base[1]["gen"], "op": base[1]["op"]}
    no_gen = {k: v for k, v in base[0].items() if k != "gen"}
    return [base[0], base[1], base[0], other, reordered, base[1], no_gen, other]


def test_json_equals_judging_every_call(tmp_path: Path) -> None:
    f = tmp_path / "calls.json"
    f.write_text(json.dumps(calls()))
    r = CliRunner().invoke(cli, ["check-nki", str(f), "--json", "--gen", "trn3"])
    want = []
    for i, call in enumerate(calls()):
        intrinsic, args, gen = parse_call(call, f"call {i}", parse_call_gen_default())
        want.append(_as_json(i, evaluate(intrinsic, args, gen), gen))
    assert r.stdout == json.dumps(stamp_rows(Kind.CHECK_NKI, want), indent=2) + "\n"
    assert r.exit_code == 1  # base[1] is illegal


def parse_call_gen_default():  # --gen trn3
    from neurondbg.machine.dtypes import parse_gen_name

    return parse_gen_name("trn3")


def test_text_equals_one_call_at_a_time(tmp_path: Path) -> None:
    whole = tmp_path / "calls.json"
    whole.write_text(json.dumps(calls()))
    got = CliRunner().invoke(cli, ["check-nki", str(whole)]).stdout
    want = []
    for i, call in enumerate(calls()):
        one = tmp_path / f"c{i}.json"
        one.write_text(json.dumps([call]))
        text = CliRunner().invoke(cli, ["check-nki", str(one)]).stdout
        assert text.startswith("call 0: ")
        want.append(text.replace("call 0: ", f"call {i}: ", 1))
    assert got == "".join(want)
    assert got.count("illegal") == 5  # base[1] twice, reordered, other twice


def test_stdin_and_empty(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["check-nki", "-", "--json"], input=json.dumps(calls()[:1]))
    assert r.exit_code == 0 and json.loads(r.stdout)[0]["index"] == 0
    assert CliRunner().invoke(cli, ["check-nki", "-", "--json"], input="[]").stdout == "[]\n"
    assert CliRunner().invoke(cli, ["check-nki", "-"], input="[]").stdout == "no calls\n"


@pytest.mark.parametrize(("text", "message"), [
    ("[1", "<stdin>:1:3: invalid JSON"),
    (json.dumps([calls()[0], calls()[0], {"op": "nope"}]),
     "<stdin>: call 2.op: unknown intrinsic"),
])
def test_bad_stdin_is_one_line(text: str, message: str) -> None:
    r = CliRunner().invoke(cli, ["check-nki", "-"], input=text)
    assert r.exit_code == 2 and message in r.stderr and len(r.stderr.splitlines()) == 1


@pytest.mark.parametrize("count", [1, 2, 7, 8])
def test_json_written_in_blocks_is_one_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            count: int) -> None:
    from neurondbg.commands import check_nki

    monkeypatch.setattr(check_nki, "BLOCK", 2)
    f = tmp_path / "calls.json"
    f.write_text(json.dumps(calls()[:count]))
    r = CliRunner().invoke(cli, ["check-nki", str(f), "--json"])
    monkeypatch.setattr(check_nki, "BLOCK", 4096)
    whole = CliRunner().invoke(cli, ["check-nki", str(f), "--json"])
    assert r.stdout == whole.stdout
    assert [d["index"] for d in json.loads(r.stdout)] == list(range(count))
