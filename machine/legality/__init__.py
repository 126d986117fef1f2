"""Legality: predicates as data, evaluated to clause-level verdicts.

`result` holds the shared model (Provenance, ClauseResult, Verdict); `nki`
checks calls at the NKI intrinsic level (reference 004). The wire-level
predicates live in `wire`.
"""

from machine.legality.result import ClauseResult, Provenance, Verdict

__all__ = ["ClauseResult", "Provenance", "Verdict"]
