"""Assembler throughput on hand-written mixed sources of 10k, 100k and 1M lines. Prints figures.

Usage: python benchmarks/asm_bench.py [--lines 10000,100000,1000000] [--cli 1000000]
                                      [--bar 1000000]

The source mixes what people write (machine.asm syntax): labels, MOVE / ALU_OP /
COMPARE_BRANCH target= shorthands, tensor operations with sb[...] operands, step= /
num= lists and wait= / signal= semaphores, comments and blank lines, with partitions,
offsets, registers and immediates varying line to line (so most lines are distinct,
but shapes repeat, as in real programs). For each size it prints the in-process
`assemble` time (lines/s, wall and CPU seconds), and where the time goes: the share
of each pass, beside the share of the progress count it reports (READ_UNITS,
LABEL_UNITS, ENCODE_UNITS of machine.asm.assembler), which should agree for the bar's
time remaining to hold. `--cli N` also times the whole `neurondbg asm` process on an
N-line source (startup, read, assemble, write), wall and CPU. `--bar N` runs the
`asm` command in-process on an N-line source as on a terminal (the bar drawn to a
console that notes when each frame is written) and prints when the bar first shows
(README: after 0.3 s of work) and how right its time remaining is: at 10%, 25%, 50%,
75% and 90% of the count, the remaining time a bar extrapolates from the pace so far
(rich's estimate for a job under its 30 s window) beside the time that really remained
until the count was complete.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from neurondbg.machine.asm import assemble


def mixed_source(n: int, seed: int = 0) -> str:
    """`n` lines of mixed hand-written assembly (deterministic for a seed)."""
    r = random.Random(seed)
    out: list[str] = []
    loops = 0
    while len(out) < n - 1:
        k = r.randrange(10)
        p, off = r.randrange(128), r.randrange(64) * 64
        if k == 0:
            out.append(f"loop{loops}: ALU_OP op=ADD dtype=INT32 dst=R{r.randrange(64)} src0=R1 "
                       f"src1={r.randrange(100)}")
            loops += 1
        elif k == 1:
            out.append(f"MOVE R{r.randrange(64)}={r.randrange(1000)} R4=0x10")
        elif k == 2 and loops:
            out.append(f"COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 "
                       f"cmp_immediate={r.randrange(9)} target=loop{loops - 1}")
        elif k == 3:
            out.append(f"COPY in_dtype=FP32 out_dtype=FP32 nac=128 src=sb[{p}, {off:#x}] "
                       f"step=[1,0,0,0] num=[64,1,1,1] dst=sb[{p}, 0x400] step=[1,0,0,0] "
                       "num=[64,1,1,1]  # copy")
        elif k == 4:
            out.append(f"CAST in_dtype=BF16 out_dtype=FP8_EXP4 nac=64 src=sb[{p}, {off}] "
                       "step=[1,0,0,0] num=[32,2,1,1] dst=sb[0, 0x800] step=[1,0,0,0] "
                       f"num=[32,2,1,1] wait=sem[{r.randrange(8)}]>=1 signal=sem[2]++@complete")
        elif k == 5:
            out.append(f"TENSOR_SCALAR_ARITH_OP op0=MULT imm0={r.randrange(9)}.5 in_dtype=FP32 "
                       f"out_dtype=FP32 nac=32 src=sb[{p}, 0] src.num=[8,1,1] dst=sb[0, 0x100] "
                       "dst.num=[8,1,1]")
        elif k == 6:
            out.append("")
        elif k == 7:
            out.append("# a comment line")
        elif k == 8:
            out.append("TENSOR_TENSOR_ARITH_OP in0_dtype=FP32 in1_dtype=FP32 out_dtype=FP32 "
                       f"op=ADD nac=128 src0=sb[{p}, 0] src0.num=[16,1,1] src1=sb[0, 0x40] "
                       f"src1.num=[16,1,1] dst=sb[0, {off}] dst.num=[16,1,1]")
        else:
            out.append("NOP")
    out.append("HALT")
    return "\n".join(out) + "\n"


def in_process(n: int) -> None:
    from neurondbg.machine.asm.assembler import ENCODE_UNITS, LABEL_UNITS, LINE_UNITS, READ_UNITS

    text = mixed_source(n)
    seen: list[tuple[float, int]] = []
    t0, c0 = time.perf_counter(), time.process_time()
    asm = assemble(text, "bench.asm",
                   progress=lambda done, total: seen.append((time.perf_counter(), done)))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"assemble {n:>9,} lines  {wall:6.2f} s wall  {cpu:6.2f} s cpu  "
          f"{n / wall:>9,.0f} lines/s  ({len(asm.records) // 64:,} records)")
    # the pass boundaries are where the count passes each pass's share
    marks = [n * READ_UNITS // LINE_UNITS, n * (READ_UNITS + LABEL_UNITS) // LINE_UNITS]
    times = [next(t for t, d in seen if d >= m) - t0 for m in marks]
    shares = [times[0], times[1] - times[0], wall - times[1]]
    units = [READ_UNITS, LABEL_UNITS, ENCODE_UNITS]
    print("    time share of pass 0 / 1 / 2 (setup in pass 0): "
          + " / ".join(f"{s / wall:4.0%}" for s in shares)
          + "   count share: " + " / ".join(f"{u / LINE_UNITS:4.0%}" for u in units))


def whole_process(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "big.asm"
        src.write_text(mixed_source(n))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "neurondbg", "asm", str(src), "-o",
                        str(Path(tmp) / "big.bin")], check=True, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        size = src.stat().st_size
    print(f"neurondbg asm {n:,} lines ({size / 2**20:.0f} MiB), whole process: {wall:.2f} s wall, "
          f"{cpu:.2f} s cpu, peak RSS {after.ru_maxrss / 1024:.0f} MiB  (load average "
          f"{os.getloadavg()[0]:.1f})")


class _TimedSink(io.StringIO):
    """A console's file that notes the time of its first write."""

    def __init__(self) -> None:
        super().__init__()
        self.first: float | None = None

    def write(self, s: str) -> int:
        if self.first is None and s.strip():
            self.first = time.perf_counter()
        return super().write(s)


