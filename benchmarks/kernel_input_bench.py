"""Kernel input throughput: `.engine` files, manifests, the semaphore shorthand.

Usage: python benchmarks/kernel_input_bench.py [N]   (N records per engine, default
50,000; prints figures; not part of the tests)

Figures: assembling N lines with semaphore waits/updates written as the shorthand vs
as raw fields (the fast path reads both); disassembling them; loading a five-engine
`.engine` file of N records per engine against assembling the five sections as
separate programs (in memory: no file read, no digest); loading the same kernel from
a manifest of binary streams. Each figure is the best CPU time of ROUNDS calls (a
single wall-clock call on a shared machine read the section split as 2x);
engine_load_bench.py compares the split with loading five files, round by round.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from neurondbg.machine.asm import assemble, disassemble
from neurondbg.machine.core.kernel import ENGINE_ORDER, load_kernel

BODY = [
    "CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[16,1,1,1] "
    "dst=sb[0, 0x100] step=[1,0,0,0] num=[16,1,1,1] {sig}",
    "COPY in_dtype=FP32 out_dtype=FP32 nac=64 src=sb[0, 0x100] step=[1,0,0,0] "
    "num=[16,1,1,1] dst=sb[0, 0x200] step=[1,0,0,0] num=[16,1,1,1] {wait}",
    "NOP",
]  # lines the assembler's fast path takes (MOVE / ALU_OP shorthands never do)
SHORT = {"sig": "signal=sem[{i}]++@complete", "wait": "wait=sem[{i}]>=1"}
RAW = {"sig": "events.update_mode=SEM_INC_COMPLETE events.update_idx={i}",
       "wait": "events.wait_mode=SEM_GE_IMM events.wait_idx={i} events.semaphore_value=1"}


def program(n: int, forms: dict[str, str]) -> str:
    lines = []
    for k in range(n):
        i = k % 256
        lines.append(BODY[k % 3].format(sig=forms["sig"].format(i=i),
                                        wait=forms["wait"].format(i=i)))
    return "\n".join(lines) + "\n"


ROUNDS = 3


def timed(label: str, n: int, fn) -> float:
    """Print and return the best CPU seconds of ROUNDS calls of `fn`."""
    best = float("inf")
    for _ in range(ROUNDS):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    print(f"{label:58s} {best * 1e3:9.1f} ms  {n / best / 1e3:9.1f} k records/s")
    return best


def main(n: int) -> None:
    short, raw = program(n, SHORT), program(n, RAW)
    a = assemble(short)
    assert a.records == assemble(raw).records
    timed("assemble, semaphores as shorthand", n, lambda: assemble(short))
    timed("assemble, semaphores as raw fields", n, lambda: assemble(raw))
    prog = a.program()
    text = disassemble(prog)
    assert assemble(text).records == a.records
    timed("disassemble (shorthand printed)", n, lambda: disassemble(prog))
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "k.asm"
        src.write_text("".join(f".engine {e}\n{short}" for e in ENGINE_ORDER))
        total = n * len(ENGINE_ORDER)
        timed(f"load_kernel of a 5-engine .engine file ({total:,} records)", total,
              lambda: load_kernel(src))
        timed("  vs assembling the 5 sections as separate programs", total,
              lambda: [assemble(short) for _ in ENGINE_ORDER])
        manifest = Path(d) / "m.toml"
        subprocess.run([sys.executable, "-m", "neurondbg", "asm", str(src), "-o", str(manifest)],
                       check=True, capture_output=True)
        timed("load_kernel of its manifest (binary streams)", total,
              lambda: load_kernel(manifest))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50_000)
