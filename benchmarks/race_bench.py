"""Race detector benchmarks (issue 14). Prints figures; asserts nothing about time.

    python benchmarks/race_bench.py [--reps 2000] [--loop 100000]

1. Per-access cost of race checking for a CAST of 128 x 4096: DVE reads its source while
   POOL holds K unordered writes (K = 1, 8, 64) to another tile (byte bounds decide), to
   the odd elements while DVE reads the even ones (strided: the exact interval check
   runs every time, no race), or to the same tile (the race is reported once per pair,
   then known). "cold": byte runs and pair verdicts recomputed each time; "warm": cached.
2. A long producer/consumer loop on two engines with a semaphore handshake each way:
   accesses/s and events/s, with and without the undo log, and what the detector holds
   at the end (pruning keeps it bounded).
"""

from __future__ import annotations

import argparse
import resource
import time

from machine.core.races import Access, RaceDetector
from machine.state import Region

PARTS, ELEMS = 128, 4096


def tile(start: int, size: int, step: int) -> Region:
    return Region("sbuf", 0, PARTS, start, size, (step, 1, 1, 1), (ELEMS, 1, 1, 1))


# what POOL's K unordered accesses touch, per case: (start, element bytes, step)
CASES = {
    "apart (bounds only)": (1 << 16, 4, 1),  # another tile: byte bounds never meet
    "interleaved (exact)": (4, 4, 2),  # odd elements vs DVE's even ones: runs intersected
    "racing (reported)": (0, 4, 1),  # the same tile: one race per pair, then known
}


def cast_cost(case: str, k: int, reps: int, cold: bool) -> float:
    """Microseconds per access() for DVE's CAST read against K unordered POOL writes."""
    d = RaceDetector(["pool", "dve"])
    start, size, step = CASES[case]
    dve_step = 2 if case.startswith("interleaved") else 1
    for i in range(k):  # K POOL instructions wrote near the tile, none ordered before DVE
        d.access(Access("pool", 64 * i, "TENSOR_COPY", "write", tile(start, size, step), 0))
    src = tile(0, 4, dve_step)
    t0 = time.perf_counter()
    for r in range(reps):
        if cold:
            d._runs.clear()  # as if new patterns each time: byte runs and verdicts recomputed
            d._pairs.clear()
        d.access(Access("dve", 0x40, "CAST", "read", src, 1 + r))
    return (time.perf_counter() - t0) / reps * 1e6


def loop(n: int, budget: int) -> tuple[float, float, dict[str, int]]:
    """(accesses/s, events/s, stats) for n producer/consumer iterations."""
    d = RaceDetector(["pool", "dve"], undo_budget=budget)
    tiles = [Region("sbuf", 0, PARTS, 512 * i, 4, (1, 1, 1, 1), (128, 1, 1, 1))
             for i in range(16)]
    accs = events = 0
    step = 0
    t0 = time.perf_counter()
    for i in range(n):
        t = tiles[i % 16]
        d.access(Access("pool", 0x40, "CAST", "write", t, step))
        d.release("pool", 0x40, 1, i + 1, "complete", step)
        d.acquire("dve", 1, lambda v, k=i + 1: v >= k, step + 1)
        d.access(Access("dve", 0x80, "TENSOR_COPY", "read", t, step + 1))
        d.release("dve", 0x80, 2, i + 1, "complete", step + 1)
        d.acquire("pool", 2, lambda v, k=i + 1: v >= k, step + 2)
        d.access(Access("pool", 0xC0, "TENSOR_COPY", "read", t, step + 2))
        step += 3
        accs += 3
        events += 7
    dt = time.perf_counter() - t0
    assert not d.races  # the handshake orders everything: a figure of a wrong run is void
    return accs / dt, events / dt, d.stats()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--loop", type=int, default=100_000)
    args = ap.parse_args()
    print(f"CAST {PARTS} x {ELEMS} (DVE reads the source): microseconds per access")
    for case in CASES:
        for k in (1, 8, 64):
            warm = cast_cost(case, k, args.reps, cold=False)
            cold = cast_cost(case, k, max(args.reps // 10, 10), cold=True)
            print(f"  {case:20s} K={k:3d} unordered POOL writes: warm {warm:8.1f} us  "
                  f"cold {cold:8.1f} us")
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for budget, label in ((1 << 18, "undo log on "), (0, "undo log off")):
        a, e, s = loop(args.loop, budget)
        print(f"loop x{args.loop} ({label}): {a / 1e3:7.1f} k accesses/s, {e / 1e3:7.1f} k "
              f"events/s; holds live={s['live']} releases={s['releases']} undo={s['undo']} "
              f"snapshots={s['snapshots']}")
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak RSS growth over the loops: {(rss1 - rss0) / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
