"""Command-line figures, each a whole process (best of a few runs). Not a test.

    python benchmarks/cli_bench.py [--values 100000] [--calls 100000] [--runs 3]

1. `neurondbg --help`, `neurondbg --version` and `neurondbg tour` (the listing), and
   which of numpy / textual each imports (goal: <= 0.10 s, none of them).
2. `convert --input FILE --from fp32 --to bf16` on N random decimals (goal <= 1 s for
   100,000), as text and as JSON Lines, against the one-value form's time per value.
3. `check-nki CALLS.json --json` on N calls: the example calls repeated (each distinct
   call judged once) and N calls of which every one differs (a shape dimension varies).
The load average is printed first: on a shared machine read the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXE = str(Path(sys.executable).parent / "neurondbg")
EXAMPLE_CALLS = Path(__file__).resolve().parents[1] / "examples" / "nki_calls.json"
PROBE = ("import sys; sys.argv = ['neurondbg', *{argv!r}]\nfrom neurondbg.cli import main\n"
         "try:\n    main()\nexcept SystemExit:\n    pass\n"
         "print(' '.join(m for m in ('numpy', 'textual') if m in sys.modules) or 'none',"
         " file=sys.stderr)")


def best(cmd: list[str], runs: int, stdin: bytes | None = None) -> float:
    """Best wall seconds of `cmd` as a fresh process (its output discarded)."""
    out = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, input=stdin, capture_output=True, check=False)
        out = min(out, time.perf_counter() - t0)
    return out


def startup(runs: int) -> None:
    for argv in (["--help"], ["--version"], ["tour"]):
        t = best([EXE, *argv], runs)
        r = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True,
                           text=True, check=False)
        loaded = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "?"
        print(f"neurondbg {' '.join(argv):10s} {t:6.3f} s  imports of numpy/textual: {loaded} "
              "(goal <= 0.10 s, none)")


def convert(n: int, runs: int, tmp: Path) -> None:
    rng = random.Random(1)
    path = tmp / "values.txt"
    path.write_text("\n".join(repr(rng.uniform(-1e5, 1e5)) for _ in range(n)) + "\n")
    base = [EXE, "convert", "--input", str(path), "--from", "fp32", "--to", "bf16"]
    t = best(base, runs)
    print(f"convert --input, {n:,} values, text:       {t:6.3f} s = {n / t:,.0f} values/s "
          "(goal <= 1 s for 100,000)")
    t = best([*base, "--json"], runs)
    print(f"convert --input, {n:,} values, JSON Lines: {t:6.3f} s = {n / t:,.0f} values/s")
    stdin = path.read_bytes()
    t = best([EXE, "convert", "--input", "-", "--from", "fp32", "--to", "bf16"], runs, stdin)
    print(f"convert --input - (stdin), {n:,} values:   {t:6.3f} s")
    k = 200
    args = [EXE, "convert", *path.read_text().split()[:k], "--from", "fp32", "--to", "bf16"]
    t = best(args, 1)
    print(f"  the one-value form (VALUE arguments, a trace per value): {t / k * 1e3:.2f} ms "
          f"per value over {k} values")


def check_nki(n: int, runs: int, tmp: Path) -> None:
    calls = json.loads(EXAMPLE_CALLS.read_text())
    repeated = tmp / "repeated.json"
    repeated.write_text(json.dumps((calls * (n // len(calls) + 1))[:n]))
    t = best([EXE, "check-nki", str(repeated), "--json"], runs)
    print(f"check-nki --json, {n:,} calls ({len(calls)} distinct): {t:6.3f} s = "
          f"{n / t:,.0f} calls/s (goal <= 5 s for 100,000)")
    distinct = []
    for i in range(n):
        c = json.loads(json.dumps(calls[i % len(calls)]))
        for tile in ("dst", "predicate", "on_true"):
            c["args"][tile]["shape"] = [128, 1 + i // len(calls)]
        distinct.append(c)
    path = tmp / "distinct.json"
    path.write_text(json.dumps(distinct))
    m = min(n, 20_000)
    path.write_text(json.dumps(distinct[:m]))
    t = best([EXE, "check-nki", str(path), "--json"], 1)
    print(f"check-nki --json, {m:,} all-distinct calls: {t:6.3f} s = {m / t:,.0f} calls/s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--values", type=int, default=100_000)
    ap.add_argument("--calls", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    startup(a.runs)
    with tempfile.TemporaryDirectory() as tmp:
        convert(a.values, a.runs, Path(tmp))
        check_nki(a.calls, a.runs, Path(tmp))


if __name__ == "__main__":
    main()
