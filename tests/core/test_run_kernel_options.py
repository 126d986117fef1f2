"""`run --schedule` / `--races`: the click types of neurondbg.params_core, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.params_core import SCHEDULE, SWITCH, parse_schedule

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LOOP = str(EXAMPLES / "loop.asm")


@pytest.mark.parametrize(("text", "policy"), [
    ("rr", "rr"), ("RR", "rr"), (" in-order ", "in-order"), ("random:7", "random:7"),
    ("Random:0x10", "random:16"), ("random:0", "random:0"),
])
def test_schedule_words(text: str, policy: str) -> None:
    assert parse_schedule(text) == policy and SCHEDULE.convert(text, None, None) == policy


@pytest.mark.parametrize(("text", "value"), [("on", True), ("OFF", False), ("yes", True),
                                             ("0", False)])
def test_races_switch(text: str, value: bool) -> None:
    assert SWITCH.convert(text, None, None) is value


@pytest.mark.parametrize(("args", "fragment"), [
    (["--schedule", "fifo"], "Invalid value for '--schedule': schedule 'fifo': expected one of "
                             "rr, in-order, random:SEED"),
    (["--schedule", "random:-3"], "expected random:SEED with SEED an integer"),
    (["--schedule", "random:"], "expected random:SEED"),
    (["--races", "maybe"], "Invalid value for '--races': expected on, off or explore[:N], "
                           "found 'maybe'"),
])
def test_bad_values_are_one_line_exit_2(args: list[str], fragment: str) -> None:
    r = CliRunner().invoke(cli, ["run", LOOP, *args])
    assert r.exit_code == 2 and fragment in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_a_one_queue_program_ignores_the_core_options() -> None:
    plain = CliRunner().invoke(cli, ["run", LOOP, "--json"])
    core = CliRunner().invoke(cli, ["run", LOOP, "--json", "--schedule", "random:3",
                                    "--races", "off"])
    assert plain.exit_code == core.exit_code == 0 and plain.stdout == core.stdout
    assert "engines" not in json.loads(plain.stdout)
