"""The legality result model shared by the wire and NKI levels.

A predicate (``is_valid_cast``, ``select_reduce``, ...) evaluates to a
`Verdict`: one `ClauseResult` per clause, each naming the reference rule it
checks (DESIGN.md "ISA and legality": clause names are the reference's, with
the operand in parentheses where one predicate applies to several operands),
whether it passed, a message with the actual values, an optional fix hint and
where the rule comes from. Plain frozen dataclasses: the UI renders them, the
CLI serialises them with `to_dict`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from typing import Any

# declared beside the clause tables, which need it alone; part of this model all the same
from neurondbg.machine.legality.provenance import CONFIDENCES, REFS, Provenance

__all__ = ["CONFIDENCES", "LEVELS", "PATH_SEP", "REFS", "ClauseResult", "Provenance", "Verdict"]

LEVELS: tuple[str, ...] = ("wire", "nki")
PATH_SEP = " › "  # between a clause and its sub-clause in a report's path


@dataclass(frozen=True)
class ClauseResult:
    """One clause of a predicate, evaluated on one instruction or call."""

    name: str
    passed: bool
    message: str  # the actual values and the rule
    fix: str | None
    provenance: Provenance
    fields: tuple[str, ...]  # the fields / args the clause reads
    note: bool = False  # note-level: reported, never makes the verdict invalid
    # the reference's sub-clauses (a parent fails exactly when a child does)
    children: tuple[ClauseResult, ...] = ()
    # a checked fix: field edits that, applied to a copy of the record, make the whole
    # predicate pass (machine.legality.wire.repair); None when no edit was found
    fix_fields: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "message": self.message,
            "fix": self.fix,
            "provenance": self.provenance.to_dict(),
            "fields": list(self.fields),
            "note": self.note,
        }

    def tree_dict(self) -> dict[str, Any]:
        """The `validate --json` tree node: name, ok, message, fix, provenance, children."""
        fix = None
        if self.fix is not None or self.fix_fields is not None:
            fix = {"fields": _jsonable(self.fix_fields), "text": self.fix}
        return {"name": self.name, "ok": self.passed, "message": self.message, "fix": fix,
                "provenance": self.provenance.to_dict(),
                "children": [c.tree_dict() for c in self.children]}

    def tree_json(self) -> str:
        """json.dumps(self.tree_dict()), written directly (`validate --json` writes one per
        clause of every record: building the dicts first was a third of its time)."""
        fix = "null"
        if self.fix is not None or self.fix_fields is not None:
            text = "null" if self.fix is None else _str(self.fix)
            fix = f'{{"fields": {json.dumps(_jsonable(self.fix_fields))}, "text": {text}}}'
        children = ", ".join(c.tree_json() for c in self.children)
        return (f'{{"name": {_str(self.name)}, "ok": {"true" if self.passed else "false"}, '
                f'"message": {_str(self.message)}, "fix": {fix}, '
                f'"provenance": {_provenance_json(self.provenance)}, "children": [{children}]}}')

    def failing_paths(self, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...],
                                                                      ClauseResult]]:
        """(names from this clause down, leaf) for every failing leaf under this clause."""
        here = (*path, self.name)
        if self.passed:
            return []
        below = [p for c in self.children for p in c.failing_paths(here)]
        return below or [(here, self)]


_str = encode_basestring_ascii  # json.dumps's own string encoder (ensure_ascii)


@functools.cache
def _provenance_json(p: Provenance) -> str:
    return json.dumps(p.to_dict())


def _jsonable(fields: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if fields is None:
        return None
    return {k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()}


@dataclass(frozen=True)
class Verdict:
    """A predicate's result: every clause, in declaration order."""

    predicate: str
    level: str  # "wire" or "nki"
    clauses: tuple[ClauseResult, ...]
    # the smallest checked edit set that makes the whole predicate pass (None: valid, or
    # no such edit), and why none exists when the record is invalid and it is None
    fix_fields: Mapping[str, Any] | None = None
    no_fix: str | None = None
    # with no fix_fields: the checked edits of the clauses that can be fixed, when others
    # cannot (every clause but those passes after them); `no_fix` says why the rest not
    partial_fix: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"unknown level {self.level!r}; expected one of {LEVELS}")

    @property
    def valid(self) -> bool:
        """True when every non-note clause passed."""
        return all(c.passed for c in self.clauses if not c.note)

    @property
    def failed(self) -> tuple[str, ...]:
        """Names of the failing non-note clauses."""
        return tuple(c.name for c in self.clauses if not c.passed and not c.note)

    @property
    def notes(self) -> tuple[str, ...]:
        """Names of the failing note-level clauses (reported, not fatal)."""
        return tuple(c.name for c in self.clauses if not c.passed and c.note)

    def clause(self, name: str) -> ClauseResult:
        """The clause called `name` (KeyError if the predicate has none)."""
        for c in self.clauses:
            if c.name == name:
                return c
        raise KeyError(name)

    def node(self, path: str) -> ClauseResult:
        """The clause at `path`, names joined by PATH_SEP (`tensor4d_valid(dst) ›
        tensor_start_addr_valid › addr_aligned_dtype`); KeyError if there is none."""
        first, *rest = path.split(PATH_SEP)
        node = self.clause(first)
        for name in rest:
            child = next((c for c in node.children if c.name == name), None)
            if child is None:
                raise KeyError(path)
            node = child
        return node

    def failing_paths(self) -> list[str]:
        """Every failing leaf (non-note) as a path string, in tree order."""
        return [PATH_SEP.join(p) for c in self.clauses if not c.note
                for p, _ in c.failing_paths()]

    def to_dict(self) -> dict[str, Any]:
        return {
            "predicate": self.predicate,
            "level": self.level,
            "valid": self.valid,
            "failed": list(self.failed),
            "clauses": [c.to_dict() for c in self.clauses],
        }

    def tree(self) -> list[dict[str, Any]]:
        """Every top-level clause as a `validate --json` tree node (with its children)."""
        return [c.tree_dict() for c in self.clauses]

    def tree_json(self) -> str:
        """json.dumps(self.tree()), without building the dicts."""
        return "[" + ", ".join(c.tree_json() for c in self.clauses) + "]"
