"""Bulk validation: every clause of every predicate over a whole program.

Identical records are judged once (real programs repeat instructions: see
`_dedup`); the distinct records are grouped by predicate with one stable sort
of the opcode byte; each group is a contiguous block viewed as its struct's
record array, so every clause runs once per group as a few numpy operations
(no per-record Python). Counts are weighted sums over the distinct records;
per-instruction arrays are gathered through `column` only when asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt

from neurondbg.machine.isa import RECORD_BYTES
from neurondbg.machine.legality.wire import _dedup

# a clause x record pass matrix (bool): rows are clauses, columns records
PassMatrix = np.ndarray[tuple[int, int], np.dtype[np.bool_]]

if TYPE_CHECKING:
    from neurondbg.machine.dtypes import Gen
    from neurondbg.machine.legality.wire.clause import Clause, Ctx, Predicate

# The predicate tables (machine.legality.wire.registry, the clause modules and the ISA
# enums they name) are imported by the functions that judge records, on first use: a
# summary of an empty program, or importing this module, does not build them.


class GroupResult:
    """One predicate's verdicts: a clause x record matrix over the records it judged.

    When the program was deduplicated the records are its distinct records and
    `weights` counts the instructions each one stands for; columns
    `start .. start + size` of the result's column space are this group's.
    (A plain class: a dataclass would exec its generated methods on every start-up.)
    """

    def __init__(self, predicate: Predicate, clauses: tuple[Clause, ...], passed: PassMatrix,
                 weights: npt.NDArray[np.int64] | None, start: int) -> None:
        self.predicate = predicate
        self.clauses = clauses
        self.passed = passed  # bool (n_clauses, size)
        self.weights = weights  # int64 (size,): instructions per judged record; None: 1 each
        self.start = start  # first column of this group (BulkResult.column indexes columns)

    def __repr__(self) -> str:
        return (f"GroupResult({self.predicate.name}, {len(self.clauses)} clauses, "
                f"{self.size} records from column {self.start})")

    @property
    def size(self) -> int:
        return self.passed.shape[1]

    @cached_property
    def fatal(self) -> np.ndarray:
        """Rows of `passed` that count for validity (non-note clauses)."""
        return np.array([not cl.note for cl in self.clauses], dtype=bool)

    @cached_property
    def valid(self) -> np.ndarray:
        """Per judged record: every non-note clause passed."""
        if not self.fatal.any():
            return np.ones(self.size, dtype=bool)
        # numpy types an axis reduction as Any: over axis 0 of the (clauses, size) matrix
        # it is a (size,) bool array
        return cast(np.ndarray, np.all(self.passed[self.fatal], axis=0))

    @cached_property
    def invalid(self) -> int:
        """Instructions (not records) this group finds invalid."""
        if self.weights is None:
            return self.size - int(np.count_nonzero(self.valid))
        return int(self.weights[~self.valid].sum())

    @cached_property
    def fail_counts(self) -> np.ndarray:
        """Per clause: instructions failing it (int64)."""
        if self.weights is None:
            # a row at a time: count_nonzero without an axis is a fast popcount, with
            # axis=1 it is a cast and a sum (several times slower)
            return np.array([self.size - np.count_nonzero(row) for row in self.passed],
                            dtype=np.int64)
        return int(self.weights.sum()) - self.passed.astype(np.int64) @ self.weights


class BulkResult:
    """Validation of a whole program (DESIGN `validate --json` / `--summary`).

    Each instruction's verdict is one column of one group: `column[i]`.
    Summaries (counts) are computed on the groups alone, never per instruction.
    (A plain class, as GroupResult: no dataclass methods exec'd at start-up.)
    """

    def __init__(self, gen: Gen, count: int, engine: str | None,
                 groups: list[GroupResult] | None = None,
                 parts: list[tuple[int, int, np.ndarray | None, np.ndarray | None]] | None
                 = None) -> None:
        self.gen = gen
        self.count = count
        self.engine = engine
        self.groups: list[GroupResult] = [] if groups is None else groups
        # per chunk: (first column, records judged, the judged record at each of its
        # columns or None when in order, the judged record of each instruction or None
        # when every instruction was judged itself)
        self.parts: list[tuple[int, int, np.ndarray | None, np.ndarray | None]] = (
            [] if parts is None else parts)

    def __repr__(self) -> str:
        return (f"BulkResult({self.gen.label}, engine={self.engine!r}, {self.count} "
                f"instructions, {len(self.groups)} groups)")

    @cached_property
    def column(self) -> npt.NDArray[np.intp]:
        """Per instruction: its column (built on first use; summaries never need it)."""
        cols = []
        for base, m, order, inv in self.parts:
            pos = np.arange(m, dtype=np.intp)
            if order is not None:  # the column of each judged record: order's inverse
                pos[order] = pos.copy()
            cols.append(base + (pos if inv is None else pos[inv]))
        return np.concatenate(cols) if cols else np.empty(0, dtype=np.intp)

    @cached_property
    def _starts(self) -> np.ndarray:
        return np.array([g.start for g in self.groups], dtype=np.intp)

    def _per_instruction(self, per_group: Callable[[GroupResult], np.ndarray]) -> np.ndarray:
        """Gather a per-column bool array, built group by group, to instructions."""
        if not self.groups:
            return np.ones(self.count, dtype=bool)
        return np.concatenate([per_group(g) for g in self.groups])[self.column]

    @cached_property
    def valid(self) -> np.ndarray:
        """Per instruction: every non-note clause passed."""
        return self._per_instruction(lambda g: g.valid)

    @cached_property
    def invalid(self) -> int:
        return sum(g.invalid for g in self.groups)

    def verdicts(self) -> list[dict[str, Any]]:
        """One verdict per judged record (per distinct record when deduplicated), in
        column order, as `validate --json` rows carry them: every instruction that is a
        copy of the record shares it (`column[i]` picks instruction i's).

        Records of a group whose clauses pass and fail alike share one verdict object
        (most records of a real program pass everything): memory grows with the
        distinct outcomes, not the records. Treat the verdicts as read-only.
        """
        out: list[dict[str, Any]] = []
        for g in self.groups:
            if g.size == 0:
                continue
            names = [cl.name for cl in g.clauses]
            notes = [cl.note for cl in g.clauses]
            if names:  # each record's pass column as one opaque key: its distinct outcomes
                keys = np.ascontiguousarray(g.passed.T).view(np.dtype((np.void, len(names))))
                _, first, inverse = np.unique(keys.reshape(-1), return_index=True,
                                              return_inverse=True)
            else:
                first, inverse = np.zeros(1, np.intp), np.zeros(g.size, np.intp)
            shared = []
            for col, ok in zip(g.passed[:, first].T.tolist(), g.valid[first].tolist(),
                               strict=True):
                shared.append({
                    "valid": ok, "predicate": g.predicate.name,
                    "failed": [n for n, p, nt in zip(names, col, notes, strict=True)
                               if not nt and not p],
                    "notes": [n for n, p, nt in zip(names, col, notes, strict=True)
                              if nt and not p],
                    "clauses": dict(zip(names, col, strict=True)),
                })
            out.extend([shared[k] for k in inverse.reshape(-1).tolist()])
        return out

    def _counts(self, notes: bool) -> dict[str, int]:
        out: dict[str, int] = {}
        for g in self.groups:
            for cl, n in zip(g.clauses, g.fail_counts.tolist(), strict=True):
                if cl.note == notes and n:
                    out[cl.name] = out.get(cl.name, 0) + n
        return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))

    @cached_property
    def failures(self) -> dict[str, int]:
        """Failing records per (non-note) clause name, most frequent first."""
        return self._counts(notes=False)

    @cached_property
    def note_failures(self) -> dict[str, int]:
        """Records per failing note-level clause (reported, not fatal)."""
        return self._counts(notes=True)

    @cached_property
    def clause_names(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for g in self.groups:
            for cl in g.clauses:
                seen.setdefault(cl.name)
        return tuple(seen)

    def applies(self, name: str) -> np.ndarray:
        """Per instruction: the clause `name` was evaluated for it."""
        return self._per_instruction(
            lambda g: np.full(g.size, any(cl.name == name for cl in g.clauses)))

    def passed(self, name: str) -> np.ndarray:
        """Per instruction: clause `name` passed (True where it does not apply)."""
        def column(g: GroupResult) -> np.ndarray:
            for k, cl in enumerate(g.clauses):
                if cl.name == name:
                    # numpy types an integer index as Any: a row of the matrix is (size,) bool
                    return cast(np.ndarray, g.passed[k])
            return np.ones(g.size, dtype=bool)
        return self._per_instruction(column)

    def locate(self, i: int) -> tuple[GroupResult, int]:
        """The group that judged instruction i and its column within that group."""
        col = int(self.column[i])
        gi = int(np.searchsorted(self._starts, col, side="right")) - 1
        g = self.groups[gi]
        return g, col - g.start

    def indices_of(self, g: GroupResult) -> np.ndarray:
        """The instructions group `g` judged, ascending."""
        return np.flatnonzero((self.column >= g.start) & (self.column < g.start + g.size))

    def predicate_of(self, i: int) -> Predicate:
        return self.locate(i)[0].predicate

    def clauses_of(self, i: int) -> dict[str, bool]:
        """Every clause of instruction i and whether it passed."""
        g, k = self.locate(i)
        return {cl.name: bool(ok) for cl, ok in zip(g.clauses, g.passed[:, k], strict=True)}

    def failed_of(self, i: int) -> list[str]:
        """The failing non-note clauses of instruction i."""
        g, k = self.locate(i)
        return [cl.name for cl, ok in zip(g.clauses, g.passed[:, k], strict=True)
                if not ok and not cl.note]


def as_raw(data: object) -> np.ndarray:
    """(N, 64) uint8 from a Program, bytes, a uint8 array or a structured record array."""
    src: object = getattr(data, "raw", data)
    if isinstance(src, bytes | bytearray | memoryview):
        src = np.frombuffer(src, dtype=np.uint8)
    raw = np.asarray(src)
    if raw.dtype.names is not None or raw.dtype == np.void:
        if raw.dtype.itemsize != RECORD_BYTES:
            raise ValueError(f"records must be {RECORD_BYTES} bytes, got {raw.dtype.itemsize}")
        raw = np.ascontiguousarray(raw).view(np.uint8)
    if raw.dtype != np.uint8:
        raise ValueError(f"expected uint8 records, got {raw.dtype}")
    if raw.size % RECORD_BYTES:
        raise ValueError(f"{raw.size} bytes is not a whole number of {RECORD_BYTES}-byte records")
    return raw.reshape(-1, RECORD_BYTES)


def evaluate(pred: Predicate, rec: np.ndarray, ctx: Ctx) -> tuple[tuple[Clause, ...], PassMatrix]:
    """(clauses, pass matrix) of one predicate over a record array of its struct."""
    from neurondbg.machine.legality.wire.clause import Rows
    from neurondbg.machine.legality.wire.registry import engine_clause

    clauses = pred.clauses_for(ctx.gen)
    if ctx.engine is not None:
        clauses = (*clauses, engine_clause(ctx.engine))
    rows = Rows(rec, ctx)
    passed = np.empty((len(clauses), len(rec)), dtype=bool)
    for k, cl in enumerate(clauses):
        passed[k] = cl.check(rows)
    return clauses, passed


def load_tables() -> None:
    """Import the predicate tables now (the judging functions import them on first use),
    for a caller that imports them its own way (`validate`: neurondbg.cli.frozen_imports)."""
    import neurondbg.machine.isa.structs
    import neurondbg.machine.legality.wire.registry  # noqa: F401


CHUNK = 1 << 20  # records per deduplication pass: bounds its temporaries
Judged = Callable[[int], None]  # validate_raw's progress: records just judged
SUB = 1 << 20  # records sorted by predicate per pass without deduplication
BLOCK = 1 << 14  # records per evaluation of a predicate's clauses: 1 MiB, stays in cache
MAX_DISTINCT = 0.5  # deduplicate when at most this fraction of a chunk's records is distinct


def validate_raw(raw: np.ndarray, gen: Gen, engine: str | None = None,
                 chunk: int = CHUNK, dedup: bool = True,
                 progress: Judged | None = None) -> BulkResult:
    """Validate (N, 64) uint8 records under `gen` (and `engine`), `chunk` records at a time.

    With `dedup`, each distinct record of a chunk is judged once (machine.legality.
    wire._dedup); the per-clause results are the same either way. `progress(k)` is
    called as each block of up to BLOCK judged records is done, `k` the records of the
    program it stands for (a distinct record counts each of its copies), so the calls
    add up to N; an exception it raises (an interrupt) stops the validation there.
    """
    from neurondbg.machine.legality.wire.clause import Ctx

    ctx = Ctx(gen, engine)
    n = raw.shape[0]
    result = BulkResult(gen, n, engine)
    words = np.ascontiguousarray(raw).view(np.uint64)  # a record = 8 words
    buffer = np.empty((min(n, chunk, BLOCK), 8), dtype=np.uint64)  # reused gather buffer
    for start in range(0, n, chunk):
        part = words[start:start + chunk]
        found = _dedup.dedup(part, MAX_DISTINCT) if dedup else None
        if found is None:
            for s in range(0, len(part), SUB):
                _judge(part[s:s + SUB], None, ctx, result, buffer, progress)
        else:
            _judge(part, found, ctx, result, buffer, progress)
    return result


def _judge(words: np.ndarray, found: tuple[np.ndarray, np.ndarray] | None, ctx: Ctx,
           result: BulkResult, buffer: np.ndarray, progress: Judged | None = None) -> None:
    """Judge records (the distinct ones when `found` = (keep, inverse)) grouped by predicate,
    one contiguous block per group, and record where each instruction's column is."""
    from neurondbg.machine.isa.structs import STRUCTS
    from neurondbg.machine.legality.wire.registry import ALL_PREDICATES, PREDICATE_INDEX

    base = result.groups[-1].start + result.groups[-1].size if result.groups else 0
    weights: np.ndarray | None = None
    if found is None:
        records, inverse = words, None
    else:
        keep, inverse = found
        records = words[keep]
        weights = np.bincount(inverse, minlength=len(keep)).astype(np.int64, copy=False)
    m = len(records)
    pid = PREDICATE_INDEX[records.view(np.uint8)[:, 0]]
    counts = np.bincount(pid, minlength=len(ALL_PREDICATES))
    present = np.flatnonzero(counts)
    starts = np.concatenate(([0], np.cumsum(counts)))
    order = None if len(present) <= 1 else np.argsort(pid, kind="stable")
    if order is not None and weights is not None:
        weights = weights[order]
    result.parts.append((base, m, order, inverse))
    for p in present:
        pred = ALL_PREDICATES[p]
        dtype = STRUCTS[pred.struct].dtype
        # a group is judged BLOCK records at a time: each block is gathered just before its
        # clauses read it, so it is still in cache for all of them, and the clauses' numpy
        # calls are few per record (each evaluation's fixed cost spread over a full block)
        for s in range(int(starts[p]), int(starts[p + 1]), BLOCK):
            e = min(s + BLOCK, int(starts[p + 1]))
            if order is None:
                block = records[s:e]
            else:
                # whole rows as 8 words (far faster than uint8 fancy indexing), into the
                # buffer (checks return new arrays, never views of it). The indices are a
                # permutation: "clip" never clips, and unlike the default "raise" it lets
                # take write into `out` without buffering it (2x faster)
                block = np.take(records, order[s:e], axis=0, out=buffer[:e - s], mode="clip")
            clauses, passed = evaluate(pred, block.view(dtype).reshape(-1), ctx)
            w = None if weights is None else weights[s:e]
            result.groups.append(GroupResult(pred, clauses, passed, w, base + s))
            if progress is not None:
                progress(e - s if w is None else int(w.sum()))


class Summary:
    """The counts of a BulkResult (`validate --summary`), without its per-record matrices.

    Compared by value. A plain class, as GroupResult (no dataclass methods exec'd at
    start-up); not a NamedTuple, whose `count` field would shadow `tuple.count`.
    """

    __slots__ = ("count", "engine", "failures", "gen", "invalid", "note_failures")

    def __init__(self, gen: Gen, count: int, engine: str | None, invalid: int,
                 failures: dict[str, int], note_failures: dict[str, int]) -> None:
        self.gen = gen
        self.count = count
        self.engine = engine
        self.invalid = invalid
        self.failures = failures  # failing instructions per non-note clause, most first
        self.note_failures = note_failures

    def _key(self) -> tuple[Gen, int, str | None, int, dict[str, int], dict[str, int]]:
        return (self.gen, self.count, self.engine, self.invalid, self.failures,
                self.note_failures)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Summary) and self._key() == other._key()

    def __repr__(self) -> str:
        return (f"Summary({self.gen.label}, count={self.count}, engine={self.engine!r}, "
                f"invalid={self.invalid}, failures={self.failures}, "
                f"note_failures={self.note_failures})")


def summarize_raw(raw: np.ndarray, gen: Gen, engine: str | None = None,
                  chunk: int = CHUNK) -> Summary:
    """validate_raw's counts, `chunk` records at a time, each chunk's verdicts dropped once
    counted: memory stays one chunk's whatever the program's length, and the counts are
    validate_raw's own (it judges chunk by chunk too)."""
    return summarize_chunks((raw[s:s + chunk] for s in range(0, raw.shape[0], chunk)),
                            gen, engine)


def summarize_chunks(chunks: Iterable[np.ndarray], gen: Gen,
                     engine: str | None = None) -> Summary:
    """summarize_raw over a program given as successive (n, 64) uint8 blocks of records
    (a file read block by block into one buffer: nothing of a block is kept once it is
    counted, so the caller may overwrite it when the next one is asked for). Each block
    is judged as one chunk: blocks of CHUNK records count as summarize_raw's do."""
    n = invalid = 0
    fails: dict[str, int] = {}
    notes: dict[str, int] = {}
    for raw in chunks:
        part = validate_raw(raw, gen, engine, max(1, raw.shape[0]))
        n += part.count
        invalid += part.invalid
        for name, k in part.failures.items():
            fails[name] = fails.get(name, 0) + k
        for name, k in part.note_failures.items():
            notes[name] = notes.get(name, 0) + k
    return Summary(gen, n, engine, invalid, _most_first(fails), _most_first(notes))


def _most_first(counts: dict[str, int]) -> dict[str, int]:
    """BulkResult's order of counts: most frequent first, then by name."""
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
