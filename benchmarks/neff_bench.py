"""Benchmark: open, validate and disassemble a large synthetic NEFF.

The NEFF (machine.neff.writer) has five streams of about 170,000 records in all (PE
129,745 LDWEIGHTS/MATMUL), 7,000 DMA entries on qSPIO0 with 25 descriptors each
(175,000), and waits that all resolve (the checks find nothing). That is more DMA than
any public NEFF holds: the largest corpus NEFF has 262,983 records (PE 168,626) but
3,131 entries and 8,085 descriptors, the most descriptors in one is 17,645, and the
whole corpus has about 191,000. Records differ from one another (thresholds and
addresses vary), so deduplication does not flatter the figures. Printed:

- open: in-process `open_neff` + trigger resolution (best of 3), wall and CPU seconds,
  and open + judging every stream + the whole-NEFF checks (what validate does past
  start-up);
- validate: the whole process `neurondbg validate FILE --summary` (interpreter start,
  imports, reading, judging, checks), wall and CPU seconds and records/s (target >=
  2,000,000/s), and its peak memory (ru_maxrss of the child; target <= 500 MB);
- the same for `validate` text output and `disasm` (text), for reference;
- the floor no reading can go under: `neurondbg --help` and importing the NEFF reader
  in a child (interpreter start and imports), CPU seconds.

    /work/venv/bin/python benchmarks/neff_bench.py [--pe 129745] [--entries 7000]
                                                   [--descriptors 25] [--keep PATH]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.legality.wire.samples import example
from neurondbg.machine.neff.checks import check_subgraph
from neurondbg.machine.neff.model import SB, Descriptor, DmaEntry, DmaQueue, Engine, Subgraph, Var
from neurondbg.machine.neff.reader import open_neff
from neurondbg.machine.neff.triggers import resolve_triggers, trigger_record
from neurondbg.machine.neff.verdicts import judge_subgraph
from neurondbg.machine.neff.writer import write_neff

QUEUE = "qSPIO0"
SEMS = tuple(range(8, 24))
ACT_DONE, PE_DONE, DVE_DONE = 4, 5, 6
ACT_RECORDS, DVE_RECORDS, POOL_RECORDS = 10_000, 15_000, 1_000


def _records(op: int, n: int, base: bytes | None = None) -> np.ndarray:
    rec = np.zeros((n, 64), dtype=np.uint8)
    if base is not None:
        rec[:] = np.frombuffer(base, dtype=np.uint8)
    rec[:, 0], rec[:, 1] = op, 16
    return rec


def _wait(rec: np.ndarray, sem: np.ndarray | int, value: np.ndarray) -> None:
    rec[:, 4], rec[:, 5] = 0x05, sem
    rec[:, 8:12] = np.asarray(value, dtype="<u4").reshape(-1, 1).view(np.uint8)


def _signal(rec: np.ndarray, sem: int) -> None:
    rec[:, 6], rec[:, 7] = 0x13, sem


def build(pe: int, entries: int, descriptors: int) -> Subgraph:
    """The benchmark's subgraph (module docstring)."""
    half = pe // 2
    ldw = _records(Opcode.LDWEIGHTS, pe - half)
    ids = np.arange(pe - half) % entries
    _wait(ldw, np.array(SEMS, np.uint8)[ids % 16], 16 * (ids // 16 + 1))
    ldw[:, 16:20] = (np.arange(pe - half, dtype="<u4") * 64).reshape(-1, 1).view(np.uint8)
    mm = _records(Opcode.MATMUL, half)
    _signal(mm, PE_DONE)
    mm[:, 16:20] = (np.arange(half, dtype="<u4") * 64).reshape(-1, 1).view(np.uint8)
    pe_stream = np.empty((pe, 64), dtype=np.uint8)
    pe_stream[0::2], pe_stream[1::2] = ldw, mm
    act = _records(Opcode.ACTIVATE, ACT_RECORDS)
    _wait(act, PE_DONE, np.minimum(np.arange(1, ACT_RECORDS + 1), half))
    _signal(act, ACT_DONE)
    dve = _records(Opcode.MEMSET, DVE_RECORDS, example("is_valid_d4_mr"))
    _wait(dve, ACT_DONE, np.minimum(np.arange(1, DVE_RECORDS + 1), ACT_RECORDS))
    _signal(dve, DVE_DONE)
    pool = _records(Opcode.NOP, POOL_RECORDS)
    _wait(pool, DVE_DONE, np.arange(1, POOL_RECORDS + 1) * (DVE_RECORDS // POOL_RECORDS))
    sp = np.empty((2 * entries, 64), dtype=np.uint8)
    es = _records(Opcode.EVENT_SEMAPHORE, entries)
    _wait(es, DVE_DONE, np.zeros(entries, np.uint32))
    sp[0::2] = es
    sp[1::2] = np.frombuffer(b"".join(trigger_record(QUEUE, i) for i in range(entries)),
                             dtype=np.uint8).reshape(-1, 64)
    dma = tuple(DmaEntry(QUEUE, i, SEMS[i % 16], tuple(
        Descriptor("X", SB, "float32", "float32", (i * descriptors + k) * 512, k * 512,
                   (512, 128), (512, 128), (1, 65536), (1, 0x40000))
        for k in range(descriptors)), f"I-{i}") for i in range(entries))
    streams = {Engine.ACT: act, Engine.DVE: dve, Engine.PE: pe_stream, Engine.POOL: pool,
               Engine.SP: sp}
    return Subgraph("sg00", streams, {QUEUE: DmaQueue(QUEUE, Engine.SP, SEMS)},
                    {Engine.SP: dma}, {"SB": Var("SB", "state-buffer", 0),
                                       "X": Var("X", "input", 1, entries * descriptors * 512
                                                 + 127 * 65536)})


def _child(args: list[str]) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds (user + system: what a loaded machine inflates least),
    exit code and peak RSS (bytes) of `neurondbg ARGS` in a child."""
    exe = Path(sys.executable).with_name("neurondbg")
    t = time.perf_counter()
    child = subprocess.Popen([str(exe), *args], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own peak, not all children's
    dt = time.perf_counter() - t
    child.returncode = os.waitstatus_to_exitcode(status)
    return dt, usage.ru_utime + usage.ru_stime, child.returncode, usage.ru_maxrss * 1024


def _python(args: list[str]) -> float:
    """CPU seconds of this interpreter running ARGS in a child."""
    child = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pe", type=int, default=129_745)
    ap.add_argument("--entries", type=int, default=7_000)
    ap.add_argument("--descriptors", type=int, default=25)
    ap.add_argument("--keep", type=Path, default=None)
    ap.add_argument("--write", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.write is not None:  # the child that builds the file (see below)
        sub = build(args.pe, args.entries, args.descriptors)
        write_neff(args.write, [sub], target="sunda", name="big.neff")
        print(f"NEFF: {sub.record_count:,} records, {sub.entry_count:,} DMA entries, "
              f"{sub.descriptor_count:,} descriptors; file "
              f"{os.path.getsize(args.write) / 1e6:.1f} MB")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "big.neff"
        # built in a child: a child forked from a parent holding the model would count
        # the parent's pages in its own peak memory
        subprocess.run([sys.executable, __file__, "--write", str(path), "--pe", str(args.pe),
                        "--entries", str(args.entries), "--descriptors",
                        str(args.descriptors)], check=True)
        records = args.pe + ACT_RECORDS + DVE_RECORDS + POOL_RECORDS + 2 * args.entries
        for label, extra in (("validate --summary", ["validate", "--summary"]),
                             ("validate (text)", ["validate"]),
                             ("disasm (text)", ["disasm"])):
            dt, cpu, code, peak = _child([extra[0], str(path), *extra[1:]])
            print(f"{label}: {dt:.2f} s whole process ({cpu:.2f} s CPU), "
                  f"{records / dt:,.0f} records/s ({records / cpu:,.0f} per CPU second), "
                  f"exit {code}, peak memory {peak / 1e6:.0f} MB")
        help_cpu = min(_child(["--help"])[1] for _ in range(3))
        import_cpu = min(_python(["-c", "import neurondbg.machine.neff.reader"])
                         for _ in range(3))
        print(f"floor: neurondbg --help {help_cpu:.2f} s CPU; import of the NEFF reader "
              f"{import_cpu:.2f} s CPU")
        best, best_cpu = float("inf"), float("inf")
        for _ in range(3):
            t, c = time.perf_counter(), time.process_time()
            neff = open_neff(path)
            resolve_triggers(neff.subgraph(), str(path))
            best = min(best, time.perf_counter() - t)
            best_cpu = min(best_cpu, time.process_time() - c)
        print(f"open (in process, best of 3): {best:.3f} s ({best_cpu:.3f} s CPU); unpacked "
              f"{neff.unpacked_bytes / 1e6:.1f} MB in {neff.member_count} members")
        best, best_cpu = float("inf"), float("inf")
        for _ in range(3):
            t, c = time.perf_counter(), time.process_time()
            neff = open_neff(path)
            sub = neff.subgraph()
            judge_subgraph(sub, Gen.SUNDA)
            check_subgraph(sub, resolve_triggers(sub, str(path)), Gen.SUNDA)
            best = min(best, time.perf_counter() - t)
            best_cpu = min(best_cpu, time.process_time() - c)
        print(f"open + judge + checks (in process, best of 3): {best:.3f} s ({best_cpu:.3f} s "
              f"CPU), {records / best_cpu:,.0f} records per CPU second")


if __name__ == "__main__":
    main()
