"""The core's history: bounded memory on long runs, interrupts from another thread,
and the race detector rewound past its undo log (machine/core/timeline.py)."""

from __future__ import annotations

import threading

from neurondbg.machine.core.races import RaceDetector
from tests.core.conftest import core
from tests.core.test_core import loops

BUDGET = 64 * 1024
# A loop copying a 64-partition tile (1 KiB journaled per step) `n` times.
COPIES = """
    MOVE R2={n}
again:
    COPY in_dtype=FP32 out_dtype=FP32 nac=64 src=sb[0, {src}] step=[1,0,0,0] num=[4,1,1,1] \
        dst=sb[0, {dst}] step=[1,0,0,0] num=[4,1,1,1] {signal}
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=again
    HALT
"""


def copies(n: int, src: int, dst: int, signal: str = "") -> str:
    return COPIES.format(n=n, src=src, dst=dst, signal=signal)


def test_long_run_stays_within_the_budget_and_reverses_exactly() -> None:
    c = core(journal_budget=BUDGET, pool=copies(400, 0, 0x100), dve=copies(400, 0, 0x200))
    marks, peak = {}, 0
    while c.cont(max_steps=150).reason == "max-steps":
        marks[c.steps] = c.digest()
        peak = max(peak, c.history_nbytes)
    assert c.steps == 2 * (1 + 3 * 400 + 1)
    # between checkpoints history may run past the budget by about one interval (1/16)
    assert peak <= BUDGET * 17 // 16 + 64 * 1024
    assert c._timeline.origin > 0 and len(c._timeline.checkpoints) >= 2
    for s in sorted(marks, reverse=True)[::5]:
        c.reverse(c.steps - s)
        assert c.steps == s and c.digest() == marks[s]


def test_interrupt_from_another_thread_leaves_a_consistent_core() -> None:
    c = loops(n=3_000_000, journal_budget=0)
    timer = threading.Timer(0.05, c.interrupt.set)
    timer.start()
    try:
        stop = c.cont()
    finally:
        timer.cancel()
    assert stop.reason == "interrupt" and 0 < c.steps < 3 * 3_000_000
    assert sum(c.engine_steps(e) for e in c.engines) == c.steps  # run-ahead undone
    pool = c.state("pool")
    # a state the loop really reaches: R1 += 3 then R2 -= 1 per trip (maybe mid-trip)
    assert pool.R[1] % 3 == 0 and 3_000_000 - pool.R[2] in (pool.R[1] // 3, pool.R[1] // 3 - 1)


def test_detector_rewound_past_its_log_is_fed_again() -> None:
    """A detector whose undo log is tiny goes back to a snapshot on rewind; the core
    feeds it the steps from there again, so races are the same after reverse."""
    signal = "update_mode=SEM_INC_COMPLETE update_idx=1"
    c = core(pool=copies(20, 0, 0x100, signal), dve=copies(20, 0x100, 0x200))
    c.detector = RaceDetector(c.engines, undo_budget=8)
    c._feeder.detector = c.detector
    rewinds: list[tuple[int, int]] = []
    rewind = c.detector.rewind

    def spy(step: int) -> int:
        rewinds.append((step, rewind(step)))
        return rewinds[-1][1]
    c.detector.rewind = spy  # type: ignore[method-assign]
    assert c.cont().reason == "halt"
    found = [r.to_dict() for r in c.races]
    assert [(r["a"]["engine"], r["b"]["engine"]) for r in found] == [("pool", "dve")]
    n = c.steps
    c.reverse(40)
    assert rewinds[-1][1] < rewinds[-1][0]  # it went back to a snapshot
    assert [r.to_dict() for r in c.races] == found and c.steps == n - 40
    c.reverse(n)
    assert c.races == []
    assert c.cont().reason == "halt" and [r.to_dict() for r in c.races] == found


def test_headless_run_of_large_copies_stays_small() -> None:
    """Without history each engine's journal is emptied as it goes, by bytes as well as
    steps: 200 copies of 128 x 2 KiB would otherwise keep 50 MiB of old bytes."""
    def big(dst: int) -> str:
        return copies(100, 0, dst).replace("nac=64", "nac=128").replace("num=[4,1,1,1]",
                                                                        "num=[512,1,1,1]")
    c = core(journal_budget=0, pool=big(0x800), dve=big(0x1000), config={"sbuf_bytes": 8192})
    peak = 0

    def watch(cs: object) -> None:
        nonlocal peak
        peak = max(peak, c.history_nbytes)
    c.on_step = watch
    assert c.cont().reason == "halt"
    assert peak < 6 << 20 and c.history_nbytes < 6 << 20
