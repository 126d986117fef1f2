"""Bulk decode, disassembly and assembly throughput on a 1,000,000-record program.

Usage: python benchmarks/isa_bench.py [N]   (prints figures; not part of the tests)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from neurondbg.machine.asm import assemble, disassemble
from neurondbg.machine.isa.codec import STRUCT_ORDER, decode_bytes, load_program

TEMPLATES = """\
COPY src=sb[0, 0x0] step=[1,0,0,0] num=[64,1,1,1] dst=sb[0, 0x400] step=[1,0,0,0] \
num=[64,1,1,1] in_dtype=FP32 out_dtype=FP32 nac=128
CAST src=sb[0, 0x100] step=[1,0,0,0] num=[32,2,1,1] dst=sb[0, 0x800] step=[1,0,0,0] \
num=[32,2,1,1] in_dtype=BF16 out_dtype=FP8_EXP4 nac=64
MOVE R3=5 R4=7
ALU_OP op=ADD dtype=INT32 dst=R1 src0=R1 src1=1
COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=10 br_immediate=-256
TENSOR_TENSOR_ARITH_OP in0_dtype=FP32 in1_dtype=FP32 out_dtype=FP32 op=ADD nac=128 \
src0=sb[0, 0] src0.num=[16,1,1] src1=sb[0, 0x40] src1.num=[16,1,1] dst=sb[0, 0x80] \
dst.num=[16,1,1]
TENSOR_SCALAR_ARITH_OP op0=MULT imm0=2.0 in_dtype=FP32 out_dtype=FP32 nac=32 src=sb[0, 0] \
src.num=[8,1,1] dst=sb[0, 0x100] dst.num=[8,1,1]
HALT
"""


def make_program(n: int, seed: int = 0) -> bytes:
    """n records cycling through the templates, with varied partitions/offsets/counts."""
    base = np.frombuffer(assemble(TEMPLATES).records, np.uint8).reshape(-1, 64)
    rng = np.random.default_rng(seed)
    raw = base[rng.integers(0, len(base), n)].copy()
    # vary the first operand's start address (partition, 64-byte aligned offset) and one count
    parts = rng.integers(0, 128, n).astype(np.uint32)
    offs = (rng.integers(0, 64, n) * 64).astype(np.uint32)
    is_tr = np.isin(raw[:, 0], [0x46, 0x47])
    words = (parts * 256 * 1024 + offs).astype("<u4").view(np.uint8).reshape(n, 4)
    raw[is_tr, 12:16] = words[is_tr]
    raw[is_tr, 24] = rng.integers(1, 129, int(is_tr.sum()))
    return raw.tobytes()


def distinct_lines(data: bytes) -> bytes:
    """The records with a counter in their last 4 bytes, so no two disassembled lines repeat
    (measures the assembler without its per-line cache)."""
    raw = np.frombuffer(data, np.uint8).reshape(-1, 64).copy()
    raw[:, 60:64] = np.arange(1, len(raw) + 1, dtype="<u4").view(np.uint8).reshape(-1, 4)
    return raw.tobytes()


def bench(label: str, fn, count: int, unit: str) -> float:
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    print(f"{label:<44} {dt:7.3f} s   {count / dt:>12,.0f} {unit}/s")
    return dt


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    data = make_program(n)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.bin"
        path.write_bytes(data)

        def decode_all() -> None:
            p = load_program(path)
            for name in STRUCT_ORDER:
                p.records_for(name)

        print(f"{n:,} records ({len(data) / 2**20:.0f} MiB)")
        bench("bulk decode to structured records", decode_all, n, "records")
        prog = load_program(path)
        text: list[str] = []
        bench("disasm to text (realistic program)", lambda: text.append(disassemble(prog)), n,
              "lines")
        k = min(n, 200_000)
        src = "\n".join(text[0].splitlines()[:k])
        bench(f"assemble {k:,} lines (realistic program)", lambda: assemble(src), k, "lines")
        distinct = "\n".join(disassemble(decode_bytes(distinct_lines(data[:k * 64]))).splitlines())
        bench(f"assemble {k:,} lines (every line distinct)", lambda: assemble(distinct), k,
              "lines")
        m = min(n, 100_000)
        rnd = decode_bytes(np.random.default_rng(1).integers(0, 256, m * 64, np.uint8).tobytes())
        bench(f"disasm to text ({m:,} random records)", lambda: disassemble(rnd), m, "lines")


if __name__ == "__main__":
    main()
