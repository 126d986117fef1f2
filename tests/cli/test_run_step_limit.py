"""`run` without --max-steps that the default budget stops: a warning and exit 3; the
`--max-steps N` a user gives is a stop they asked for (exit 0, nothing on stderr)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.isa.programs import kernel_text, spin

SPIN = ("top:\n  MOVE R1=1\n  COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 "
        "cmp_immediate=0 target=top\n")
HALTS = "MOVE R1=1\nHALT\n"


@pytest.fixture(autouse=True)
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("neurondbg.sessions.cli_support.DEFAULT_MAX_STEPS", 500)


def _run(path: Path, *args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["run", str(path), *args])
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.parametrize("text", [SPIN, kernel_text(pool=spin(1), dve=spin(2))],
                         ids=["program", "kernel"])
def test_the_default_budget_running_out_warns_and_exits_3(tmp_path: Path, text: str) -> None:
    prog = tmp_path / "spin.asm"
    prog.write_text(text)
    code, out, err = _run(prog, "--json")
    assert code == 3
    d = json.loads(out)
    assert (d["steps"], d["stop"]["reason"]) == (500, "max-steps")
    assert err == ("neurondbg: warning: stopped at the default limit of 500 steps before the "
                   "program stopped; give --max-steps N to run longer\n")


@pytest.mark.parametrize("text", [SPIN, kernel_text(pool=spin(1), dve=spin(2))],
                         ids=["program", "kernel"])
def test_a_given_max_steps_is_a_requested_stop(tmp_path: Path, text: str) -> None:
    prog = tmp_path / "spin.asm"
    prog.write_text(text)
    for n in (1, 500, 800):
        code, out, err = _run(prog, "--max-steps", str(n), "--json")
        assert (code, err) == (0, "")
        assert json.loads(out)["steps"] == n


def test_a_program_that_halts_inside_the_budget_exits_0(tmp_path: Path) -> None:
    prog = tmp_path / "halts.asm"
    prog.write_text(HALTS)
    code, out, err = _run(prog)
    assert (code, err) == (0, "")
    assert out.startswith("stop: halt")
