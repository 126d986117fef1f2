"""`diagnose` time for a 128 x 65536 tensor: every candidate rule, one convert each.

Run: python benchmarks/diagnose_bench.py [--size ROWSxCOLS] [--to FMT]
Prints the rule count, the wall time of one diagnose and the lanes per second.
ACTUAL is made under ieee `round` (ties away), so the ties are the exceptions.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from neurondbg.machine.convert import convert
from neurondbg.machine.convert.diagnose import candidate_rules, diagnose
from neurondbg.machine.convert.formats import FORMATS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", default="128x65536")
    ap.add_argument("--to", dest="dst", default="fp8_e4m3fn")
    args = ap.parse_args()
    rows, cols = (int(v) for v in args.size.split("x"))
    src, dst = FORMATS["fp32"], FORMATS[args.dst]
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((rows, cols)) * 4).astype(np.float32).view(np.uint32)
    actual = convert(x, src, dst, "round")
    n_rules = len(candidate_rules(src, dst))
    t0 = time.perf_counter()
    d = diagnose(x, actual, src, dst)
    dt = time.perf_counter() - t0
    print(f"diagnose fp32 -> {dst.name}: {rows} x {cols} = {x.size:,} lanes, {n_rules} rules")
    print(f"time: {dt:.2f} s  ({x.size / dt / 1e6:.1f} M lanes/s)")
    print(f"summary: {d.summary()}")


if __name__ == "__main__":
    main()
