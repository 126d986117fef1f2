"""Trace export (JSON lines) and the golden-model replay, library and CLI."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.core.core import Core
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.replay import first_difference, replay
from neurondbg.sessions.trace import HEX_LIMIT, blob, trace_hook, write_trace

from .conftest import SMALL


def _trace(core: Core, path: Path) -> list[dict]:
    with path.open("w") as fp:
        core.on_step = trace_hook(fp)
        assert core.cont().reason == "halt"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_trace_lines(core: Core, tmp_path: Path) -> None:
    lines = _trace(core, tmp_path / "t.jsonl")
    assert len(lines) == core.steps == 18
    assert [d["step"] for d in lines] == list(range(18))
    first, cast, branch = lines[0], lines[2], lines[4]
    assert first == {"step": 0, "pc": 0, "index": 0, "opcode": 0xA7, "mnemonic": "MOVE",
                     "verdict": "valid", "writes": [
                         {"target": "R1", "old": 0, "new": 0},
                         {"target": "R2", "old": 0, "new": 4},
                         {"target": "R7", "old": 0, "new": 0x40}]}
    w = cast["writes"][0]
    assert cast["mnemonic"] == "CAST" and w["partitions"] == [0, 4] and w["offset"] == 64
    assert w["length"] == 16 and w["size"] == 2 and w["new"].startswith("sha256:")
    assert cast["lanes"]["tie"] == 4 and cast["lanes"]["inf"] == 4
    assert branch["writes"] == [{"target": "PC", "old": 256, "new": 64}]
    assert lines[-1]["halted"] is True and lines[-1]["mnemonic"] == "HALT"


def test_blob_hex_when_small_sha_when_large() -> None:
    small = np.arange(HEX_LIMIT, dtype=np.uint8)
    assert blob(small) == small.tobytes().hex()
    assert blob(np.arange(HEX_LIMIT + 1, dtype=np.uint8)).startswith("sha256:")


def test_write_trace_matches_the_hook(core: Core, program: Path, tmp_path: Path) -> None:
    from .conftest import make_machine

    hooked = _trace(core, tmp_path / "t.jsonl")
    m = make_machine(program)
    recs = []
    while not m.state.halted:
        recs.append(m.step())
    buf = io.StringIO()
    assert write_trace(recs, buf) == 18
    assert [json.loads(x) for x in buf.getvalue().splitlines()] == hooked


def test_replay_finds_no_divergence_then_an_altered_line(core: Core, program: Path,
                                                         tmp_path: Path) -> None:
    lines = _trace(core, tmp_path / "t.jsonl")
    ok = replay(tmp_path / "t.jsonl", program, config=SMALL)
    assert ok.steps == 18 and ok.divergence is None
    lines[5]["writes"][0]["new"] = 7  # R1: 3 + 3 = 6 in truth
    (tmp_path / "bad.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines))
    r = replay(tmp_path / "bad.jsonl", program, config=SMALL)
    d = r.divergence
    assert r.steps == 6 and (d.step, d.line, d.field, d.expected, d.actual) == (
        5, 6, "writes[0].new", 7, 6)
    assert d.describe() == "step 5 (trace line 6): writes[0].new: expected 7, actual 6"


def test_replay_from_a_mid_session_trace(core: Core, program: Path,
                                         tmp_path: Path) -> None:
    lines = _trace(core, tmp_path / "t.jsonl")
    (tmp_path / "mid.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines[7:]))
    assert replay(tmp_path / "mid.jsonl", program, config=SMALL).divergence is None


def test_first_difference_rules() -> None:
    assert first_difference({"a": 1, "w": [{"x": 1}]}, {"a": 1, "w": [{"x": 1, "y": 2}]}) is None
    assert first_difference({"a": 1}, {"a": 1, "fault": "boom"}) == ("fault", None, "boom")
    assert first_difference({"w": [1, 2]}, {"w": [1]}) == ("w[1]", 2, None)
    assert first_difference({"a": 1}, {}) == ("a", 1, None)


@pytest.mark.parametrize("text, message", [
    ('{"step": 0,\n', r"t\.jsonl:1:12: expected a JSON object per line"),
    ('\n[1, 2]\n', r"t\.jsonl:2: expected a JSON object per line, found list"),
    ('{"pc": 0}\n', r't\.jsonl:1: expected "step": a non-negative integer, found null'),
])
def test_bad_trace_lines(program: Path, tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "t.jsonl").write_text(text)
    with pytest.raises(SessionError, match=message):
        replay(tmp_path / "t.jsonl", program)


def test_replay_cli_exit_codes(core: Core, program: Path, tmp_path: Path) -> None:
    # the CLI machine uses the generation's full geometry: trace it the same way
    from neurondbg.machine.state import MachineConfig

    from .conftest import make_core

    lines = _trace(make_core(program, MachineConfig()), tmp_path / "t.jsonl")
    runner = CliRunner()
    ok = runner.invoke(cli, ["replay", str(tmp_path / "t.jsonl"), str(program)])
    assert ok.exit_code == 0 and ok.output == f"no divergence: 18 steps match {tmp_path}/t.jsonl\n"
    lines[2]["pc"] = 999
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines))
    bad = runner.invoke(cli, ["replay", str(tmp_path / "b.jsonl"), str(program), "--json"])
    assert bad.exit_code == 1
    assert json.loads(bad.output) == {"schema": "neurondbg.replay/1", "steps": 3,
                                      "diverged": True, "divergence": {
        "step": 2, "line": 3, "field": "pc", "expected": 999, "actual": 128}}
    text = runner.invoke(cli, ["replay", str(tmp_path / "b.jsonl"), str(program)])
    assert text.exit_code == 1 and text.output.startswith(
        "divergence at step 2 (trace line 3): pc: expected 999, actual 128")
    (tmp_path / "j.jsonl").write_text('{"step": 0}\nnot json\n')
    err = runner.invoke(cli, ["replay", str(tmp_path / "j.jsonl"), str(program)])
    assert err.exit_code == 2 and err.output.count("\n") == 1
    assert "j.jsonl:2:1: expected a JSON object per line" in err.output
    missing = runner.invoke(cli, ["replay", str(tmp_path / "t.jsonl"), "nope.asm"])
    assert missing.exit_code == 2 and "nope.asm: no such file" in missing.output


def test_a_run_trace_file_replays(program: Path, tmp_path: Path) -> None:
    """`neurondbg run --trace` output (StepRecord.to_dict lines) is a valid golden trace."""
    runner = CliRunner()
    out = runner.invoke(cli, ["run", str(program), "--trace", str(tmp_path / "r.jsonl")])
    assert out.exit_code == 0
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    assert len(lines) == 19 and json.loads(lines[0])["neurondbg_trace"] == 1  # header + 18
    ok = runner.invoke(cli, ["replay", str(tmp_path / "r.jsonl"), str(program)])
    assert ok.exit_code == 0, ok.output
    d = json.loads(lines[10])  # step 9, on line 11 after the header
    d["mnemonic"] = "COPY"
    lines[10] = json.dumps(d)
    (tmp_path / "r2.jsonl").write_text("\n".join(lines) + "\n")
    bad = runner.invoke(cli, ["replay", str(tmp_path / "r2.jsonl"), str(program)])
    assert bad.exit_code == 1 and "step 9 (trace line 11): mnemonic: expected \"COPY\"" in (
        bad.output)


def test_replay_refuses_a_session_file_as_the_program(tmp_path) -> None:
    from click.testing import CliRunner

    from neurondbg.cli import cli

    trace = tmp_path / "t.jsonl"
    trace.write_text("")
    out = CliRunner().invoke(cli, ["replay", str(trace), str(tmp_path / "s.toml")])
    assert out.exit_code == 2
    assert "expected a program (.asm or .bin), found a session file" in out.stderr


def test_replay_follows_the_trace_header(tmp_path) -> None:
    """A DVE run with --execute-invalid replays without repeating those options."""
    import json
    from pathlib import Path

    from click.testing import CliRunner

    from neurondbg.cli import cli

    demo = Path(__file__).resolve().parents[2] / "examples" / "demo.asm"
    trace = tmp_path / "demo.jsonl"
    ran = CliRunner().invoke(cli, ["run", str(demo), "--engine", "dve", "--execute-invalid",
                                   "--trace", str(trace)])
    assert ran.exit_code == 1  # it ends on the Copy's fault
    header = json.loads(trace.read_text().splitlines()[0])
    assert header == {"neurondbg_trace": 1, "gen": "cayman", "engine": "dve",
                      "execute_invalid": True}
    out = CliRunner().invoke(cli, ["replay", str(trace), str(demo)])
    assert out.exit_code == 0, out.output
    # 19 executed steps and the faulting Copy's record
    assert out.output.startswith("no divergence: 20 steps match")
    # an option given on the command line wins over the header
    pool = CliRunner().invoke(cli, ["replay", str(trace), str(demo), "--engine", "pool"])
    assert pool.exit_code == 1 and "divergence at" in pool.output


def test_a_trace_line_with_a_huge_integer_is_a_positioned_error(tmp_path) -> None:
    from neurondbg.sessions.errors import SessionError
    from neurondbg.sessions.replay import read_trace

    trace = tmp_path / "t.jsonl"
    trace.write_text('{"step": 0}\n{"step": ' + "9" * 5000 + "}\n")
    with pytest.raises(SessionError, match=r"t\.jsonl:2:10: an integer with more than"):
        list(read_trace(trace))
