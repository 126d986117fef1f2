"""The core timeline's checkpoint bytes are a running total (the budget is checked every
step; it re-summed every checkpoint there): it stays equal to the sum of the checkpoints
it holds through taking, thinning, reversing (forget_after) and restarting."""

from __future__ import annotations

from neurondbg.machine.core.timeline import Timeline
from tests.core.conftest import core
from tests.core.test_core_history import copies

BUDGET = 64 * 1024


def held(tl: Timeline) -> int:
    return sum(c.nbytes for c in tl.checkpoints)


def test_the_total_follows_every_change_of_the_checkpoints() -> None:
    c = core(journal_budget=BUDGET, pool=copies(400, 0, 0x100), dve=copies(400, 0, 0x200))
    tl = c._timeline
    counts, thinned = set(), False
    while c.cont(max_steps=10).reason == "max-steps":
        assert tl.checkpoint_bytes() == held(tl)
        thinned |= bool(counts) and len(tl.checkpoints) < max(counts)
        counts.add(len(tl.checkpoints))
    assert tl.checkpoint_bytes() == held(tl) > 0
    assert len(counts) > 2 and thinned  # checkpoints were taken and thinned out
    c.reverse(c.steps - tl.checkpoints[1].step - 1)  # past the window: restart, forget
    assert tl.checkpoint_bytes() == held(tl)
    assert tl.checkpoints[-1].step <= c.steps
    c.cont(max_steps=200)  # and taken again from there
    assert tl.checkpoint_bytes() == held(tl)


def test_a_list_changed_from_outside_is_summed_again() -> None:
    c = core(journal_budget=BUDGET, pool=copies(60, 0, 0x100), dve=copies(60, 0, 0x200))
    tl = c._timeline
    c.cont()
    assert len(tl.checkpoints) > 1
    before = tl.checkpoint_bytes()
    dropped = tl.checkpoints.pop()
    assert tl.checkpoint_bytes() == before - dropped.nbytes == held(tl)
    tl.checkpoints = tl.checkpoints[:1]
    assert tl.checkpoint_bytes() == tl.checkpoints[0].nbytes
