"""`run` prints, exits and writes byte for byte what tests/cli/data/run_golden.json
recorded (tests/cli/run_cases.py): programs, kernels, sessions and bad input, text and
--json, so a change to how `run` works inside cannot change what a user sees."""

from __future__ import annotations

import json

import pytest

from tests.cli.run_cases import GOLDEN, cases, run_case

RECORDED = json.loads(GOLDEN.read_text())
CASES = cases()


def test_every_case_is_recorded() -> None:
    assert sorted(RECORDED) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_run_prints_what_was_recorded(name: str) -> None:
    assert run_case(CASES[name]) == RECORDED[name]
