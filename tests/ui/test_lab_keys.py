"""The Convert Lab for a new user: side B starts on a set-up the pair allows, `?` lists
the Lab's keys (from the value field too), ↑ / ↓ step the input to the next / previous
representable value, and at 80x24 both format selectors stay on screen."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets import Input, Static

from neurondbg.debug.lab_model import adjacent_code, side_b_default, value_of
from neurondbg.machine.convert.formats import FORMAT_NAMES, FORMATS, IntFormat
from neurondbg.machine.convert.options import resolve
from neurondbg.screens.help import HelpScreen
from neurondbg.views.lab import LabSide
from tests.ui.helpers import choose, lab_started, type_value

SOURCES = [n for n in FORMAT_NAMES if not FORMATS[n].output_only]


@pytest.mark.parametrize("src", SOURCES)
def test_side_b_default_is_accepted_for_every_pair(src: str) -> None:
    for dst in FORMAT_NAMES:
        b = side_b_default(FORMATS[src], FORMATS[dst])
        opt = resolve(src, dst, b.mode, b.sat, b.profile)  # raises if refused
        assert opt.profile == b.profile


def test_side_b_prefers_ties_away_and_else_the_pairs_own_mode() -> None:
    fp32 = FORMATS["fp32"]
    assert (side_b_default(fp32, FORMATS["bf16"]).profile,
            side_b_default(fp32, FORMATS["bf16"]).mode) == ("ascend", "round")
    e4 = side_b_default(fp32, FORMATS["fp8_e4m3fn"])  # ref 002 lists rint only
    assert (e4.profile, e4.mode, e4.sat) == ("ascend", "rint", True)


def _finite_sorted(name: str) -> list[tuple[float, int]]:
    """(value, code) of every non-NaN code, -0 left out, ascending."""
    fmt = FORMATS[name]
    pairs = [(float(value_of(fmt, c)), c) for c in range(1 << fmt.bits)]
    return sorted((v, c) for v, c in pairs
                  if not math.isnan(v) and not (v == 0 and math.copysign(1, v) < 0))


SMALL = [n for n in FORMAT_NAMES if FORMATS[n].bits <= 8 and not FORMATS[n].output_only]


@pytest.mark.parametrize("name", SMALL)
def test_up_and_down_visit_every_value_in_order(name: str) -> None:
    """Exhaustive: from every code, ↑ is the smallest larger value, ↓ the largest smaller."""
    fmt = FORMATS[name]
    order = _finite_sorted(name)
    values = [v for v, _ in order]
    for code in range(1 << fmt.bits):
        x = float(value_of(fmt, code))
        up, down = adjacent_code(fmt, code, 1), adjacent_code(fmt, code, -1)
        if math.isnan(x):
            assert up is None and down is None
            continue
        larger = [v for v in values if v > x]
        smaller = [v for v in values if v < x]
        assert (None if up is None else float(value_of(fmt, up))) == \
            (larger[0] if larger else None), (name, hex(code))
        assert (None if down is None else float(value_of(fmt, down))) == \
            (smaller[-1] if smaller else None), (name, hex(code))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 0xFFFFFFFF))
def test_fp32_steps_are_nextafter(code: int) -> None:
    fmt = FORMATS["fp32"]
    x = np.array([code], np.uint32).view(np.float32)[0]
    up = adjacent_code(fmt, code, 1)
    if np.isnan(x) or x == np.inf:
        assert up is None
        return
    want = np.nextafter(x, np.float32(np.inf))
    if x == 0:  # -0 and +0 are one value: either steps to the smallest positive value
        want = np.nextafter(np.float32(0), np.float32(1))
    assert up is not None and value_of(fmt, up) == float(want)


@pytest.mark.parametrize("name", ["int8", "uint4", "int32", "uint64"])
def test_integers_step_by_one_and_stop_at_the_ends(name: str) -> None:
    fmt = FORMATS[name]
    assert isinstance(fmt, IntFormat)
    mask = (1 << fmt.bits) - 1
    assert adjacent_code(fmt, 5, 1) == 6 and adjacent_code(fmt, 5, -1) == 4
    assert adjacent_code(fmt, fmt.max_value & mask, 1) is None
    assert adjacent_code(fmt, fmt.min_value & mask, -1) is None


async def test_side_b_moves_to_a_rule_the_new_pair_allows() -> None:
    async with lab_started() as (app, pilot, _lab):
        await choose(pilot, "#lab-dst", "fp8_e4m3fn")
        b = app.screen.query_one("#lab-side-b", LabSide)
        assert b.options == ("rint", "ascend", True)
        assert b.trace is not None  # a result, not the options' refusal
        assert not str(app.screen.query_one("#result-b", Static).render()).startswith("error")


async def test_a_chosen_side_b_that_still_applies_is_kept() -> None:
    async with lab_started() as (app, pilot, _lab):
        await choose(pilot, "#profile-b", "ieee")
        await choose(pilot, "#mode-b", "floor")
        await choose(pilot, "#lab-dst", "fp16")
        b = app.screen.query_one("#lab-side-b", LabSide)
        assert b.options == ("floor", "ieee", True)


async def test_question_mark_lists_the_labs_keys_even_from_the_value_field() -> None:
    async with lab_started() as (app, pilot, _lab):
        box = app.screen.query_one("#lab-input", Input)
        box.focus()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one(Static).render())
        assert "Convert Lab" in text and "next representable value" in text
        assert "Console commands" not in text and "step one instruction" not in text
        assert box.value == "1.00390625"  # nothing typed


async def test_up_and_down_step_the_input() -> None:
    async with lab_started() as (app, pilot, lab):
        await type_value(pilot, "1")
        await pilot.press("up")
        await pilot.pause()
        assert lab.bits == 0x3F800001
        await pilot.press("down", "down")
        await pilot.pause()
        assert lab.bits == 0x3F7FFFFF
        assert app.screen.query_one("#lab-side-a", LabSide).trace.output_bits == 0x3F80
        await choose(pilot, "#lab-src", "int8")
        await type_value(pilot, "127")
        await pilot.press("up")
        await pilot.pause()
        assert lab.bits == 0x7F
        assert "int8 has no value above 127" in str(
            app.screen.query_one("#lab-message", Static).render())


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_both_format_selectors_fit_a_small_terminal(size: tuple[int, int]) -> None:
    async with lab_started(size=size) as (app, pilot, _lab):
        await pilot.pause()
        for picker in ("#lab-src", "#lab-dst", "#lab-input", "#lab-kind"):
            region = app.screen.query_one(picker).region
            assert region.width >= 12 and region.right <= size[0], (picker, region)
