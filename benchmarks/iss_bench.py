"""Throughput of the ISS conversion primitives (ref 003) and one-lane trace time.

Run: /work/venv/bin/python benchmarks/iss_bench.py [--size N] [--repeat R]
Prints one line per primitive: elements/s of the vector function on N lanes (default
1,000,000) with its default parameters (shift 8 for the packs), and the mean time of
one `trace` call.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from convert_bench import best  # the same timing as the kernel benchmark (run from benchmarks/)

from neurondbg.machine.convert.iss import ISS_PRIMITIVES


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--traces", type=int, default=200)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    # Random 64-bit lanes: each primitive reads the low bits it needs (fp32 patterns,
    # int32 values, 48-bit accumulators, ...).
    lanes = rng.integers(0, 2**63, args.size, dtype=np.int64).astype(np.uint64)
    sample = [int(v) for v in lanes[: args.traces]]
    print(f"lanes: {args.size:,}; best of {args.repeat}; trace = mean of {args.traces} lanes")
    for name, prim in ISS_PRIMITIVES.items():
        params = prim.bind(**({"shift": 8} if "shift" in {p.name for p in prim.params} else {}))
        t = best(lambda prim=prim, params=params: prim.vector(lanes, **params), args.repeat)
        t0 = time.perf_counter()
        for v in sample:
            prim.trace(v, **params)
        per = (time.perf_counter() - t0) / len(sample)
        print(f"{name:9s} {args.size / t / 1e6:8.1f} M elements/s   trace {per * 1e6:7.0f} us")


if __name__ == "__main__":
    main()
