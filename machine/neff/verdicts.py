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
- A PSEUDO_* record the references do not describe (machine.neff.unmodelled) whose
  header byte 1 is not 16 (newer compilers' PSEUDO_EXTENSION has 0 there): byte 1 == 16
  is the hardware's header rule (isa-facts §1.1) and the runtime lowers such a record
  before the hardware sees it, so neither `has_valid_neuron_header` nor
  `has_valid_neuron_events` (its bytes 4..11 are not events: machine.neff.events) fails
  it; it carries the note HEADER_NOT_JUDGED.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.opcodes import OPCODES, mnemonic
from neurondbg.machine.legality.explain import BulkResult, validate
from neurondbg.machine.neff.model import ENGINES, Engine, Subgraph
from neurondbg.machine.neff.unmodelled import headerless

LOWERED = "lowered_by_runtime"
OPAQUE = "payload_layout_not_in_reference"
HEADER_NOT_JUDGED = "pseudo_header_not_judged"
NOTE_TEXT = {LOWERED: "lowered by the runtime",
             OPAQUE: "payload layout not in the reference (header and events judged only)",
             HEADER_NOT_JUDGED: "header byte 1 is not 16 on a record the runtime lowers and "
                                "the reference does not describe (header and events not "
                                "judged)"}
ENGINE_CLAUSE = "engine_has_opcode("
HEADER_CLAUSES = ("has_valid_neuron_header", "has_valid_neuron_events")


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
    """One engine's stream judged: the bulk result and the adapted verdicts. Records
    that share an outcome share one verdict dict: `outcomes` holds each distinct adapted
    verdict (valid, predicate, failed clauses without a lowered engine clause, notes,
    clauses) and `outcome[i]` is instruction i's."""

    engine: Engine
    raw: np.ndarray
    result: BulkResult
    outcomes: list[dict[str, Any]]
    outcome: np.ndarray  # per instruction: index into outcomes
    lowered: dict[str, int] = field(default_factory=dict)  # mnemonic -> records
    opaque: dict[str, int] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.raw)

    @property
    def valid(self) -> np.ndarray:
        """Per instruction: valid once adapted."""
        ok = np.array([v["valid"] for v in self.outcomes], dtype=bool)
        return ok[self.outcome] if len(ok) else np.ones(0, dtype=bool)

    @property
    def invalid(self) -> int:
        return int(self.count - np.count_nonzero(self.valid))

    def tally(self) -> tuple[dict[str, int], dict[str, int]]:
        """(failing clause -> instructions, note -> instructions)."""
        per = np.bincount(self.outcome, minlength=len(self.outcomes)).tolist()
        failed: dict[str, int] = {}
        notes: dict[str, int] = {}
        for v, n in zip(self.outcomes, per, strict=True):
            for c in v["failed"]:
                failed[c] = failed.get(c, 0) + n
            for c in v["notes"]:
                notes[c] = notes.get(c, 0) + n
        return (dict(sorted(failed.items(), key=lambda kv: (-kv[1], kv[0]))),
                dict(sorted(notes.items(), key=lambda kv: (-kv[1], kv[0]))))


def _adapt(v: dict[str, Any], kind: int) -> dict[str, Any]:
    if kind in (_PSEUDO, _PSEUDO_ODD):
        failed = [c for c in v["failed"] if not c.startswith(ENGINE_CLAUSE)]
        notes = [*v["notes"], LOWERED]
        if kind == _PSEUDO_ODD:
            failed = [c for c in failed if c not in HEADER_CLAUSES]
            notes.append(HEADER_NOT_JUDGED)
        return {**v, "valid": not failed, "failed": failed, "notes": notes}
    if kind == _OPAQUE:
        return {**v, "notes": [*v["notes"], OPAQUE]}
    return v


_PLAIN, _PSEUDO, _OPAQUE, _PSEUDO_ODD = 0, 1, 2, 3
_KINDS = 4


def judge_stream(raw: np.ndarray, gen: Gen, engine: Engine) -> StreamVerdict:
    """`raw` judged on `engine` (machine.legality.explain.validate), adapted: each
    distinct (outcome, kind of opcode) once, the rest as numpy operations."""
    result = validate(raw, gen, engine.value)
    if not len(raw):
        return StreamVerdict(engine, raw, result, [], np.zeros(0, dtype=np.intp))
    base = result.verdicts()  # per column; one shared object per outcome
    column = result.column
    ids = np.fromiter(map(id, base), dtype=np.int64, count=len(base))
    _, shared = np.unique(ids, return_inverse=True)
    ops = raw[:, 0]
    odd = headerless(raw)
    kind = np.where(odd, _PSEUDO_ODD, np.where(PSEUDO[ops], _PSEUDO,
                                               np.where(OPAQUE_OPS[ops], _OPAQUE, _PLAIN)))
    key = shared.reshape(-1)[column] * _KINDS + kind
    keys, outcome = np.unique(key, return_inverse=True)
    first = np.zeros(len(keys), dtype=np.intp)
    first[outcome] = np.arange(len(key))  # an instruction of each outcome (any will do)
    outcomes = [_adapt(base[column[i]], int(k % _KINDS))
                for i, k in zip(first.tolist(), keys.tolist(), strict=True)]
    codes, counts = np.unique(ops, return_counts=True)
    pairs = list(zip(codes.tolist(), counts.tolist(), strict=True))
    lowered = {mnemonic(o): n for o, n in pairs if PSEUDO[o]}
    opaque = {mnemonic(o): n for o, n in pairs if OPAQUE_OPS[o]}
    return StreamVerdict(engine, raw, result, outcomes, outcome.reshape(-1), lowered, opaque)


def judge_subgraph(sub: Subgraph, gen: Gen) -> dict[Engine, StreamVerdict]:
    """Every stream of `sub` judged on its own engine."""
    return {e: judge_stream(sub.stream(e), gen, e) for e in ENGINES}
