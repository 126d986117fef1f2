"""SVG snapshots of the NeuronCore layout: five engines at 160x50 stopped on a
race (a kernel written here: the shipped ones have two engines), the shipped kernels in
the compact layout at 100x30 and at a deadlock. Regenerate only in
the pinned environment (`--snapshot-update`), then look at them."""

from __future__ import annotations

from neurondbg.app import NeurondbgApp
from neurondbg.sessions.examples import folder

KERNELS = folder() / "kernels"
COPY = "CAST in_dtype={a} out_dtype={b} nac=128 src=sb[0, {src}] step=[1,0,0,0] " \
    "num=[16,1,1,1] dst=sb[0, {dst}] step=[1,0,0,0] num=[16,1,1,1]"
# Five queues: POOL -> DVE through sem[0], then ACT, PE, SP pass a baton through sem[1..3];
# POOL reuses DVE's input buffer without waiting for it (a write-after-read race).
FIVE = f"""
.engine pool
.fill sb[0:128, 0] fp32 count=32 start=1.0 step=0.25 pstep=0.5
    {COPY.format(a="FP32", b="BF16", src=0, dst="0x100")} events.update_mode=SEM_INC_COMPLETE \
events.update_idx=0
    MOVE R1=1 R2=2
    {COPY.format(a="FP32", b="BF16", src="0x40", dst="0x100")}
    HALT
.engine dve
    MOVE R1=7
    {COPY.format(a="BF16", b="FP32", src="0x100", dst="0x200")} events.wait_mode=SEM_GE_IMM \
events.wait_idx=0 events.semaphore_value=1 events.update_mode=SEM_INC_COMPLETE events.update_idx=1
    HALT
""" + "".join(f"""
.engine {e}
    NOP wait_mode=SEM_GE_IMM wait_idx={i} semaphore_value=1 {update}
    HALT
""" for i, (e, update) in enumerate((("act", "update_mode=SEM_INC_COMPLETE update_idx=2"),
                                      ("pe", "update_mode=SEM_INC_COMPLETE update_idx=3"),
                                      ("sp", "")), start=1))


async def _loaded(pilot) -> None:
    while pilot.app.session is None and pilot.app.load_error is None:
        await pilot.pause(0.01)
    await pilot.app.wait_loaded()


def test_core_layout_five_engines_at_a_race(snap_compare, tmp_path) -> None:
    kernel = tmp_path / "five_engines.asm"
    kernel.write_text(FIVE)

    async def run_before(pilot) -> None:
        await _loaded(pilot)
        await pilot.press(*"SSSSSSSS")  # step 8 is POOL's racing write
        await pilot.pause()

    assert snap_compare(NeurondbgApp(kernel), terminal_size=(160, 50), run_before=run_before)


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
