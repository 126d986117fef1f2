"""Conversion kernel throughput vs ml_dtypes astype, and one-lane trace time.

Run: /work/venv/bin/python benchmarks/convert_bench.py [--size ROWSxCOLS] [--cli-values N]
     [--cli-only]
Prints one line per figure (ratio = ml_dtypes time / our time; higher is better), then
`neurondbg convert` with N values on its command line and the same N from a file, each
in a child interpreter (wall time and peak memory; both take one vectorized path).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import ml_dtypes
import numpy as np

from neurondbg.machine.convert import convert


def best(fn: Callable[[], object], repeat: int = 5) -> float:
    """Best wall time of `repeat` runs (seconds)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", default="128x65536")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cli-values", type=int, default=200_000)
    ap.add_argument("--cli-only", action="store_true", help="only the command-line figures")
    args = ap.parse_args()
    cli_values(args.cli_values)
    if args.cli_only:
        return
    rows, cols = (int(v) for v in args.size.split("x"))
    rng = np.random.default_rng(0)
    # Finite fp32 values over a wide range (the common case of a real tensor).
    vals = (rng.standard_normal((rows, cols)) * 2.0 ** rng.integers(-20, 20, (rows, cols)))
    f32 = vals.astype(np.float32)
    bits = f32.view(np.uint32)
    print(f"array: {rows} x {cols} fp32 ({f32.size} elements)")

    convert(bits[:1, :8], "fp32", "bf16", profile="neuron")  # warm caches / imports
    ref = best(lambda: f32.astype(ml_dtypes.bfloat16), args.repeat)
    ours = best(lambda: convert(bits, "fp32", "bf16", profile="neuron"), args.repeat)
    print(f"fp32->bf16 neuron: ml_dtypes {ref * 1e3:.1f} ms, convert {ours * 1e3:.1f} ms, "
          f"ratio {ref / ours:.2f} (target >= 0.5)")

    for dst, mldt, mode in (("fp8_e4m3fn", ml_dtypes.float8_e4m3fn, "floor"),
                            ("fp8_e4m3fn", ml_dtypes.float8_e4m3fn, "trunc"),
                            ("fp8_e4m3fn", ml_dtypes.float8_e4m3fn, "round"),
                            ("fp16", np.float16, "odd")):
        convert(bits[:1, :8], "fp32", dst, mode=mode)
        ref = best(lambda m=mldt: f32.astype(m), args.repeat)
        ours = best(lambda d=dst, m=mode: convert(bits, "fp32", d, mode=m), args.repeat)
        print(f"fp32->{dst} {mode} ieee: ml_dtypes rint {ref * 1e3:.1f} ms, convert "
              f"{ours * 1e3:.1f} ms, ratio {ref / ours:.2f} (target >= 0.33)")

    try:
        from neurondbg.machine.convert.trace import trace
    except ImportError:
        print("trace: not available")
        return
    lane = int(bits[0, 0])
    trace(lane, "fp32", "fp8_e4m3fn", mode="rint")
    n = 200
    t0 = time.perf_counter()
    for i in range(n):
        trace(int(bits[0, i]), "fp32", "fp8_e4m3fn", mode="rint")
    per = (time.perf_counter() - t0) / n
    print(f"trace one lane fp32->fp8_e4m3fn: {per * 1e3:.3f} ms (target <= 1 ms)")


# A child interpreter runs the click command in process (a real exec of 200,000 arguments
# may pass the kernel's ARG_MAX) and reports its wall time and peak RSS.
_CHILD = """
import json, resource, sys, time
from neurondbg.cli import cli
args = json.load(open(sys.argv[1]))
t0 = time.perf_counter()
try:
    cli.main(args, prog_name="neurondbg", standalone_mode=False)
finally:
    sys.stdout.flush()
    sys.stderr.write(json.dumps({"s": time.perf_counter() - t0,
                                 "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def cli_values(n: int) -> None:
    """`convert V1 ... Vn` and `convert --input FILE` with the same n values."""
    rng = np.random.default_rng(1)
    texts = [f"{v:.6g}" for v in rng.standard_normal(n) * 100]
    opts = ["--from", "fp32", "--to", "bf16"]
    with tempfile.TemporaryDirectory() as tmp:
        values = os.path.join(tmp, "values.txt")
        with open(values, "w") as fh:
            fh.write("\n".join(texts) + "\n")
        for label, args in (("on the command line", ["convert", *texts, *opts]),
                            ("from a file", ["convert", "--input", values, *opts])):
            argf = os.path.join(tmp, "args.json")
            with open(argf, "w") as fh:
                json.dump(args, fh)
            res = subprocess.run([sys.executable, "-c", _CHILD, argf], capture_output=True,
                                 text=True, check=True)
            got = json.loads(res.stderr.strip().splitlines()[-1])
            lines = res.stdout.count("\n") - 2  # two # lines head the values
            print(f"convert {n} values {label}: {got['s']:.2f} s, peak RSS "
                  f"{got['rss_kb'] / 1024:.0f} MB, {lines} lines")


if __name__ == "__main__":
    with np.errstate(over="ignore", invalid="ignore"):  # astype's overflow casts are expected
        main()
