"""Bounded history of a program on its one-queue core: the journal budget, checkpoints,
exact reverse past the kept window (machine/core/timeline.py)."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.core import core as core_module
from neurondbg.machine.core.timeline import KEEP_NONE_STEPS
from neurondbg.machine.history import KEEP_LAST_BYTES
from neurondbg.machine.isa.programs import counted_loop

from .helpers import clear_breakpoints, core_of, edits, machine, position, queue, use_core


def loop(trips: int) -> str:
    """R1 counts up, R2 counts down; R5 is written once, by the instruction at 0x40."""
    return counted_loop(trips, prelude="    MOVE R5=7\n")

# A CAST in the loop writes SBUF every trip, so checkpoints carry memory too.
CAST_LOOP = """
    MOVE R2={trips}
loop:
    CAST in_dtype=FP32 out_dtype=BF16 nac=4 src=sb[0, 0] step=[1,0,0,0] num=[8,1,1,1] \
dst=sb[0, 64] step=[1,0,0,0] num=[8,1,1,1]
    CAST in_dtype=BF16 out_dtype=FP32 nac=4 src=sb[0, 64] step=[1,0,0,0] num=[8,1,1,1] \
dst=sb[0, 0] step=[1,0,0,0] num=[8,1,1,1]
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop
    HALT
