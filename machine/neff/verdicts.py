"""Per-record legality of a NEFF's streams, each judged on its own engine, adapted to
what a NEFF legitimately holds (machine.legality is used as it is, then read here).

- A PSEUDO_* record (PSEUDO_DMATRIGGER, PSEUDO_BRANCH_LABEL, ...) is what the runtime
  lowers (isa-facts §7, neff-facts §5.5): no engine's dispatch table holds it, so the
  wire-level verdict fails `engine_has_opcode(E)`. Here that clause becomes the note
  LOWERED (the record stays valid when nothing else fails); triggers are checked for
  what can be checked by machine.neff.checks.
- A record whose opcode has no field layout in the references (LDWEIGHTS, MATMUL,
  ACTIVATE, ACTIVATION_TABLE_LOAD, NOP, SET_ORDERING_MODE) is judged on its header and
  events only; it carries the note OPAQUE.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from machine.dtypes import Gen
from machine.isa.opcodes import OPCODES, mnemonic
from machine.legality.explain import validate
from machine.neff.model import ENGINES, Engine, Subgraph

LOWERED = "lowered_by_runtime"
OPAQUE = "payload_layout_not_in_reference"
NOTE_TEXT = {LOWERED: "lowered by the runtime",
             OPAQUE: "payload layout not in the reference (header and events judged only)"}
ENGINE_CLAUSE = "engine_has_opcode("


def _kinds() -> tuple[np.ndarray, np.ndarray]:
    pseudo = np.zeros(256, dtype=bool)
    opaque = np.zeros(256, dtype=bool)
    for code, info in OPCODES.items():
        pseudo[code] = info.pseudo
        opaque[code] = not info.pseudo and info.struct == "RAW"
    return pseudo, opaque


PSEUDO, OPAQUE_OPS = _kinds()


@dataclass
class StreamVerdict:
    """One engine's stream judged: the bulk result, and per judged record (column) its
    adapted verdict (valid, failed clauses without the lowered engine clause, notes)."""

    engine: Engine
    raw: np.ndarray
    result: Any  # machine.legality BulkResult
    verdicts: list[dict[str, Any]]  # per column, adapted
    valid: np.ndarray  # per instruction
    lowered: dict[str, int] = field(default_factory=dict)  # mnemonic -> records
    opaque: dict[str, int] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.raw)

    @property
    def invalid(self) -> int:
        return int(len(self.valid) - np.count_nonzero(self.valid))


def _adapt(v: dict[str, Any], op: int) -> dict[str, Any]:
    if PSEUDO[op]:
        failed = [c for c in v["failed"] if not c.startswith(ENGINE_CLAUSE)]
        return {**v, "valid": not failed, "failed": failed, "notes": [*v["notes"], LOWERED]}
    if OPAQUE_OPS[op]:
        return {**v, "notes": [*v["notes"], OPAQUE]}
    return v


def judge_stream(raw: np.ndarray, gen: Gen, engine: Engine) -> StreamVerdict:
    """`raw` judged on `engine` (machine.legality.explain.validate), adapted."""
    result = validate(raw, gen, engine.value)
    base = result.verdicts()
    if not len(raw):
        return StreamVerdict(engine, raw, result, [], np.ones(0, bool))
    column = result.column
    col_op = np.zeros(len(base), dtype=np.uint8)
    col_op[column] = raw[:, 0]
    adapted = [_adapt(v, op) for v, op in zip(base, col_op.tolist(), strict=True)]
    valid = np.array([v["valid"] for v in adapted], dtype=bool)[column]
    ops, counts = np.unique(raw[:, 0], return_counts=True)
    lowered = {mnemonic(o): n for o, n in zip(ops.tolist(), counts.tolist(), strict=True)
               if PSEUDO[o]}
    opaque = {mnemonic(o): n for o, n in zip(ops.tolist(), counts.tolist(), strict=True)
              if OPAQUE_OPS[o]}
    return StreamVerdict(engine, raw, result, adapted, valid, lowered, opaque)


def judge_subgraph(sub: Subgraph, gen: Gen) -> dict[Engine, StreamVerdict]:
    """Every stream of `sub` judged on its own engine."""
    return {e: judge_stream(sub.stream(e), gen, e) for e in ENGINES}
