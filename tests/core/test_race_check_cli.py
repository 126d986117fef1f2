"""`run KERNEL --races on|off|explore[:N]`: what a verdict covers, in text and JSON, and
an exploration's report (neurondbg/commands/race_check.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.commands.race_check import RACES, RaceMode, parse_races
from tests.core.test_race_explore import EQ0_RACE
from tests.core.test_run_kernel_interrupt import cpu_seconds
from tests.helpers import interrupted_run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kernels"
# both engines bump their own semaphore every trip: a decision at every step
BUMP = ("top:\n    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=1 "
        "events.update_mode=SEM_INC_READ events.update_idx={sem}\n"
        "    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=-1 "
        "target=top\n")


def _eq0(tmp_path: Path) -> Path:
    p = tmp_path / "eq0.asm"
    p.write_text("".join(f".engine {e}\n{t}" for e, t in EQ0_RACE.items()))
    return p


def _run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["run", *args])
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.parametrize(("text", "mode"), [
    ("on", RaceMode(True)), ("OFF", RaceMode(False)), ("yes", RaceMode(True)),
    ("explore", RaceMode(True, 16)), ("explore:3", RaceMode(True, 3)),
    (" Explore:100000 ", RaceMode(True, 100_000)),
])
def test_races_words(text: str, mode: RaceMode) -> None:
    assert parse_races(text) == mode == RACES.convert(text, None, None)
    assert RACES.convert(mode.check, None, None) == RaceMode(mode.check)


@pytest.mark.parametrize(("value", "fragment"), [
    ("maybe", "expected on, off or explore[:N], found 'maybe'"),
    ("explore:0", "explore:N takes N = 1..100000 schedules, found '0'"),
    ("explore:x", "explore:N takes N = 1..100000 schedules, found 'x'"),
    ("explore:100001", "found '100001'"),
])
def test_bad_race_modes_are_one_line_exit_2(tmp_path: Path, value: str, fragment: str) -> None:
    code, _, err = _run(str(_eq0(tmp_path)), "--races", value)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


def test_a_run_says_its_verdict_may_depend_on_the_schedule(tmp_path: Path) -> None:
    code, out, _ = _run(str(_eq0(tmp_path)))
    assert code == 0
    assert out.splitlines()[-1] == (
        "races: checked under rr only; the verdict may depend on the schedule (dve waits "
        "with SEM_EQ_IMM at 0x0, not a >= / > wait): --races explore tries more")
    code, out, _ = _run(str(_eq0(tmp_path)), "--json", "--schedule", "in-order")
    assert json.loads(out)["race_check"] == {
        "schedules": ["in-order"], "every_schedule": False,
        "reason": "dve waits with SEM_EQ_IMM at 0x0, not a >= / > wait"}


def test_a_monotone_kernel_is_judged_for_every_schedule() -> None:
    code, out, _ = _run(str(EXAMPLES / "producer_consumer.asm"), "--json")
    assert code == 0
    assert json.loads(out)["race_check"] == {
        "schedules": ["rr"], "every_schedule": True,
        "reason": "every wait is >= / > on a semaphore that one queue only increases"}
    code, out, _ = _run(str(EXAMPLES / "producer_consumer.asm"), "--races", "off", "--json")
    assert "race_check" not in json.loads(out)


def test_explore_reports_the_race_rr_misses_with_a_schedule_that_reruns_it(
        tmp_path: Path) -> None:
    k = str(_eq0(tmp_path))
    code, out, _ = _run(k, "--races", "explore")
    assert code == 1
    lines = out.splitlines()
    assert lines[-3] == ("explore: 4 schedules tried (every order of the semaphore steps, so "
                         "every schedule is covered): 1 race")
    assert lines[-2].startswith("race 1: dve COPY at pc 0x0 (") and "writes sbuf" in lines[-2]
    assert lines[-1] == "  shown by --schedule seq:1"
    code, out, _ = _run(k, "--races", "explore", "--json")
    rc = json.loads(out)["race_check"]
    assert code == 1 and rc["complete"] and rc["every_schedule"] and not rc["interrupted"]
    assert rc["schedules"] == [t["schedule"] for t in rc["tried"]] and rc["schedules"][0] == "rr"
    assert [(r["a"]["engine"], r["b"]["engine"], r["schedule"]) for r in rc["races"]] == [
        ("dve", "pool", "seq:1")]
    assert rc["races"][0]["a"]["source"].endswith("eq0.asm:8:1")
    code, out, _ = _run(k, "--schedule", "seq:1", "--json")
    assert code == 1 and len(json.loads(out)["races"]) == 1


def test_explore_one_schedule_is_not_complete(tmp_path: Path) -> None:
    code, out, _ = _run(str(_eq0(tmp_path)), "--races", "explore:1")
    assert code == 0
    assert out.splitlines()[-1] == (
        "explore: 1 schedule tried (not every order of the semaphore steps: a larger N in "
        "--races explore:N tries more): 0 races")


def test_explore_refuses_a_session(tmp_path: Path) -> None:
    sess = tmp_path / "s.toml"
    assert _run(str(_eq0(tmp_path)), "--max-steps", "2", "--save-session", str(sess))[0] == 0
    code, _, err = _run(str(sess), "--races", "explore")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "explores a kernel from its start; give the kernel source, not a session" in err


def test_ctrl_c_while_exploring_is_one_line_and_130(tmp_path: Path) -> None:
    k = tmp_path / "bump.asm"
    k.write_text(f".engine pool\n{BUMP.format(sem=0)}.engine dve\n{BUMP.format(sem=1)}")
    # the run asked for is 2000 fast steps (well under a second); the exploration is
    # 100000 schedules of 2000 slow steps: a Ctrl+C after 3 s of CPU lands in it
    code, out, err = interrupted_run([str(k), "--max-steps", "2000", "--races",
                                      "explore:100000"], lambda pid: cpu_seconds(pid) > 3)
    assert code == 130, err
    assert err.strip().startswith("neurondbg: interrupted while exploring schedules (")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    tried = int(err.split("(")[1].split()[0])
    assert f"explore: {tried} schedule" in out and "not every order" in out