"""
BUDGET = 256 << 10


def _forward_digests(m, marks: list[int]) -> dict[int, str]:
    """Run core `m` to each step count in `marks` (ascending), recording the digest."""
    out = {}
    for k in marks:
        m.cont(max_steps=k - m.steps)
        assert m.steps == k
        out[k] = m.state().digest()
    return out


def seeded(text: str, vals: np.ndarray, **kw):  # a Core
    """`text` on its core with `vals` in SBUF before the first step (the loaded state)."""
    m = machine(text, **kw)
    m.state.sbuf[:4, :32] = vals.view(np.uint8)
    return use_core(m, **kw)


def test_a_long_run_stays_under_the_budget_and_folds_into_checkpoints() -> None:
    m = core_of(loop(100_000), journal_budget=BUDGET)
    assert m.cont().reason == "halt" and m.steps == 300_003
    tl = m._timeline
    # The window folds to a checkpoint older than the current step (the last step stays
    # undoable), so between checkpoints history may run past the budget by one interval.
    assert m.history_nbytes <= BUDGET + tl.interval()
    assert m.state().journal.origin > 0  # folded: the oldest steps live in checkpoints only
    assert tl.checkpoints[0].step == 0 and len(tl.checkpoints) >= 2
    # The same run with the default budget keeps everything and folds nothing.
    full = core_of(loop(100_000))
    full.cont()
    assert full.state().journal.origin == 0 and full.state().journal.nbytes > BUDGET


def test_reverse_past_the_window_is_bit_exact() -> None:
    marks = [1, 2, 3, 1000, 77_777, 150_001, 299_999]
    want = _forward_digests(core_of(loop(100_000)), marks)
    m = core_of(loop(100_000), journal_budget=BUDGET)
    m.cont()
    for k in sorted(marks, reverse=True):
        stop = m.reverse(m.state().steps - k)
        assert m.state().steps == k and stop.reason == "max-steps"
        assert m.state().digest() == want[k], k
    assert m.reverse_step() and m.state().steps == 0
    assert m.state().R[:3] == [0, 0, 0] and not m.reverse_step()


def test_reverse_past_the_window_with_memory_writes_and_then_forward_again() -> None:
    vals = np.linspace(-3, 3, 32, dtype=np.float32).reshape(4, 8)
    m = seeded(CAST_LOOP.format(trips=3000), vals, journal_budget=BUDGET)
    ref = seeded(CAST_LOOP.format(trips=3000), vals)
    want = _forward_digests(ref, [5, 4321, 9000])
    end = ref.cont()
    m.cont()
    assert m.state().journal.origin > 0 and m.state().digest() == ref.state().digest()
    start = queue(m).initial_memory()  # what a session save writes: memory before step 0
    assert start["sbuf"][:4, :32].tobytes() == vals.tobytes() and not start["sbuf"][:, 32:].any()
    m.reverse(m.steps - 4321)
    assert m.state().digest() == want[4321]
    m.reverse(4321 - 5)
    assert m.state().digest() == want[5]
    assert m.cont(max_steps=9000 - 5).reason == "max-steps" and m.state().digest() == want[9000]
    assert m.cont().reason == end.reason and m.state().digest() == ref.state().digest()


def test_reverse_continue_finds_breakpoints_in_the_folded_region() -> None:
    m = core_of(loop(100_000), journal_budget=BUDGET)
    m.cont()
    assert m.state().journal.origin > 10
    m.add_breakpoint("watch:R5")  # only the second MOVE writes it, at step 1
    stop = m.reverse_continue()
    assert stop.reason == "breakpoint" and m.state().steps == 1 and m.state().pc == 0x40
    assert m.state().R[5] == 0 and "#1 watch:R5" in stop.detail
    clear_breakpoints(m)
    m.cont()
    m.add_breakpoint("pc:0x40")  # the instruction run once, at step 1
    stop = m.reverse_continue()
    assert stop.reason == "breakpoint" and m.state().steps == 1
    assert m.reverse_continue().reason == "start" and m.state().steps == 0


def test_reverse_of_many_steps_can_be_interrupted_in_its_replay(monkeypatch) -> None:
    monkeypatch.setattr(core_module, "FAST_CHUNK", 256)  # interrupt checks every 256 steps
    ref = core_of(loop(100_000))
    m = core_of(loop(100_000), journal_budget=BUDGET)
    m.cont()
    cps = [c.step for c in m._timeline.checkpoints]
    gap, left = max((b - a, a) for a, b in itertools.pairwise(cps))
    assert gap > 1024
    target = left + gap // 2  # in the folded region, far from any checkpoint: a replay
    runs = 0
    fast_run = queue(m).fast_run

    def counted(budget: int) -> int:  # the replay runs the loop's SEQ steps fast
        nonlocal runs
        runs += 1
        if runs == 2:
            m.interrupt.set()
        return fast_run(budget)

    queue(m).fast_run = counted  # type: ignore[method-assign]
    first = m.steps
    stop = m.reverse(m.steps - target)
    queue(m).fast_run = fast_run  # type: ignore[method-assign]
    assert stop.reason == "interrupt" and not m.interrupt.is_set()  # the run consumed it
    at = m.steps
    assert left < at < target and stop.steps == first - at  # between the two...
    ref.cont(max_steps=at)
    assert m.state().digest() == ref.state().digest()  # ... and exact there
    assert m.reverse(at - 10).reason == "max-steps" and m.steps == 10


def test_no_history_keeps_a_bounded_journal_and_refuses_reverse() -> None:
    m = core_of(loop(100_000), journal_budget=0)
    stop = m.cont()
    assert stop.reason == "halt" and m.steps == 300_003
    assert len(m.state().journal.steps) <= KEEP_NONE_STEPS + (1 << 16)
    assert stop.record is not None and stop.record.mnemonic == "HALT"
    stop = m.reverse(5)
    assert stop.reason == "start" and "no history" in stop.detail and m.steps == 300_003
    assert not m.reverse_step() and m.reverse_continue().reason == "start"
    # The start state is still known (session save writes its memory images).
    assert set(queue(m).initial_memory()) == {"sbuf", "psum"}


def test_who_wrote_answers_within_the_kept_window_only() -> None:
    m = core_of(loop(100_000), journal_budget=BUDGET)
    assert m.cont().reason == "halt" and m.steps == 300_003
    # the core may fold its window up to its newest checkpoint (here the HALT's step):
    # back three steps, the window is rebuilt from an older one and holds the last trip
    m.reverse(3)
    assert m.state().who_wrote("R5") is None  # step 1 was folded away
    step, pc = m.state().who_wrote("R1")
    assert pc == 0x80 and step == 300_003 - 4


def test_no_history_bounds_memory_writes_too() -> None:
    big = CAST_LOOP.replace("nac=4", "nac=128").replace("num=[8,", "num=[256,") \
        .replace("sb[0, 64]", "sb[0, 2048]")  # 192 KiB of old bytes a trip
    m = core_of(big.format(trips=300), journal_budget=0)
    assert m.cont().reason == "halt" and m.state().steps == 1 + 4 * 300 + 1
    assert m.state().journal.nbytes <= KEEP_LAST_BYTES + (128 << 10)
    h = core_of(big.format(trips=300))
    h.cont()
    assert h.state().journal.nbytes > 50 << 20  # what history keeps, for comparison


def test_reverse_continue_judges_conditions_at_each_candidate_in_folded_history() -> None:
    m = core_of(loop(100_000), journal_budget=BUDGET)
    m.cont()
    m.add_breakpoint("label:loop if R1 == 30")  # the loop head is reached 100000 times
    stop = m.reverse_continue()
    assert stop.reason == "breakpoint" and m.state().R[1] == 30 and m.state().pc == 0x80
    assert m.state().steps == 2 + 3 * 10 and stop.steps == 300_003 - 32


def test_reverse_continue_undoes_edits_on_the_way() -> None:
    m = core_of(loop(100_000), journal_budget=BUDGET)
    m.cont(max_steps=50)
    m.edit("R5", "9")
    m.cont()
    m.add_breakpoint("pc:0x40")  # MOVE R5=7, at step 1: before the edit
    assert m.reverse_continue().reason == "breakpoint" and m.state().steps == 1
    assert edits(m) == [] and m.state().R[5] == 0


@settings(deadline=None, max_examples=15)
@given(st.lists(st.tuples(st.sampled_from(["cont", "reverse", "edit", "rc", "back"]),
                          st.integers(0, 40_000)), min_size=1, max_size=8), st.booleans())
def test_any_mix_of_commands_matches_a_machine_that_keeps_everything(ops, cast) -> None:
    text = CAST_LOOP.format(trips=2000) if cast else loop(20_000)
    target = "sb[1, 4]:fp32" if cast else "R5"  # read by the CASTs / by the ADD
    small = core_of(text, journal_budget=BUDGET // 4)
    full = core_of(text)
    for m in (small, full):
        m.add_breakpoint("watch:R7")  # written only by edits: reverse-continue meets none
    for op, k in ops:
        for m in (small, full):
            if op == "cont":
                m.cont(max_steps=k)
            elif op == "reverse":
                m.reverse(k)
            elif op == "edit":
                m.edit(target, str(k % 7))
            elif op == "rc":
                m.reverse_continue(max_steps=k)
            else:
                m.reverse_step()
        assert position(small) == position(full) and edits(small) == edits(full)
        assert small.state().digest() == full.state().digest()
