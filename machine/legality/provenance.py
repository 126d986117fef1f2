"""Where a legality rule is stated: `Provenance` (re-exported by machine.legality.result).

Its own module because every clause declaration names one: the predicate tables
(machine.legality.wire) import this, not the result model (ClauseResult, Verdict) that
only explanations build, so `validate --summary` does not declare those at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

REFS: tuple[str, ...] = ("000", "001", "002", "003", "004", "isa-facts", "DESIGN")
CONFIDENCES: tuple[str, ...] = ("HIGH", "MED", "LOW")


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
