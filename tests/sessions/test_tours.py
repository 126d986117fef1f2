"""Shipped tours: each loads, steps to its end without a fault, and its notes' claims hold."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.schema import Note
from neurondbg.sessions.store import read_session
from neurondbg.sessions.tours import TourGuide, find_tour, list_tours, load_tour, note_at

NAMES = ["cast-rounding", "copy-vs-cast", "dve-accumulators", "move-gate"]  # one program
LISTED = [*NAMES, "semaphores"]  # semaphores: a kernel (tests/ui/test_core_tour.py)


def test_every_tour_is_listed() -> None:
    tours = list_tours()
    assert [t.name for t in tours] == LISTED
    assert all(t.title and t.description for t in tours)
    for t in tours:  # a program tour's .asm beside it; a kernel tour names its kernel
        spec = read_session(t.path)
        source = (spec.resolve(spec.kernel.path) if spec.kernel is not None
                  else t.path.with_suffix(".asm"))
        assert source.is_file(), t.name


@pytest.mark.parametrize("name", NAMES)
def test_tour_steps_to_its_end_and_back(name: str) -> None:
    loaded = load_tour(name)
    assert loaded.warnings == [] and not loaded.program_changed
    guide = TourGuide(loaded.core, loaded.notes)
    notes = loaded.notes
    assert notes[0].step == 0 and [n.step for n in notes] == sorted({n.step for n in notes})
    digests = [loaded.machine.state.digest()]
    seen = [guide.note]
    while (rec := guide.forward()) is not None:
        assert rec.fault is None and rec.executed, (name, rec.step, rec.fault)
        digests.append(loaded.machine.state.digest())
        seen.append(guide.note)
    assert guide.at_end and loaded.machine.state.halted and guide.step == guide.last_step
    assert seen == notes  # one note per step, every note shown
    while guide.back():
        assert loaded.machine.state.digest() == digests[guide.step]
    assert guide.step == 0 and guide.note is notes[0]


def _f32(m, p: int, off: int, n: int) -> list[float]:
    return m.state.sbuf[p, off:off + 4 * n].view(np.float32).tolist()


def test_cast_rounding_claims() -> None:
    loaded = load_tour("cast-rounding")
    m, step = loaded.machine, lambda: loaded.core.step().record
    rec = step()
    bf16 = m.state.sbuf[0, 256:268].view(np.uint16).astype(np.uint32) << 16
    assert bf16.view(np.float32).tolist() == [1.0, 1.0, 1.015625, 1.0078125, -2.5, np.inf]
    assert rec.lanes.counts() == {"inexact": 4, "tie": 2, "saturated": 0, "nan": 0, "inf": 1}
    rec = step()
    assert m.state.sbuf[0, 320:325].view(np.int8).tolist() == [127, -128, 2, -2, 0]
    assert rec.lanes.counts()["saturated"] == 2
    rec = step()
    assert rec.lanes.dst == "fp8_e4m3" and rec.lanes.values[1].tolist() == [
        [np.inf, 0.0, -np.inf, 0.1015625]] and rec.lanes.counts()["tie"] == 1
    rec = step()
    assert m.state.sbuf[0, 448:464].view(np.uint32).tolist() == [
        16777216, 16777216, 16777220, 2147483648]
    # end to end: three lanes lose bits entering the hub, two of them on a tie
    assert rec.lanes.counts() == {"inexact": 3, "tie": 2, "saturated": 0, "nan": 0, "inf": 0}


def test_cast_rounding_with_fp8_saturation_clamps() -> None:
    from dataclasses import replace

    from neurondbg.machine.core.core import Core
    from neurondbg.machine.debugger import Machine
    from neurondbg.sessions.program import load_program

    loaded = load_tour("cast-rounding")
    cfg = replace(loaded.machine.config, fp8_sat=True)
    prog, data, labels = load_program(loaded.program_path, cfg.gen)
    core = Core.of_program(Machine(prog, cfg, data=data, labels=labels), loaded.program_path)
    core.cont(max_steps=2)
    assert core.step().record.lanes.values[1].tolist() == [[240.0, 0.0, -240.0, 0.1015625]]


def test_copy_vs_cast_claims() -> None:
    loaded = load_tour("copy-vs-cast")
    m, core = loaded.machine, loaded.core
    stop = core.cont()  # the session's `invalid` breakpoint
    assert stop.reason == "breakpoint" and m.state.steps == 3
    assert m.verdict(3).failed == ("s4d4_tr_same_src_dst_type",) or list(
        m.verdict(3).failed) == ["s4d4_tr_same_src_dst_type"]
    assert m.state.sbuf[1, 192:208].view(np.int32).tolist() == [1, 1, -2, 65504]
    core.step()
    assert m.state.sbuf[1, 256:260].view(np.int32).tolist() == [0x3F800000]


def test_move_gate_claims() -> None:
    loaded = load_tour("move-gate")
    m, core = loaded.machine, loaded.core
    stop = core.cont()
    assert stop.reason == "breakpoint" and m.state.steps == 5
    assert m.state.R[1:7] == [7, 0xFFFFFFFF, 0x3FC00000, 0x3FC00000, 0xC0, 0]
    assert "ctrl_mv_has_valid_dtype" in m.verdict(5).failed
    core.step()
    assert m.state.R[7] == 3


def test_dve_accumulator_claims() -> None:
    loaded = load_tour("dve-accumulators")
    m = loaded.machine
    accs = []
    while not m.state.halted:
        loaded.core.step()
        accs.append(float(m.state.acc[0]))
    assert accs == [20, 30, 30, 4, 10, 3, 3, -np.inf, -np.inf]
    assert _f32(m, 1, 128, 2) == [30.0, -3.0] and _f32(m, 0, 160, 4) == [1, 3, 6, 10]
    assert "range_select_valid_reduce_cmd" in m.verdict(7).failed


def test_note_at_and_unknown_tour() -> None:
    notes = [Note(0, "a"), Note(3, "b")]
    assert [note_at(notes, s).text for s in (0, 2, 3, 9)] == ["a", "a", "b", "b"]
    assert note_at([Note(2, "x")], 1) is None
    with pytest.raises(SessionError, match="unknown tour 'x'; tours: cast-rounding, "):
        find_tour("x")


def test_tour_cli_lists_and_rejects_unknown_names() -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["tour"])
    assert out.exit_code == 0
    lines = out.output.splitlines()
    assert [ln.split("  ", 1)[0] for ln in lines] == LISTED
    assert lines[0].startswith("cast-rounding  ties to even, sticky bits")
    bad = runner.invoke(cli, ["tour", "nope"])
    assert bad.exit_code == 2 and bad.output == (
        "neurondbg: error: unknown tour 'nope'; tours: " + ", ".join(LISTED) + "\n")


async def test_tour_app_shows_notes_forward_and_back() -> None:
    from neurondbg.commands.tour import tour_app
    from neurondbg.views.tour_pane import TourPane

    app = tour_app("move-gate")
    async with app.run_test(size=(160, 50)) as pilot:
        await app.wait_loaded()
        await pilot.pause()
        pane = app.screen.query_one(TourPane)
        assert pane.note.title == "MOVE: immediates into registers"
        pane.focus()
        await pilot.press("n")
        await pilot.pause()
        assert app.guide.step == 1 and pane.note.title == "The dtype only labels the value"
        assert app.session.dbg.state.R[2] == 0xFFFFFFFF
        await pilot.press("n", "n")
        await pilot.pause()
        assert pane.note.title == "Reading the PC"
        await pilot.press("p")
        await pilot.pause()
        assert app.guide.step == 2 and pane.note.title == "A raw 32-bit copy"
        assert "step 2 of 7" in str(pane.border_title)
