"""`o` on a Convert-trace lane opens the Lab on the set-up the machine used for that lane.

The cast_rounding example: its first CAST (fp32 -> bf16) has exact ties, its FP8 CAST
overflows (saturating under a saturating FP8 configuration) and its int8 CAST saturates.
The Lab's side A must show the lane's own output bits, profile, mode and saturation,
and name the lane, the generation and what FP8_EXP4 meant.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

import numpy as np
from textual.widgets import Static

from neurondbg.app import NeurondbgApp
from neurondbg.screens.lab import LabScreen
from neurondbg.views.lab import ConvertLab, LabSide
from neurondbg.views.lanes import LaneTable

SIZE = (160, 50)


def session(tmp_path: Path, gen: str, fp8_sat: bool) -> Path:
    """A session on the bundled cast_rounding example with this machine configuration."""
    src = resources.files("neurondbg.sessions.examples") / "cast_rounding.asm"
    with resources.as_file(src) as path:
        shutil.copy(path, tmp_path / "cast_rounding.asm")
    toml = tmp_path / "cast.toml"
    toml.write_text(f'schema = 1\n[program]\npath = "cast_rounding.asm"\n'
                    f'[machine]\ngen = "{gen}"\nengine = "pool"\n'
                    f'fp8_sat = {str(fp8_sat).lower()}\n[position]\nsteps = 0\n')
    return toml


def first_lane_with(table: LaneTable, flag: str) -> tuple[int, tuple[int, int]]:
    """(line index, (partition, element)) of the first lane carrying `flag`."""
    for index in range(table.line_count()):
        lane = table.lane_at(index)
        assert lane is not None
        if table.flags[flag][lane[0] - table.lanes.p0, lane[1]]:
            return index, lane
    raise AssertionError(f"no {flag} lane")


def lane_out(table: LaneTable, lane: tuple[int, int]) -> int:
    return int(table.lanes.out_bits[lane[0] - table.lanes.p0, lane[1]])


def assert_lab_explains(app: NeurondbgApp, want_bits: int, want: tuple[str, str, bool],
                        *words: str) -> None:
    assert isinstance(app.screen, LabScreen)
    side = app.screen.query_one("#lab-side-a", LabSide)
    assert side.options == want  # (mode, profile, sat) as the machine converted
    assert side.trace is not None and int(side.trace.output_bits) == want_bits
    mode, profile, sat = want
    assert str(side.border_subtitle) == f"{profile} · {mode} · {'sat' if sat else 'nosat'}"
    origin = str(app.screen.query_one("#lab-origin", Static).render())
    for word in words:
        assert word in origin, (word, origin)


async def step_to(app: NeurondbgApp, pilot, casts: int) -> LaneTable:
    await app.wait_loaded()
    for _ in range(casts):
        await pilot.press("s")
    await pilot.pause()
    table = app.screen.query_one(LaneTable)
    table.focus()
    if table.flagged_only:
        await pilot.press("f")  # every lane, so the line index is the lane order
    return table


async def test_o_on_a_tie_lane_opens_the_lab_on_the_lanes_setup(tmp_path: Path) -> None:
    app = NeurondbgApp(session(tmp_path, "cayman", False))
    async with app.run_test(size=SIZE) as pilot:
        table = await step_to(app, pilot, 1)  # the fp32 -> bf16 CAST
        index, lane = first_lane_with(table, "tie")
        assert lane == (0, 1)  # 1 + 1/256: halfway between 1.0 and 1.0078125
        table.cursor = index
        await pilot.press("o")
        await pilot.pause()
        lab = app.screen.query_one(ConvertLab)
        assert (lab.bits, lab.src.name, lab.dst.name) == (0x3F808000, "fp32", "bf16")
        assert_lab_explains(app, lane_out(table, lane), ("rint", "neuron", False),
                            "lane p0 e1", "neuron · rint · nosat", "gen cayman")
        assert lane_out(table, lane) == 0x3F80  # ties to even


async def test_o_on_a_saturating_fp8_lane_keeps_the_fp8_configuration(tmp_path: Path
                                                                       ) -> None:
    # mariana: FP8_EXP4 is e4m3fn (no infinity); a saturating FP8 configuration clamps
    # the overflowing lanes to 448 where the Lab's old default (ieee, nosat) said NaN.
    app = NeurondbgApp(session(tmp_path, "mariana", True))
    async with app.run_test(size=SIZE) as pilot:
        table = await step_to(app, pilot, 2)  # the fp32 -> FP8_EXP4 CAST
        index, lane = first_lane_with(table, "saturated")
        table.cursor = index
        await pilot.press("o")
        await pilot.pause()
        assert lane_out(table, lane) == 0x7E
        assert app.screen.query_one(ConvertLab).dst.name == "fp8_e4m3fn"
        assert_lab_explains(app, 0x7E, ("rint", "neuron", True), f"lane p{lane[0]}",
                            "gen mariana", "FP8_EXP4 = fp8_e4m3fn", "neuron · rint · sat")


async def test_o_on_a_saturating_int8_lane(tmp_path: Path) -> None:
    app = NeurondbgApp(session(tmp_path, "cayman", False))
    async with app.run_test(size=SIZE) as pilot:
        table = await step_to(app, pilot, 3)  # the fp32 -> int8 CAST: trunc, saturate
        index, lane = first_lane_with(table, "saturated")
        table.cursor = index
        await pilot.press("o")
        await pilot.pause()
        assert lane_out(table, lane) == 0x7F
        assert_lab_explains(app, 0x7F, ("rint", "neuron", False), "gen cayman")


async def test_every_lane_of_a_cast_agrees_with_its_lab_request(tmp_path: Path) -> None:
    """The request `o` sends, opened as the App opens it, reproduces each flagged lane."""
    from neurondbg.machine.convert import trace

    app = NeurondbgApp(session(tmp_path, "sunda", True))
    async with app.run_test(size=SIZE) as pilot:
        for casts in (1, 1, 1):
            table = await step_to(app, pilot, casts)
            picked = [i for i in np.linspace(0, table.line_count() - 1, 24).astype(int)]
            for index in picked:
                req = table.lab_request(int(index))
                assert req is not None and req.setup is not None
                s = req.setup
                lane = table.lane_at(int(index))
                t = trace(int(req.value, 16), req.src, req.dst, s.mode, s.sat, s.profile)
                assert int(t.output_bits) == lane_out(table, lane), (req.src, req.dst, lane)
                assert s.gen == "sunda" and s.sat is True
