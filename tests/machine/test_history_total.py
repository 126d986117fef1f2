"""History (a Machine run alone: machine/history.py) keeps its checkpoints' byte total as
they come and go (`keep` runs every step and summed them each time): the total is the sum
at every point of a run that captures, folds and thins, and after the list is assigned.
The core's timeline has the same test through reverse (tests/core/test_timeline_total.py)."""

from __future__ import annotations

from neurondbg.machine.history import History
from tests.machine.helpers import machine

# Two CASTs that rewrite 4 KiB of SBUF per step, looped: a small budget captures, folds
# and thins (cf. tests/machine/test_history_budget.py).
LOOP = """
    MOVE R2=60
loop:
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[16,1,1,1] \
dst=sb[0, 64] step=[1,0,0,0] num=[16,1,1,1]
    CAST in_dtype=BF16 out_dtype=FP32 nac=128 src=sb[0, 64] step=[1,0,0,0] num=[16,1,1,1] \
dst=sb[0, 0] step=[1,0,0,0] num=[16,1,1,1]
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop
    HALT
"""


def exact(h: History) -> bool:
    return h.checkpoint_bytes() == sum(c.nbytes for c in h.checkpoints)


def test_the_checkpoint_total_is_the_sum_through_capture_fold_and_thin() -> None:
    m = machine(LOOP, journal_budget=96 << 10)
    m.state.sbuf[:, :64] = 0x3F  # non-zero memory: every checkpoint keeps tiles
    h, seen = m.history, set()
    while not m.state.halted:
        m.step()
        assert exact(h), m.state.steps
        seen.update(id(c) for c in h.checkpoints)
    assert m.state.journal.origin > 0 and len(seen) > len(h.checkpoints) >= 2  # folded, thinned
    h.checkpoints = h.checkpoints[:1]  # assigned from outside: summed again
    assert exact(h) and h.checkpoint_bytes() > 0
    h.checkpoints = []  # (as a fault at the start does): the total follows
    assert h.checkpoint_bytes() == 0
    fresh = machine(LOOP, journal_budget=96 << 10)
    fresh.step()
    h = fresh.history
    assert exact(h) and len(h.checkpoints) == 1 and h.checkpoint_bytes() > 0


def test_a_fault_at_the_start_takes_checkpoint_zero_afresh() -> None:
    m = machine("CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] "
                "num=[16,1,1,1] dst=sb[0, 0x10000] step=[1,0,0,0] num=[16,1,1,1]\nHALT",
                execute_invalid=True)
    assert m.step().fault and m.history.checkpoints == [] and m.history.checkpoint_bytes() == 0
