"""Benchmark: what the checked-fix search adds to `validate --json`. Prints figures; not a test.

    python benchmarks/fix_cost_bench.py [--records 100000] [--invalid-percent 10] [--runs 3]

Builds a program of N records on CAYMAN: the valid example of every predicate valid
there, each record made distinct by its semaphore value (which no clause reads, so the
tree cache of `validate --json` cannot share explanations), and P% of them corrupted in
one or two random fields (the corruptions the fix property test draws). Then times, in
process (CPU seconds, best of --runs), the `--json` writer of neurondbg.commands.validate
over the whole program twice: with the fix search (as the command runs) and with the
verdicts alone (iter_explain_many(..., fixes=False)), and prints the ratio (goal <= 1.3).
"""

from __future__ import annotations

import argparse
import importlib
import os
import time
from unittest import mock

import numpy as np

from neurondbg.commands.validate import _write_full
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.legality.explain import explain
from neurondbg.machine.legality.wire.bulk import validate_raw
from neurondbg.machine.legality.wire.registry import BY_NAME
from neurondbg.machine.legality.wire.samples import EXAMPLES, example

GEN = Gen.CAYMAN
# the module (the package's attribute `explain` is the function of that name)
explain_module = importlib.import_module("neurondbg.machine.legality.explain")


def program(n: int, invalid_percent: int, seed: int = 26) -> np.ndarray:
    """(n, 64) uint8 records, `invalid_percent` of them invalid: corrupted in one or two
    random fields (drawn again while the corruption leaves the record valid)."""
    rng = np.random.default_rng(seed)
    names = [name for name in sorted(EXAMPLES) if explain(example(name), GEN, fixes=False).valid]
    out = np.empty((n, 64), dtype=np.uint8)
    for i in range(n):
        out[i] = np.frombuffer(_record(names[i % len(names)], i), dtype=np.uint8)
    todo = np.flatnonzero(rng.random(n) < invalid_percent / 100)
    for _ in range(20):
        for i in todo.tolist():
            name = names[i % len(names)]
            out[i] = np.frombuffer(_corrupted(name, i, rng), dtype=np.uint8)
        todo = todo[validate_raw(out[todo], GEN, None).valid]
        if not len(todo):
            break
    return out


def _record(name: str, i: int) -> np.ndarray:
    struct = STRUCTS[BY_NAME[name].struct]
    rec = np.frombuffer(example(name), dtype=struct.dtype).copy()
    rec["events.semaphore_value"] = i
    return rec


def _corrupted(name: str, i: int, rng: np.random.Generator) -> bytes:
    rec = _record(name, i)
    fields = [f for f in STRUCTS[BY_NAME[name].struct].fields
              if f.name not in ("header.opcode", "events.semaphore_value")]
    for k in rng.choice(len(fields), size=int(rng.integers(1, 3)), replace=False):
        f = fields[int(k)]
        lo, hi = f.bounds
        rec[f.name] = rng.integers(lo, hi, size=rec[f.name].shape, endpoint=True)
    return rec.tobytes()


class _Null:
    def write(self, text: str) -> int:
        return len(text)


def json_seconds(raw: np.ndarray, fixes: bool, runs: int) -> float:
    """Best CPU seconds of the `validate --json` writer over `raw`."""
    def many(records, gen, engine=None):
        return real(records, gen, engine, fixes=fixes)

    real = explain_module.iter_explain_many
    best = float("inf")
    with mock.patch.object(explain_module, "iter_explain_many", many):
        for _ in range(runs):
            result = validate_raw(raw, GEN, None)
            t0 = time.process_time()
            _write_full(result, raw, _Null())
            best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--invalid-percent", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    raw = program(a.records, a.invalid_percent)
    result = validate_raw(raw, GEN, None)
    print(f"{a.records:,} records, {result.invalid:,} invalid on {GEN.label}")
    alone = json_seconds(raw, False, a.runs)
    fixed = json_seconds(raw, True, a.runs)
    print(f"validate --json writer, verdicts alone: {alone:.2f} s CPU")
    print(f"validate --json writer, with fixes:     {fixed:.2f} s CPU "
          f"({fixed / alone:.2f}x the verdicts alone)")


if __name__ == "__main__":
    main()
