"""Benchmark: a NEFF in the TUI (`neurondbg tui FILE.neff`), headless.

Prints, for a NEFF (benchmarks/neff_bench.py's synthetic one, the size of the largest
public NEFF, unless a path is given), each the best of N fresh interpreters, wall and
CPU seconds:

- first frame: the App started on the NEFF until its first screen is painted (the
  load then runs in a worker);
- loaded: until the kernel is on the core and its panes show it (target <= 1 s);

and the children's peak memory (target <= 500 MB).

    /work/venv/bin/python benchmarks/neff_tui_bench.py [--runs 3] [PATH.neff]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

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


def _once(path: Path) -> dict[str, Any]:
    """One fresh interpreter's figures, and its peak memory (ru_maxrss of that child
    alone, bytes) as "peak"."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert child.stdout is not None
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"the TUI child failed (exit {os.waitstatus_to_exitcode(status)})")
    got: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    got["peak"] = usage.ru_maxrss * 1024
    return got


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
    print(f"peak memory: {max(r['peak'] for r in runs) / 1e6:.0f} MB (target <= 500 MB)")


if __name__ == "__main__":
    main()
