"""Bulk validation: every clause of every predicate over a whole program.

Records are grouped by predicate with one stable counting sort of the opcode
byte; each group is a contiguous block viewed as its struct's record array, so
every clause runs once per group as a few numpy operations (no per-record
Python). Per-instruction results are scattered back only when asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from machine.dtypes import Gen
from machine.isa.spec import RECORD_BYTES
from machine.isa.structs import STRUCTS
from machine.legality.wire.clause import Clause, Ctx, Predicate, Rows
from machine.legality.wire.registry import ALL_PREDICATES, PREDICATE_INDEX, engine_clause


@dataclass
class GroupResult:
    """The records one predicate judged: their indices and a clause x record matrix."""

    predicate: Predicate
    clauses: tuple[Clause, ...]
    indices: np.ndarray  # int64 positions in the program
    passed: np.ndarray  # bool (n_clauses, n_records)

    @cached_property
    def fatal(self) -> np.ndarray:
        """Rows of `passed` that count for validity (non-note clauses)."""
        return np.array([not cl.note for cl in self.clauses], dtype=bool)

    @cached_property
    def valid(self) -> np.ndarray:
        if not self.fatal.any():
            return np.ones(len(self.indices), dtype=bool)
        return np.all(self.passed[self.fatal], axis=0)


@dataclass
class BulkResult:
    """Validation of a whole program (DESIGN `validate --json` / `--summary`)."""

    gen: Gen
    count: int
    engine: str | None
    groups: list[GroupResult] = field(default_factory=list)

    @cached_property
    def valid(self) -> np.ndarray:
        """Per instruction: every non-note clause passed."""
        out = np.ones(self.count, dtype=bool)
        for g in self.groups:
            out[g.indices] = g.valid
        return out

    @cached_property
    def invalid(self) -> int:
        return int(sum(int(np.count_nonzero(~g.valid)) for g in self.groups))

    def _counts(self, notes: bool) -> dict[str, int]:
        out: dict[str, int] = {}
        for g in self.groups:
            fails = len(g.indices) - np.count_nonzero(g.passed, axis=1)
            for cl, n in zip(g.clauses, fails, strict=True):
                if cl.note == notes and n:
                    out[cl.name] = out.get(cl.name, 0) + int(n)
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
        out = np.zeros(self.count, dtype=bool)
        for g in self.groups:
            if any(cl.name == name for cl in g.clauses):
                out[g.indices] = True
        return out

    def passed(self, name: str) -> np.ndarray:
        """Per instruction: clause `name` passed (True where it does not apply)."""
        out = np.ones(self.count, dtype=bool)
        for g in self.groups:
            for k, cl in enumerate(g.clauses):
                if cl.name == name:
                    out[g.indices] = g.passed[k]
        return out

    @cached_property
    def _locate(self) -> tuple[np.ndarray, np.ndarray]:
        group = np.zeros(self.count, dtype=np.int64)
        row = np.zeros(self.count, dtype=np.int64)
        for gi, g in enumerate(self.groups):
            group[g.indices] = gi
            row[g.indices] = np.arange(len(g.indices))
        return group, row

    def predicate_of(self, i: int) -> Predicate:
        return self.groups[int(self._locate[0][i])].predicate

    def clauses_of(self, i: int) -> dict[str, bool]:
        """Every clause of instruction i and whether it passed."""
        g = self.groups[int(self._locate[0][i])]
        col = g.passed[:, int(self._locate[1][i])]
        return {cl.name: bool(ok) for cl, ok in zip(g.clauses, col, strict=True)}

    def failed_of(self, i: int) -> list[str]:
        """The failing non-note clauses of instruction i."""
        g = self.groups[int(self._locate[0][i])]
        col = g.passed[:, int(self._locate[1][i])]
        return [cl.name for cl, ok in zip(g.clauses, col, strict=True) if not ok and not cl.note]


def as_raw(data) -> np.ndarray:
    """(N, 64) uint8 from a Program, bytes, a uint8 array or a structured record array."""
    raw = getattr(data, "raw", data)
    if isinstance(raw, bytes | bytearray | memoryview):
        raw = np.frombuffer(raw, dtype=np.uint8)
    raw = np.asarray(raw)
    if raw.dtype.names is not None or raw.dtype == np.void:
        if raw.dtype.itemsize != RECORD_BYTES:
            raise ValueError(f"records must be {RECORD_BYTES} bytes, got {raw.dtype.itemsize}")
        raw = np.ascontiguousarray(raw).view(np.uint8)
    if raw.dtype != np.uint8:
        raise ValueError(f"expected uint8 records, got {raw.dtype}")
    if raw.size % RECORD_BYTES:
        raise ValueError(f"{raw.size} bytes is not a whole number of {RECORD_BYTES}-byte records")
    return raw.reshape(-1, RECORD_BYTES)


def evaluate(pred: Predicate, rec: np.ndarray, ctx: Ctx) -> tuple[tuple[Clause, ...], np.ndarray]:
    """(clauses, pass matrix) of one predicate over a record array of its struct."""
    clauses = pred.clauses_for(ctx.gen)
    if ctx.engine is not None:
        clauses = (*clauses, engine_clause(ctx.engine))
    rows = Rows(rec, ctx)
    passed = np.empty((len(clauses), len(rec)), dtype=bool)
    for k, cl in enumerate(clauses):
        passed[k] = cl.check(rows)
    return clauses, passed


CHUNK = 1 << 20  # records per pass: bounds the sorted copy's memory; the buffer is reused


def validate_raw(raw: np.ndarray, gen: Gen, engine: str | None = None,
                 chunk: int = CHUNK) -> BulkResult:
    """Validate (N, 64) uint8 records under `gen` (and `engine`), `chunk` records at a time."""
    ctx = Ctx(gen, engine)
    n = raw.shape[0]
    result = BulkResult(gen, n, engine)
    words = np.ascontiguousarray(raw).view(np.uint64)  # a record = 8 words
    buffer = np.empty((min(n, chunk), RECORD_BYTES // 8), dtype=np.uint64)
    for start in range(0, n, chunk):
        _validate_chunk(words[start:start + chunk], start, ctx, result, buffer)
    return result


def _validate_chunk(words: np.ndarray, base: int, ctx: Ctx, result: BulkResult,
                    buffer: np.ndarray) -> None:
    n = words.shape[0]
    pid = PREDICATE_INDEX[words.view(np.uint8)[:, 0]]
    counts = np.bincount(pid, minlength=len(ALL_PREDICATES))
    present = np.flatnonzero(counts)
    if len(present) == 1:
        order = np.arange(n)
        blocks = words
    else:
        order = np.argsort(pid, kind="stable")
        # whole 64-byte rows as 8 uint64 words: far faster than uint8 fancy indexing;
        # a fresh copy per group block keeps results independent of the reused buffer
        blocks = np.take(words, order, axis=0, out=buffer[:n])
    starts = np.concatenate(([0], np.cumsum(counts)))
    for p in present:
        s, e = int(starts[p]), int(starts[p + 1])
        pred = ALL_PREDICATES[p]
        rec = blocks[s:e].view(STRUCTS[pred.struct].dtype).reshape(-1)
        clauses, passed = evaluate(pred, rec, ctx)
        result.groups.append(GroupResult(pred, clauses, order[s:e] + base, passed))
