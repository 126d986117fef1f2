"""What the benchmark scripts share: their command line, a machine from assembly text, and
timing. The programs they run are `machine.isa.programs` (the tests step the same ones).

Run a benchmark as `python benchmarks/<name>.py`: this folder is then first on sys.path,
so `from _harness import ...` finds this module.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from neurondbg.machine.asm import assemble
from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine
from neurondbg.machine.history import JOURNAL_BUDGET
from neurondbg.machine.state import MachineConfig

T = TypeVar("T")


def options(doc: str, **ints: int) -> argparse.ArgumentParser:
    """A parser described by the first line of `doc`, with one `--name` integer option per
    keyword (underscores become dashes) defaulting to its value; add more, then parse."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    for name, default in ints.items():
        ap.add_argument(f"--{name.replace('_', '-')}", type=int, default=default)
    return ap


def run(doc: str, *benches: Callable[[int], object], **ints: int) -> None:
    """The main of a benchmark script: parse `options(doc, **ints)`, then call each bench
    with the option in the same place (the first bench gets the first option, ...)."""
    args = vars(options(doc, **ints).parse_args())
    for bench, value in zip(benches, args.values(), strict=True):
        bench(value)


def machine(text: str, name: str = "<bench>", **kw: object) -> Machine:
    """A Machine (default config) on the assembled `text`; `kw` go to Machine."""
    a = assemble(text, name)
    return Machine(a.program(), MachineConfig(), data=a.data, labels=a.labels, **kw)


def core(text: str, name: str = "<bench>", journal_budget: int = JOURNAL_BUDGET) -> Core:
    """`text` assembled on a one-queue core (`Core.of_program`): how a program runs."""
    return Core.of_program(machine(text, name), Path(name), journal_budget=journal_budget)


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """`fn()` and the wall seconds it took."""
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def per_call(fn: Callable[[], object], n: int) -> float:
    """Mean wall seconds of one of `n` calls of `fn` in a row."""
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n
