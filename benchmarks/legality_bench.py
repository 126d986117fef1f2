"""Benchmark: `neurondbg validate big.bin --summary` on 1,000,000 mixed records.

Builds a file of valid examples of every predicate plus single-field
corruptions (so about half the records are invalid), then times the whole
process (interpreter start, imports, read, validate, JSON) and, separately,
the in-process `validate` call. Prints instructions/s (target >= 5,000,000/s).

    /work/venv/bin/python benchmarks/legality_bench.py [N] [--keep PATH]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from machine.dtypes import Dtype
from machine.legality.explain import validate
from machine.legality.wire.samples import EXAMPLES, example

CORRUPTIONS = ({"header__inst_word_len": 15}, {"events__wait_mode": 0x10})


def templates() -> np.ndarray:
    recs = []
    for name in EXAMPLES:
        recs.append(example(name))
        recs += [example(name, **c) for c in CORRUPTIONS]
    recs.append(example("is_valid_copy", out_dtype=Dtype.BF16))
    recs.append(example("is_valid_ctrl_mv", dtype=Dtype.FP16))
    return np.frombuffer(b"".join(recs), dtype=np.uint8).reshape(-1, 64)


def build(n: int, seed: int = 1) -> np.ndarray:
    t = templates()
    rng = np.random.default_rng(seed)
    return t[rng.integers(0, len(t), n)]


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 1_000_000
    raw = build(n)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.bin"
        path.write_bytes(raw.tobytes())
        exe = Path(sys.executable).parent / "neurondbg"
        cmd = [str(exe), "validate", str(path), "--summary"]
        subprocess.run(cmd, capture_output=True, env=os.environ)  # warm the page cache
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            out = subprocess.run(cmd, capture_output=True, text=True)
            best = min(best, time.perf_counter() - t0)
        print(f"records: {n:,}  exit code {out.returncode}")
        print(f"whole process `neurondbg validate --summary`: {best:.3f} s = "
              f"{n / best:,.0f} instructions/s (target >= 5,000,000/s)")
        start = subprocess.run([sys.executable, "-c", "pass"], capture_output=True)
        t0 = time.perf_counter()
        subprocess.run([str(exe), "validate", "--help"], capture_output=True)
        print(f"startup (`neurondbg validate --help`): {time.perf_counter() - t0:.3f} s"
              f"{'' if start.returncode == 0 else ' (python failed)'}")
    dt = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        result = validate(raw, "cayman")
        dt = min(dt, time.perf_counter() - t0)
    print(f"in-process validate (best of 3): {dt:.3f} s = {n / dt:,.0f} instructions/s; "
          f"invalid {result.invalid:,}")
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import numpy, machine.legality.explain"],
                   capture_output=True)
    print(f"interpreter + numpy + legality imports alone: {time.perf_counter() - t0:.3f} s")
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