def bar_figures(n: int) -> None:
    """When `asm`'s bar shows and how right its time remaining is (module docstring)."""
    from click.testing import CliRunner
    from rich.console import Console

    from neurondbg import progress
    from neurondbg.cli import cli

    sink = _TimedSink()
    samples: list[tuple[float, int, int]] = []
    entered: list[float] = []
    real_counted = progress.counted

    @contextlib.contextmanager
    def counted(label: str, unit: str, *, console: Console | None = None
                ) -> Iterator[progress.Report]:
        entered.append(time.perf_counter())
        forced = Console(file=sink, force_terminal=True, width=120)
        with real_counted(label, unit, console=forced) as report:
            def timed(done: int, total: int) -> None:
                samples.append((time.perf_counter(), done, total))
                report(done, total)
            yield timed

    progress.counted = counted  # type: ignore[assignment]  # asm imports it at call time
    try:
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "big.asm"
            src.write_text(mixed_source(n))
            t0 = time.perf_counter()
            r = CliRunner().invoke(cli, ["asm", str(src), "-o", str(Path(tmp) / "big.bin")])
            end = time.perf_counter()
    finally:
        progress.counted = real_counted  # type: ignore[assignment]
    assert r.exit_code == 0, r.output
    start = entered[0]
    shown = "never" if sink.first is None else f"{sink.first - start:.2f} s"
    print(f"asm {n:,} lines in-process: {end - t0:.2f} s; bar block entered {start - t0:.2f} s "
          f"after the command started; first frame {shown} after that (README: 0.3 s)")
    t_first, d_first, total = samples[0]
    done_at = samples[-1][0]  # the (total, total) report: the bar's work is over
    row = []
    for share in (0.10, 0.25, 0.50, 0.75, 0.90):
        t, done, _ = next(x for x in samples if x[1] >= share * total)
        pace = (done - d_first) / (t - t_first) if t > t_first else float("inf")
        predicted, actual = (total - done) / pace, done_at - t
        row.append(f"{share:.0%}: {predicted:5.1f} s vs {actual:5.1f} s")
    print("    time remaining shown vs real: " + "; ".join(row))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", default="10000,100000,1000000",
                    help="comma-separated source sizes to assemble in-process")
    ap.add_argument("--cli", type=int, default=1_000_000,
                    help="lines of the source `neurondbg asm` is timed on (0: skip)")
    ap.add_argument("--bar", type=int, default=0,
                    help="lines of the source the bar and its time remaining are timed on")
    args = ap.parse_args()
    for n in (int(x) for x in args.lines.split(",") if x):
        in_process(n)
    if args.cli:
        whole_process(args.cli)
    if args.bar:
        bar_figures(args.bar)


if __name__ == "__main__":
    main()
