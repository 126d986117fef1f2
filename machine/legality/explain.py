"""Wire-level legality API: explain one instruction, validate a whole program.

    from machine.legality.explain import explain, validate
    verdict = explain(program.instruction(3), "cayman")   # Verdict, clause by clause
    bulk = validate(program, "cayman", engine="pool")      # BulkResult: per-clause arrays

Both run the same clause declarations (machine.legality.wire): `explain` runs
each clause's vectorized check on a one-record array and asks it for a message.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from neurondbg.machine.dtypes import Gen, parse_gen
from neurondbg.machine.isa.spec import RECORD_BYTES
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.legality.result import ClauseResult, Verdict
from neurondbg.machine.legality.wire.bulk import (
    BulkResult,
    Summary,
    as_raw,
    evaluate,
    summarize_raw,
    validate_raw,
)
from neurondbg.machine.legality.wire.clause import Clause, Ctx, Predicate, Rows
from neurondbg.machine.legality.wire.registry import (
    ALL_PREDICATES,
    BY_NAME,
    ENGINE_CHOICES,
    PREDICATE_INDEX,
    predicate_for,
)

if TYPE_CHECKING:
    from neurondbg.machine.isa.codec import Instruction
    from neurondbg.machine.isa.spec import Struct
    from neurondbg.machine.legality.nki.bridge import Disagreement
    from neurondbg.machine.legality.wire.repair import Edit, Plan

# One record as `explain` takes it: a decoded Instruction, its 64 bytes, or a (64,) uint8
# array or structured record of them.
OneRecord: TypeAlias = "Instruction | bytes | bytearray | memoryview | np.ndarray | np.void"

__all__ = ["ENGINE_CHOICES", "BulkResult", "Levels", "explain", "explain_levels", "explain_many",
           "iter_explain_many", "predicate_of", "validate"]


def _raw_of(instruction: OneRecord) -> bytes:
    src: Any = getattr(instruction, "raw", instruction)  # an Instruction's bytes, or it
    if isinstance(src, np.ndarray):
        src = src.tobytes()
    raw = bytes(src)
    if len(raw) != RECORD_BYTES:
        raise ValueError(f"an instruction is {RECORD_BYTES} bytes, got {len(raw)}")
    return raw


def _engine(engine: str | None) -> str | None:
    if engine is not None and engine not in ENGINE_CHOICES:
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINE_CHOICES)}")
    return engine


def predicate_of(instruction: OneRecord) -> Predicate:
    """The predicate that judges an instruction (by its opcode byte)."""
    return predicate_for(_raw_of(instruction)[0])


def explain(instruction: OneRecord, gen: Gen | str, engine: str | None = None,
            predicate: str | None = None, fixes: bool = True) -> Verdict:
    """Every clause of the instruction's predicate as the reference's tree, with values,
    rule, checked fix and provenance.

    `instruction` is a decoded Instruction or 64 raw bytes. `predicate` forces
    another predicate by name (e.g. "is_valid_copy" on a CAST record shows why
    it is not a valid Copy); by default the opcode selects it. With `fixes`, each
    failing clause's fix is searched and checked (machine.legality.wire.repair).
    """
    from neurondbg.machine.isa.codec import record_fields  # here: `validate` alone never needs it

    g = parse_gen(gen)
    raw = _raw_of(instruction)
    pred = predicate_for(raw[0]) if predicate is None else BY_NAME[predicate]
    struct = STRUCTS[pred.struct]
    rec = np.frombuffer(raw, dtype=struct.dtype)
    ctx = Ctx(g, _engine(engine))
    clauses, passed = evaluate(pred, rec, ctx)
    values = record_fields(struct, rec[0])
    rows = Rows(rec, ctx)
    seen: dict[int, bool] = {}

    def passes(ch: Clause) -> bool:
        if id(ch) not in seen:
            seen[id(ch)] = bool(ch.check(rows)[0])
        return seen[id(ch)]

    tops = [(cl, bool(ok)) for cl, ok in zip(clauses, passed[:, 0], strict=True)]
    failing = _failing_leaves(tops, passes, g)
    plan = None
    if fixes and failing:
        from neurondbg.machine.legality.wire import repair

        plan = repair.plan(pred, struct, rec, values, ctx, failing, forced=predicate is not None)
    return _verdict(pred, tops, passes, values, ctx, plan)


Path = tuple[str, ...]


def failing_leaves(pred: Predicate, rec: np.ndarray, ctx: Ctx) -> list[tuple[Path, Clause]]:
    """(path, clause) of every failing non-note leaf of a one-record array under `pred`."""
    clauses, passed = evaluate(pred, rec, ctx)
    rows = Rows(rec, ctx)
    return _failing_leaves([(cl, bool(ok)) for cl, ok in zip(clauses, passed[:, 0],
                                                              strict=True)],
                           lambda ch: bool(ch.check(rows)[0]), ctx.gen)


def _failing_leaves(tops: list[tuple[Clause, bool]], passes: Callable[[Clause], bool],
                    gen: Gen) -> list[tuple[Path, Clause]]:
    """(path, clause) of every failing non-note leaf, in tree order (under a note clause
    too): the clauses the fix search must make pass."""
    out: list[tuple[Path, Clause]] = []

    def walk(cl: Clause, ok: bool, path: Path) -> None:
        if ok:  # a passing clause's sub-clauses all pass (a composite is their conjunction)
            return
        here = (*path, cl.name)
        for ch in cl.children_for(gen):
            walk(ch, passes(ch), here)
        if not ok and not cl.children_for(gen) and not cl.note:
            out.append((here, cl))

    for cl, ok in tops:
        walk(cl, ok, ())
    return out


def _verdict(pred: Predicate, tops: list[tuple[Clause, bool]], passes: Callable[[Clause], bool],
             values: Mapping[str, Any], ctx: Ctx, plan: Plan | None) -> Verdict:
    """The Verdict of one record: every clause's result, with the checked fixes of `plan`
    (None: no fix searched)."""
    results = tuple(_node(cl, ok, passes, values, ctx, (), plan, plan is not None)
                    for cl, ok in tops)
    if plan is None:
        return Verdict(pred.name, "wire", results)
    return Verdict(pred.name, "wire", results, plan.combined, plan.no_fix, plan.partial)


def _node(cl: Clause, ok: bool, passes: Callable[[Clause], bool], values: Mapping[str, Any],
          ctx: Ctx, path: Path, plan: Plan | None, fixing: bool) -> ClauseResult:
    """One clause's result and its sub-clauses' (each evaluated on its own: `passes`).

    With `fixing` (a plan, and no passing or note clause above), a failing non-note leaf
    gets its checked fix from the plan and a failing parent its first failing child's."""
    here = (*path, cl.name)
    fixing = fixing and not ok and not cl.note
    children = tuple(_node(ch, passes(ch), passes, values, ctx, here, plan, fixing)
                     for ch in cl.children_for(ctx.gen))
    if cl.message is not None:
        message = cl.message(values, ctx, ok)
    elif ok:  # a composite: every child's message, or the failing children's by name
        message = "; ".join(c.message for c in children)
    else:
        message = "; ".join(f"{c.name}: {c.message}" for c in children if not c.passed)
    fix = cl.fix(values, ctx) if (cl.fix is not None and not ok) else None
    fix_fields = None
    if fixing and children:
        first = next(c for c in children if not c.passed)
        fix, fix_fields = first.fix, first.fix_fields
    elif fixing and plan is not None:  # `fixing` implies a plan
        fix, fix_fields = _checked_fix(here, fix, plan)
    return ClauseResult(cl.name, ok, message, fix, cl.provenance, cl.fields, cl.note,
                        children, fix_fields)


