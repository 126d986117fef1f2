"""The helpers `neurondbg run` uses for --save-session and `run SESSION.toml`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessions.cli_support import (
    is_session_file,
    open_program_or_session,
    result_json,
    run_opened,
    save_after_run,
)
from sessions.errors import SessionError


def test_program_run_save_then_session_run(program: Path, tmp_path: Path) -> None:
    opened = open_program_or_session(program, "cayman", "pool")
    assert not opened.is_session and opened.warnings == []
    opened.machine.add_breakpoint("op:CAST")
    stop = run_opened(opened)
    assert stop.reason == "breakpoint" and opened.machine.state.steps == 2
    first = result_json(opened, stop)
    assert set(first) >= {"steps", "stop", "pc", "registers"} and first["steps"] == 2
    assert first["stop"] == {"reason": "breakpoint", "pc": 0x80, "detail": "#1 op:CAST"}
    save_after_run(tmp_path / "s.toml", opened, stop)

    again = open_program_or_session(tmp_path / "s.toml", "sunda", "dve")  # the session wins
    assert again.is_session and again.machine.config.gen.label == "cayman"
    same = result_json(again, run_opened(again))  # no --max-steps: stay at the saved step
    assert {k: same[k] for k in first} == first
    assert same["session"]["saved_steps"] == 2 and same["session"]["digest_ok"]
    assert json.loads(json.dumps(same)) == same
    assert run_opened(again, max_steps=1).reason == "breakpoint"  # not beyond: stays
    on = run_opened(again, max_steps=2 + 3)  # counts from the start: 3 more steps
    assert on.reason == "max-steps" and again.machine.state.steps == 5
    assert run_opened(again, max_steps=10_000).reason == "breakpoint"  # the CAST again


def test_session_without_stop_reports_its_step(program: Path, tmp_path: Path) -> None:
    opened = open_program_or_session(program)
    opened.machine.step_n(4)
    save_after_run(tmp_path / "s.toml", opened)
    again = open_program_or_session(tmp_path / "s.toml")
    stop = run_opened(again)
    assert (stop.reason, stop.detail) == ("max-steps", "at the saved step 4")


def test_errors_are_session_errors(tmp_path: Path) -> None:
    assert is_session_file("a/B.TOML") and not is_session_file("prog.asm")
    with pytest.raises(SessionError, match="--gen: unknown generation"):
        open_program_or_session(tmp_path / "p.asm", "tahoe")
    with pytest.raises(SessionError, match=r"p\.asm: no such file"):
        open_program_or_session(tmp_path / "p.asm")
    with pytest.raises(SessionError, match=r"s\.toml: no such session file"):
        open_program_or_session(tmp_path / "s.toml")
