"""The SBUF pane after memory moved into a memfd (the first CAST of >=
MOVE_MIN_BYTES replaces the state's arrays): it shows the cast's bytes, and the undone
bytes after a reverse step, read from the memory the machine has now."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from neurondbg.views.memory import MemoryView
from tests.machine.test_memfd_moved import MID, OUT, PROGRAM, bf16_bytes, moved
from tests.ui.helpers import started

pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="memfd is Linux only")


def shown(view: MemoryView) -> np.ndarray:
    """The pane's cells as last drawn, as (partitions, bytes)."""
    return np.ascontiguousarray(view._codes).view(np.uint8)


async def test_sbuf_pane_shows_moved_memory_after_a_step_and_a_reverse(tmp_path: Path) -> None:
    prog = tmp_path / "big.asm"
    prog.write_text(PROGRAM + "\n")
    async with started(prog) as (app, pilot):
        state = app.session.dbg.state
        await pilot.press("s")  # the big CAST: memory moves
        await pilot.pause()
        assert moved(state)
        view = app.screen.query_one(MemoryView)
        assert view.snap.sbuf is state.sbuf  # the pane reads the arrays memory moved to
        assert (view.space, view.start, view.dtype) == ("sbuf", MID, "bf16")  # followed it
        cells = shown(view)
        assert cells.shape[1] > 0 and (cells == bf16_bytes()[:, :cells.shape[1]]).all()
        await pilot.press("s")  # the cast back to fp32 at OUT, in moved memory
        await pilot.pause()
        assert (view.start, view.dtype) == (OUT, "fp32")
        assert shown(view).any()
        await pilot.press("r")  # undone: the pane shows OUT's zeros again
        await pilot.pause()
        assert state.steps == 1 and view.snap.sbuf is state.sbuf
        assert view.start == OUT and not shown(view).any()
        view.goto(0, MID)
        cells = shown(view)
        assert view.dtype == "fp32" and cells.shape[1] > 0
        assert (cells == bf16_bytes()[:, :cells.shape[1]]).all()
