"""Pilot tests of the Convert Lab: typing, flipping bits, formats, modes, errors."""

from __future__ import annotations

from textual.widgets import Input, Select, Static

from neurondbg.app import NeurondbgApp
from views.bits_editor import BitEditor
from views.lab import ConvertLab, LabSide

SIZE = (160, 50)


def side_text(app: NeurondbgApp, side: str) -> str:
    return str(app.screen.query_one(f"#result-{side}", Static).render())


async def test_lab_opens_on_a_tie() -> None:
    app = NeurondbgApp(lab_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lab = app.screen.query_one(ConvertLab)
        assert lab.bits == 0x3F808000
        a = app.screen.query_one("#lab-side-a", LabSide)
        assert a.trace.output_bits == 0x3F80 and a.trace.tie
        text = side_text(app, "a")
        assert "0x3F80" in text and "tie" in text and "inexact" in text
        assert "0.99609375 (0x3f7f)" in text  # the neighbour below
        b = app.screen.query_one("#lab-side-b", LabSide)  # ascend, round: ties away
        assert b.trace.output_bits == 0x3F81


async def test_typing_a_value_and_a_pattern() -> None:
    app = NeurondbgApp(lab_only=True)
    async with app.run_test(size=SIZE) as pilot:
        lab = app.screen.query_one(ConvertLab)
        box = app.screen.query_one("#lab-input", Input)
        box.focus()
        box.value = "0x3f818000"  # 1.01171875: a tie between 0x3F81 and 0x3F82
        await pilot.press("enter")
        await pilot.pause()
        assert lab.bits == 0x3F818000
        assert app.screen.query_one("#lab-side-a", LabSide).trace.output_bits == 0x3F82
        box.value = "nonsense"
        await pilot.press("enter")
        await pilot.pause()
        msg = str(app.screen.query_one("#lab-message", Static).render())
        assert "expected a number" in msg
        assert lab.bits == 0x3F818000  # unchanged


async def test_clicking_a_bit_flips_it() -> None:
    app = NeurondbgApp(lab_only=True)
    async with app.run_test(size=SIZE) as pilot:
        lab = app.screen.query_one(ConvertLab)
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
    app = NeurondbgApp(lab_only=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        screen.query_one("#profile-b", Select).value = "ieee"
        screen.query_one("#mode-b", Select).value = "ceil"
        await pilot.pause()
        assert screen.query_one("#lab-side-a", LabSide).trace.output_bits == 0x3F80
        assert screen.query_one("#lab-side-b", LabSide).trace.output_bits == 0x3F81
        screen.query_one("#profile-b", Select).value = "neuron"  # neuron + ceil: refused
        await pilot.pause()
        assert "profile 'neuron' rounds as numpy astype" in side_text(app, "b")


async def test_changing_formats_keeps_the_value() -> None:
    app = NeurondbgApp(lab_only=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        lab = screen.query_one(ConvertLab)
        screen.query_one("#lab-dst", Select).value = "fp8_e4m3fn"
        await pilot.pause()
        assert screen.query_one("#lab-side-a", LabSide).trace.output_bits == 0x38  # 1.0
        screen.query_one("#lab-src", Select).value = "fp16"
        await pilot.pause()
        assert lab.bits == 0x3C04  # 1.00390625 is exact in fp16
        assert screen.query_one(BitEditor)._width == 16
