"""Legality: predicates as data, evaluated to clause-level verdicts.

`result` holds the shared model (Provenance, ClauseResult, Verdict); `nki`
checks calls at the NKI intrinsic level (reference 004). The wire-level
predicates live in `wire`; `explain` (one instruction), `explain_levels` (wire +
NKI verdicts and their disagreements) and `validate` (a whole file, vectorized)
live in `machine.legality.explain` and are re-exported here.

The re-exports are resolved on first use (PEP 562 `__getattr__`): importing a
submodule such as `machine.legality.wire.bulk` (what `validate --summary` needs)
runs this file first, and must not pay for the explanation API (start-up cost).
"""

from __future__ import annotations

import importlib
import sys
import types

# re-exported name -> the submodule that declares it
_HOMES: dict[str, str] = {
    "ClauseResult": "result", "Provenance": "result", "Verdict": "result",
    "explain": "explain", "explain_levels": "explain", "validate": "explain",
}

__all__ = ["ClauseResult", "Provenance", "Verdict", "explain", "explain_levels", "validate"]


class _Package(types.ModuleType):
    """This package's module type: `explain` is the function, never the submodule.

    The import system binds every loaded submodule on its package (setattr), so once
    `machine.legality.explain` is imported, `machine.legality.explain` would be that
    module and `from machine.legality import explain` would return it; the binding is
    turned into the function of the same name, as the eager re-export used to leave it."""

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType) and _HOMES.get(name) == name:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # later look-ups find it without coming back here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
