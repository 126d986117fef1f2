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

from dataclasses import dataclass
from typing import Any

REFS: tuple[str, ...] = ("000", "001", "002", "003", "004", "isa-facts", "DESIGN")
CONFIDENCES: tuple[str, ...] = ("HIGH", "MED", "LOW")
LEVELS: tuple[str, ...] = ("wire", "nki")


@dataclass(frozen=True)
class Provenance:
    """Where a rule is stated: reference file, section, and its confidence tag."""

    ref: str  # one of REFS
    section: str  # e.g. "§3.3", "GOTCHA 2"
    confidence: str = "HIGH"  # HIGH / MED / LOW, as the reference tags it

    def __post_init__(self) -> None:
        if self.ref not in REFS:
            raise ValueError(f"unknown reference {self.ref!r}; expected one of {REFS}")
        if self.confidence not in CONFIDENCES:
            raise ValueError(f"unknown confidence {self.confidence!r}")

    def __str__(self) -> str:
        where = "DESIGN.md" if self.ref == "DESIGN" else (
            self.ref if self.ref == "isa-facts" else f"ref {self.ref}")
        return f"{where} {self.section} ({self.confidence})"

    def to_dict(self) -> dict[str, str]:
        return {"ref": self.ref, "section": self.section, "confidence": self.confidence}


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


@dataclass(frozen=True)
class Verdict:
    """A predicate's result: every clause, in declaration order."""

    predicate: str
    level: str  # "wire" or "nki"
    clauses: tuple[ClauseResult, ...]

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

    def to_dict(self) -> dict[str, Any]:
        return {
            "predicate": self.predicate,
            "level": self.level,
            "valid": self.valid,
            "failed": list(self.failed),
            "clauses": [c.to_dict() for c in self.clauses],
        }
