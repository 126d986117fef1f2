"""The TUI's `diagnose` compares with what the user gave as the device's output (loaded
in the Cast's destination, or `diagnose ACTUAL.npy`); with neither, it says how to give
one instead of explaining zeros."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from neurondbg import console
from neurondbg.debug.session import Session
from neurondbg.views.console_view import ConsoleView
from tests.convert.test_console_diagnose import PROGRAM
from tests.ui.helpers import started

# the same Cast with nothing loaded in its destination
UNLOADED = "\n".join(line for line in PROGRAM.splitlines()
                     if not line.startswith(".data sb[0:p4, 0x100]")) + "\n"
DEVICE = [1.0078125, 1.015625, 2.5, 0.10009765625, 7, 1.5, -1.0078125, 3]  # ties away


def _lines(session: Session, line: str) -> list[str]:
    reply = console.execute(line, session)
    return [text for text, _ in reply.lines]


def _session(tmp_path: Path, text: str) -> Session:
    path = tmp_path / "device.asm"
    path.write_text(text)
    s = Session(str(path))
    s.step(2)
    return s


def test_nothing_loaded_says_how_to_give_the_device_output(tmp_path: Path) -> None:
    lines = _lines(_session(tmp_path, UNLOADED), "diagnose")
    assert len(lines) == 1 and lines[0].startswith("error: diagnose: no device output to "
                                                   "compare: sb[0:4, 0x100] held only zeros")
    assert "`diagnose ACTUAL.npy`" in lines[0] and "`.data sb[0:4, 0x100] bf16 ...`" in lines[0]
    assert "unexplained" not in lines[0]


def test_an_npy_gives_the_device_output(tmp_path: Path) -> None:
    actual = tmp_path / "device.npy"
    np.save(actual, np.tile(np.array(DEVICE, np.float32), (4, 1)))
    given = _lines(_session(tmp_path, UNLOADED), f"diagnose {actual}")
    loaded = _lines(_session(tmp_path, PROGRAM), "diagnose")
    assert given[0].endswith(f"{actual} as ACTUAL")
    assert given[1:] == loaded[1:]  # the same answer as when it was loaded
    assert given[1].startswith("32 lanes: all match neuron rint")
    lane = _lines(_session(tmp_path, UNLOADED), f"diagnose 0,0 {actual}")
    assert any("explained by: ieee round" in ln for ln in lane)


def test_a_bad_npy_is_one_line(tmp_path: Path) -> None:
    s = _session(tmp_path, UNLOADED)
    wrong = tmp_path / "wrong.npy"
    np.save(wrong, np.ones(5, np.float32))
    assert _lines(s, f"diagnose {wrong}") == [
        f"error: diagnose: {wrong}: 5 lanes, expected the Cast's 4 x 8 lanes"]
    inexact = tmp_path / "inexact.npy"
    np.save(inexact, np.full((4, 8), 0.1, np.float64))
    (line,) = _lines(s, f"diagnose {inexact}")
    assert line.startswith(f"error: diagnose: {inexact}: lane ") and "bf16" in line
    (missing,) = _lines(s, f"diagnose {tmp_path / 'none.npy'}")
    assert missing.startswith("error: diagnose: ") and "none.npy" in missing


async def test_the_tui_says_how_to_give_one(tmp_path: Path) -> None:
    path = tmp_path / "device.asm"
    path.write_text(UNLOADED)
    async with started(path) as (app, pilot):
        await app.run_command_async("step 2")
        await app.run_command_async("diagnose")
        await pilot.pause()
        said = app.query_one(ConsoleView).messages
        assert any("no device output to compare" in m for m in said)
        assert not any("unexplained" in m for m in said)