def _checked_fix(path: Path, hint: str | None, plan: Plan) -> tuple[str, Edit | None]:
    """(fix text, field edits) of a failing leaf: the plan's edit for it, the declared
    hint after it unless the edit says the same; or why no edit of it passes."""
    from neurondbg.machine.legality.wire.repair import describe

    edit = plan.per_leaf.get(path)
    if edit is None:
        why = plan.no_fix or "no edit of this clause's fields passes the whole predicate"
        return (f"{hint}; {why}" if hint else why), None
    text = describe(edit, plan.struct)
    if hint and hint not in text:
        text += f" ({hint})"
    return text, edit


EXPLAIN_BATCH = 1 << 10  # records a caller explains together: bounds the verdicts held
# records whose fixes iter_explain_many searches together: the batched search's fixed
# costs (one byte scan per clause and field, one judged pass) are spread over more of
# them, while the verdicts are still built EXPLAIN_BATCH at a time
FIX_BATCH = 1 << 12


def explain_many(records: object, gen: Gen | str, engine: str | None = None,
                 fixes: bool = True) -> list[Verdict]:
    """`explain(record, gen, engine)` of every record, equal verdict for verdict, computed
    a predicate at a time (benchmarks/bulk_validation_bench.py prints `validate --json` of
    all-distinct records, which this serves).

    `records` is anything `validate` accepts. Each clause and sub-clause is checked
    once over all the records of its predicate, the field values are read column by
    column, and the checked-fix search runs for the failing records only, batched
    (machine.legality.wire.repair.plan_many); what remains per record is its messages.
    Without `fixes`, no fix is searched (as `explain(..., fixes=False)`).
    """
    return list(iter_explain_many(records, gen, engine, fixes, chunk=None))


