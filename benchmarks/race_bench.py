"""Race detector benchmarks. Prints figures; asserts nothing about time.

    python benchmarks/race_bench.py [--reps 2000] [--loop 100000]

1. Per-access cost of race checking for a CAST of 128 x 4096: DVE reads its source while
   POOL holds K unordered writes (K = 1, 8, 64) to another tile (byte bounds decide), to
   the odd elements while DVE reads the even ones (strided: the exact interval check
   runs every time, no race), or to the same tile (the race is reported once per pair,
   then known). "cold": byte runs and pair verdicts recomputed each time; "warm": cached.
2. A long producer/consumer loop on two engines with a semaphore handshake each way:
   accesses/s and events/s, with and without the undo log, and what the detector holds
   at the end (pruning keeps it bounded).
3. A long kernel: 5 engines of --nops NOPs each (5 x 200,000 = 1M steps at full size),
   run headless (`run`'s settings: no history) with races on and off, beside one queue
   of the same number of records; each in a child process, so its peak RSS is its own:
   load (assembly) seconds, run seconds, steps/s, peak RSS.
4. `--races explore:N` on a small kernel (examples' missing_wait): schedules/s.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from neurondbg.machine.core.races import Access, RaceDetector
from neurondbg.machine.state import Region

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


_CHILD = """
import json, resource, sys, time
from neurondbg.machine.core.core import Core
from neurondbg.machine.core.kernel import load_kernel
t0 = time.perf_counter()
k = load_kernel(sys.argv[1])
t1 = time.perf_counter()
c = Core(k, schedule="rr", races=sys.argv[2] == "on", journal_budget=0)
stop = c.cont(max_steps=10**8)
t2 = time.perf_counter()
print(json.dumps({"load": t1 - t0, "run": t2 - t1, "steps": c.steps, "stop": stop.reason,
                  "races": len(c.races),
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""
ENGINES5 = ("pool", "dve", "act", "pe", "sp")


def long_kernel(nops: int) -> None:
    """Section 3 of the module docstring."""
    with tempfile.TemporaryDirectory() as d:
        five = Path(d) / "five.asm"
        five.write_text("".join(f".engine {e}\n" + "NOP\n" * nops + "HALT\n"
                                for e in ENGINES5))
        one = Path(d) / "one.asm"
        one.write_text(".engine pool\n" + "NOP\n" * (5 * nops) + "HALT\n")
        for label, path, races in (("5 queues, races on ", five, "on"),
                                   ("5 queues, races off", five, "off"),
                                   ("1 queue,  races on ", one, "on")):
            out = subprocess.run([sys.executable, "-c", _CHILD, str(path), races],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout)
            assert r["stop"] == "halt" and r["races"] == 0, r
            print(f"  {label}: load {r['load']:6.1f} s  run {r['run']:6.1f} s  "
                  f"{r['steps'] / r['run'] / 1e3:7.1f} k steps/s  peak RSS "
                  f"{r['rss']:7.1f} MiB")


def explore_rate(n: int) -> None:
    """Section 4: schedules per second of --races explore on missing_wait.asm."""
    import threading

    from neurondbg.machine.core.core import Core
    from neurondbg.machine.core.explore import explore
    from neurondbg.machine.core.kernel import load_kernel

    k = load_kernel(Path(__file__).resolve().parents[1] / "examples" / "kernels"
                    / "missing_wait.asm")
    t0 = time.perf_counter()
    ex = explore(lambda s: Core(k, schedule=s, journal_budget=0), n, max_steps=1000,
                 interrupt=threading.Event())
    dt = time.perf_counter() - t0
    print(f"  missing_wait: {len(ex.tried)} schedules (complete: {ex.complete}) in "
          f"{dt:.2f} s: {len(ex.tried) / dt:.1f} schedules/s, {len(ex.found)} race(s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--loop", type=int, default=100_000)
    ap.add_argument("--nops", type=int, default=20_000,
                    help="NOPs per engine of the long kernel (200000: 1M steps)")
    ap.add_argument("--explore", type=int, default=16)
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
    print(f"long kernel: 5 engines x {args.nops} NOPs ({5 * args.nops} steps), beside one "
          "queue of as many")
    long_kernel(args.nops)
    print(f"--races explore:{args.explore}")
    explore_rate(args.explore)


if __name__ == "__main__":
    main()
