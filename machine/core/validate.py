"""Legality of a kernel: every queue judged on its own engine (machine.legality).

    doc = validate_kernel(kernel)
    # {"gen", "count", "invalid", "engines": {"pool": {...}, "dve": {...}}}

Each engine's entry is the one-program `validate --json` document of that queue with
`--engine` set to its engine (`gen`, `engine`, `count`, `invalid`, `instructions`: index,
offset, opcode, mnemonic, valid, predicate, failed, notes, clauses, tree), so the
clause `engine_has_opcode(<engine>)` finds an instruction placed on an engine whose
dispatch table lacks it. `count` and `invalid` at the top are the totals over engines.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np

from neurondbg.machine.core.kernel import Kernel
from neurondbg.machine.isa.opcodes import mnemonic
from neurondbg.machine.isa.spec import RECORD_BYTES
from neurondbg.machine.legality.explain import EXPLAIN_BATCH, BulkResult, explain_many, validate
from neurondbg.machine.legality.wire._dedup import dedup


class QueueDocument(TypedDict):
    """The one-program `validate --json` document of one queue."""

    gen: str
    engine: str | None
    count: int
    invalid: int
    instructions: list[dict[str, Any]]  # rows: machine.legality's verdicts (JSON values)


class KernelDocument(TypedDict):
    """`validate_kernel`'s document: the totals and each engine's queue document."""

    gen: str
    count: int
    invalid: int
    engines: dict[str, QueueDocument]


def validate_queues(kernel: Kernel) -> dict[str, BulkResult]:
    """engine -> machine.legality BulkResult of its queue, judged on that engine."""
    return {q.engine: validate(q.program.program.raw, kernel.gen, q.engine)
            for q in kernel.queues}


def queue_json(result: BulkResult, raw: np.ndarray) -> QueueDocument:
    """The one-program `validate --json` document of records `raw` judged as `result`.
    Rows of identical records share their verdict's lists and tree (treat as read-only).
    The distinct records (found by the bulk check's row dedup, no bytes object per
    record) are explained EXPLAIN_BATCH at a time by explain_many (each clause checked
    once per batch; verdicts equal explain's, record for record)."""
    verdicts = result.verdicts()
    raw = np.ascontiguousarray(raw)
    # max_fraction=1.0: never None (every row may be kept), so no fallback is needed
    kept = dedup(raw.view(np.uint64).reshape(-1, RECORD_BYTES // 8), 1.0)
    assert kept is not None
    keep, inverse = kept
    trees: list[list[dict[str, Any]]] = []
    for s in range(0, len(keep), EXPLAIN_BATCH):
        trees += [v.tree() for v in explain_many(raw[keep[s:s + EXPLAIN_BATCH]], result.gen,
                                                 result.engine)]
    rows = [{"index": i, "offset": i * RECORD_BYTES, "opcode": op, "mnemonic": mnemonic(op),
             **verdicts[k], "tree": trees[j]}
            for i, (op, k, j) in enumerate(zip(raw[:, 0].tolist(), result.column.tolist(),
                                               inverse.tolist(), strict=True))]
    return {"gen": result.gen.label, "engine": result.engine, "count": result.count,
            "invalid": result.invalid, "instructions": rows}


def validate_kernel(kernel: Kernel) -> KernelDocument:
    """Per-engine `validate --json` documents and the totals (module docstring)."""
    results = validate_queues(kernel)
    engines = {q.engine: queue_json(results[q.engine], q.program.program.raw)
               for q in kernel.queues}
    return {"gen": kernel.gen.label, "count": sum(r.count for r in results.values()),
            "invalid": sum(r.invalid for r in results.values()), "engines": engines}
