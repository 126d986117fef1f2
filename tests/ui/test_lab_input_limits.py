"""Convert Lab input: exact like the CLI, and every bad or extreme input is a one-line
message in the Lab (never a crash, never an unbounded computation)."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Select, Static

from neurondbg.machine.convert.parse import MAX_CHARS
from neurondbg.screens.lab import LabScreen
from neurondbg.views.lab import ConvertLab, LabSide
from tests.ui.helpers import SIZE, choose, lab_started, type_value


def message(app: App) -> str:
    return str(app.screen.query_one("#lab-message", Static).render())


async def test_typed_decimals_are_read_exactly_with_a_note() -> None:
    async with lab_started() as (app, pilot, lab):
        app.screen.query_one("#lab-src", Select).value = "bf16"
        await choose(pilot, "#lab-dst", "fp32")
        await type_value(pilot, "1.0039063")  # through float32 it was the tie, 0x3F80
        assert lab.bits == 0x3F81
        assert "not a bf16 value: read as the nearest, 1.0078125" in message(app)
        await type_value(pilot, "1.00390625")  # the tie itself: to even
        assert lab.bits == 0x3F80 and "ties to even" in message(app)
        await type_value(pilot, "1.5")
        assert lab.bits == 0x3FC0 and message(app) == ""  # exact: nothing to say


async def test_extreme_inputs_are_bounded_and_said_in_one_line() -> None:
    async with lab_started() as (app, pilot, lab):  # fp32 -> bf16
        side = app.screen.query_one("#lab-side-a", LabSide)
        await type_value(pilot, "1e999999999")
        assert lab.bits == 0x7F800000 and side.trace.output_bits == 0x7F80
        assert "beyond fp32's range: read as inf" in message(app)
        await type_value(pilot, "-1e-999999999")
        assert lab.bits == 0x80000000
        await type_value(pilot, "1" * 20_000)  # far past int()'s digit limit
        assert lab.bits == 0x7F800000
        await type_value(pilot, "0x1.8p-3")  # a hex float is a number, not a pattern
        assert lab.bits == 0x3E400000
        before = lab.bits
        for bad, words in (("1.2.3", "expected a number"), ("0xzz", "not a hex/binary"),
                           ("1" * (MAX_CHARS + 5), f"at most {MAX_CHARS}"),
                           ("z" * 50_000, "50000 chars"), ("-0x3f80", "no sign"),
                           ("0x1" + "0" * 40, "does not fit in 32 bits")):
            await type_value(pilot, bad)
            text = message(app)
            assert text.startswith("error: ") and words in text, (bad[:20], text)
            assert "\n" not in text and len(text) < 200
            assert lab.bits == before  # a refused input changes nothing


async def test_integer_sources_take_integers_in_any_notation() -> None:
    async with lab_started() as (app, pilot, lab):
        await choose(pilot, "#lab-src", "int16")
        await type_value(pilot, "1e3")
        assert lab.bits == 1000
        await type_value(pilot, "1e999999999")
        assert lab.bits == 1000 and "out of range" in message(app)
        await type_value(pilot, "2.5")
        assert "int16 takes an integer only" in message(app)


class _BadValueLab(App):
    def on_mount(self) -> None:
        self.push_screen(LabScreen("not a number", "fp32", "bf16"))


async def test_a_lab_opened_on_a_bad_value_says_so_and_lives() -> None:
    app = _BadValueLab()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.query_one(ConvertLab).bits == 0
        assert "error: value 'not a number': expected a number" in message(app)
        await type_value(pilot, "2")
        assert app.screen.query_one(ConvertLab).bits == 0x40000000
