"""The example NEFF a new user gets from `neurondbg examples --copy DIR` (made by
machine.neff.example, never shipped): the same bytes every time, copied under the same
rules as the bundled files, and it validates, disassembles, runs (out = a + b, no
race) and opens in the TUI as the README says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.neff import example
from neurondbg.machine.neff.container import HashCheck
from neurondbg.machine.neff.reader import open_neff
from neurondbg.sessions import examples
from tests.ui.helpers import started

ENGINES = ("act", "dve", "pe", "pool", "sp")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "neurondbg", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


def _copy(dest: Path, *more: str) -> tuple[int, str]:
    r = CliRunner().invoke(cli, ["examples", "--copy", str(dest), *more])
    return r.exit_code, r.output


@pytest.fixture(scope="module")
def copied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The examples copied out as a user would (a fresh interpreter), once."""
    dest = tmp_path_factory.mktemp("mine")
    r = _cli("examples", "--copy", str(dest), cwd=dest)
    assert r.returncode == 0, r.stderr
    return dest


def test_the_example_files_are_the_same_bytes_every_time() -> None:
    first, again = example.files(), example.files()
    assert first == again
    assert sorted(examples.neff_files()) == sorted(
        f"neff/{name}" for name in examples.NEFF_LISTED)


def test_the_example_inputs_read_at_a_glance() -> None:
    a, b = example.inputs()["a"], example.inputs()["b"]
    assert a.shape == b.shape == (128, 16) and a.dtype == b.dtype == np.float32
    assert a[0, 0] == 0.0 and a[1, 8] == 1.5 and a[127, 15] == 127.9375
    assert (b == 0.5).all()


def test_the_listing_names_the_example_neff_and_its_inputs() -> None:
    r = CliRunner().invoke(cli, ["examples"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["vector_add"])
    assert examples.NEFF_DESCRIPTIONS["vector_add"] in lines[at]
    assert lines[at + 1].split() == ["neff/vector_add.neff", "neff/a.npy", "neff/b.npy"]


def test_the_copy_writes_the_example_neff_and_its_inputs(copied: Path) -> None:
    for rel, data in examples.neff_files().items():
        assert (copied / rel).read_bytes() == data
    assert sorted(p.name for p in (copied / "neff").iterdir()) == sorted(examples.NEFF_LISTED)
    a = np.load(copied / "neff" / "a.npy")
    assert (a == example.inputs()["a"]).all()
    neff = open_neff(copied / "neff" / "vector_add.neff")
    assert neff.header.uuid == example.UUID and neff.info.target == "sunda"
    assert not neff.warnings and neff.hash_check is HashCheck.VERIFIED


def test_validate_passes_the_example(copied: Path) -> None:
    r = _cli("validate", "neff/vector_add.neff", cwd=copied)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == (
        "11 instructions, 0 invalid; 3 DMA triggers, 3 entries, 3 descriptors; "
        "0 check failures, 0 warnings (sunda, sg00)")


def test_disasm_shows_five_engines_and_commented_triggers(copied: Path) -> None:
    r = _cli("disasm", "neff/vector_add.neff", cwd=copied)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [line.split()[1] for line in lines if line.startswith(".engine")] == list(ENGINES)
    triggers = [line for line in lines if line.startswith("PSEUDO_DMATRIGGER")]
    assert [t.split("  # ")[1].split(":")[0] for t in triggers] == [
        "qPoolIO0#0 -> sem[24] [store]", "qSPIO0#0 -> sem[8] [load a]",
        "qSPIO0#1 -> sem[9] [load b]"]


def test_run_adds_the_copied_inputs_without_a_race(copied: Path, tmp_path: Path) -> None:
    r = _cli("run", "neff/vector_add.neff", "--input", "a=neff/a.npy", "--input",
             "b=neff/b.npy", "--output", f"out={tmp_path / 'out.npy'}", "--json", cwd=copied)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["reason"] == "complete" and doc["races"] == [] and doc["deadlock"] == []
    assert doc["dma"] == {"qSPIO0": 2, "qPoolIO0": 1}
    a, b = np.load(copied / "neff" / "a.npy"), np.load(copied / "neff" / "b.npy")
    out = np.load(tmp_path / "out.npy")
    assert out.dtype == np.float32 and out.shape == (128, 16)
    assert (out == a + b).all() and out[1, 8] == 2.0


def test_the_readmes_commands_on_the_example_do_what_it_says(copied: Path) -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    lines = [line.split("  #")[0].split() for line in readme.splitlines()
             if line.startswith("neurondbg ") and "neff/vector_add.neff" in line]
    assert [words[1] for words in lines] == ["validate", "run", "tui"]
    assert all(words[2] == "neff/vector_add.neff" for words in lines)
    for words in lines[:2]:
        r = _cli(*words[1:], cwd=copied)
        assert r.returncode == 0 and r.stderr == "", r.stderr
    out = np.load(copied / "out.npy")  # where the README's `run` writes it
    assert (out == np.load(copied / "neff" / "a.npy") + 0.5).all()


def test_a_second_copy_skips_the_example_neff(tmp_path: Path) -> None:
    assert _copy(tmp_path)[0] == 0
    code, out = _copy(tmp_path)
    assert code == 0 and out.startswith("copied 0 file(s)")


def test_an_edited_input_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    assert _copy(tmp_path)[0] == 0
    mine = tmp_path / "neff" / "a.npy"
    mine.write_bytes(b"my own")
    (tmp_path / "neff" / "vector_add.neff").unlink()
    (tmp_path / "loop.asm").unlink()
    code, out = _copy(tmp_path)
    assert code == 2 and out == (f"neurondbg: error: {mine}: exists with other contents; "
                                 "nothing copied (move it away, copy into another folder, "
                                 "or --force)\n")
    assert mine.read_bytes() == b"my own"
    assert not (tmp_path / "neff" / "vector_add.neff").exists()
    assert not (tmp_path / "loop.asm").exists()
    code, out = _copy(tmp_path, "--force")
    assert code == 0, out
    assert mine.read_bytes() == examples.neff_files()["neff/a.npy"]
    assert (tmp_path / "neff" / "vector_add.neff").exists()


def test_a_neff_file_in_the_way_of_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "neff").write_text("mine\n")
    code, out = _copy(tmp_path)
    assert code == 2 and out.count("\n") == 1
    assert "neff: exists and is not a folder; nothing copied" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["neff"]


async def test_the_tui_opens_the_example_and_steps(copied: Path) -> None:
    async with started(copied / "neff" / "vector_add.neff") as (app, pilot):
        s = app.session
        assert s.core.names == ("pool", "dve", "act", "pe", "sp", "qSPIO0", "qPoolIO0")
        await pilot.press("2")  # the Engines pane, where S steps the core
        await pilot.press(*"S" * 5)
        await pilot.pause()
        assert s.core.steps == 5 and s.core.races == []
        log = "\n".join(str(line.text) for line in app.screen.query_one("#console-log").lines)
        assert "error" not in log
