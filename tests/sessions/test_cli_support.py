"""The helpers `neurondbg run` uses for --save-session and `run SESSION.toml`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neurondbg.commands.run_report import program_json as result_json
from neurondbg.sessions.cli_support import (
    is_session_file,
    open_program_or_session,
    run_opened,
    save_after_run,
)
from neurondbg.sessions.errors import SessionError


def test_program_run_save_then_session_run(program: Path, tmp_path: Path) -> None:
    opened = open_program_or_session(program, "cayman", "pool")
    assert not opened.is_session and opened.warnings == []
    opened.core.add_breakpoint("op:CAST")
    stop = run_opened(opened)
    assert stop.reason == "breakpoint" and opened.machine.state.steps == 2
    first = result_json(opened, stop)
    assert set(first) >= {"steps", "stop", "pc", "registers"} and first["steps"] == 2
    assert first["stop"]["source"].endswith("loop.asm:5:5")  # the CAST's assembly line
    assert {k: first["stop"][k] for k in ("reason", "pc", "detail")} == {
        "reason": "breakpoint", "pc": 0x80, "detail": "#1 op:CAST: before CAST at 0x80"}
    save_after_run(tmp_path / "s.toml", opened, stop)

    again = open_program_or_session(tmp_path / "s.toml", "sunda", "dve")  # the session wins
    assert again.is_session and again.machine.config.gen.label == "cayman"
    same = result_json(again, run_opened(again, max_steps=0))  # 0: report the saved state
    assert {k: same[k] for k in first if k != "stop"} == {k: first[k] for k in first
                                                         if k != "stop"}
    assert same["stop"]["reason"] == "max-steps"
    assert same["session"]["saved_steps"] == 2 and same["session"]["digest_ok"]
    assert json.loads(json.dumps(same)) == same
    on = run_opened(again, max_steps=3)  # counts from the saved step: 3 more steps
    assert on.reason == "max-steps" and again.machine.state.steps == 5
    assert run_opened(again, max_steps=10_000).reason == "breakpoint"  # the CAST again


def test_session_run_continues_from_its_saved_step(program: Path, tmp_path: Path) -> None:
    opened = open_program_or_session(program)
    opened.core.cont(max_steps=4)
    save_after_run(tmp_path / "s.toml", opened)
    again = open_program_or_session(tmp_path / "s.toml")
    assert again.machine.state.steps == 4
    stop = run_opened(again)  # like `run PROGRAM` from there: to the next stop
    assert stop.reason == "halt" and again.machine.state.steps > 4
    fresh = open_program_or_session(program)
    assert run_opened(fresh).reason == "halt"
    assert fresh.machine.state.digest() == again.machine.state.digest()


def test_a_program_on_its_core_saves_its_edits_and_breakpoints(program: Path,
                                                               tmp_path: Path) -> None:
    opened = open_program_or_session(program)
    opened.core.add_breakpoint("op:CAST")
    opened.core.add_breakpoint("watch:R5")
    opened.core.set_enabled(2, False)
    assert run_opened(opened).reason == "breakpoint"
    assert opened.core.edit("R5", "9") == "R5 = 9 (0x00000009)"
    save_after_run(tmp_path / "s.toml", opened)
    again = open_program_or_session(tmp_path / "s.toml")
    assert again.session is not None and again.session.digest_ok
    assert [(e.step, e.target, e.value) for e in again.session.spec.edits] == [
        (2, "R5", "0x9")]
    assert again.machine.state.R[5] == 9
    assert again.machine.state.digest() == opened.machine.state.digest()
    assert [(b.id, b.text, b.enabled) for b in again.core.breakpoints] == [
        (1, "op:CAST", True), (2, "watch:R5", False)]
    assert again.core.reverse_step() and again.machine.state.R[5] != 9  # the edit undone


def test_errors_are_session_errors(tmp_path: Path) -> None:
    assert is_session_file("a/B.TOML") and not is_session_file("prog.asm")
    with pytest.raises(SessionError, match="--gen: unknown generation"):
        open_program_or_session(tmp_path / "p.asm", "tahoe")
    with pytest.raises(SessionError, match=r"p\.asm: no such file"):
        open_program_or_session(tmp_path / "p.asm")
    with pytest.raises(SessionError, match=r"s\.toml: no such session file"):
        open_program_or_session(tmp_path / "s.toml")
