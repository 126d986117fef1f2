"""Benchmark: the clause tree and checked fixes.

Prints the cost of `explain` per record without and with the fix search (valid and
invalid examples of every predicate), of `validate --json` (every instruction's tree)
on N mixed records in-process, and the peak RSS. No assertions: figures only.

    python benchmarks/legality_tree_bench.py [N]
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np

from neurondbg.commands.validate import _write_full
from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.legality.explain import explain
from neurondbg.machine.legality.wire.bulk import validate_raw
from neurondbg.machine.legality.wire.samples import EXAMPLES, example


class Count:
    """A sink that counts what `validate --json` would print (stdout is streamed)."""

    def __init__(self) -> None:
        self.n = 0

    def write(self, text: str) -> None:
        self.n += len(text)


BAD = ({"header__inst_word_len": 15}, {"events__wait_mode": 0x10})


def records() -> tuple[list[bytes], list[bytes]]:
    good = [example(n) for n in EXAMPLES]
    bad = [example(n, **c) for n in EXAMPLES for c in BAD]
    bad += [example("is_valid_copy", out_dtype=Dtype.BF16, dst_mem_pattern__start_addr=0x2000001),
            example("is_valid_copy", op=0x30, negated=1, dst_mem_pattern__num_elem=(0, 1, 1, 1))]
    return good, bad


def per_record(recs: list[bytes], fixes: bool, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        for r in recs:
            explain(r, Gen.CAYMAN, fixes=fixes)
        best = min(best, time.perf_counter() - t0)
    return best / len(recs) * 1e3


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    good, bad = records()
    explain(good[0], Gen.CAYMAN)  # imports, caches
    print(f"explain, valid records:            {per_record(good, True):6.2f} ms/record")
    print(f"explain, invalid, no fix search:   {per_record(bad, False):6.2f} ms/record")
    print(f"explain, invalid, checked fixes:   {per_record(bad, True):6.2f} ms/record")
    t = np.frombuffer(b"".join(good + bad), dtype=np.uint8).reshape(-1, 64)
    raw = t[np.random.default_rng(1).integers(0, len(t), n)]
    t0 = time.perf_counter()
    result = validate_raw(raw, Gen.CAYMAN, "pool")
    out = Count()
    _write_full(result, raw, out)
    dt = time.perf_counter() - t0
    print(f"validate --json, {n} records ({len(t)} distinct): {dt:.2f} s, "
          f"{n / dt:,.0f} records/s, {out.n / 1e6:.0f} MB of JSON")
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
