"""Where the TUI's first frame goes (goal <= 0.5 s). Prints figures; not part
of the test run.

    python benchmarks/tui_first_frame_bench.py [--runs N] [--root CHECKOUT]

For the demo session and a shipped kernel, in a fresh interpreter each: importing
neurondbg.app, constructing the App (it decides the layout: a kernel or one program),
the first debugger frame handed to the (headless) driver, the return of the Pilot's
first `pause()` (it waits until the process is idle, or 1 s, so with the load worker
busy it is close to the loaded time), and the frame with the program loaded (the load
runs in a worker after the first frame); then which heavy modules were already imported
when the first frame was painted, since each is a floor under it (numpy alone is
~0.1-0.25 s on the shared 2-core machine, textual ~0.2-0.3 s).

Each figure is the best of N runs (the range follows), wall seconds and CPU seconds
(the process's own, what a loaded machine disturbs least). Two ways of importing:
"no bytecode cache" as this machine runs (PYTHONDONTWRITEBYTECODE: each of the project's
modules is compiled at every start) and "bytecode cached" as an installed package runs
(pip writes the .pyc files; here a private PYTHONPYCACHEPREFIX, warmed by one run).
`--root` measures another checkout (e.g. an older commit unpacked with `git archive`)
the same way: before/after pairs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "numpy",
    "ml_dtypes",
    "textual_plotext",
    "neurondbg.console",
    "neurondbg.palette",
    "neurondbg.debug.session",
    "neurondbg.machine.debugger",
    "neurondbg.machine.core.core",
    "neurondbg.sessions.store",
    "neurondbg.machine.expr",
    "neurondbg.machine.convert",
)
PROBE = """
import time
t0 = time.perf_counter()
import asyncio, json, sys
from neurondbg.app import NeurondbgApp
t1 = time.perf_counter()
painted = []
display = NeurondbgApp._display
def first_paint(app, screen, update):  # the first debugger frame handed to the driver
    if update is not None and not app._batch_count and screen.id in ("debugger", "core") \\
            and not painted:
        painted.append((time.perf_counter(), time.process_time()))
        painted.append([m for m in {heavy!r} if m in sys.modules])
    display(app, screen, update)
NeurondbgApp._display = first_paint
async def main():
    app = NeurondbgApp({program!r})
    t2 = time.perf_counter()
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        app.export_screenshot()
        t3 = time.perf_counter()
        await app.wait_loaded()
        await pilot.pause()
        app.export_screenshot()
        t4, c4 = time.perf_counter(), time.process_time()
    print(json.dumps(dict(imp=t1 - t0, init=t2 - t1, paint=painted[0][0] - t0,
                          paint_cpu=painted[0][1], frame=t3 - t0, loaded=t4 - t0,
                          loaded_cpu=c4, heavy=painted[1])))
asyncio.run(main())
"""
FIGURES = ("imp", "init", "paint", "paint_cpu", "frame", "loaded", "loaded_cpu")


def measure(root: Path, program: Path, runs: int, env: dict[str, str]) -> dict:
    """Each figure's best and range over `runs` fresh interpreters on `program`."""
    rows = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", PROBE.format(program=str(program),
                                                                  heavy=HEAVY)],
                             capture_output=True, text=True, cwd=root, check=True,
                             env=env).stdout
        rows.append(json.loads(out.strip().splitlines()[-1]))
    result: dict = {k: (min(r[k] for r in rows), max(r[k] for r in rows),
                        statistics.median(r[k] for r in rows)) for k in FIGURES}
    result["heavy"] = min((r for r in rows), key=lambda r: r["paint"])["heavy"]
    return result


def report(name: str, r: dict) -> None:
    def fig(key: str) -> str:
        lo, hi, _ = r[key]
        return f"{lo:.3f} s (..{hi:.3f})"

    print(f"  {name:6} first frame painted {fig('paint')} wall, {fig('paint_cpu')} CPU "
          "(goal <= 0.5 s)")
    print(f"         import neurondbg.app {fig('imp')} · App() {fig('init')} · Pilot's first "
          f"pause {fig('frame')} · loaded {fig('loaded')} wall, {fig('loaded_cpu')} CPU")
    print(f"         imported when it was painted: {', '.join(r['heavy']) or 'none of them'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure")
    args = parser.parse_args()
    root = args.root.resolve()
    examples = root / "sessions" / "examples"
    programs = (("demo", examples / "demo.toml"),
                ("kernel", examples / "kernels" / "producer_consumer.asm"))
    with tempfile.TemporaryDirectory(prefix="neurondbg-pyc-") as cache:
        nocache = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = cache
        for label, env in (("no bytecode cache", nocache), ("bytecode cached", cached)):
            print(f"{root} · {label} · best of {args.runs} (worst in brackets):")
            for name, program in programs:
                if label == "bytecode cached":
                    measure(root, program, 1, env)  # writes the cache
                report(name, measure(root, program, args.runs, env))


if __name__ == "__main__":
    main()
