"""Benchmark: a NEFF in the TUI (`neurondbg tui FILE.neff`), headless.

Prints, for a NEFF (benchmarks/neff_bench.py's synthetic one, the size of the largest
public NEFF, unless a path is given), each the best of N fresh interpreters, wall and
CPU seconds:

- first frame: the App started on the NEFF until its first screen is painted (the
  load then runs in a worker);
- loaded: until the kernel is on the core and its panes show it (target <= 1 s).

    /work/venv/bin/python benchmarks/neff_tui_bench.py [--runs 3] [PATH.neff]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import asyncio, json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
from neurondbg.app import NeurondbgApp

async def main():
    app = NeurondbgApp(sys.argv[1])
    out = {}
    async with app.run_test(size=(160, 50)) as pilot:
        out["first"] = (time.perf_counter() - t0, time.process_time() - c0)
        await app.wait_loaded()
        await pilot.pause()
        out["loaded"] = (time.perf_counter() - t0, time.process_time() - c0)
        out["names"] = list(app.session.core.names)
    print(json.dumps(out))

asyncio.run(main())
"""


def _once(path: Path) -> dict[str, list[float]]:
    got = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True,
                         text=True, check=True)
    return json.loads(got.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?", type=Path, default=None)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.path
        if path is None:
            path = Path(tmp) / "big.neff"
            subprocess.run([sys.executable, str(Path(__file__).with_name(
                "neff_run_bench.py")), "--write", str(path)], check=True)
        runs = [_once(path) for _ in range(args.runs)]
    print(f"{path.name}: actors {', '.join(runs[0]['names'])}")
    for key, label in (("first", "first frame"), ("loaded", "loaded (panes show the core)")):
        wall = min(r[key][0] for r in runs)
        cpu = min(r[key][1] for r in runs)
        print(f"{label}: {wall:.2f} s wall, {cpu:.2f} s CPU (best of {args.runs})")


if __name__ == "__main__":
    main()
