"""A NEFF's session (sessions.neff_session): saved at a step, loaded back to the same
state through the kernel-session loader, refused when the NEFF changed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from neurondbg.machine.neff.writer import write_neff
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.neff_open import open_neff_kernel
from neurondbg.sessions.neff_session import save_neff_session
from neurondbg.sessions.store import load_kernel_session, read_session
from tests.neff.kernels import SP_Q, vector_add


@pytest.fixture
def neff(tmp_path: Path) -> Path:
    path = tmp_path / "k.neff"
    write_neff(path, [vector_add()], target="sunda")
    return path


def test_a_saved_neff_session_loads_at_its_step_with_its_breakpoints(neff: Path,
                                                                      tmp_path: Path) -> None:
    opened = open_neff_kernel(neff)
    core = opened.core
    core.add_breakpoint(f"dma:{SP_Q}")
    stop = core.cont()  # the first completion of qSPIO0
    core.step()
    steps, digest, sbuf = core.steps, core.digest(), np.array(core.state().sbuf)
    assert steps > 0
    spec = save_neff_session(tmp_path / "s.toml", opened, stop)
    assert spec.kernel is not None and spec.kernel.neff is not None
    assert spec.kernel.neff.subgraph == "sg00" and spec.kernel.neff.size == neff.stat().st_size
    back = load_kernel_session(read_session(tmp_path / "s.toml"))
    assert back.core.steps == steps and back.core.digest() == digest
    assert np.array_equal(back.core.state().sbuf, sbuf)
    assert [bp.text for bp in back.core.breakpoints] == [f"dma:{SP_Q}"]
    assert back.session is not None and back.session.digest_ok
    assert back.core.cont().reason == core.cont().reason  # both go on alike


def test_a_neff_session_is_refused_when_the_neff_changed(neff: Path, tmp_path: Path) -> None:
    opened = open_neff_kernel(neff)
    opened.core.step()
    save_neff_session(tmp_path / "s.toml", opened)
    neff.unlink()
    write_neff(neff, [vector_add(dve="NOP")], target="sunda")
    with pytest.raises(SessionError, match="changed since the session was saved"):
        load_kernel_session(read_session(tmp_path / "s.toml"))


def test_saving_over_the_neff_itself_is_refused(neff: Path) -> None:
    with pytest.raises(SessionError, match="it is the NEFF"):
        save_neff_session(neff, open_neff_kernel(neff))


def test_run_session_replays_a_neff_session(neff: Path, tmp_path: Path) -> None:
    opened = open_neff_kernel(neff)
    for _ in range(3):
        opened.core.step()
    save_neff_session(tmp_path / "s.toml", opened)
    out = subprocess.run([sys.executable, "-m", "neurondbg", "run", str(tmp_path / "s.toml"),
                          "--json"], capture_output=True, text=True, timeout=120)
    whole = subprocess.run([sys.executable, "-m", "neurondbg", "run", str(neff), "--json"],
                           capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and whole.returncode == 0, out.stderr + whole.stderr
    got, want = json.loads(out.stdout), json.loads(whole.stdout)
    assert (got["stop"]["reason"], want["reason"]) == ("halt", "complete")
    assert got["steps"] == want["steps"]  # replayed from step 3 to the same end
    assert {e: v["pc"] for e, v in got["engines"].items()} == {
        e: v["pc"] for e, v in want["engines"].items()}
