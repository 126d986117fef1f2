"""Startup of `neurondbg run` on a large program. Prints figures; not a test.

    python benchmarks/startup_bench.py [--records 1000000] [--kind seq|cast]

Writes a binary program of N records (SEQ ALU_OPs, or CASTs, then HALT), then times
`neurondbg run PROG --max-steps 1` and `neurondbg validate PROG` as subprocesses,
each with its peak memory (ru_maxrss of the child). Startup should be proportional
to what is shown (one step), not to the program's length: `validate` is the floor.
A profile of the in-process phases (read + decode, Machine(), the first step)
follows, to say where any remaining time goes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from neurondbg.machine.asm import assemble
from neurondbg.machine.dtypes import Gen

BODY = {
    "seq": "ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=3",
    "cast": ("CAST in_dtype=FP32 out_dtype=BF16 nac=4 src=sb[0, 0] step=[1,0,0,0] "
             "num=[8,1,1,1] dst=sb[0, 64] step=[1,0,0,0] num=[8,1,1,1]"),
}


def write_program(path: Path, records: int, kind: str) -> None:
    body = assemble(BODY[kind] + "\n", "b.asm", Gen.CAYMAN).records
    halt = assemble("HALT\n", "h.asm", Gen.CAYMAN).records
    with path.open("wb") as fh:
        chunk = body * 65536
        left = records - 1
        while left:
            n = min(left, 65536)
            fh.write(chunk if n == 65536 else body * n)
            left -= n
        fh.write(halt)


def child(args: list[str]) -> tuple[float, float, int]:
    """(wall seconds, peak MiB, exit code) of one `neurondbg` run in a fresh process."""
    t0 = time.perf_counter()
    # a wrapper process per measurement, so its RUSAGE_CHILDREN peak is this run's alone
    code = subprocess.run([sys.executable, "-c", _WRAPPER, *args], capture_output=True,
                          text=True)
    wall = time.perf_counter() - t0
    if code.returncode not in (0, 1):
        raise SystemExit(f"neurondbg {' '.join(args)} failed: {code.stderr.strip()}")
    peak_kib = int(code.stdout.strip().splitlines()[-1])
    return wall, peak_kib / 1024, code.returncode


_WRAPPER = """
import resource, subprocess, sys
r = subprocess.run([sys.executable, "-m", "neurondbg", *sys.argv[1:]], capture_output=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(r.returncode)
"""


def phases(path: Path) -> list[tuple[str, float]]:
    """Seconds per in-process phase of `run`'s startup."""
    from neurondbg.machine.core.core import Core
    from neurondbg.machine.debugger import Machine
    from neurondbg.machine.state import MachineConfig
    from neurondbg.sessions.program import read_program

    out = []
    t0 = time.perf_counter()
    prog = read_program(path, Gen.CAYMAN)
    out.append(("read + decode", time.perf_counter() - t0))
    t0 = time.perf_counter()
    m = Machine(prog.program, MachineConfig(gen=Gen.CAYMAN), data=prog.data,
                journal_budget=0)
    out.append(("Machine()", time.perf_counter() - t0))
    t0 = time.perf_counter()
    core = Core.of_program(m, path, source=prog, journal_budget=0)  # as `run` does
    out.append(("Core.of_program()", time.perf_counter() - t0))
    t0 = time.perf_counter()
    core.cont(max_steps=1)
    out.append(("first step (cont max_steps=1)", time.perf_counter() - t0))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--kind", choices=sorted(BODY), default="seq")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        prog = Path(tmp) / "big.bin"
        write_program(prog, args.records, args.kind)
        size = os.path.getsize(prog) / 2**20
        print(f"program: {args.records:,} {args.kind} records ({size:.0f} MiB)")
        for name, cmd in (("run --max-steps 1", ["run", str(prog), "--max-steps", "1"]),
                          ("validate", ["validate", str(prog)])):
            wall, peak, code = child(cmd)
            print(f"  {name:20s} {wall:7.2f} s  peak {peak:7.0f} MiB  (exit {code})")
        print("  in-process phases of run:")
        for name, secs in phases(prog):
            print(f"    {name:32s} {secs:7.2f} s")


if __name__ == "__main__":
    main()
