"""Core.edit_record cost against the program's length (a one-queue core). Prints figures.

    python benchmarks/edit_record_bench.py [--runs 5]

For 10^5 and 10^6 records (a counted loop, then NOPs up to the length): after a fast
`continue` has built the decode, legality and fast-closure tables, the CPU time of one
`edit_record` (a record of the loop swapped for another ADD), of undoing it
(`reverse_step`), and of an edit followed by 100 fast steps (a table the edit drops is
rebuilt by the next run); then the mean of 10^4 edits in a row. Best of `--runs` CPU
(with the range) and wall: the machine is shared.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from _harness import run

from neurondbg.machine.asm import assemble
from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine
from neurondbg.machine.isa.codec import decode_bytes
from neurondbg.machine.isa.programs import counted_loop
from neurondbg.machine.state import MachineConfig

SIZES = (10**5, 10**6)
ADD = 1  # record 1 of the counted loop: R1 += 3


def program_of(n: int) -> tuple[Core, bytes]:
    """A one-queue core on a counted loop padded with NOPs to `n` records, its tables
    built, and a replacement for its ADD (R1 += 5)."""
    loop = assemble(counted_loop(10**6), "<bench>").program().raw
    nop = assemble("NOP", "<bench>").program().raw
    raw = np.concatenate([loop, np.repeat(nop, n - len(loop), axis=0)])
    m = Core.of_program(Machine(decode_bytes(raw.tobytes(), "<bench>"), MachineConfig()),
                        Path("<bench>"))
    m.cont(max_steps=1000)  # decode, bulk legality, fast closures and superblocks built
    other = assemble(counted_loop(10**6, add=5), "<bench>").program().raw[ADD].tobytes()
    return m, other


def cpu(fn: object) -> tuple[float, float]:
    """(CPU, wall) seconds of `fn()`."""
    t, w = time.process_time(), time.perf_counter()
    fn()  # type: ignore[operator]
    return time.process_time() - t, time.perf_counter() - w


def one_size(m: Core, other: bytes, runs: int) -> dict[str, list[tuple[float, float]]]:
    """`runs` (CPU, wall) figures of each measured call on `m`."""
    out: dict[str, list[tuple[float, float]]] = {"edit": [], "undo": [],
                                                 "edit + 100 steps": []}
    for _ in range(runs):
        out["edit"].append(cpu(lambda: m.edit_record(ADD, other)))
        out["undo"].append(cpu(m.reverse_step))
        out["edit + 100 steps"].append(cpu(lambda: (m.edit_record(ADD, other),
                                                    m.cont(max_steps=100))))
    return out


def many_edits(m: Core, other: bytes, n: int = 10**4) -> float:
    """Mean CPU seconds of each of `n` edits in a row, of `n` different records (each
    edit's Program carries the edits before it)."""
    t = time.process_time()
    for i in range(n):
        m.edit_record(100 + i, other)
    return (time.process_time() - t) / n


def figures(runs: int) -> None:
    for n in SIZES:
        m, other = program_of(n)
        for name, xs in one_size(m, other, runs).items():
            c, w = [x[0] * 1e3 for x in xs], [x[1] * 1e3 for x in xs]
            print(f"{n:>8} records  {name:<17} CPU best {min(c):8.3f} ms (range "
                  f"{min(c):.3f}..{max(c):.3f}), wall best {min(w):8.3f} ms, {runs} runs")
        print(f"{n:>8} records  10^4 edits in a row: {many_edits(m, other) * 1e3:.3f} ms "
              "each (CPU, mean)")


if __name__ == "__main__":
    run(__doc__, figures, runs=5)
