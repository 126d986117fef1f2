"""A million records: a program of N NOPs and a kernel of 5 x N/5, start-up and run.

Usage: python benchmarks/million_records_bench.py [--records 1000000] [--rounds 1]
       [--in-process 1] (0: the whole-process figures only)
(prints figures; not part of the tests)

Both streams are NOPs then a HALT (a NOP stream is N copies of one record: the fast
path builds one closure for it). Whole process: `neurondbg run FILE` (the program;
the kernel with `--races off` and with races checked), each as assembly and as the
binary `neurondbg asm` writes (records, or a manifest and its streams: no assembler
in the run), with wall and CPU seconds, steps per wall second and peak RSS
(getrusage of the child). In process: the load (read and assemble), opening the
machine or core, the run, and the Python memory each holds (tracemalloc, in a second
pass: tracing slows the run it measures).
"""

from __future__ import annotations

import gc
import os
import re
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _harness import options

from neurondbg.machine.asm import assemble
from neurondbg.machine.asm.loader import load
from neurondbg.machine.core.core import Core
from neurondbg.machine.core.kernel import ENGINE_ORDER
from neurondbg.machine.debugger import Machine
from neurondbg.machine.state import MachineConfig
from neurondbg.sessions.cli_support import open_kernel

STEPS = re.compile(r"^steps: (\d+)", re.MULTILINE)


def stream(records: int) -> str:
    """Assembly text of `records` records: NOPs, then a HALT."""
    return "    NOP\n" * (records - 1) + "    HALT\n"


def write_inputs(d: Path, records: int) -> dict[str, Path]:
    """The program and the kernel, as assembly and as binary."""
    per = records // len(ENGINE_ORDER)
    prog, kern = d / "prog.asm", d / "kern.asm"
    prog.write_text(stream(records))
    kern.write_text("".join(f".engine {e}\n{stream(per)}" for e in ENGINE_ORDER))
    nop, halt = (assemble(t, "<bench>").program().record(0) for t in ("NOP", "HALT"))
    binary = d / "prog.bin"
    binary.write_bytes(nop * (records - 1) + halt)
    manifest = d / "kern.toml"
    subprocess.run([sys.executable, "-m", "neurondbg", "asm", str(kern), "-o", str(manifest)],
                   check=True, capture_output=True)
    return {"program .asm": prog, "program .bin": binary, "kernel .asm": kern,
            "kernel manifest": manifest}


def whole_process(label: str, path: Path, *extra: str) -> None:
    """`neurondbg run PATH EXTRA...` in a child process: wall, CPU, steps/s, peak RSS
    (the child's own rusage, os.wait4)."""
    with tempfile.TemporaryFile("w+") as out:
        t = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "neurondbg", "run", str(path), *extra],
                                 stdout=out, stderr=subprocess.STDOUT, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - t
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        m = STEPS.search(out.read())
    steps = int(m.group(1)) if m else 0
    print(f"  {label:38s} wall {wall:6.2f} s  CPU {usage.ru_utime + usage.ru_stime:6.2f} s  "
          f"{steps / wall:>11,.0f} steps/s  peak RSS {usage.ru_maxrss / 1024:5.0f} MB  "
          f"exit {child.returncode}")


def program_run(path: Path) -> tuple[Callable[[], Any], Callable[[Any], Any],
                                     Callable[[Any], Any]]:
    def loaded() -> Any:
        return load(path)

    def opened(src: Any) -> Any:
        m = Machine(src.program, MachineConfig(), data=src.data, labels=src.labels,
                    journal_budget=0)
        return Core.of_program(m, path, journal_budget=0)
    return loaded, opened, lambda core: core.cont(max_steps=10 * 10**6)


def kernel_run(path: Path, races: bool) -> tuple[Callable[[], Any], Callable[[Any], Any],
                                                 Callable[[Any], Any]]:
    def loaded() -> Any:
        return open_kernel(path, races=races, journal_budget=0)
    return loaded, lambda k: k.core, lambda core: core.cont(max_steps=10 * 10**6)


def in_process(label: str, parts: tuple[Callable[[], Any], Callable[[Any], Any],
                                        Callable[[Any], Any]]) -> None:
    """Seconds to load, open and run, then (traced) the memory each stage holds."""
    loaded, opened, ran = parts
    gc.collect()
    t0 = time.perf_counter()
    a = loaded()
    t1 = time.perf_counter()
    b = opened(a)
    t2 = time.perf_counter()
    stop = ran(b)
    t3 = time.perf_counter()
    steps = stop.steps
    del a, b, stop
    gc.collect()
    tracemalloc.start()
    a = loaded()
    m1 = tracemalloc.get_traced_memory()[0]
    b = opened(a)
    m2 = tracemalloc.get_traced_memory()[0]
    ran(b)
    m3, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del a, b
    print(f"  {label:38s} load {t1 - t0:5.2f} s  open {t2 - t1:5.2f} s  run {t3 - t2:5.2f} s "
          f"({steps / (t3 - t2):>11,.0f} steps/s); held after load {m1 / 2**20:5.0f} MB, "
          f"opened {m2 / 2**20:5.0f} MB, run {m3 / 2**20:5.0f} MB ({(m3 - m2) / steps:.1f} "
          f"B/step), peak {peak / 2**20:5.0f} MB")


def main() -> None:
    args = options(__doc__, records=1_000_000, rounds=1, in_process=1).parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = write_inputs(Path(tmp), args.records)
        per = args.records // len(ENGINE_ORDER)
        print(f"{args.records:,} records: a program of {args.records:,} NOPs, a kernel of "
              f"{len(ENGINE_ORDER)} x {per:,}")
        for r in range(args.rounds):
            print(f"whole process, round {r + 1}:")
            for name in ("program .asm", "program .bin"):
                whole_process(f"run {name}", files[name])
            for name in ("kernel .asm", "kernel manifest"):
                whole_process(f"run {name} --races off", files[name], "--races", "off")
                whole_process(f"run {name} (races checked)", files[name])
        if not args.in_process:
            return
        print("in process (the same calls `run` makes):")
        in_process("program .asm", program_run(files["program .asm"]))
        in_process("program .bin", program_run(files["program .bin"]))
        in_process("kernel .asm, races off", kernel_run(files["kernel .asm"], False))
        in_process("kernel .asm, races on", kernel_run(files["kernel .asm"], True))
        in_process("kernel manifest, races off", kernel_run(files["kernel manifest"], False))


if __name__ == "__main__":
    main()
