"""Benchmark: `neurondbg validate big.bin --summary` on 1,000,000 mixed records.

Builds a file of valid examples of every predicate plus single-field
corruptions (so about half the records are invalid), then times the whole
process (interpreter start, imports, read, validate, JSON) and, separately,
the in-process `validate_raw` call with and without deduplication, and the
all-distinct worst case (random records: nothing to deduplicate). Prints
instructions/s (target >= 5,000,000/s). `--keep PATH` also writes the file.

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

from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.legality.wire.bulk import validate_raw
from neurondbg.machine.legality.wire.samples import EXAMPLES, example

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


def whole_process(path: Path, env: dict[str, str], runs: int = 5) -> tuple[float, int]:
    """Best wall time of `neurondbg validate PATH --summary` (a fresh process); exit code."""
    cmd = [str(Path(sys.executable).parent / "neurondbg"), "validate", str(path), "--summary"]
    subprocess.run(cmd, capture_output=True, env=env)  # warm the page (and bytecode) cache
    best, code = float("inf"), -1
    for _ in range(runs):
        t0 = time.perf_counter()
        code = subprocess.run(cmd, capture_output=True, env=env).returncode
        best = min(best, time.perf_counter() - t0)
    return best, code


def in_process(raw: np.ndarray, dedup: bool, runs: int = 3) -> tuple[float, int]:
    best, invalid = float("inf"), 0
    for _ in range(runs):
        t0 = time.perf_counter()
        result = validate_raw(raw, Gen.CAYMAN, dedup=dedup)
        invalid = result.invalid
        best = min(best, time.perf_counter() - t0)
    return best, invalid


def main() -> None:
    args = sys.argv[1:]
    n = int(args[0]) if args and args[0].isdigit() else 1_000_000
    keep = Path(args[args.index("--keep") + 1]) if "--keep" in args else None
    raw = build(n)
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores "
          "(figures are best of 5; other processes slow them)")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.bin"
        raw.tofile(path)
        if keep is not None:
            raw.tofile(keep)
        env = dict(os.environ)
        dt, code = whole_process(path, env)
        print(f"records: {n:,} ({len(np.unique(raw, axis=0))} distinct)  exit code {code}")
        print(f"whole process `neurondbg validate --summary`: {dt:.3f} s = "
              f"{n / dt:,.0f} instructions/s (target >= 5,000,000/s)")
        # an installed package has .pyc files; PYTHONDONTWRITEBYTECODE=1 (if set) makes
        # every run compile the project's modules again
        cached = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pyc")
        dt, _ = whole_process(path, cached)
        print(f"  the same with a bytecode cache: {dt:.3f} s = {n / dt:,.0f} instructions/s")
        rnd = np.random.default_rng(2).integers(0, 256, (n, 64), dtype=np.uint8)
        rnd[:, 0] = raw[:, 0]
        rnd.tofile(path)
        dt, _ = whole_process(path, env, runs=2)
        print(f"  all-distinct records (no dedup possible): {dt:.3f} s = "
              f"{n / dt:,.0f} instructions/s")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import numpy, click"], capture_output=True)
        print(f"interpreter + numpy + click imports alone: {time.perf_counter() - t0:.3f} s")
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", "import numpy, click, neurondbg.machine.legality.explain"],
            capture_output=True,
        )
        print(f"  ... + neurondbg.machine.legality.explain: {time.perf_counter() - t0:.3f} s")
    for dedup in (True, False):
        dt, invalid = in_process(raw, dedup)
        print(f"in-process validate_raw(dedup={dedup}): {dt:.3f} s = {n / dt:,.0f} "
              f"instructions/s; invalid {invalid:,}")
    dt, _ = in_process(rnd, True)
    print(f"in-process validate_raw, all-distinct records: {dt:.3f} s = {n / dt:,.0f} "
          "instructions/s")


if __name__ == "__main__":
    main()
