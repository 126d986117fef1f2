"""Ctrl+C while `run SESSION` replays a long session to its saved step: one line on
stderr, exit 130, nothing printed on stdout (a program's session and a kernel's alike)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from neurondbg.machine.isa.programs import kernel_text, spin
from tests.core.test_run_kernel_interrupt import cpu_seconds
from tests.helpers import interrupted_run

FAR = 10**12  # replaying to it would take days: the load is what Ctrl+C stops


def _far_session(folder: Path, text: str) -> Path:
    """A session of `text` saved at step 10 and edited to claim step FAR."""
    prog, sess = folder / "spin.asm", folder / "s.toml"
    prog.write_text(text)
    subprocess.run([sys.executable, "-m", "neurondbg", "run", str(prog), "--max-steps", "10",
                    "--save-session", str(sess)], check=True, capture_output=True, timeout=120)
    saved = sess.read_text()
    far = re.sub(r"(?m)^steps = 10$", f"steps = {FAR}", saved)
    assert far != saved
    sess.write_text(far)
    return sess


@pytest.mark.parametrize("text", [spin(1), kernel_text(pool=spin(1), dve=spin(2))],
                         ids=["program", "kernel"])
def test_ctrl_c_during_a_session_load_exits_130(tmp_path: Path, text: str) -> None:
    sess = _far_session(tmp_path, text)
    # 1.5 s of CPU: past start-up (~0.5 s), well inside a load of 10^12 steps
    code, out, err = interrupted_run([str(sess), "--json"],
                                     lambda pid: cpu_seconds(pid) > 1.5)
    assert code == 130, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert re.fullmatch(rf"neurondbg: {re.escape(str(sess))}: loading interrupted at step "
                        rf"\d+ of {FAR}", lines[0]), lines[0]
    assert "error" not in err and "Traceback" not in err