def iter_explain_many(records: object, gen: Gen | str, engine: str | None = None,
                      fixes: bool = True,
                      chunk: int | None = EXPLAIN_BATCH) -> Iterator[Verdict]:
    """explain_many's verdicts one by one: the clauses are checked and the fixes searched
    for all the records at once, the verdicts built `chunk` at a time (None: all) as they
    are taken (so a caller writing each out holds at most `chunk` of them)."""
    g = parse_gen(gen)
    ctx = Ctx(g, _engine(engine))
    raw = as_raw(records)
    pid = PREDICATE_INDEX[raw[:, 0]]
    groups: dict[int, _Group] = {}
    where = np.empty(len(raw), dtype=np.intp)  # each record's row within its group
    with _acyclic():
        for p in np.unique(pid).tolist():
            idx = np.flatnonzero(pid == p)
            where[idx] = np.arange(len(idx))
            pred = ALL_PREDICATES[p]
            struct = STRUCTS[pred.struct]
            rec = np.ascontiguousarray(raw[idx]).view(struct.dtype).reshape(-1)
            groups[p] = _Group(pred, struct, rec, ctx, fixes)
    pids, rows = pid.tolist(), where.tolist()
    chunk = chunk or max(len(raw), 1)
    for s in range(0, len(raw), chunk):
        with _acyclic():
            part = [groups[p].verdict(r) for p, r in zip(pids[s:s + chunk], rows[s:s + chunk],
                                                           strict=True)]
        yield from part


