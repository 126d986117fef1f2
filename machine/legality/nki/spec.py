"""How an NKI intrinsic's legality is declared: its parameters and its clauses.

An `Intrinsic` is data: the parameter table of its signature (ref 004 gives
each one) and an ordered list of `ClauseSpec`. A clause reads some arguments,
checks them against the generation, and states the actual values and the rule
in its message. `machine.legality.nki.check` evaluates them into a `Verdict`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.messages import MessagePattern
from neurondbg.machine.legality.result import Provenance

# A check returns (passed, message); the message states the values either way.
Check = Callable[[Mapping[str, Any], Gen], tuple[bool, str]]


@dataclass(frozen=True)
class Param:
    """One parameter of an intrinsic's signature."""

    name: str
    kind: str  # a parser name in machine.legality.nki.args.PARSERS
    required: bool = False
    default: Any = None  # already parsed (a ReduceCmd, "unknown", False, ...)


@dataclass(frozen=True)
class ClauseSpec:
    """One legality rule of an intrinsic."""

    name: str  # the reference's validator name, or a short name for a stated rule
    reads: tuple[str, ...]  # the args it reads
    rule: str  # the rule in one line, for listings
    check: Check
    provenance: Provenance
    fix: str | None = None
    note: bool = False  # advisory: reported, never makes the call illegal
    # the messages the references quote for this rule, and the other names they give it
    # (machine.legality.messages.quoting): `explain` finds the rule by either
    messages: tuple[MessagePattern, ...] = ()
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Intrinsic:
    """An nki.isa intrinsic: signature and clauses (ref 004 catalogue)."""

    name: str
    engine: str  # "Vector", "GpSimd", "DMA", ...
    params: tuple[Param, ...]
    clauses: tuple[ClauseSpec, ...]
    source: str  # "neuron_isa.py:1591"
    var_kwargs: bool = False  # accepts **kwargs (builtin_custom_op)
    doc: str = ""
    param_index: dict[str, Param] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "param_index", {p.name: p for p in self.params})
