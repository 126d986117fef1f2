"""`neurondbg disasm` figures: Ctrl+C latency on a 1 GiB program, and a large NEFF.

Usage: python benchmarks/disasm_bench.py [--mib 1024] [--delays 1,2,4,8] [--neff] [--full]

- Ctrl+C: a program of `--mib` MiB of records (a mixed hand-written source, assembled
  and tiled) is disassembled by the whole `neurondbg disasm FILE > /dev/null` process;
  SIGINT is sent at each delay after the start, and the time from the signal to the
  process's exit is printed with its exit code (wanted: 130, within 0.1 s);
- `--full`: the same program disassembled to the end: wall and CPU seconds, records/s,
  peak memory (the output is streamed, so memory does not grow with the program);
- `--neff`: `neurondbg disasm` of the large synthetic NEFF
  (benchmarks/neff_bench.py), whole process wall and CPU seconds, and the in-process
  time of disassembling its five streams (machine.asm.disasm.disassemble_lines).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
EXE = Path(sys.executable).with_name("neurondbg")


def write_program(path: Path, mib: int) -> int:
    """A program of `mib` MiB at `path` (distinct records, tiled); returns its records."""
    sys.path.insert(0, str(HERE))
    from asm_bench import mixed_source

    from neurondbg.machine.asm import assemble

    block = np.frombuffer(assemble(mixed_source(20_000), "bench.asm").records, np.uint8)
    total = mib * 2**20
    with open(path, "wb") as fh:
        written = 0
        while written < total:
            part = block[: total - written]
            fh.write(part.tobytes())
            written += len(part)
    return total // 64


def interrupt_latency(path: Path, delay: float) -> tuple[float, int]:
    """(seconds from SIGINT to exit, exit code) of `disasm path` interrupted at `delay`."""
    child = subprocess.Popen([str(EXE), "disasm", str(path)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    time.sleep(delay)
    sent = time.perf_counter()
    child.send_signal(signal.SIGINT)
    _, status, _ = os.wait4(child.pid, 0)
    latency = time.perf_counter() - sent
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.stderr is not None
    child.stderr.close()
    return latency, child.returncode


def child_figures(args: list[str]) -> tuple[float, float, int, int]:
    """Wall s, CPU s, exit code and peak RSS (bytes) of `neurondbg ARGS` (stdout dropped)."""
    t = time.perf_counter()
    child = subprocess.Popen([str(EXE), *args], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t
    return (wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status),
            usage.ru_maxrss * 1024)


def neff_figures(tmp: Path) -> None:
    path = tmp / "big.neff"
    subprocess.run([sys.executable, str(HERE / "neff_bench.py"), "--write", str(path)],
                   check=True)
    wall, cpu, code, peak = child_figures(["disasm", str(path)])
    print(f"disasm NEFF (text), whole process: {wall:.2f} s wall, {cpu:.2f} s CPU, exit {code}, "
          f"peak memory {peak / 1e6:.0f} MB")
    from neurondbg.machine.asm.disasm import disassemble_lines
    from neurondbg.machine.dtypes import Gen
    from neurondbg.machine.neff.model import ENGINES
    from neurondbg.machine.neff.reader import open_neff

    sub = open_neff(path).subgraph()
    programs = [sub.program(e) for e in ENGINES]
    best = best_cpu = float("inf")
    for _ in range(3):
        t, c = time.perf_counter(), time.process_time()
        for p in programs:
            disassemble_lines(p, Gen.SUNDA)
        best = min(best, time.perf_counter() - t)
        best_cpu = min(best_cpu, time.process_time() - c)
    n = sum(len(p) for p in programs)
    print(f"disassemble_lines of its five streams (in process, best of 3): {best:.3f} s wall, "
          f"{best_cpu:.3f} s CPU, {n / best_cpu:,.0f} records per CPU second  (load average "
          f"{os.getloadavg()[0]:.1f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=1024)
    ap.add_argument("--delays", default="1,2,4,8", help="seconds after start to send SIGINT")
    ap.add_argument("--full", action="store_true", help="also disassemble it to the end")
    ap.add_argument("--neff", action="store_true", help="also time a large NEFF")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        prog = Path(tmp) / "big.bin"
        n = write_program(prog, args.mib)
        print(f"program: {args.mib} MiB, {n:,} records")
        for delay in (float(x) for x in args.delays.split(",") if x):
            latency, code = interrupt_latency(prog, delay)
            print(f"Ctrl+C at {delay:4.1f} s: exited in {latency * 1000:6.0f} ms, "
                  f"exit {code}  (load average {os.getloadavg()[0]:.1f})")
        if args.full:
            wall, cpu, code, peak = child_figures(["disasm", str(prog)])
            print(f"disasm to the end: {wall:.1f} s wall, {cpu:.1f} s CPU, {n / wall:,.0f} "
                  f"records/s, exit {code}, peak memory {peak / 1e6:.0f} MB")
        if args.neff:
            neff_figures(Path(tmp))


if __name__ == "__main__":
    main()