@contextmanager
def _acyclic() -> Iterator[None]:
    """No cyclic garbage collection inside: a batch builds ~100 objects per record (results,
    tuples, dicts), none in a cycle, so reference counting frees them all, and the
    collector's passes over the batch's live objects were a third of its time."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class _Group:
    """The records of one predicate's struct, each clause checked once for all of them and
    the failing ones' fixes searched together; `verdict(i)` is explain() of record i."""

    def __init__(self, pred: Predicate, struct: Struct, rec: np.ndarray, ctx: Ctx,
                 fixes: bool) -> None:
        from neurondbg.machine.legality.wire import repair

        clauses, passed = evaluate(pred, rec, ctx)
        rows = Rows(rec, ctx)
        table: dict[int, list[bool]] = {}  # id(clause) -> per record: it passed
        for cl, ok in zip(clauses, passed, strict=True):
            table[id(cl)] = ok.tolist()
            for _, sub in cl.walk():
                if sub is not cl and id(sub) not in table:
                    table[id(sub)] = sub.check(rows).tolist()
        self.pred, self.ctx, self.table = pred, ctx, table
        self.tops = [(cl, table[id(cl)]) for cl in clauses]
        self.values = _values_many(struct, rec)
        failing = [_failing_leaves(*self._at(i), ctx.gen) for i in range(len(rec))]
        bad = [i for i, f in enumerate(failing) if f] if fixes else []
        self.plans = dict(zip(bad, repair.plan_many(pred, struct, rec[bad],
                                                    [self.values[i] for i in bad], ctx,
                                                    [failing[i] for i in bad]), strict=True))

    def _at(self, i: int) -> tuple[list[tuple[Clause, bool]], Callable[[Clause], bool]]:
        table = self.table
        return [(cl, ok[i]) for cl, ok in self.tops], lambda ch: table[id(ch)][i]

    def verdict(self, i: int) -> Verdict:
        tops, passes = self._at(i)
        return _verdict(self.pred, tops, passes, self.values[i], self.ctx, self.plans.get(i))


def _values_many(struct: Struct, rec: np.ndarray) -> list[dict[str, Any]]:
    """machine.isa.codec.record_fields of every record, read a field column at a time."""
    names = [f.name for f in struct.fields]
    cols = [rec[f.name].tolist() if f.count == 1 else [tuple(v) for v in rec[f.name].tolist()]
            for f in struct.fields]
    return [dict(zip(names, row, strict=True)) for row in zip(*cols, strict=True)]


def validate(program_or_records: object, gen: Gen | str, engine: str | None = None,
             progress: Callable[[int], None] | None = None) -> BulkResult:
    """Every clause over every record: per-clause pass arrays, valid flags, failure counts.

    Accepts a machine.isa Program, bytes, an (N, 64) uint8 array or a structured
    record array with 64-byte items. `progress(records just judged)`: validate_raw's.
    """
    return validate_raw(as_raw(program_or_records), parse_gen(gen), _engine(engine),
                        progress=progress)


def summarize(program_or_records: object, gen: Gen | str, engine: str | None = None) -> Summary:
    """validate's counts only (`validate --summary`), in memory bounded by one chunk."""
    return summarize_raw(as_raw(program_or_records), parse_gen(gen), _engine(engine))


@dataclass(frozen=True)
class Levels:
    """Both levels of one instruction: the wire verdict, the NKI intrinsic's, and where
    the two levels' rules disagree for these field values (DESIGN "ISA and legality")."""

    wire: Verdict
    intrinsic: str | None  # the NKI intrinsic the opcode corresponds to, if any
    nki: Verdict | None  # None when no intrinsic corresponds or its rules are not modelled
    disagreements: tuple[Disagreement, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"wire": self.wire.to_dict(), "intrinsic": self.intrinsic,
                "nki": None if self.nki is None else self.nki.to_dict(),
                "disagreements": [d.to_dict() for d in self.disagreements]}


def explain_levels(instruction: OneRecord, gen: Gen | str, engine: str | None = None) -> Levels:
    """`explain` plus the NKI-level verdict and the disagreements (machine.legality.nki)."""
    from neurondbg.machine.isa.codec import record_fields

    g = parse_gen(gen)
    wire = explain(instruction, g, engine)
    raw = _raw_of(instruction)
    from neurondbg.machine.legality.nki import bridge  # lazily: the wire level alone never needs it

    corr = bridge.intrinsic_for_opcode(raw[0])
    if corr is None:
        return Levels(wire, None, None, ())
    struct = STRUCTS[predicate_for(raw[0]).struct]
    fields = record_fields(struct, np.frombuffer(raw, dtype=struct.dtype)[0])
    nki = bridge.check_fields(raw[0], fields, g, engine)
    return Levels(wire, corr.intrinsic, nki,
                  tuple(bridge.disagreements(raw[0], fields, g, engine)))
