"""Pilot tests of the Convert Lab: typing, flipping bits, formats, modes, errors."""

from __future__ import annotations

import numpy as np
from textual.app import App
from textual.widgets import Input, Select, Static

from neurondbg.app import NeurondbgApp
from neurondbg.machine.convert.iss import ISS_PRIMITIVES
from neurondbg.screens.lab import LabScreen
from neurondbg.views.bits_editor import BitEditor
from neurondbg.views.lab import ISS_PARAMS, ConvertLab, IssSide, LabSide
from tests.ui.helpers import SIZE, choose, lab_started, type_value


def side_text(app: NeurondbgApp, side: str) -> str:
    return str(app.screen.query_one(f"#result-{side}", Static).render())


async def test_lab_opens_on_a_tie() -> None:
    async with lab_started() as (app, pilot, lab):
        await pilot.pause()
        assert lab.bits == 0x3F808000
        a = app.screen.query_one("#lab-side-a", LabSide)
        assert a.trace.output_bits == 0x3F80 and a.trace.tie
        text = side_text(app, "a")
        assert "0x3F80" in text and "tie" in text and "inexact" in text
        assert "0.99609375 (0x3f7f)" in text  # the neighbour below
        b = app.screen.query_one("#lab-side-b", LabSide)  # ascend, round: ties away
        assert b.trace.output_bits == 0x3F81


async def test_typing_a_value_and_a_pattern() -> None:
    async with lab_started() as (app, pilot, lab):
        await type_value(pilot, "0x3f818000")  # 1.01171875: a tie between 0x3F81 and 0x3F82
        assert lab.bits == 0x3F818000
        assert app.screen.query_one("#lab-side-a", LabSide).trace.output_bits == 0x3F82
        await type_value(pilot, "nonsense")
        msg = str(app.screen.query_one("#lab-message", Static).render())
        assert "expected a number" in msg
        assert lab.bits == 0x3F818000  # unchanged


async def test_clicking_a_bit_flips_it() -> None:
    async with lab_started() as (app, pilot, lab):
        editor = app.screen.query_one(BitEditor)
        col = editor._cols[0]  # the sign bit
        await pilot.click(BitEditor, offset=(col, 0))
        await pilot.pause()
        assert lab.bits == 0xBF808000
        assert app.screen.query_one("#lab-input", Input).value == "0xBF808000"
        assert app.screen.query_one("#lab-side-a", LabSide).trace.output_bits == 0xBF80
        # keyboard: the cursor is on the sign bit; move to the last bit and flip it
        editor.focus()
        await pilot.press("left", "space")
        await pilot.pause()
        assert lab.bits == 0xBF808001


async def test_side_b_compares_another_mode_and_profile_errors() -> None:
    async with lab_started() as (app, pilot, _lab):
        screen = app.screen
        screen.query_one("#profile-b", Select).value = "ieee"
        await choose(pilot, "#mode-b", "ceil")
        assert screen.query_one("#lab-side-a", LabSide).trace.output_bits == 0x3F80
        assert screen.query_one("#lab-side-b", LabSide).trace.output_bits == 0x3F81
        await choose(pilot, "#profile-b", "neuron")  # neuron + ceil: refused
        assert "profile 'neuron' rounds as numpy astype" in side_text(app, "b")


async def test_changing_formats_keeps_the_value() -> None:
    async with lab_started() as (app, pilot, lab):
        screen = app.screen
        await choose(pilot, "#lab-dst", "fp8_e4m3fn")
        assert screen.query_one("#lab-side-a", LabSide).trace.output_bits == 0x38  # 1.0
        await choose(pilot, "#lab-src", "fp16")
        assert lab.bits == 0x3C04  # 1.00390625 is exact in fp16
        assert screen.query_one(BitEditor)._width == 16


# --- the ISS kind: reference 003 primitives (machine.convert.iss) ---------------------------

def iss_text(app: NeurondbgApp) -> str:
    return str(app.screen.query_one("#result-iss", Static).render())


