"""The console's `fix [N]`: the Legality pane's F as a command."""

from __future__ import annotations

from pathlib import Path

from neurondbg import console
from neurondbg.debug.session import Session
from tests.ui.test_legality_fix import NO_FIX, PROGRAM


def _session(tmp_path: Path, text: str) -> Session:
    path = tmp_path / "bad.asm"
    path.write_text(text)
    return Session(str(path))


def _said(session: Session, line: str) -> list[str]:
    return [t for t, _ in console.execute(line, session).lines]


def test_fix_n_applies_the_checked_fix_and_reverse_undoes_it(tmp_path: Path) -> None:
    s = _session(tmp_path, PROGRAM)
    before = bytes(s.dbg.instruction(1).raw)
    assert not s.dbg.verdict(1).valid
    assert _said(s, "fix 1") == ["record 1: out_dtype BF16 (0x6) -> FP32 (0xA); now valid"]
    assert s.dbg.verdict(1).valid and bytes(s.dbg.instruction(1).raw) != before
    assert _said(s, "fix 1") == ["record 1: is_valid_copy passes: nothing to fix"]
    console.execute("reverse", s)
    assert bytes(s.dbg.instruction(1).raw) == before and not s.dbg.verdict(1).valid


def test_fix_at_the_pc_and_its_errors(tmp_path: Path) -> None:
    s = _session(tmp_path, PROGRAM)
    s.step(1)  # the PC is on the COPY
    assert _said(s, "fix")[0].endswith("now valid")
    err = _said(s, "fix 7")[0]
    assert err.startswith("error:") and "record 7 does not exist (0..2)" in err
    assert "expected a record number such as 3, found 'x'" in _said(s, "fix x")[0]
    none = _session(tmp_path, NO_FIX)
    assert "record 0: no fix:" in _said(none, "fix 0")[0]
