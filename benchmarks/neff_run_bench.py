"""Benchmark: run a large synthetic NEFF to completion.

The NEFF is benchmarks/neff_bench.py's (about 170,000 records in five streams, 7,000 DMA
entries of 25 descriptors: 175,000, more DMA than any public NEFF holds), with DVE's
MEMSETs moved off the bytes the entries fill (the kernel is then race-free, as real
compiler output is: with the races, races on measured 10^5 race reports, not the
checking). Printed, each a whole `neurondbg` process (interpreter start, imports,
reading, running; wall and CPU seconds, steps/s, peak memory of the child):

- `run --races off`: the headless runner (machine.neff.runner; target >= 1M steps/s);
- `run --break deadlock --races off`: the same on the core (every step through an
  actor, no race detection);
- `run` (races on): the headless runner with its race check (machine.neff.racecheck:
  the core's detector under the core's `rr` schedule; target <= 2x the cost without,
  the ratio printed after the four);
- `run --break deadlock`: the core with race detection, for reference;

and in process: open + lowering + loading on the core (what a TUI's first frame waits
for; target <= 1 s), and the run alone (CPU seconds, steps per CPU-second) of the
headless runner: what the model costs without the interpreter's start and the reading;
then the bytes the DMA entries move (11.5 GB) and what plain numpy takes to make the
same copies (each entry's descriptors as one strided copy, as the model makes them): a
floor under the headless run that no planning removes, and what is left of the run
without it (the model's own work).

    /work/venv/bin/python benchmarks/neff_run_bench.py [--pe 129745] [--entries 7000]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np

from neurondbg.machine.neff.core import neff_core
from neurondbg.machine.neff.lower import lower
from neurondbg.machine.neff.model import Engine
from neurondbg.machine.neff.reader import open_neff
from neurondbg.machine.neff.runner import NeffRun
from neurondbg.machine.neff.writer import write_neff

MEMSET_AT = 0x8000  # DVE's MEMSET destination byte: past every DMA entry's (0x3200)


def _bench_module() -> ModuleType:  # benchmarks/ is not a package: load by path
    spec = importlib.util.spec_from_file_location(
        "neff_bench", Path(__file__).with_name("neff_bench.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _child(args: list[str]) -> tuple[float, float, int, int, str]:
    exe = Path(sys.executable).with_name("neurondbg")
    t = time.perf_counter()
    child = subprocess.Popen([str(exe), *args], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    assert child.stdout is not None
    out = child.stdout.read().decode()
    _, status, usage = os.wait4(child.pid, 0)
    dt = time.perf_counter() - t
    code = os.waitstatus_to_exitcode(status)
    return dt, usage.ru_utime + usage.ru_stime, code, usage.ru_maxrss * 1024, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pe", type=int, default=129_745)
    ap.add_argument("--entries", type=int, default=7_000)
    ap.add_argument("--descriptors", type=int, default=25)
    ap.add_argument("--write", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.write is not None:  # the child that builds the file
        sub = _bench_module().build(args.pe, args.entries, args.descriptors)
        # DVE's MEMSETs write past the bytes the DMA entries fill (a race-free kernel, as
        # real compiler output is: races on measures the checking, not 10^5 reports)
        sub.streams[Engine.DVE][:, 44:48] = np.frombuffer(MEMSET_AT.to_bytes(4, "little"),
                                                          np.uint8)
        write_neff(args.write, [sub], target="sunda", name="big.neff")
        print(f"NEFF: {sub.record_count:,} records, {sub.entry_count:,} DMA entries, "
              f"{sub.descriptor_count:,} descriptors")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.neff"
        subprocess.run([sys.executable, __file__, "--write", str(path), "--pe", str(args.pe),
                        "--entries", str(args.entries), "--descriptors",
                        str(args.descriptors)], check=True)
        took: dict[str, tuple[float, float]] = {}
        for label, extra in (("run --races off (headless)", ["--races", "off"]),
                             ("run on the core, races off",
                              ["--races", "off", "--break", "deadlock"]),
                             ("run --races on (headless)", []),
                             ("run on the core, races on", ["--break", "deadlock"])):
            dt, cpu, code, peak, out = _child(["run", str(path), "--json", *extra])
            took[label] = dt, cpu
            steps = json.loads(out)["steps"] if out.strip() else 0
            print(f"{label}: {dt:.2f} s whole process ({cpu:.2f} s CPU), {steps:,} steps, "
                  f"{steps / dt:,.0f} steps/s, exit {code}, peak memory {peak / 1e6:.0f} MB")
        (off, off_cpu), (on, on_cpu) = (took["run --races off (headless)"],
                                        took["run --races on (headless)"])
        print(f"races on / races off (headless): {on / off:.2f}x whole process "
              f"({on_cpu / off_cpu:.2f}x CPU; target <= 2x)")
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            nc = neff_core(lower(open_neff(path)), path)
            nc.core.status("pe")
            best = min(best, time.perf_counter() - t)
        print(f"open + lower + load on the core (in process, best of 3): {best:.3f} s")
        run = NeffRun(lower(open_neff(path)))
        t = time.process_time()
        out = run.run()
        cpu = time.process_time() - t
        print(f"headless run alone (in process): {out.steps:,} steps in {cpu:.2f} s CPU = "
              f"{out.steps / cpu:,.0f} steps/s ({out.status})")
        moved = sum(math.prod(d.src_sizes) for e in run.dma.entries for d in e.descriptors)
        copying = _copy_seconds(run)
        print(f"DMA bytes moved: {moved / 1e9:.1f} GB; the same copies in plain numpy take "
              f"{copying:.2f} s CPU here: with them, {out.steps / copying:,.0f} steps/s "
              f"at most; the model's own work is {cpu - copying:.2f} s "
              f"({out.steps / max(cpu - copying, 1e-9):,.0f} steps/s)")


def _copy_seconds(run: NeffRun) -> float:
    """CPU seconds plain numpy takes for the run's DMA copies alone, best of 3: each
    entry's descriptors (read from the run's own entries: rows of bytes, a step apart in
    the DRAM variable, into the same bytes of every partition) as the one strided copy
    the model makes of them, from a DRAM and into an SBUF laid out as the run's (the
    variable holds zeros, as in the run)."""
    entries = run.dma.entries
    first = entries[0].descriptors
    width, rows = first[0].src_sizes
    step = first[0].src_steps[1]
    apart = first[1].src_off - first[0].src_off  # from one descriptor to the next, in X
    sb_apart = first[1].dst_off - first[0].dst_off  # ... and in a partition of SB
    x = np.zeros(run.dma.size[first[0].src], np.uint8)
    sbuf = run.machines[Engine.SP].state.sbuf
    sb = np.zeros(sbuf.shape, np.uint8)
    shape = (len(first), rows, width)
    dst = np.ndarray(shape, np.uint8, sb, first[0].dst_off, (sb_apart, sb.strides[0], 1))
    best = float("inf")
    for _ in range(3):
        t = time.process_time()
        for e in entries:
            dst[...] = np.ndarray(shape, np.uint8, x, e.descriptors[0].src_off,
                                  (apart, step, 1))
        best = min(best, time.process_time() - t)
    return best


if __name__ == "__main__":
    main()