async def test_iss_kind_keeps_the_value_and_swaps_the_panels() -> None:
    async with lab_started() as (app, pilot, lab):
        screen = app.screen
        await choose(pilot, "#lab-kind", "iss")
        side = screen.query_one(IssSide)
        assert lab.iss_mode and lab.iss_name == "narrow" and lab.iss_params == {"round_mode": 0}
        assert side.display and not screen.query_one("#lab-sides").display
        assert not screen.query_one("#lab-formats").display
        assert lab.bits == 0x3F808000  # fp32 in, as before
        assert side.trace.output_bits == 0x3C04  # 1.00390625 is exact in fp16
        assert "ISS narrow(round_mode=0)" in str(side.border_title)
        assert "ref 003 §4.3" in str(side.border_subtitle)
        shown = {n for n in ISS_PARAMS if screen.query_one(f"#iss-box-{n}").display}
        assert shown == {"round_mode"}
        await choose(pilot, "#lab-kind", "convert")
        assert not side.display and screen.query_one("#lab-sides").display
        assert (lab.src.name, lab.dst.name) == ("fp32", "bf16")
        assert screen.query_one("#lab-side-a", LabSide).trace.output_bits == 0x3F80


async def test_iss_primitive_parameters_and_typed_lane() -> None:
    async with lab_started() as (app, pilot, lab):
        screen = app.screen
        await choose(pilot, "#lab-kind", "iss")
        await choose(pilot, "#iss-prim", "packvr")
        assert lab.iss_params == {"shift": 0, "width": 16}
        assert (lab.src.name, lab.dst.name) == ("int48", "int16")
        assert screen.query_one(BitEditor)._width == 48
        shown = {n for n in ISS_PARAMS if screen.query_one(f"#iss-box-{n}").display}
        assert shown == {"shift", "width"}
        await choose(pilot, "#iss-shift", 4)
        await type_value(pilot, "-1000")
        side = screen.query_one(IssSide)
        # ref 003 §7.2: (-1000 + (1 << 3)) >> 4 = -62, round half up
        assert lab.bits == (1 << 48) - 1000 and side.trace.output_bits == 0xFFC2
        assert "0xFFC2" in iss_text(app) and "= -62" in iss_text(app)
        await choose(pilot, "#iss-width", 8)  # 8-bit lanes, 24-bit accumulator
        assert (lab.src.name, lab.dst.name) == ("int24", "int8")
        assert lab.bits == (1 << 24) - 1000 and side.trace.output_bits == 0xC2
        await choose(pilot, "#iss-prim", "narrow")
        await type_value(pilot, "65520")
        assert side.trace.output_bits == 0x7C00  # RNE: overflow to inf
        await choose(pilot, "#iss-round_mode", 1)  # RTZ: largest finite
        assert side.trace.output_bits == 0x7BFF and lab.iss_params == {"round_mode": 1}


async def test_every_primitive_renders_and_agrees_with_its_vector() -> None:
    async with lab_started() as (app, pilot, lab):
        lab.set_kind(True)
        side = app.screen.query_one(IssSide)
        for name, prim in ISS_PRIMITIVES.items():
            lab.set_primitive(name)
            await pilot.pause()
            assert lab.src.name == prim.formats(**lab.iss_params)[0], name
            want = int(prim.vector(np.array([lab.bits], np.uint64), **lab.iss_params)[0])
            assert side.trace is not None and side.trace.output_bits == want, name
            assert "internal error" not in iss_text(app), name


class _TruncLab(App):
    def on_mount(self) -> None:
        self.push_screen(LabScreen("-1.5", iss="trunc"))


async def test_lab_screen_opens_on_a_primitive() -> None:
    app = _TruncLab()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lab = app.screen.query_one(ConvertLab)
        assert lab.iss_mode and app.screen.query_one("#lab-kind", Select).value == "iss"
        assert lab.bits == 0xBFC00000  # fp32 -1.5
        assert app.screen.query_one(IssSide).trace.output_bits == 0xFFFFFFFF  # toward zero
