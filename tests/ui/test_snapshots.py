"""SVG snapshots at 160x50 (pytest-textual-snapshot). Regenerate only in the pinned
environment: `pytest tests/ui/test_snapshots.py --snapshot-update`, then look at them."""

from __future__ import annotations

from pathlib import Path

import pytest

from neurondbg.app import NeurondbgApp
from neurondbg.panes import PANES

STEPS = Path(__file__).parent / "data" / "steps.asm"
SIZE = (160, 50)


def test_convert_lab(snap_compare) -> None:
    assert snap_compare(NeurondbgApp(lab_only=True), terminal_size=SIZE)


def test_default_layout_after_two_steps(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await pilot.app.wait_loaded()
        await pilot.press("s", "s")

    assert snap_compare(NeurondbgApp(STEPS), terminal_size=SIZE, run_before=run_before)


def test_invalid_instruction_legality(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await pilot.app.wait_loaded()
        await pilot.press("s", "s", "s")
        await pilot.app.run_command_async("pane legality")

    assert snap_compare(NeurondbgApp(STEPS), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("pane", list(PANES))
def test_pane_maximised(snap_compare, pane: str) -> None:
    async def run_before(pilot) -> None:
        await pilot.app.wait_loaded()
        await pilot.press("s", "s")
        await pilot.app.run_command_async(f"pane {pane}")

    assert snap_compare(NeurondbgApp(STEPS), terminal_size=SIZE, run_before=run_before)


def test_compact_layout_at_100x30(snap_compare) -> None:
    async def run_before(pilot) -> None:
        while pilot.app.session is None:  # the load worker may not have started yet
            await pilot.pause(0.01)
        await pilot.app.wait_loaded()
        await pilot.press("s", "s", "8")  # after the CAST: its lanes in the shared slot
        await pilot.pause()

    assert snap_compare(NeurondbgApp(STEPS), terminal_size=(100, 30), run_before=run_before)
