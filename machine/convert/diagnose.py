"""Rounding forensics: which conversion rule reproduces an observed output, lane by lane.

`diagnose(input_bits, actual_bits, src, dst, reference=None) -> Diagnosis`: for every
lane, the candidate rules (`candidate_rules`: every profile x mode x saturation the
options accept for the pair, and the usual real-world slips) whose output equals
ACTUAL. Vectorized: one `convert` per rule over each chunk of lanes (a source of 16 bits
or fewer: one convert of every code per rule, then a table look-up); one bit per rule
(a uint64 mask) is kept only for the lanes the expected rule misses, so memory beyond
the arrays themselves is a chunk's hits plus 16 bytes per exception.

Decisions where the specification is silent (written here, as the docstring of the tool):
- The expected rule (the baseline) is ieee rint without saturation (the IEEE default,
  what numpy / ml_dtypes `astype` does) unless the caller names another; the summary
  says so when another rule reproduces every lane. With a `reference` array there is
  no expected rule: lanes equal to it are as expected.
- The lanes the baseline does not reproduce are explained greedily: the rule that
  reproduces most of the rest first, and so on; `unexplained` is what no rule reproduces.
  Rules that reproduce as many of the rest are told apart by the lanes each reproduces
  in total (a double rounding via bf16 that contradicts lanes via fp16 reproduces loses
  to via fp16), then by candidate order; the others that reproduce every lane of the
  group are listed with it as equally good for those lanes (`equally_good`).
- Slips: double rounding through fp32, bf16 or fp16 (both legs ieee rint); subnormal
  outputs flushed to zero (FTZ) and subnormal inputs read as zero (DAZ), each with ieee
  rint. NaN-vs-saturate and truncation-instead-of-rounding are already rules (sat, trunc).
- A lane kind (tie, overflow, NaN input, subnormal output, inexact) names the baseline's
  exceptions in the summary ("2,048 ties"): decided on the exact input with floor / ceil.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from neurondbg.machine.convert._trace_model import Step, show
from neurondbg.machine.convert._trace_round import MODE_WORDS
from neurondbg.machine.convert.formats import FORMATS, Format
from neurondbg.machine.convert.kernels import convert, decode_value
from neurondbg.machine.convert.modes import Mode
from neurondbg.machine.convert.options import PROFILES, applied_mode, rules

CHUNK = 1 << 20  # lanes converted at a time (bounds the temporaries)
MAX_EXAMPLES = 3  # example lanes per explaining rule
VIAS: tuple[str, ...] = ("fp32", "bf16", "fp16")


class Stopped(Exception):
    """diagnose() was cancelled between two rules' conversions."""


@dataclass(frozen=True)
class Rule:
    """One way to convert: a profile x mode x saturation, or a slip on top of ieee rint."""

    profile: str
    mode: str
    sat: bool
    slip: str = ""  # "" | "double" | "ftz" | "daz"
    via: str = ""  # the intermediate format of a double rounding

    @property
    def name(self) -> str:
        base = f"{self.profile} {self.mode}{' sat' if self.sat else ''}"
        if self.slip == "double":
            return f"double rounding via {self.via} ({base} twice)"
        if self.slip == "ftz":
            return f"subnormal outputs flushed to zero ({base})"
        if self.slip == "daz":
            return f"subnormal inputs read as zero ({base})"
        return base

    @property
    def words(self) -> str:
        """The name with the mode spelled out: `ieee round (nearest, ties away from zero)`."""
        if self.slip:
            return self.name
        return f"{self.profile} {MODE_WORDS.get(self.mode, self.mode)}" \
               f"{', saturating' if self.sat else ''}"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "profile": self.profile, "mode": str(self.mode),
                             "sat": self.sat}
        if self.slip:
            d["slip"] = self.slip
        if self.via:
            d["via"] = self.via
        return d

    @property
    def request(self) -> Rule:
        """The rule as `convert` takes it: the neuron profile is asked for as rint (its
        only mode) while the rule names what it applies (trunc into integers)."""
        return Rule(self.profile, Mode.RINT, self.sat) if self.profile == "neuron" else self

    def steps(self, bits: int, src: Format, dst: Format) -> list[tuple[str, Step | None]]:
        """One lane's trace steps under this rule, each with a label (a double rounding
        gives both legs; a flush slip ends with a (label, None) note)."""
        from neurondbg.machine.convert.trace import trace

        if self.slip == "double":
            first = trace(bits, src, self.via, Mode.RINT, False, "ieee")
            second = trace(first.output_bits, self.via, dst, Mode.RINT, False, "ieee")
            legs: list[tuple[str, Step | None]] = [
                (f"to {self.via}:{s.name}", s) for s in first.steps]
            return legs + [(f"from {self.via}:{s.name}", s) for s in second.steps]
        r = self.request
        if self.slip == "daz" and subnormal_mask(np.array([bits]), src)[0]:
            bits = int(zero_of(np.array([bits], src.container), src)[0])
        t = trace(bits, src, dst, r.mode, r.sat, r.profile)
        out: list[tuple[str, Step | None]] = [
            (f"{s.stage}:{s.name}" if s.stage else s.name, s) for s in t.steps]
        if self.slip:
            out.append((self.slip, None))
        return out

    def apply(self, bits: np.ndarray, src: Format, dst: Format) -> np.ndarray:
        """The output this rule gives for `bits` (src encodings)."""
        if self.slip == "double":
            mid = convert(bits, src, self.via, Mode.RINT, False, "ieee")
            return convert(mid, self.via, dst, Mode.RINT, False, "ieee")
        if self.slip == "daz":
            bits = np.where(subnormal_mask(bits, src), zero_of(bits, src), bits)
        out = convert(bits, src, dst, self.mode, self.sat, self.profile)
        if self.slip == "ftz":
            out = np.where(subnormal_mask(out, dst), zero_of(out, dst), out)
        return out


