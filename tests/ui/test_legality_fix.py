"""`F` in the Legality pane applies the checked fix of the instruction at the PC
to the program in memory (journaled: `r` undoes it; a saved session keeps it), judges it
again and says in the console what changed, or why there is no fix."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from neurondbg.app import NeurondbgApp
from neurondbg.debug.listing_text import program_listing
from neurondbg.debug.session import Session
from neurondbg.machine.asm.loader import load
from neurondbg.screens.help import help_text
from neurondbg.views.console_view import ConsoleView
from neurondbg.views.legality import LegalityView
from neurondbg.views.program import ProgramView
from tests.ui.helpers import started

EXAMPLES = Path(__file__).parents[2] / "examples"

PATTERN = "step=[1,0,0,0] num=[4,1,1,1]"
PROGRAM = f"""
.data sb[0:4, 0] fp32 1.0 2.5 -3.0 0.1
    MOVE R1=7
    COPY in_dtype=FP32 out_dtype=BF16 nac=4 src=sb[0, 0] {PATTERN} dst=sb[0, 64] {PATTERN}
    HALT
"""
NO_FIX = """
    CAST_PREDICATED in0_dtype=INT32 in1_dtype=FP32 out_dtype=BF16 op=BYPASS nac=8 src0=sb[0, 0] step=[1,0,0] num=[8,1,1] src1=sb[0, 32] step=[1,0,0] num=[8,1,1] dst=sb[0, 64] step=[1,0,0] num=[8,1,1]
    HALT
"""  # noqa: E501 (one instruction per line)


def said(app: NeurondbgApp) -> list[str]:
    return list(app.screen.query_one(ConsoleView).messages)


def shown(app: NeurondbgApp) -> str:
    return "\n".join(t.plain for t in app.screen.query_one(LegalityView).lines)


async def test_f_applies_the_fix_and_r_undoes_it(tmp_path: Path) -> None:
    prog = tmp_path / "bad.asm"
    prog.write_text(PROGRAM)
    async with started(prog) as (app, pilot):
        await pilot.press("s")  # before the COPY now
        await pilot.pause()
        listing = app.screen.query_one(ProgramView)
        assert listing.pc_index == 1 and listing.lines[1].valid is False
        assert "INVALID" in shown(app)
        app.screen.query_one(LegalityView).focus()
        await pilot.press("F")
        await pilot.pause()
        assert said(app)[-1] == "record 1: out_dtype BF16 (0x6) -> FP32 (0xA); now valid"
        assert "is_valid_copy  VALID" in shown(app)
        assert listing.lines[1].valid is True and "out_dtype=FP32" in listing.lines[1].text
        assert app.session is not None and app.session.position == (1, 1)
        assert app.session.stop_text == said(app)[-1]  # the title no longer says "invalid"
        assert app.unsaved()  # the edit is work a quit would lose
        await pilot.press("s")  # the repaired COPY runs
        await pilot.pause()
        assert listing.pc_index == 2
        await pilot.press("r", "r")  # back over the step, then the edit itself
        await pilot.pause()
        assert app.session.position == (1, 0)
        assert "INVALID" in shown(app) and listing.lines[1].valid is False
        assert "out_dtype=BF16" in listing.lines[1].text
        await pilot.press("s")
        await pilot.pause()
        assert "invalid: COPY" in "\n".join(said(app))


async def test_a_fixed_program_saves_and_reloads_with_its_edit(tmp_path: Path) -> None:
    prog = tmp_path / "bad.asm"
    prog.write_text(PROGRAM)
    session = tmp_path / "s.toml"
    async with started(prog) as (app, pilot):
        await pilot.press("s")
        app.screen.query_one(LegalityView).focus()
        await pilot.press("F")
        await pilot.pause()
        assert app.session is not None
        app.session.save(session)
    assert prog.read_text() == PROGRAM  # the file is never written: the edit is the session's
    async with started(session) as (app, pilot):
        await pilot.pause()
        listing = app.screen.query_one(ProgramView)
        assert listing.pc_index == 1 and listing.lines[1].valid is True
        assert "is_valid_copy  VALID" in shown(app)
        await pilot.press("r")  # the reloaded edit is undoable too
        await pilot.pause()
        assert "INVALID" in shown(app) and listing.lines[1].valid is False


async def test_without_a_fix_f_says_why_and_changes_nothing(tmp_path: Path) -> None:
    prog = tmp_path / "pool.asm"
    prog.write_text(NO_FIX)
    async with started(prog) as (app, pilot):
        app.screen.query_one(LegalityView).focus()
        await pilot.press("F")
        await pilot.pause()
        assert said(app)[-1] == (
            "error: record 0: no fix: no edit of this record's fields makes "
            "is_valid_copy_cast_predicated pass on cayman, engine pool: "
            "engine_has_opcode(pool) cannot be fixed within the record")
        assert app.session is not None and app.session.position == (0, 0)
        assert "INVALID" in shown(app)


async def test_on_a_valid_record_f_says_so(tmp_path: Path) -> None:
    prog = tmp_path / "bad.asm"
    prog.write_text(PROGRAM)
    async with started(prog) as (app, pilot):
        app.screen.query_one(LegalityView).focus()
        await pilot.press("F")
        await pilot.pause()
        assert said(app)[-1] == "record 0: is_valid_ctrl_mv passes: nothing to fix"
        assert app.session is not None and app.session.position == (0, 0)


KERNEL = f"""
.engine pool
.data sb[0:4, 0] fp32 1.0 2.5 -3.0 0.1
    MOVE R1=7
    HALT

