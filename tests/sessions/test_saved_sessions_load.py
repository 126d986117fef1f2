"""Session files as today's code writes them keep loading to the state they saved.

tests/sessions/data/saved holds a program session written by `run --save-session`'s
saver (an --sbuf image, a breakpoint, a watch and a `set` edit) and a kernel session
written by the TUI's kernel session (a per-engine breakpoint and a forced step), with
the sources they name and the steps and digest each had when saved (expected.json).
A change to the session store or its schema must keep these loading exactly; the
bundled examples/demo.toml likewise."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from neurondbg.sessions import examples
from neurondbg.sessions.cli_support import Opened, OpenedKernel, open_path

SAVED = Path(__file__).parent / "data" / "saved"
EXPECTED = json.loads((SAVED / "expected.json").read_text())


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    """A copy of the saved folder: loading must not need (or touch) the original."""
    return Path(shutil.copytree(SAVED, tmp_path / "saved"))


def test_a_saved_program_session_loads_at_its_step(saved: Path) -> None:
    o = open_path(saved / "program.toml")
    assert isinstance(o, Opened) and o.session is not None
    m = o.machine
    assert (m.state.steps, m.state.digest()) == (EXPECTED["program.toml"]["steps"],
                                                 EXPECTED["program.toml"]["digest"])
    assert o.warnings == [] and o.session.digest_ok
    assert [(b.text, b.id) for b in o.core.breakpoints] == [("label:loop", 1), ("watch:R2", 2)]
    assert [(e.step, e.target) for e in o.core.saved_edits()] == [(1, "R5")]
    assert m.state.R[5] == 7
    assert m.state.sbuf[3, 15] == 63  # the --sbuf image, from the .npy beside the session
    assert o.layout == {"focus": "registers"}


def test_a_saved_kernel_session_loads_at_its_step(saved: Path) -> None:
    o = open_path(saved / "kernel.toml")
    assert isinstance(o, OpenedKernel) and o.session is not None
    core = o.core
    assert (core.steps, core.digest()) == (EXPECTED["kernel.toml"]["steps"],
                                           EXPECTED["kernel.toml"]["digest"])
    assert o.warnings == [] and o.session.digest_ok
    assert [b.text for b in core.breakpoints] == ["op:CAST@dve"]
    assert core.forced == {1: "pool"}


def test_the_bundled_demo_session_loads() -> None:
    o = open_path(examples.folder() / "demo.toml")
    assert isinstance(o, Opened) and o.session is not None
    assert o.machine.config.engine == "dve" and o.machine.config.execute_invalid
    assert [b.text for b in o.core.breakpoints] == ["invalid"]
    assert o.machine.state.steps == 0 and o.warnings == []
