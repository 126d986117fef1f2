"""Clause builders shared by several intrinsics (ref 004 "Common Wrapper Skeleton").

Reference 004 tags its facts CONFIRMED (read from the binary / docstring),
STRONG (read from the body, not cross-checked) and INFERRED. The result model
speaks HIGH / MED / LOW: CONFIRMED and STRONG are HIGH (both observed), and
INFERRED or a rule only implied by the text is MED. The original tag stays in
the provenance section text where the reference gives one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeGuard, cast

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.messages import message, quoting
from neurondbg.machine.legality.nki.spec import Check, ClauseSpec, Intrinsic, Param
from neurondbg.machine.legality.nki.vocab import (
    NATIVE_FROM,
    NkiDtype,
    ReduceCmd,
    Scalar,
    Tile,
    gen_label,
    show_cmds,
    show_set,
)
from neurondbg.machine.legality.result import Provenance

UNEXPECTED = "_unexpected"  # reserved args key: the keyword names the signature lacks
MISSING = "_missing"  # reserved args key: the required parameters the call did not pass


def ref004(section: str, confidence: str = "HIGH") -> Provenance:
    return Provenance("004", section, confidence)


def clause(name: str, reads: tuple[str, ...] | str, rule: str, check: Check,
           provenance: Provenance, fix: str | None = None, note: bool = False) -> ClauseSpec:
    reads = (reads,) if isinstance(reads, str) else reads
    return ClauseSpec(name, reads, rule, check, provenance, fix, note)


def signature(intrinsic: str, params: tuple[Param, ...], provenance: Provenance,
              why: str = "") -> ClauseSpec:
    """Every keyword the call passes is a parameter of the signature."""
    names = ", ".join(p.name for p in params)

    def check(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
        extra, missing = args.get(UNEXPECTED, ()), args.get(MISSING, ())
        problems = []
        if missing:
            problems.append(f"{intrinsic}() missing required argument(s) "
                            + ", ".join(repr(m) for m in missing))
        if extra:
            listed = ", ".join(repr(e) for e in extra)
            problems.append(f"{intrinsic}() got unexpected keyword argument(s) {listed}")
        if problems:
            return False, "; ".join(problems) + f"; its parameters are ({names}){why}"
        return True, f"every argument is a parameter of {intrinsic}({names})"

    return clause("signature", UNEXPECTED, f"only the parameters ({names}), the required "
                  "ones given", check, provenance,
                  fix="pass the required argument(s); remove the unexpected ones")


def given(*names: str) -> Callable[[Callable[..., tuple[bool, str]]], Check]:
    """Make a rule over the named arguments' values a Check that passes, as "<a> or <b>
    not given", while one of them is None: a missing argument is reported once, by its
    assert_not_none clause, not again by every rule that reads it."""
    absent = f"{' or '.join(names)} not given"

    def wrap(rule: Callable[..., tuple[bool, str]]) -> Check:
        def check(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
            values = [args.get(n) for n in names]
            if any(v is None for v in values):
                return True, absent
            return rule(*values)
        return check
    return wrap


def not_none(arg: str) -> ClauseSpec:
    """sema.assert_not_none over one required argument (the wrapper skeleton)."""
    def check(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
        if args.get(arg) is None:
            return False, f"{arg} is None: a required argument must be given"
        return True, f"{arg} is {args[arg]}"
    return clause(f"assert_not_none({arg})", arg, f"{arg} is not None", check,
                  ref004("Common Wrapper Skeleton"), fix=f"pass a value for {arg}")


def intrinsic(name: str, engine: str, params: tuple[Param, ...], source: str, doc: str,
              signed: Provenance, *rules: ClauseSpec, asserted: tuple[str, ...] = (),
              why: str = "") -> Intrinsic:
    """An intrinsic whose clauses follow the wrapper skeleton (ref 004): the signature
    check, then assert_not_none over `asserted` (in that order), then its own `rules`.

    The name and the parameter table are written once; the signature clause is built
    from them (`signed` is where the reference gives the signature, `why` adds to the
    unexpected-keyword message).
    """
    head = (signature(name, params, signed, why), *(not_none(a) for a in asserted))
    return Intrinsic(name, engine, params, head + rules, source, doc=doc)


def reduce_cmd_gate(name: str, intrinsic: str, legal: frozenset[ReduceCmd],
                    why: Mapping[ReduceCmd, str], provenance: Provenance,
                    fix: str | None = None) -> ClauseSpec:
    """_check_supported_reduce_cmd with a per-op supported set (ref 004 reduce_cmd).

    `why` adds a per-command explanation to the failure message (the traps).
    """
    legal_text = show_cmds(legal)

    def check(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
        cmd: ReduceCmd = args["reduce_cmd"]
        if cmd in legal:
            return True, f"reduce_cmd {cmd.name} ({int(cmd)}) is in {intrinsic}'s set {legal_text}"
        return False, (f"reduce_cmd {cmd.name} ({int(cmd)}) is not in {intrinsic}'s supported "
                       f"set {legal_text}{why.get(cmd, '')}")

    # every per-op gate forwards to the core, which raises through this sema helper
    core = tuple(n for n in ("_check_supported_reduce_cmd", "err_instruction_unsupported_op")
                 if n != name)
    return quoting(clause(name, "reduce_cmd", f"reduce_cmd in {legal_text}", check, provenance,
                          fix), aliases=core)


def dtype_in(name: str, arg: str, legal: frozenset[NkiDtype], why: str,
             provenance: Provenance, fix: str | None = None, *,
             when: str | None = None) -> ClauseSpec:
    """A tile/scalar argument's dtype is in a legal set (skipped when the arg is None)."""
    legal_text = show_set(legal)

    def check(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
        value = args.get(arg)
        if value is None:
            return True, f"{arg} not given"
        if value.dtype in legal:
            return True, f"{arg} dtype {value.dtype} is in {legal_text}"
        return False, f"{arg} dtype {value.dtype} is not in {legal_text}{why}"

    rule = f"{arg}.dtype in {legal_text}" + (f" {when}" if when else "")
    return clause(name, arg, rule, check, provenance, fix)


def op_in(name: str, arg: str, legal: tuple[str, ...], why: str,
          provenance: Provenance, fix: str | None = None) -> ClauseSpec:
    """An op argument names one of the legal numpy ops."""
    legal_text = "{" + ", ".join(f"np.{o}" for o in legal) + "}"

    def check(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
        op = args.get(arg)
        if op in legal:
            return True, f"{arg} np.{op} is in {legal_text}"
        return False, f"{arg} {_op_text(op)} is not in {legal_text}{why}"

    return clause(name, arg, f"{arg} in {legal_text}", check, provenance, fix)


def out_dtype(args: Mapping[str, Any], base: str) -> NkiDtype | None:
    """The instruction's output dtype: `dtype` if given, else the `base` arg's dtype."""
    given = args.get("dtype")
    if given is not None:  # parsed (machine.legality.nki.args): an NkiDtype
        return cast(NkiDtype, given)
    value = args.get(base)
    return value.dtype if isinstance(value, (Tile, Scalar)) else None


def _op_text(op: str | None) -> str:
    return "None" if op is None else f"np.{op}"


def is_tile(x: object) -> TypeGuard[Tile]:
    return isinstance(x, Tile)


def is_scalar(x: object) -> TypeGuard[Scalar]:
    return isinstance(x, Scalar)


def same_partitions(names: tuple[str, ...]) -> Check:
    """The given tile arguments (those passed) have one partition-dim size."""
    def check(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
        sizes = {n: t.partitions for n in names if (t := args.get(n)) is not None}
        shown = ", ".join(f"{n} {p}" for n, p in sizes.items())
        if len(set(sizes.values())) <= 1:
            return True, f"partition sizes match: {shown}"
        return False, f"partition sizes differ: {shown}; they must match"
    return check


def out_dtype_in(source: str, legal: frozenset[NkiDtype], what: str) -> Check:
    """The output dtype (`dtype`, else `source`'s) is in `legal`, described as `what`."""
    def check(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
        out = out_dtype(args, source)
        if out is None or out in legal:
            return True, f"output dtype {out} is {what}"
        return False, f"output dtype {out} is not {what}"
    return check


def gated_dtypes(args: Mapping[str, Any]) -> list[tuple[str, NkiDtype]]:
    """(argument, dtype) of every argument whose dtype is native from a later generation."""
    out = []
    for name, value in args.items():
        dtype = value if isinstance(value, NkiDtype) else getattr(value, "dtype", None)
        if isinstance(dtype, NkiDtype) and dtype.name in NATIVE_FROM:
            out.append((name, dtype))
    return out


def _native(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    bad = [(n, d) for n, d in gated_dtypes(args) if gen < NATIVE_FROM[d.name]]
    if bad:
        shown = ", ".join(f"{n} {d}" for n, d in bad)
        first = NATIVE_FROM[bad[0][1].name]
        return False, (f"{shown}: not supported on {gen_label(gen)} (native from "
                       f"{gen_label(first)} on: \"F8E4M3FN not supported on TRN1/TRN2\")")
    return True, "every dtype is native on " + gen_label(gen)


# Added to a call's verdict only when an argument uses such a dtype (check.evaluate).
NATIVE_DTYPE = quoting(clause("dtype_native_on_gen", (), "float8_e4m3fn only on trn3+", _native,
                              Provenance("isa-facts", "§8.2 CAUTION (public NKI docs)", "MED"),
                              fix="use float8_e4m3 before trn3, or target trn3"),
                       message("F8E4M3FN not supported on TRN1/TRN2", "isa-facts §8.2"))