.engine dve
    MOVE R1=7
    COPY in_dtype=FP32 out_dtype=BF16 nac=4 src=sb[0, 0] {PATTERN} dst=sb[0, 64] {PATTERN}
    HALT
"""


async def test_in_a_kernel_f_fixes_the_focused_engine_and_r_undoes_it(tmp_path: Path) -> None:
    kernel = tmp_path / "k.asm"
    kernel.write_text(KERNEL)
    async with started(kernel) as (app, pilot):
        await pilot.press("e")  # focus dve, the second engine
        await pilot.press("s")  # dve before its COPY
        await pilot.pause()
        core = app.session.core
        before = core.machines["dve"].program.record(1)
        listing = app.screen.query_one(ProgramView)
        assert core.focus == "dve" and listing.pc_index == 1
        assert listing.lines[1].valid is False and "INVALID" in shown(app)
        app.screen.query_one(LegalityView).focus()
        await pilot.press("F")
        await pilot.pause()
        assert said(app)[-1] == "record 1: out_dtype BF16 (0x6) -> FP32 (0xA); now valid"
        assert listing.lines[1].valid is True and "out_dtype=FP32" in listing.lines[1].text
        assert "is_valid_copy  VALID" in shown(app)
        assert core.machines["pool"].program.record(1) != core.machines["dve"].program.record(1)
        assert [e.text for e in core.edits] == ["dve.record[1]"]
        await pilot.press("s")  # the repaired COPY runs
        await pilot.pause()
        assert core.state("dve").pc == 0x80
        await pilot.press("r", "r")  # back over the step, then the edit itself
        await pilot.pause()
        assert app.session.position == (1, 0)
        assert core.machines["dve"].program.record(1) == before
        assert listing.lines[1].valid is False and "INVALID" in shown(app)


def test_every_offered_fix_makes_the_record_valid_and_the_listing_follows(tmp_path) -> None:
    # The examples' records with two random bytes changed: each invalid one is fixed (the
    # whole predicate then passes) or says why not; the listing relists exactly the edits.
    raws = np.concatenate([load(p).program.raw for p in sorted(EXAMPLES.glob("*.asm"))])
    rng = np.random.default_rng(12)
    records = raws[rng.integers(0, len(raws), 120)].copy()
    for _ in range(2):
        records[np.arange(120), rng.integers(1, 64, 120)] = rng.integers(0, 256, 120)
    prog = tmp_path / "random.bin"
    prog.write_bytes(records.tobytes())
    s = Session(prog, "cayman")
    outcomes = {"fixed": 0, "no fix": 0, "valid": 0}
    for i in range(len(records)):
        try:
            text = s.apply_fix(i)
        except ValueError as e:
            assert str(e).startswith(f"record {i}: no fix: ")
            outcomes["no fix"] += 1
            continue
        kind = "fixed" if text.endswith("; now valid") else "valid"
        assert kind == "fixed" or text.endswith("passes: nothing to fix"), text
        outcomes[kind] += 1
    assert min(outcomes.values()) >= 20, outcomes  # each kind is well exercised
    s.snapshot()  # the listing catches up with the edits
    assert s.lines == program_listing(s.program, s.labels, s.gen, s.engine)
    assert all(line.valid for line in s.lines) == (outcomes["no fix"] == 0)
    assert s.position == (0, outcomes["fixed"])  # each fix is one event, reverse undoes it
    s.reverse(outcomes["fixed"])
    assert s.position == (0, 0)
    s.snapshot()
    assert s.lines == program_listing(s.program, s.labels, s.gen, s.engine)
    assert s.program.raw.tobytes() == records.tobytes()


@pytest.mark.parametrize(("index", "message"), [
    (None, "fix: no record at pc 0x41"),
    (7, "fix: record 7 does not exist (0..2)"),
    (-1, "fix: record -1 does not exist (0..2)"),
])
def test_apply_fix_refuses_a_pc_or_record_that_is_no_record(tmp_path: Path, index,
                                                             message) -> None:
    prog = tmp_path / "bad.asm"
    prog.write_text(PROGRAM)
    s = Session(prog)
    s.state.pc = 0x41  # between records 1 and 2 (a branch can leave it there)
    with pytest.raises(ValueError) as e:
        s.apply_fix(index)
    assert str(e.value) == message and s.position == (0, 0)
    assert s.apply_fix(1) == "record 1: out_dtype BF16 (0x6) -> FP32 (0xA); now valid"


def test_the_key_is_in_the_help() -> None:
    assert "apply the checked fix to the instruction at the PC" in help_text().plain
