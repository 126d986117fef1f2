"""The race detector's undo log and snapshots are history: counted in the core's budget
(`Core.history_nbytes`) as Python really keeps them, and held within it however long a
kernel runs (machine/core/races.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from neurondbg.machine.core.races import Access, RaceDetector
from neurondbg.machine.state import Region

ENGINES = ("pool", "dve", "act")


def feed(d: RaceDetector, n: int) -> None:
    """A handshake loop (POOL writes, DVE waits and reads) over a few tiles and PCs, with
    ACT reading unordered beside it: accesses replaced, dropped and kept, releases pushed
    out of a semaphore's history, joins and forks."""
    pool, dve, act = ENGINES
    step = 0
    for i in range(n):
        t = Region("sbuf", 0, 64, 64 * (i % 50), 4, (1, 1, 1, 1), (8, 1, 1, 1))
        d.access(Access(pool, 0x40 + 64 * (i % 30), "CAST", "write", t, step))
        d.release(pool, 0x40, 1, i + 1, "complete", step)
        d.acquire(dve, 1, lambda v, k=i + 1: v >= k, step + 1)
        d.access(Access(dve, 0x80, "TENSOR_COPY", "read", t, step + 1))
        if i % 3 == 0:
            d.access(Access(act, 0x100 + 64 * (i % 40), "COPY", "read", t, step + 1))
        d.fork(dve, step + 1)
        step += 2


MEASURE = textwrap.dedent("""
    import gc, json, tracemalloc
    from neurondbg.machine.core.races import RaceDetector
    from tests.core.test_race_history_bytes import ENGINES, feed

    budget = 4 << 20
    gc.collect()
    tracemalloc.start()
    a = tracemalloc.get_traced_memory()[0]
    bare = RaceDetector(ENGINES, undo_budget=0)
    feed(bare, 6000)
    gc.collect()
    b = tracemalloc.get_traced_memory()[0]
    d = RaceDetector(ENGINES, history_budget=budget)
    feed(d, 6000)
    gc.collect()
    c = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(json.dumps({"real": (c - b) - (b - a), "counted": d.history_nbytes,
                      "budget": budget, "snapshots": d.stats()["snapshots"],
                      "same": [r.to_dict() for r in d.races]
                              == [r.to_dict() for r in bare.races]}))
""")


def test_the_counted_history_covers_what_python_keeps_for_it() -> None:
    """What a detector with history holds beyond one without (same events, same live
    state) is its undo log and snapshots: the count is at least that, and not far above.
    Measured in a fresh interpreter: objects an earlier test left on CPython's free lists
    are reused without the allocator tracemalloc sees, which skews the difference."""
    out = subprocess.run([sys.executable, "-c", MEASURE], capture_output=True, text=True,
                         timeout=300, check=True)
    got = json.loads(out.stdout)
    assert got["same"]
    assert got["snapshots"] > 2  # the workload folds: snapshots are counted too
    assert got["real"] <= got["counted"] <= 2 * got["real"], got
    assert got["counted"] <= got["budget"]


CHILD = textwrap.dedent("""
    import resource, sys
    from tests.core.conftest import core
    from tests.core.test_core_history import copies

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize()

    budget = int(sys.argv[1]) << 20
    signal = "update_mode=SEM_INC_COMPLETE update_idx=1"
    c = core(journal_budget=budget, pool=copies(10**6, 0, 0x100, signal),
             dve=copies(10**6, 0x200, 0x300))
    c.cont(max_steps=3000)  # fast closures and checkpoint 0 made: not history
    base = rss()
    peak = 0
    for _ in range(int(sys.argv[2]) // 1000):
        c.cont(max_steps=1000)
        peak = max(peak, c.history_nbytes)
    print(c.steps, rss() - base, peak)
""")


def test_a_kernel_with_races_on_stays_within_its_history_budget() -> None:
    """Two engines copying tiles behind a semaphore for 60,000 steps: without the
    detector in the budget its undo log alone grows past 20 MiB."""
    budget_mib, steps = 2, 60_000
    out = subprocess.run([sys.executable, "-c", CHILD, str(budget_mib), str(steps)],
                         capture_output=True, text=True, timeout=300, check=True)
    done, growth, peak = map(int, out.stdout.split())
    assert done == 3000 + steps
    assert peak <= (budget_mib << 20) * 17 // 16 + (64 << 10)  # one interval over at most
    assert growth <= 1.5 * (budget_mib << 20), (growth >> 20, peak >> 20)
