"""Conversion kernel throughput vs ml_dtypes astype, and one-lane trace time.

Run: /work/venv/bin/python benchmarks/convert_bench.py [--size ROWSxCOLS]
Prints one line per figure (ratio = ml_dtypes time / our time; higher is better).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import ml_dtypes
import numpy as np

from machine.convert import convert


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
    args = ap.parse_args()
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
        from machine.convert.trace import trace
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


if __name__ == "__main__":
    with np.errstate(over="ignore", invalid="ignore"):  # astype's overflow casts are expected
        main()
