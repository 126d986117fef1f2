"""`set` on a kernel through the console: stored on the engine named (or the focused
one), undone by reverse, and kept by a kernel session file (made again on load)."""

from __future__ import annotations

from pathlib import Path

from neurondbg.console import execute
from neurondbg.debug.session import Session
from neurondbg.sessions.cli_support import OpenedKernel, open_path

DEADLOCK = Path(__file__).parents[2] / "examples" / "kernels" / "deadlock.asm"


def said(session: Session, line: str) -> str:
    return " ".join(text for text, _ in execute(line, session).lines)


def test_set_breaks_the_example_deadlock_and_reverse_undoes_it(tmp_path: Path) -> None:
    s = Session(DEADLOCK)
    s.arm("continue")
    assert "deadlock" in s.run()
    assert said(s, "set sem[1] = 1") == "sem[1] = 1 (0x00000001)"
    assert s.position == (0, 1)
    s.save(tmp_path / "k.toml")
    back = open_path(tmp_path / "k.toml")
    assert isinstance(back, OpenedKernel)
    assert back.core.state().sem[1] == 1 and back.core.digest() == s.core.digest()
    assert [(e.step, e.text, e.bits) for e in back.core.edits] == [(0, "sem[1]", 1)]
    s.arm("continue")
    s.run()
    steps = s.core.steps
    assert steps > 0 and s.core.status("pool") != "waiting"
    s.reverse(steps)
    assert s.core.state().sem[1] == 1 and s.position == (0, 1)
    s.reverse(1)
    assert s.core.state().sem[1] == 0 and s.position == (0, 0)
    s.save(tmp_path / "k.toml")
    assert (tmp_path / "k.toml").exists()


def test_set_names_the_focused_engine_and_refuses_one_without_a_queue() -> None:
    s = Session(DEADLOCK)
    assert said(s, "set R2 = 3") == f"{s.core.focus}.R2 = 3 (0x00000003)"
    assert "no act queue" in said(s, "set act.R2 = 3")
