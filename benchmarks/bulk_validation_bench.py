"""Bulk-validation figures, beside legality_bench.py. Prints figures; not a test.

    python benchmarks/bulk_validation_bench.py [--mixed 1000000] [--distinct 10000000]
        [--json 100000]

0. The floors: the interpreter with numpy and click, and `validate --summary` of an empty
   file (the command's own imports, nothing judged). The second can cost less CPU than
   the first: the console script imports its command with the cycle collector paused
   and then frozen (neurondbg.cli), so its exit skips the full collection over numpy's
   objects that the bare `import numpy, click` process pays.
1. `neurondbg validate --summary` as a whole process (best of a few runs) on N mixed
   records (legality_bench's templates: ~77 distinct) and on M all-distinct records
   (random bytes under the mixed opcodes, so every documented predicate is exercised):
   instructions/s (goals >= 6M/s and >= 5M/s), and the in-process `summarize_raw` alone.
2. `neurondbg validate --json` of K records: the child's peak memory (ru_maxrss), mixed
   and all-distinct, and the in-process `BulkResult.verdicts()` size and time.
The load average is printed first: on a shared machine read the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.wire.bulk import summarize_raw, validate_raw

sys.path.insert(0, str(Path(__file__).parent))
from legality_bench import build  # the same mixed records as legality_bench

NEURONDBG = str(Path(sys.executable).parent / "neurondbg")
# The child's own wall time is taken here, around its run alone: timing the wrapper
# would add a second interpreter's start-up (~0.04 s) to every figure.
_WRAPPER = """
import resource, subprocess, sys, time
t0 = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
wall = time.perf_counter() - t0
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_maxrss, r.ru_utime + r.ru_stime, wall)
"""


def distinct(n: int, seed: int = 2) -> np.ndarray:
    """n random records under the mixed records' opcodes (all distinct in practice)."""
    rnd = np.random.default_rng(seed).integers(0, 256, (n, 64), dtype=np.uint8)
    rnd[:, 0] = build(n)[:, 0]
    return rnd


def whole(args: list[str], runs: int, env: dict[str, str],
          program: tuple[str, ...] = (NEURONDBG,)) -> tuple[float, float, float]:
    """(best wall seconds, peak MiB, best CPU seconds) of `neurondbg ARGS` (or `program
    ARGS`), a fresh process (the CPU time, user + system, is what a loaded machine
    disturbs least)."""
    best, peak, cpu = float("inf"), 0.0, float("inf")
    for _ in range(runs + 1):  # the first warms the page and bytecode caches
        r = subprocess.run([sys.executable, "-c", _WRAPPER, *program, *args],
                           capture_output=True, text=True, check=True, env=env)
        kib, seconds, wall = r.stdout.split()[-3:]
        best = min(best, float(wall))
        peak, cpu = int(kib) / 1024, min(cpu, float(seconds))
    return best, peak, cpu


def in_process(raw: np.ndarray, runs: int = 3) -> float:
    """Best CPU seconds of summarize_raw (the process's own time: load disturbs it less)."""
    best = float("inf")
    for _ in range(runs):
        t0 = time.process_time()
        summarize_raw(raw, Gen.CAYMAN, "pool")
        best = min(best, time.process_time() - t0)
    return best


def verdicts_cost(raw: np.ndarray) -> tuple[float, float, int]:
    """(seconds, MiB traced, list length) of validate_raw(...).verdicts()."""
    result = validate_raw(raw, Gen.CAYMAN, "pool")
    tracemalloc.start()
    t0 = time.perf_counter()
    v = result.verdicts()
    dt = time.perf_counter() - t0
    size = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()
    return dt, size, len(v)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mixed", type=int, default=1_000_000)
    ap.add_argument("--distinct", type=int, default=10_000_000)
    ap.add_argument("--json", type=int, default=100_000)
    ap.add_argument("--json-distinct", type=int, default=10_000,
                    help="all-distinct records for --json (each is explained: slow)")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    dt, _, cpu = whole(["-c", "import numpy, click"], a.runs, dict(os.environ),
                       program=(sys.executable,))
    print(f"interpreter + numpy + click alone: {dt:.3f} s (CPU {cpu:.3f} s)")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.bin"
        # as an installed package runs: with .pyc files (PYTHONDONTWRITEBYTECODE=1, if set,
        # would compile every module again in every run)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pyc")
        # the start-up floor of the command itself: its imports, no records to judge
        path.write_bytes(b"")
        dt, peak, cpu = whole(["validate", str(path), "--summary"], a.runs, env)
        print(f"validate --summary of an empty file (interpreter + imports): {dt:.3f} s "
              f"(CPU {cpu:.3f} s, peak {peak:.0f} MiB)")
        for label, n, make in (("mixed", a.mixed, build), ("all-distinct", a.distinct, distinct)):
            raw = make(n)
            raw.tofile(path)
            dt, peak, cpu = whole(["validate", str(path), "--summary"], a.runs, env)
            ip = in_process(raw)
            print(f"validate --summary, {n:,} {label}: whole process {dt:.3f} s = "
                  f"{n / dt / 1e6:.2f}M/s, CPU {cpu:.3f} s = {n / cpu / 1e6:.2f}M/s (peak "
                  f"{peak:.0f} MiB); in-process summarize_raw CPU {ip:.3f} s = "
                  f"{n / ip / 1e6:.2f}M/s")
            del raw
        for label, n, make in (("mixed", a.json, build),
                               ("all-distinct", a.json_distinct, distinct)):
            raw = make(n)
            raw.tofile(path)
            dt, peak, cpu = whole(["validate", str(path), "--json"], 1, env)
            vt, vm, vn = verdicts_cost(raw)
            print(f"validate --json, {n:,} {label}: whole process {dt:.3f} s (CPU {cpu:.3f} "
                  f"s), peak {peak:.0f} MiB; verdicts(): {vn:,} rows, {vm:.1f} MiB, {vt:.3f} s")


if __name__ == "__main__":
    main()