def subnormal_mask(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """Which encodings are subnormal (HiFloat8: its denormals, dot 0000 with M != 0)."""
    b = bits.astype(fmt.container, copy=False)
    t = b.dtype.type
    mask: np.ndarray
    if fmt.is_hif8:
        mask = ((b & t(0x78)) == 0) & ((b & t(0x7)) != 0)
    elif not fmt.is_float or not fmt.subnormals or not fmt.man_bits:
        mask = np.zeros(bits.shape, bool)
    else:
        e_mask = t(((1 << fmt.exp_bits) - 1) << (fmt.pad_bits + fmt.man_bits))
        m_mask = t(((1 << fmt.man_bits) - 1) << fmt.pad_bits)
        mask = ((b & e_mask) == 0) & ((b & m_mask) != 0)
    return mask


def zero_of(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """The zero with each lane's sign (HiFloat8's -0 code is NaN: its zero is 0x00)."""
    if fmt.is_hif8 or not fmt.signed:
        return np.zeros_like(bits)
    zeros: np.ndarray = (bits & bits.dtype.type(1 << (fmt.bits - 1))).astype(bits.dtype)
    return zeros


def candidate_rules(src: Format, dst: Format) -> list[Rule]:
    """Every profile x mode x saturation the options accept for src -> dst, then the slips."""
    # a rule names the rounding it applies (neuron -> int: trunc); _request asks for it
    out = [Rule(o.profile, applied_mode(o), o.sat)
           for o in rules(src, dst, PROFILES, (False, True))]
    for via in VIAS:
        exact_widen = via == "fp32" and not src.is_int and src.bits < 32
        if via not in (src.name, dst.name) and not exact_widen and not FORMATS[via].is_int:
            out.append(Rule("ieee", Mode.RINT, False, "double", via))
    if subnormal_mask(np.arange(min(1 << dst.bits, 1 << 16), dtype=np.uint64), dst).any():
        out.append(Rule("ieee", Mode.RINT, False, "ftz"))
    if src.bits <= 32 and src.is_float and src.subnormals and src.man_bits:
        out.append(Rule("ieee", Mode.RINT, False, "daz"))
    return out


@dataclass
class Diagnosis:
    """What `diagnose` found (JSON shape of `neurondbg diagnose --json`: to_dict)."""

    shape: tuple[int, ...]
    src: str
    dst: str
    baseline: Rule | None  # None: judged against a reference array
    matches_baseline: int
    explained_by: list[tuple[Rule, int]]
    unexplained: int
    examples: list[dict[str, Any]]
    kinds: dict[str, int] = field(default_factory=dict)  # kinds of the baseline's exceptions
    rules: list[Rule] = field(default_factory=list)
    every: list[Rule] = field(default_factory=list)  # other rules that reproduce every lane
    # per explained_by group: the other rules that reproduce every lane of it too
    equally_good: list[list[Rule]] = field(default_factory=list)

    @property
    def lanes(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1

    def summary(self) -> str:
        """One sentence: what the lanes match, the exceptions, and one example."""
        what = self.baseline.words if self.baseline else "the reference"
        rest = self.lanes - self.matches_baseline
        text = f"{self.lanes:,} lanes: "
        if rest == 0:
            return text + f"all match {what}"
        kinds = [(k, n) for k, n in self.kinds.items() if n]
        if len(kinds) == 1:
            which = f" {_plural(kinds[0][0], rest)}"
        else:
            which = " lanes (" + ", ".join(f"{n:,} {_plural(k, n)}" for k, n in kinds) + ")" \
                if kinds else " lanes"
        text += (f"all match {what} except {rest:,}{which}" if self.matches_baseline else
                 f"none match {what}")
        groups = [f"{n:,} match {r.words}{_also(eq)}" for (r, n), eq
                  in zip(self.explained_by, self.alternatives, strict=True)]
        if self.unexplained:
            groups.append(f"{self.unexplained:,} match no rule (unexplained)")
        if len(groups) == 1 and self.explained_by and self.matches_baseline:
            text += (f", which match {self.explained_by[0][0].words}"
                     f"{_also(self.alternatives[0])}")
        elif groups:
            text += ": " + "; ".join(groups)
        if self.every and self.explained_by and self.explained_by[0][0] in self.every:
            text += "; that rule reproduces every lane"
        elif self.every:
            text += f"; {self.every[0].words} reproduces every lane"
        if self.examples:
            ex = self.examples[0]
            idx = ", ".join(str(i) for i in ex["index"])
            text += (f" — e.g. lane [{idx}]: {ex['input']} → {ex['actual_bits']}, expected "
                     f"{ex['expected_bits']}")
        return text

    @property
    def alternatives(self) -> list[list[Rule]]:
        """equally_good, one (possibly empty) list per explained_by group."""
        return self.equally_good or [[] for _ in self.explained_by]

    def to_dict(self) -> dict[str, Any]:
        return {"lanes": self.lanes, "shape": list(self.shape), "src": self.src,
                "dst": self.dst,
                "expected": self.baseline.to_dict() if self.baseline else "reference",
                "matches_expected": self.matches_baseline,
                "explained_by": [{"rule": r.to_dict(), "lanes": n,
                                  "equally_good": [e.to_dict() for e in eq]}
                                 for (r, n), eq in zip(self.explained_by,
                                                       self.alternatives, strict=True)],
                "unexplained": self.unexplained, "kinds": self.kinds,
                "reproduce_every_lane": [r.to_dict() for r in self.every],
                "examples": self.examples, "summary": self.summary()}


EXPECTED = Rule("ieee", Mode.RINT, False)


def diagnose(input_bits: np.ndarray, actual_bits: np.ndarray, src: Format, dst: Format,
             expected: Rule = EXPECTED, reference: np.ndarray | None = None,
             nan_any: bool = False, chunk: int = CHUNK,
             cancelled: Callable[[], bool] | None = None,
             progress: Callable[[int], None] | None = None) -> Diagnosis:
    """Which rules reproduce `actual_bits` (dst encodings) from `input_bits` (src
    encodings), lane by lane, against the `expected` rule or a `reference` array.
    `nan_any`: any NaN encoding matches any NaN (values, not bits, were compared).
    `cancelled` is asked before each rule's conversion (the TUI console's Esc): when it
    holds, Stopped is raised. `progress(n)` is told each block of n lanes judged (the
    CLI's bar). ValueError when the shapes differ."""
    stop = cancelled or (lambda: False)
    x = np.asarray(input_bits).astype(src.container, copy=False)
    y = np.asarray(actual_bits).astype(dst.container, copy=False)
    if x.shape != y.shape:
        raise ValueError(f"INPUT has shape {x.shape} but ACTUAL {y.shape}: one output per "
                         "input lane expected")
    ref = None if reference is None else np.asarray(reference).astype(dst.container)
    if ref is not None and ref.shape != y.shape:
        raise ValueError(f"REFERENCE has shape {ref.shape} but ACTUAL {y.shape}")
    cand = candidate_rules(src, dst)
    if ref is None and expected not in cand:
        cand.insert(0, expected)
    assert len(cand) <= 64, "one bit per rule in a uint64 mask"
    xf, yf = x.reshape(-1), y.reshape(-1)
    rf = None if ref is None else ref.reshape(-1)
    base = None if ref is not None else cand.index(expected)
    # a source of <= 16 bits: convert every code once per rule, then look the lanes up
    tables = [_table(rule, src, dst, stop) for rule in cand] \
        if src.bits <= 16 and xf.size > 1 << 16 else None
    counts = np.zeros(len(cand), np.int64)
    exc_at: list[np.ndarray] = []  # flat indices of the lanes the baseline misses
    exc_mask: list[np.ndarray] = []  # and, per such lane, one bit per rule that matches it
    for start in range(0, xf.size, chunk):
        xs, ys = xf[start:start + chunk], yf[start:start + chunk]
        hits = np.empty((len(cand), xs.size), bool)
        for r, rule in enumerate(cand):
            if stop():
                raise Stopped("diagnose stopped")
            got = tables[r][xs] if tables is not None else rule.request.apply(xs, src, dst)
            hits[r] = _same(got, ys, dst, nan_any)
        counts += hits.sum(axis=1)
        ok = hits[base] if rf is None else _same(rf[start:start + chunk], ys, dst, nan_any)
        bad = np.flatnonzero(~ok)
        m = np.zeros(bad.size, np.uint64)
        for r in range(len(cand)):
            m |= hits[r, bad].astype(np.uint64) << np.uint64(r)
        exc_at.append(bad + start)
        exc_mask.append(m)
        if progress is not None:
            progress(xs.size)
    at = np.concatenate(exc_at)
    masks = np.concatenate(exc_mask)
    baseline = None if base is None else cand[base]
    every = [r for r, n in zip(cand, counts.tolist(), strict=True)
             if n == xf.size and r != baseline]
    explained: list[tuple[Rule, np.ndarray]] = []  # (rule, indices into `at`)
    equal: list[list[Rule]] = []
    left = np.ones(at.size, bool)
    total = counts.tolist()
    while left.any():
        bits = [((masks[left] >> np.uint64(r)) & np.uint64(1)).astype(bool)
                for r in range(len(cand))]
        per = [int(b.sum()) for b in bits]
        # most of the rest, then most lanes in total, then the first candidate
        best = min(range(len(cand)), key=lambda r: (-per[r], -total[r], r))
        if per[best] == 0:
            break
        group = bits[best]
        got = np.flatnonzero(left)[group]
        explained.append((cand[best], got))
        equal.append([cand[r] for r in sorted(range(len(cand)), key=lambda r: (-total[r], r))
                      if r != best and bits[r][group].all()])
        left[got] = False
    examples = _examples(xf, yf, rf, baseline, explained, np.flatnonzero(left), at, masks,
                         cand, src, dst, x.shape)
    return Diagnosis(tuple(x.shape), src.name, dst.name, baseline, int(xf.size - at.size),
                     [(r, int(g.size)) for r, g in explained], int(left.sum()), examples,
                     lane_kinds(xf[at], src, dst), cand, every, equal)


def _table(rule: Rule, src: Format, dst: Format, stop: Callable[[], bool]) -> np.ndarray:
    """`rule`'s output for every code of a <= 16-bit source (the lanes are looked up)."""
    if stop():
        raise Stopped("diagnose stopped")
    return rule.request.apply(np.arange(1 << src.bits, dtype=np.uint64).astype(src.container),
                              src, dst)


def explaining_rule(d: Diagnosis, input_bits: int, actual_bits: int, src: Format,
                    dst: Format) -> Rule | None:
    """The first rule of the diagnosis (the explaining ones in order, then every candidate)
    that reproduces this one lane; None if none does."""
    x = np.array([input_bits], src.container)
    for rule in [r for r, _ in d.explained_by] + d.rules:
        if int(rule.request.apply(x, src, dst)[0]) == actual_bits:
            return rule
    return None


def _same(a: np.ndarray, b: np.ndarray, dst: Format, nan_any: bool) -> np.ndarray:
    hit: np.ndarray = a == b
    if nan_any and not dst.is_int:
        hit |= np.isnan(decode_value(a, dst)) & np.isnan(decode_value(b, dst))
    return hit


def _examples(xf: np.ndarray, yf: np.ndarray, expected: np.ndarray | None,
              baseline: Rule | None, explained: list[tuple[Rule, np.ndarray]],
              left: np.ndarray, at: np.ndarray, masks: np.ndarray, cand: Sequence[Rule],
              src: Format, dst: Format, shape: tuple[int, ...]) -> list[dict[str, Any]]:
    """A few lanes of each explaining rule, then of the unexplained ones (groups hold
    indices into `at`, the flat lane numbers of the exceptions; `masks` their rule bits)."""
    picks = [g[:MAX_EXAMPLES] for _, g in explained] + [left[:MAX_EXAMPLES]]
    local = np.concatenate(picks).astype(np.int64)
    if local.size == 0:
        return []
    flat = at[local]
    if expected is None:
        assert baseline is not None
        exp = baseline.request.apply(xf[flat], src, dst)
    else:
        exp = expected[flat]
    digits_in, digits_out = (src.bits + 3) // 4, (dst.bits + 3) // 4
    values = decode_value(xf[flat], src)
    out = []
    for k, (i, j) in enumerate(zip(flat.tolist(), local.tolist(), strict=True)):
        m = int(masks[j])
        out.append({"index": [int(n) for n in np.unravel_index(i, shape)] if shape else [],
                    "input_bits": f"0x{int(xf[i]):0{digits_in}x}",
                    "input": _short(float(values[k])),
                    "actual_bits": f"0x{int(yf[i]):0{digits_out}x}",
                    "expected_bits": f"0x{int(exp[k]):0{digits_out}x}",
                    "rules": [r.name for b, r in enumerate(cand) if m >> b & 1]})
    return out


def _also(rules: list[Rule]) -> str:
    """` (equally good for these lanes: A, B)`, or nothing."""
    return f" (equally good for these lanes: {', '.join(r.name for r in rules)})" \
        if rules else ""


def _short(v: float) -> str:
    """A lane's value: exact when it is a short dyadic (1.00390625), else ~9 digits."""
    if not np.isfinite(v):
        return repr(v)
    return show(Fraction(v))


def lane_kinds(x: np.ndarray, src: Format, dst: Format) -> dict[str, int]:
    """Counts of the kinds of lanes `x`: NaN inputs, ties, overflows, subnormal results,
    other inexact lanes, exact ones (each lane counted once, in that order)."""
    if x.size == 0:
        return {}
    v = decode_value(x, src)
    lo = convert(x, src, dst, Mode.FLOOR, False, "ieee")
    hi = convert(x, src, dst, Mode.CEIL, False, "ieee")
    lv, hv = decode_value(lo, dst), decode_value(hi, dst)
    nan = np.isnan(v)
    finite = np.isfinite(lv) & np.isfinite(hv)
    over = ~nan & (~np.isfinite(lv) | ~np.isfinite(hv) | (np.abs(v) > _max(dst)))
    inexact = ~nan & ~over & finite & (lv != hv)
    with np.errstate(invalid="ignore", over="ignore"):
        tie = inexact & (2 * v == lv + hv)
    sub = inexact & ~tie & (subnormal_mask(lo, dst) | subnormal_mask(hi, dst))
    kinds = {"nan_input": int(nan.sum()), "tie": int(tie.sum()),
             "overflow": int(over.sum()), "subnormal_result": int(sub.sum())}
    kinds["inexact"] = int((inexact & ~tie & ~sub).sum())
    kinds["exact"] = int(x.size - sum(kinds.values()))
    return {k: n for k, n in kinds.items() if n}


KIND_WORDS: dict[str, tuple[str, str]] = {
    "nan_input": ("NaN input", "NaN inputs"), "tie": ("tie", "ties"),
    "overflow": ("overflow", "overflows"),
    "subnormal_result": ("subnormal result", "subnormal results"),
    "inexact": ("other inexact lane", "other inexact lanes"),
    "exact": ("exact lane", "exact lanes"),
}


def _plural(kind: str, n: int) -> str:
    one, many = KIND_WORDS.get(kind, (kind, kind))
    return one if n == 1 else many


def _max(dst: Format) -> float:
    return float(dst.max_value)
