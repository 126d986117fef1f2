"""What the `progress` callbacks of assemble and replay cost. Prints figures.

Usage: python benchmarks/progress_counts_bench.py [--lines 250000] [--trips 7000]
       [--rounds 7]

`assemble` of a source of LINES lines and `replay` of a counted loop's trace (3 * TRIPS
+ 1 steps), each without a callback and with one (a no-op, as the CLI's bar's `report`
only stores the pair), alternating round by round; CPU time (time.process_time) of the
best and the median round. The callback is called once per 4096 lines of each pass
and once per 1024 replayed steps, so the two columns should not differ beyond noise.
"""

from __future__ import annotations

import gc
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _harness import machine, options
from kernel_input_bench import SHORT, program

from neurondbg.machine.asm import assemble
from neurondbg.machine.core.core import Core
from neurondbg.machine.isa.programs import counted_loop
from neurondbg.sessions.replay import replay
from neurondbg.sessions.trace import trace_hook, write_header


def report(done: int, total: int) -> None:
    """The callback measured: as cheap as the bar's own."""


def rounds(fns: dict[str, Callable[[], object]], n: int) -> None:
    """Print the best and median CPU time of each function, the functions alternating."""
    out: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(n):
        for name, fn in fns.items():
            gc.collect()
            t = time.process_time()
            fn()
            out[name].append(time.process_time() - t)
    for name, v in out.items():
        print(f"{name:44s} best {min(v) * 1e3:8.1f} ms  median "
              f"{statistics.median(v) * 1e3:8.1f} ms")


def main() -> None:
    args = options(__doc__, lines=250_000, trips=7_000, rounds=7).parse_args()
    text = program(args.lines, SHORT)
    rounds({f"assemble {args.lines:,} lines, no callback": lambda: assemble(text),
            "  with a progress callback": lambda: assemble(text, progress=report)},
           args.rounds)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "loop.asm"
        src.write_text(counted_loop(args.trips))
        m = machine(src.read_text(), str(src))
        trace = Path(tmp) / "t.jsonl"
        with trace.open("w") as fp:
            write_header(m.config, fp)
            core = Core.of_program(m, src, journal_budget=0)  # as `run --trace` runs it
            core.on_step = trace_hook(fp)
            core.cont()
        rounds({f"replay {m.state.steps:,} steps, no callback": lambda: replay(trace, src),
                "  with a progress callback": lambda: replay(trace, src, progress=report)},
               args.rounds)


if __name__ == "__main__":
    main()
