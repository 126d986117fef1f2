"""Machine model benchmarks (issue 5). Prints figures; not part of the test run.

    /work/venv/bin/python benchmarks/machine_bench.py [--steps 1000000]

1. SEQ loop (ALU_OP + COMPARE_BRANCH), headless `continue`: instructions/s (target >= 1e6).
2. CAST fp32 -> bf16 on 128 x 4096 elements: machine step time / machine.convert alone
   (target <= 1.5).
3. Journal bytes per step against bytes written (target <= 2x).
4. Reverse-step time against forward-step time.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from machine.asm import assemble
from machine.convert import convert
from machine.debugger import Machine
from machine.state import MachineConfig

LOOP = """
    MOVE R1=0 R2={trips}
loop:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=3
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop
    HALT
"""
CAST = ("CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] "
        "num=[4096,1,1,1] dst=sb[0, 0x8000] step=[1,0,0,0] num=[4096,1,1,1]\nHALT")


def _machine(text: str) -> Machine:
    a = assemble(text, "<bench>")
    return Machine(a.program(), MachineConfig(), data=a.data, labels=a.labels)


def seq_loop(steps: int) -> None:
    trips = max(1, (steps - 2) // 3)
    m = _machine(LOOP.format(trips=trips))
    t = time.perf_counter()
    stop = m.cont()
    dt = time.perf_counter() - t
    n = m.state.steps
    print(f"SEQ loop: {n:,} steps in {dt:.3f} s = {n / dt:,.0f} instructions/s "
          f"(target >= 1,000,000; stop: {stop.reason})")
    # Bytes written per step: the register value (4) where one is written, and the PC (4).
    reg_writes = len(m.state.journal.regs)
    written = 4 * reg_writes + 4 * n
    jb = m.state.journal.nbytes
    print(f"  journal: {jb / n:.1f} bytes/step for {written / n:.1f} bytes written/step "
          f"= {jb / written:.2f}x (target <= 2x)")
    k = min(200_000, n)
    t = time.perf_counter()
    for _ in range(k):
        m.reverse_step()
    rdt = (time.perf_counter() - t) / k
    print(f"  reverse-step: {rdt * 1e6:.2f} us/step vs forward {dt / n * 1e6:.2f} us/step "
          f"(fast path) = {rdt / (dt / n):.1f}x")
    t = time.perf_counter()
    for _ in range(k // 10):
        m.step()
    sdt = (time.perf_counter() - t) / (k // 10)
    print(f"  single step with a full record (slow path): {sdt * 1e6:.1f} us/step; "
          f"reverse is {rdt / sdt:.2f}x of it")


def cast_step(repeats: int) -> None:
    m = _machine(CAST)
    rng = np.random.default_rng(7)
    vals = rng.standard_normal((128, 4096)).astype(np.float32)
    m.state.sbuf[:, :4 * 4096] = vals.view(np.uint8)
    bits = vals.view(np.uint32)
    in_sbuf = m.state.sbuf[:, :4 * 4096].view(np.uint32)  # the same values where they live
    convert(bits, "fp32", "bf16", "rint", False, "neuron")  # warm up
    t_conv, t_conv_sb = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        convert(bits, "fp32", "bf16", "rint", False, "neuron")
        t_conv.append(time.perf_counter() - t)
        t = time.perf_counter()
        convert(in_sbuf, "fp32", "bf16", "rint", False, "neuron")
        t_conv_sb.append(time.perf_counter() - t)
    t_step, t_rev = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        rec = m.step()
        t_step.append(time.perf_counter() - t)
        assert rec.executed, rec.fault
        jb = m.state.journal.nbytes
        t = time.perf_counter()
        m.reverse_step()
        t_rev.append(time.perf_counter() - t)
    c, csb, s, r = (float(np.median(x)) for x in (t_conv, t_conv_sb, t_step, t_rev))
    print(f"CAST fp32->bf16 128x4096: step {s * 1e3:.2f} ms, convert alone {c * 1e3:.2f} ms "
          f"(contiguous array) -> ratio {s / c:.2f} (target <= 1.5); convert of the strided "
          f"SBUF view {csb * 1e3:.2f} ms -> ratio {s / csb:.2f}")
    written = 128 * 4096 * 2
    print(f"  journal: {jb:,} bytes for {written:,} bytes written = {jb / written:.3f}x; "
          f"reverse-step {r * 1e3:.2f} ms = {r / s:.2f}x of the forward step")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    seq_loop(args.steps)
    cast_step(args.repeats)


if __name__ == "__main__":
    main()
