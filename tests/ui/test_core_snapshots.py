"""SVG snapshots of the NeuronCore layout (issue 16) with shipped kernels: five engines at
160x50 stopped on a race, the compact layout at 100x30, a deadlock. Regenerate only in
the pinned environment (`--snapshot-update`), then look at them."""

from __future__ import annotations

from neurondbg.app import NeurondbgApp
from sessions.examples import folder
from sessions.tours import TOURS_DIR

KERNELS = folder() / "kernels"
FIVE = TOURS_DIR / "semaphores.asm"


async def _loaded(pilot) -> None:
    while pilot.app.session is None and pilot.app.load_error is None:
        await pilot.pause(0.01)
    await pilot.app.wait_loaded()


def test_core_layout_five_engines_at_a_race(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await _loaded(pilot)
        await pilot.press(*"SSSSSSSS")  # step 8 is POOL's racing write
        await pilot.pause()

    assert snap_compare(NeurondbgApp(FIVE), terminal_size=(160, 50), run_before=run_before)


def test_core_layout_compact_at_100x30(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await _loaded(pilot)
        await pilot.press("S", "S", "S")
        await pilot.pause()

    assert snap_compare(NeurondbgApp(KERNELS / "double_buffer.asm"), terminal_size=(100, 30),
                        run_before=run_before)


def test_core_layout_deadlock(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await _loaded(pilot)
        await pilot.app.run_command_async("continue")
        await pilot.pause()

    assert snap_compare(NeurondbgApp(KERNELS / "deadlock.asm"), terminal_size=(160, 50),
                        run_before=run_before)
