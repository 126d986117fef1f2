"""`set` edits: what is stored is what is reported, reverse undoes them, replay is exact;
one bounds check for every command."""

from __future__ import annotations

import pytest

from neurondbg.machine.core.core import Core
from neurondbg.machine.edits import Edit
from neurondbg.machine.expr import parse_target
from neurondbg.machine.history import JOURNAL_BUDGET
from neurondbg.machine.isa.programs import counted_loop

from . import helpers


def machine(trips: int = 10, journal_budget: int = JOURNAL_BUDGET) -> Core:
    """A loop adding R5 to R1 each trip (so edits of R5 show in R1), on its core."""
    return helpers.core_of(counted_loop(trips, add="R5"), journal_budget=journal_budget)


@pytest.mark.parametrize(("target", "value", "report", "bits"), [
    ("R5", "1", "R5 = 1 (0x00000001)", 1),
    ("R5", "-1", "R5 = 4294967295 (0xffffffff)", 0xFFFFFFFF),
    ("R5", "1e3", "R5 = 1000 (0x000003e8)", 1000),
    ("R5", "R2 + 2", "R5 = 2 (0x00000002)", 2),
    ("r5:fp32", "1.5", "R5:fp32 = 1.5 (0x3fc00000)", 0x3FC00000),
    ("R5:int32", "-2", "R5:int32 = -2 (0xfffffffe)", 0xFFFFFFFE),
])
def test_set_register_stores_what_it_reports(target, value, report, bits) -> None:
    m = machine()
    assert m.edit(target, value) == report
    assert m.state().R[5] == bits


def test_set_memory_and_other_targets() -> None:
    m = machine()
    assert m.edit("sb[1, 16]:bf16", "1.0039063") == \
        "sb[1, 16]:bf16 = 1.0078125 (0x3f81; rounded from 1.0039063)"
    assert bytes(m.state().sbuf[1, 16:18]) == b"\x81\x3f"
    assert m.edit("psum[2, 4]:int16", "-3") == "psum[2, 4]:int16 = -3 (0xfffd)"
    assert m.edit("sb[0, 0]", "255") == "sb[0, 0] = 255 (0xff)"
    assert m.edit("sem[3]", "9") == "sem[3] = 9 (0x00000009)" and m.state().sem[3] == 9
    assert m.edit("acc[7]", "0.5").startswith("acc[7] = 0.5 (0x3f000000")
    assert float(m.state().acc[7]) == 0.5
    assert m.edit("idx[2, 3]", "4") == "idx[2, 3] = 4 (0x00000004)" and m.state().idx[2, 3] == 4
    assert m.edit("PC", "0x40") == "PC = 0x40" and m.state().pc == 0x40


@pytest.mark.parametrize(("target", "value", "why"), [
    ("R5", "1.5", "R5:fp32 = 1.5"),  # a float into an integer register: refused, with a hint
    ("R5", "1 << 32", "does not fit R5"),
    ("R5:int32", "0x80000000", "does not fit R5:int32"),
    ("sb[0, 0]:uint8", "-1", "does not fit"),
    ("sb[0, 4095]:fp32", "1", "bytes 4095..4098 are outside"),
    ("sb[128, 0]", "1", "partition 128 does not exist"),
    ("sb[0, 0:8]", "1", "a range"),
    ("sem[300]", "1", r"sem\[300\] does not exist"),
    ("R5:bf16", "1", "a register holds 32 bits"),
    ("PC", "0x44", "not a record address"),
    ("PC", "0x1000", "not a record address"),
    ("R5", "R99", "column"),
    ("R5", "sb[0, 99999]", "outside"),
])
def test_set_refuses_what_it_cannot_store_and_changes_nothing(target, value, why) -> None:
    m = machine()
    before = m.state().digest()
    with pytest.raises(ValueError, match=why):
        m.edit(target, value)
    assert m.state().digest() == before and helpers.edits(m) == []


def test_edits_are_data_and_reverse_undoes_them_newest_first() -> None:
    m = machine()
    m.cont(max_steps=4)
    r1 = m.state().R[1]
    m.edit("R5", "2")
    m.edit("R1", "100")
    assert helpers.edits(m) == [Edit(4, "R5", "0x2"), Edit(4, "R1", "0x64")]
    assert m.reverse_step() and m.state().R[1] == r1 and m.state().steps == 4  # the edit only
    assert helpers.edits(m) == [Edit(4, "R5", "0x2")]
    assert m.reverse_step() and m.state().R[5] == 0 and m.state().steps == 4
    assert m.reverse_step() and m.state().steps == 3


def test_edits_replay_exactly_past_the_kept_window() -> None:
    ref = machine(trips=50_000)
    ref.cont(max_steps=1000)
    ref.edit("R5", "3")
    ref.cont(max_steps=1000)
    want = ref.state().digest()
    m = machine(trips=50_000, journal_budget=256 << 10)
    m.cont(max_steps=1000)
    m.edit("R5", "3")
    assert m.cont().reason == "halt" and m.state().journal.origin > 2000  # folded
    m.reverse(m.state().steps - 2000)
    assert m.state().steps == 2000 and m.state().digest() == want
    assert helpers.edits(m) == [Edit(1000, "R5", "0x3")]
    m.reverse(1000)  # back to the edit's step, then past the edit: undone and gone
    assert m.reverse_step()
    assert helpers.edits(m) == [] and m.state().R[5] == 0 and m.state().steps == 1000
    # A session replays saved edits onto a fresh machine.
    fresh = machine(trips=50_000)
    for e in helpers.edits(ref):
        assert fresh.replay(e.step) is None
        fresh.apply_edit(e)
    assert fresh.replay(2000) is None
    assert fresh.state().digest() == want and helpers.edits(fresh) == helpers.edits(ref)


def test_one_bounds_check_for_break_watch_and_the_console() -> None:
    m = machine()
    with pytest.raises(ValueError, match=r"column 4: PC 0x1000 is not a record address"):
        m.add_breakpoint("pc:0x1000")
    with pytest.raises(ValueError, match=r"column 7: sbuf bytes 4000\.\.4099 are outside"):
        m.add_breakpoint("watch:sb[0, 4000:4100]")
    with pytest.raises(ValueError, match=r"acc\[200\]: partition 200 does not exist"):
        helpers.queue(m).check(parse_target("acc[200]"))
    helpers.queue(m).check(parse_target("psum[0:128, 0:2048]"))
    helpers.queue(m).check(0x100)
    with pytest.raises(ValueError, match=r"i in 0\.\.4\)"):
        helpers.queue(m).check(0x140)  # one past the last record


@pytest.mark.parametrize(("edit", "why"), [
    (Edit(0, "R5", "0x1ffffffff"), "does not fit its 32 bits"),
    (Edit(0, "sb[0, 0]", "0x100"), "does not fit its 8 bits"),
    (Edit(0, "R5", "five"), "expected a bit pattern"),
    (Edit(0, "PC", "0x44"), "not a record address"),
    (Edit(0, "R99", "0x1"), "column 1"),
])
def test_a_saved_edit_that_does_not_fit_is_refused(edit, why) -> None:
    m = machine()
    with pytest.raises(ValueError, match=why):
        m.apply_edit(edit)
    assert helpers.edits(m) == [] and m.state().digest() == machine().state().digest()
