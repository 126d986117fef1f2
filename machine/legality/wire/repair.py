"""Checked fixes: field edits that, applied to a copy of a record, make its whole
predicate pass on the same generation and engine (DESIGN "Legality reporting").

Each failing leaf clause offers candidate edits: its declared `repair` (addresses,
counts, shapes: values a search cannot guess) and, for every one-byte field it
reads, the byte values that make that clause pass (all 256 tried at once with the
clause's own vectorized check), nearest in bits to the current value first. The
opcode byte is never searched: changing what an instruction is must be a declared
repair (e.g. COPY -> CAST). Combinations of candidates, each clause's or none, are
then applied to copies of the record and judged together in one vectorized pass of
the predicate; the smallest passing edit set wins (fewest fields, then the most
plausible candidates). Where nothing passes, `no_fix` says why (a clause no field
edit fixes: the engine's dispatch table, the generation's opcode set).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from machine.isa.spec import Struct
from machine.legality.wire.clause import Clause, Ctx, Predicate, Rows, Values

Edit = dict[str, Any]
Path = tuple[str, ...]
K_MAX = 6  # candidates kept per clause
COMBOS = 1024  # records judged per search (one vectorized predicate pass)
FROZEN = ("header.opcode",)  # never searched byte by byte


@dataclass(frozen=True)
class Plan:
    """The checked fixes of one record: overall and per failing leaf (by path)."""

    combined: Edit | None
    per_leaf: Mapping[Path, Edit | None]
    no_fix: str | None  # why no edit passes (None when `combined` exists)
    struct: Struct | None = None  # the record's struct (for describing the edits)


def _fits(struct: Struct, name: str, value: Any) -> bool:
    try:
        f = struct.field(name)
    except KeyError:
        return False
    lo, hi = f.bounds
    vals = value if isinstance(value, tuple | list) else (value,)
    if f.count != len(vals):
        return False
    return all(isinstance(x, int | np.integer) and lo <= int(x) <= hi for x in vals)


def _norm(value: Any) -> Any:
    return tuple(int(x) for x in value) if isinstance(value, tuple | list) else int(value)


def _byte_scan(clause: Clause, struct: Struct, rec: np.ndarray, values: Values,
               ctx: Ctx) -> list[Edit]:
    """Single-byte values of the clause's fields that make the clause pass."""
    out: list[tuple[int, int, Edit]] = []
    for name in dict.fromkeys(clause.fields):
        if name in FROZEN or name in clause.frozen:
            continue
        f = struct.field(name)
        if f.count != 1 or f.itemsize != 1:
            continue
        old = int(values[name])
        rows = np.repeat(rec, 256)
        rows[name] = np.arange(256, dtype=rows[name].dtype) if not f.signed else \
            np.arange(-128, 128, dtype=rows[name].dtype)
        ok = clause.check(Rows(rows, ctx))
        for v in rows[name][ok].tolist():
            if v != old:
                out.append((bin((v ^ old) & 0xFF).count("1"), v & 0xFF, {name: v}))
    out.sort(key=lambda t: (t[0], t[1]))
    return [e for _, _, e in out]


def candidates(clause: Clause, struct: Struct, rec: np.ndarray, values: Values,
               ctx: Ctx) -> list[Edit]:
    """The clause's candidate edits, declared ones first, each changing something."""
    found: list[Edit] = []
    declared = clause.repair(values, ctx) if clause.repair is not None else []
    for edit in [*declared, *_byte_scan(clause, struct, rec, values, ctx)]:
        edit = {k: _norm(v) for k, v in edit.items()}
        if not edit or not all(_fits(struct, k, v) for k, v in edit.items()):
            continue
        if all(_norm(values[k]) == v for k, v in edit.items()) or edit in found:
            continue
        found.append(edit)
        if len(found) >= K_MAX:
            break
    return found


def apply(struct: Struct, rec: np.ndarray, edit: Mapping[str, Any]) -> np.ndarray:
    """A one-record copy of `rec` with the edits applied."""
    out = rec.copy()
    for name, value in edit.items():
        out[name][0] = value
    return out


def _judge(records: np.ndarray, pred: Predicate, ctx: Ctx, forced: bool) -> np.ndarray:
    """Per record: the whole predicate (the edited opcode's, unless forced) passes."""
    from machine.legality.wire.bulk import evaluate
    from machine.legality.wire.registry import predicate_for

    ok = np.zeros(len(records), dtype=bool)
    ops = records["header.opcode"]
    for op in np.unique(ops).tolist():
        p = pred if forced else predicate_for(int(op))
        if p.struct != pred.struct:
            continue  # an opcode of another struct: not a field edit of this record
        sel = ops == op
        clauses, passed = evaluate(p, records[sel], ctx)
        fatal = np.array([not c.note for c in clauses], dtype=bool)
        ok[sel] = np.all(passed[fatal], axis=0) if fatal.any() else True
    return ok


