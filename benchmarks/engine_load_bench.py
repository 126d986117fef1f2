"""`.engine` kernel load against loading the same programs as separate files.

Usage: python benchmarks/engine_load_bench.py [--records 50000] [--rounds 7]
(prints figures; not part of the tests)

A five-engine `.engine` file of N records per engine is loaded with load_kernel; the
same five sections, each its own `.asm` file, are loaded with machine.asm.loader.load
(read + assemble, what `run` does for a PROGRAM). The two alternate round by round and
each figure is the CPU time (time.process_time) of the best and the median round, so
other work on a shared machine disturbs them less than wall time. The ratio of the
best rounds is the cost of the section split. The same with `where` of each queue's
last record (`run` prints a stop's file:line:column; each queue of an `.engine` file
holds the whole file's text), then pass 0 (read_lines) over the whole file vs over the
five files.
"""

from __future__ import annotations

import gc
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _harness import options
from kernel_input_bench import SHORT, program

from neurondbg.machine.asm.assembler import read_lines
from neurondbg.machine.asm.loader import load
from neurondbg.machine.core.kernel import ENGINE_ORDER, load_kernel


def rounds(fns: dict[str, Callable[[], object]], n: int) -> dict[str, list[float]]:
    """CPU seconds of each function per round, the functions alternating."""
    out: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(n):
        for name, fn in fns.items():
            gc.collect()  # each round starts from the same heap
            t = time.process_time()
            fn()
            out[name].append(time.process_time() - t)
    return out


def report(times: dict[str, list[float]], records: int) -> None:
    for name, v in times.items():
        print(f"{name:48s} best {min(v) * 1e3:7.1f} ms  median {statistics.median(v) * 1e3:7.1f}"
              f" ms  ({records / min(v) / 1e3:,.0f} k records/s)")


def main() -> None:
    args = options(__doc__, records=50_000, rounds=7).parse_args()
    short = program(args.records, SHORT)
    total = args.records * len(ENGINE_ORDER)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        kernel = d / "k.asm"
        kernel.write_text("".join(f".engine {e}\n{short}" for e in ENGINE_ORDER))
        files = []
        for e in ENGINE_ORDER:
            files.append(d / f"{e}.asm")
            files[-1].write_text(short)
        load(files[0])  # imports and module caches warm for both
        times = rounds({
            f"load_kernel, one .engine file ({total:,} records)": lambda: load_kernel(kernel),
            "load, five separate .asm files": lambda: [load(f) for f in files],
        }, args.rounds)
        report(times, total)
        a, b = (min(v) for v in times.values())
        print(f"ratio of the best rounds: {a / b:.2f}x")
        def kernel_where() -> None:
            for q in load_kernel(kernel).queues:
                q.program.where(len(q.program.lines) - 1)

        def files_where() -> None:
            for prog in [load(f) for f in files]:
                prog.where(len(prog.lines) - 1)

        times = rounds({"  + where of each queue's last record": kernel_where,
                        "  + where of each program's last record": files_where}, args.rounds)
        report(times, total)
        a, b = (min(v) for v in times.values())
        print(f"ratio of the best rounds: {a / b:.2f}x")
        text = kernel.read_text()
        report(rounds({"  pass 0 (read_lines), whole file": lambda: read_lines(text, "k"),
                       "  pass 0 (read_lines), five files": lambda: [read_lines(short, "f")
                                                                     for _ in files]},
                      args.rounds), total)


if __name__ == "__main__":
    main()
