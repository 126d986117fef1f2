"""A NEFF opened for the TUI with input tensors (`tui FILE.neff --input NAME=FILE.npy`):
the data reach the core, a saved session keeps the files and refuses one that changed,
and a bad input is one line before the UI starts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.debug.session import Session
from neurondbg.machine.neff.data import read_output
from neurondbg.machine.neff.writer import write_neff
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.neff_open import open_neff_kernel
from neurondbg.sessions.neff_session import save_neff_session
from neurondbg.sessions.store import load_kernel_session, read_session
from tests.neff.kernels import COLS, PARTS, vector_add


@pytest.fixture
def neff(tmp_path: Path) -> Path:
    path = tmp_path / "k.neff"
    write_neff(path, [vector_add()], target="sunda")
    return path


def _tensor(tmp_path: Path, name: str, value: np.ndarray) -> Path:
    path = tmp_path / f"{name}.npy"
    np.save(path, value.astype(np.float32))
    return path


A = np.arange(PARTS * COLS, dtype=np.float32).reshape(PARTS, COLS) / 4
B = np.full((PARTS, COLS), 0.5, dtype=np.float32)


def test_given_inputs_reach_the_output_and_the_rest_are_said_to_be_zeros(
        neff: Path, tmp_path: Path) -> None:
    a = _tensor(tmp_path, "a", A)
    opened = open_neff_kernel(neff, inputs=[("a", a)])
    assert any("input b not given: it starts as zeros" in w for w in opened.warnings)
    assert opened.core.cont().reason.value == "halt"
    assert opened.neff is not None
    out = read_output(opened.neff.dma, opened.neff.low.sub, "out")
    assert np.array_equal(out, A)  # a + zeros


def test_a_session_opened_with_inputs_runs_on_their_values(neff: Path, tmp_path: Path) -> None:
    s = Session(neff, inputs=[("a", _tensor(tmp_path, "a", A)),
                              ("b", _tensor(tmp_path, "b", B))])
    s.core.cont()
    assert s.opened.neff is not None  # type: ignore[union-attr]
    nc = s.opened.neff  # type: ignore[union-attr]
    assert np.array_equal(read_output(nc.dma, nc.low.sub, "out"), A + B)
    assert not any("not given" in w for w in s.warnings)


def test_a_saved_session_keeps_its_inputs(neff: Path, tmp_path: Path) -> None:
    a, b = _tensor(tmp_path, "a", A), _tensor(tmp_path, "b", B)
    opened = open_neff_kernel(neff, inputs=[("a", a), ("b", b)])
    for _ in range(12):
        opened.core.step()
    sbuf = np.array(opened.core.state().sbuf)
    assert sbuf.any()  # the loads have moved a's and b's bytes
    spec = save_neff_session(tmp_path / "s.toml", opened)
    assert spec.kernel is not None and spec.kernel.neff is not None
    assert {n: f.path for n, f in spec.kernel.neff.inputs.items()} == {"a": "a.npy",
                                                                         "b": "b.npy"}
    back = load_kernel_session(read_session(tmp_path / "s.toml"))
    assert np.array_equal(back.core.state().sbuf, sbuf)
    assert back.session is not None and back.session.digest_ok


def test_a_session_whose_input_changed_is_refused(neff: Path, tmp_path: Path) -> None:
    a = _tensor(tmp_path, "a", A)
    opened = open_neff_kernel(neff, inputs=[("a", a)])
    save_neff_session(tmp_path / "s.toml", opened)
    _tensor(tmp_path, "a", A + 1)
    with pytest.raises(SessionError, match=r"input a \(a.npy\) changed since the session "
                                           r"was saved"):
        load_kernel_session(read_session(tmp_path / "s.toml"))


def test_inputs_apply_to_a_neff_only(tmp_path: Path) -> None:
    prog = tmp_path / "p.asm"
    prog.write_text("NOP\n")
    with pytest.raises(SessionError, match="--input applies to a NEFF only"):
        Session(prog, inputs=[("a", tmp_path / "a.npy")])


@pytest.mark.parametrize(("spec", "problem"), [
    ("a", "--input 'a': expected NAME=FILE.npy"),
    ("zz=zz.npy", "--input zz=zz.npy: no input tensor 'zz' (inputs: a, b)"),
    ("a=SHAPE", "shape.npy: expected float32 (128, 16), found float32 (3,)"),
])
def test_a_bad_input_is_one_line_before_the_ui_starts(neff: Path, tmp_path: Path, spec: str,
                                                       problem: str) -> None:
    np.save(tmp_path / "shape.npy", np.zeros(3, np.float32))
    spec = spec.replace("SHAPE", str(tmp_path / "shape.npy"))
    got = CliRunner().invoke(cli, ["tui", str(neff), "--input", spec])
    assert got.exit_code == 2
    lines = got.output.strip().splitlines()
    assert len(lines) == 1 and problem in lines[0]


def test_input_on_a_program_is_refused(tmp_path: Path) -> None:
    prog = tmp_path / "p.asm"
    prog.write_text("NOP\n")
    got = CliRunner().invoke(cli, ["tui", str(prog), "--input", "a=a.npy"])
    assert (got.exit_code, got.output.strip()) == (
        2, f"neurondbg: error: {prog}: --input applies to a NEFF only")
