"""Evaluate NKI calls against the intrinsic catalogue into Verdicts.

A call is `{"op": "select_reduce", "args": {...}, "gen": "trn2"}` (gen
optional, default cayman/trn2). Parsing problems raise `NkiInputError` with
the call index and argument path; legality problems are failing clauses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.nki import dma, memory, reduce, search, select
from neurondbg.machine.legality.nki.args import PARSERS
from neurondbg.machine.legality.nki.common import MISSING, NATIVE_DTYPE, UNEXPECTED, gated_dtypes
from neurondbg.machine.legality.nki.spec import ClauseSpec, Intrinsic
from neurondbg.machine.legality.nki.vocab import NkiInputError, _show, parse_call_gen
from neurondbg.machine.legality.result import ClauseResult, Verdict

CATALOG: dict[str, Intrinsic] = {
    i.name: i
    for module in (reduce, search, select, memory, dma)
    for i in module.INTRINSICS
}
# The clause lists by intrinsic, for listings (the UI, `check-nki --list`).
INTRINSICS: dict[str, tuple[ClauseSpec, ...]] = {n: i.clauses for n, i in CATALOG.items()}


def parse_call(call: Any, where: str = "call",
               default_gen: Gen | None = None) -> tuple[Intrinsic, dict[str, Any], Gen]:
    """The intrinsic, the typed args (defaults filled in) and the generation.

    A call without "gen" uses `default_gen` (else cayman/trn2, DESIGN's default).
    """
    if not isinstance(call, Mapping):
        raise NkiInputError(f"{where}: expected an object {{\"op\", \"args\", \"gen\"}}, "
                            f"got {_show(call)}")
    unknown = sorted(set(call) - {"op", "args", "gen"})
    if unknown:
        raise NkiInputError(f"{where}: unknown key {unknown[0]!r}; expected op, args, gen")
    op = call.get("op")
    if not isinstance(op, str):
        raise NkiInputError(f"{where}.op: expected an intrinsic name string, got {_show(op)}")
    name = op.strip().removeprefix("nisa.").removeprefix("nki.isa.")
    if name not in CATALOG:
        raise NkiInputError(f"{where}.op: unknown intrinsic {op!r}; expected one of: "
                            f"{', '.join(CATALOG)}")
    intrinsic = CATALOG[name]
    raw = call.get("args", {})
    if not isinstance(raw, Mapping):
        raise NkiInputError(f"{where}.args: expected an object of arguments, got {_show(raw)}")
    if call.get("gen") is None and default_gen is not None:
        gen = default_gen
    else:
        gen = parse_call_gen(call.get("gen"), f"{where}.gen")
    return intrinsic, parse_args(intrinsic, raw, f"{where}.args"), gen


def parse_args(intrinsic: Intrinsic, raw: Mapping[str, Any], where: str,
               *, defaults: bool = True) -> dict[str, Any]:
    """Typed args by the signature; unknown keywords go to args[UNEXPECTED], the names of
    missing required arguments to args[MISSING] (the call's own error, judged by its
    signature clause: one bad call does not stop the others from being judged)."""
    args: dict[str, Any] = {}
    missing: list[str] = []
    for p in intrinsic.params:
        if p.name in raw:
            args[p.name] = PARSERS[p.kind](raw[p.name], f"{where}.{p.name}")
        elif p.required and defaults:
            missing.append(p.name)
            args[p.name] = None
        elif defaults:
            args[p.name] = p.default
    extra = tuple(k for k in raw if k not in intrinsic.param_index)
    args[UNEXPECTED] = () if intrinsic.var_kwargs else extra
    args[MISSING] = tuple(missing)
    return args


def evaluate(intrinsic: Intrinsic, args: Mapping[str, Any], gen: Gen,
             *, partial: bool = False) -> Verdict:
    """Run every clause; with `partial`, skip clauses reading an arg not in `args`.

    (Partial evaluation serves the wire level: a decoded instruction determines
    only some of an intrinsic's arguments.)
    """
    results = []
    specs = intrinsic.clauses + ((NATIVE_DTYPE,) if gated_dtypes(args) else ())
    missing = set(args.get(MISSING, ()))
    for spec in specs:
        if partial and any(r not in args for r in spec.reads):
            continue
        # a missing required argument: judged by the signature and its assert_not_none,
        # the rules that read it cannot be
        if missing & set(spec.reads) and not spec.name.startswith("assert_not_none"):
            continue
        # no containment here: a clause that raises is a bug in the catalogue, and it
        # must surface rather than read as a failed clause
        passed, message = spec.check(args, gen)
        results.append(_result(spec, passed, message))
    return Verdict(intrinsic.name, "nki", tuple(results))


def check_call(call: Mapping[str, Any], where: str = "call") -> Verdict:
    """The NKI-level verdict of one call."""
    intrinsic, args, gen = parse_call(call, where)
    return evaluate(intrinsic, args, gen)


def check_calls(calls: object) -> list[Verdict]:
    """Verdicts of a list of calls (parsed JSON: anything until checked); errors name the
    call index ("call 3: ...")."""
    if not isinstance(calls, Sequence) or isinstance(calls, (str, bytes)):
        raise NkiInputError(f"expected a list of calls, got {_show(calls)}")
    return [check_call(c, f"call {i}") for i, c in enumerate(calls)]


# (id of a clause, passed, message) -> (the clause, its ClauseResult). A ClauseResult is
# frozen and everything in it but `passed` and `message` comes from the clause, so calls
# with the same outcome share one (building a 9-field frozen dataclass would be half of
# evaluate's time with check-nki on 100,000 calls). Each entry holds its clause, so
# no other clause can take that id while the entry lives; emptied at MEMO entries.
_RESULTS: dict[tuple[int, bool, str], tuple[ClauseSpec, ClauseResult]] = {}
MEMO = 1 << 15


def _result(spec: ClauseSpec, passed: bool, message: str) -> ClauseResult:
    key = (id(spec), passed, message)
    hit = _RESULTS.get(key)
    if hit is None:
        if len(_RESULTS) >= MEMO:
            _RESULTS.clear()
        hit = _RESULTS[key] = (spec, ClauseResult(spec.name, passed, message,
                                                  None if passed else spec.fix,
                                                  spec.provenance, spec.reads, spec.note))
    return hit[1]
