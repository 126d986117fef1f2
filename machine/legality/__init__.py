"""Legality: predicates as data, evaluated to clause-level verdicts.

`result` holds the shared model (Provenance, ClauseResult, Verdict); `nki`
checks calls at the NKI intrinsic level (reference 004). The wire-level
predicates live in `wire`; `explain` (one instruction), `explain_levels` (wire +
NKI verdicts and their disagreements) and `validate` (a whole file, vectorized)
live in `machine.legality.explain` and are re-exported here.
"""

from __future__ import annotations

# Imported eagerly: a lazy re-export cannot work here, because the submodule
# `machine.legality.explain` would shadow the function of the same name.
from machine.legality.explain import explain, explain_levels, validate
from machine.legality.result import ClauseResult, Provenance, Verdict

__all__ = ["ClauseResult", "Provenance", "Verdict", "explain", "explain_levels", "validate"]