def plan(pred: Predicate, struct: Struct, rec: np.ndarray, values: Values, ctx: Ctx,
         failing: Sequence[tuple[Path, Clause]], forced: bool = False) -> Plan:
    """Search the smallest checked edit sets for the failing leaves of one record."""
    if not failing:
        return Plan(None, {}, None, struct)
    cands = [candidates(cl, struct, rec, values, ctx) for _, cl in failing]
    stuck = [path[-1] for (path, _), c in zip(failing, cands, strict=True) if not c]
    n = len(failing)
    k = K_MAX
    while k > 1 and (k + 1) ** n > COMBOS:
        k -= 1
    if (k + 1) ** n > COMBOS:  # too many failing clauses to search: each one's first edit
        options = [[(0, c[0])] if c else [(0, None)] for c in cands]
    else:
        options = [[(0, None)] + [(r + 1, e) for r, e in enumerate(c[:k])] for c in cands]
    combos: list[tuple[int, int, Edit, tuple[bool, ...]]] = []
    seen: dict[tuple, int] = {}
    for choice in itertools.product(*options):
        merged: Edit = {}
        for _, e in choice:
            if e is not None:
                merged.update(e)
        if not merged:
            continue
        changed = {k2: v for k2, v in merged.items() if _norm(values[k2]) != v}
        if not changed:
            continue
        key = tuple(sorted(changed.items()))
        used = tuple(e is not None for _, e in choice)
        rank = sum(r for r, _ in choice)
        if key in seen:
            j = seen[key]
            old = combos[j]
            combos[j] = (old[0], min(old[1], rank), old[2],
                         tuple(a or b for a, b in zip(old[3], used, strict=True)))
            continue
        seen[key] = len(combos)
        combos.append((len(changed), rank, changed, used))
    combos.sort(key=lambda t: (t[0], t[1]))
    combos = combos[:COMBOS]
    if combos:
        records = np.concatenate([apply(struct, rec, e) for _, _, e, _ in combos])
        ok = _judge(records, pred, ctx, forced)
    else:
        ok = np.zeros(0, dtype=bool)
    passing = [c for c, good in zip(combos, ok.tolist(), strict=True) if good]
    combined = passing[0][2] if passing else None
    per_leaf: dict[Path, Edit | None] = {}
    for i, (path, _) in enumerate(failing):
        per_leaf[path] = next((e for _, _, e, used in passing if used[i]), None)
    no_fix = None
    if combined is None:
        if stuck:
            no_fix = (f"no edit of this record's fields makes {pred.name} pass on "
                      f"{ctx.gen.label}" + (f", engine {ctx.engine}" if ctx.engine else "")
                      + f": {', '.join(stuck)} cannot be fixed within the record")
        else:
            no_fix = (f"no combination of the candidate edits makes {pred.name} pass on "
                      f"{ctx.gen.label}")
    return Plan(combined, per_leaf, no_fix, struct)


def describe(edit: Mapping[str, Any], struct: Struct | None = None) -> str:
    """`set out_dtype = FP32 (0xA), reduce_cmd = ZERO_ACCUMULATE (3), dst.start_addr =
    0x00000400`: enum fields by name (when `struct` is given), addresses in hex."""
    from machine.isa.opcodes import mnemonic
    from machine.legality.wire.gates import dtype_label

    parts = []
    for name, value in edit.items():
        f = None
        if struct is not None:
            try:
                f = struct.field(name)
            except KeyError:
                f = None
        if isinstance(value, tuple):
            shown = "[" + ", ".join(str(x) for x in value) + "]"
        elif name == "header.opcode":
            shown = f"0x{value:02X} ({mnemonic(value)})"
        elif name.endswith("start_addr") or name in ("fill_val", "bound0", "bound1", "imm0",
                                                     "imm1"):
            shown = f"0x{value:08X}"
        elif (f is not None and f.role == "dtype") or (f is None and name.endswith("dtype")):
            shown = dtype_label(value)
        elif f is not None and f.role == "dtype_pair":
            shown = f"0x{value:02X} (lo {dtype_label(value & 0xF)}, hi {dtype_label(value >> 4)})"
        elif f is not None and f.enum is not None and value in set(int(m) for m in f.enum):
            shown = f"{f.enum(value).name} ({value})"
        else:
            shown = str(value)
        parts.append(f"{name} = {shown}")
    return "set " + ", ".join(parts)
