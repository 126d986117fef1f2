"""Checked fixes: field edits that, applied to a copy of a record, make its whole
predicate pass on the same generation and engine (DESIGN "Legality reporting").

Each failing leaf clause offers candidate edits: its declared `repair` (addresses,
counts, shapes, stated values: what a search cannot guess) and a search over every
field kind it reads: all 256 values of a one-byte field or of one element of a
one-byte array (register lists, reserved bytes), a few values of wider fields and
their elements (0, 1, bounds, one bit flipped, one byte cleared, same-sized values
elsewhere in the record), and each array all zeros or all ones; each tried at once
with the clause's own vectorized check, the nearest to the current value first (in
meaning for a dtype: kind, then width, then bits). The opcode byte and the sync modes
are never searched: changing what an instruction is must be a declared repair (e.g.
COPY -> CAST), and an invalid mode's repair is NONE. Where failing clauses share a
one-byte field, its values that pass them all come first among their candidates, then
(for a clause of them that also reads a field a further failing clause reads) pairs of
it and that field's candidate values that pass every clause reading either: a fix of
both at once. Combinations of candidates, each clause's or none, are then applied to
copies of the record and judged together in one vectorized pass of the predicate; the
smallest passing edit set wins: fewest fields, then one that keeps the opcode, then the
most plausible candidates (docs/legality.md "Fixes"). Where nothing passes, or only an
opcode change does, an edit that uncovers another failure gets a second round; where a
clause no field edit fixes (the engine's dispatch table, the generation's opcode set),
`partial` fixes the others and `no_fix` says why.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np

from neurondbg.machine.isa.spec import Field, Struct
from neurondbg.machine.legality.wire.clause import Clause, Ctx, Predicate, Rows, Values

Edit = dict[str, Any]
Path = tuple[str, ...]
K_MAX = 6  # candidates kept per clause
COMBOS = 1024  # records judged per search (one vectorized predicate pass)
OPCODE = "header.opcode"
FROZEN = (OPCODE,)  # never searched value by value


@dataclass(frozen=True)
class Plan:
    """The checked fixes of one record: overall and per failing leaf (by path)."""

    combined: Edit | None
    per_leaf: Mapping[Path, Edit | None]
    no_fix: str | None  # why no edit passes (None when `combined` exists)
    struct: Struct | None = None  # the record's struct (for describing the edits)
    # with no `combined`: the smallest edit that makes every clause pass but those no
    # edit of the record fixes (the fixable clauses fixed, the rest said in `no_fix`)
    partial: Edit | None = None


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


def _norm(value: Any) -> int | tuple[int, ...]:
    return tuple(int(x) for x in value) if isinstance(value, tuple | list) else int(value)


def _scan_fields(clause: Clause, struct: Struct) -> list[Field]:
    """The one-byte scalar fields of the clause the generic search tries all 256 values of."""
    return [f for f in _searched(clause, struct) if f.count == 1 and f.itemsize == 1]


def _searched(clause: Clause, struct: Struct) -> list[Field]:
    """Every field of the clause the generic search may edit."""
    return [struct.field(n) for n in dict.fromkeys(clause.fields)
            if n not in FROZEN and n not in clause.frozen]


_POPCOUNT = np.array([bin(v).count("1") for v in range(256)], dtype=np.int64)
_NONE = 1 << 20  # a sort key above every real one (a value that does not pass)


def _dtype_distance() -> np.ndarray:
    """int[256, 256]: how far a dtype code is from another in meaning: another kind
    (float, int, scale) first, then another width, then another signedness, then bits
    (FP4 -> FP8 before FP4 -> INT8)."""
    from neurondbg.machine.dtypes import DTYPE_INFO

    d = np.array([[_POPCOUNT[a ^ b] for b in range(256)] for a in range(256)], dtype=np.int64)
    for a, ia in DTYPE_INFO.items():
        for b, ib in DTYPE_INFO.items():
            wa, wb = ia.bits or 0, ib.bits or 0
            width = abs(wa.bit_length() - wb.bit_length())  # log2 steps: 4 -> 8 is one
            signs = ia.code.name.startswith("U") != ib.code.name.startswith("U")
            d[a, b] += 256 * (ia.kind != ib.kind) + 32 * width + 16 * signs
    return d


_DTYPE_DISTANCE = _dtype_distance()


def nearest_dtypes(code: int) -> list[int]:
    """Every dtype code, the nearest in meaning to `code` first (itself first)."""
    order = np.argsort(_DTYPE_DISTANCE[code & 0xFF], kind="stable")
    return cast(list[int], order.tolist())  # numpy types tolist as Any: of intp, ints
SCAN_RECORDS = 256  # records per vectorized byte scan: 256 x 256 rows, ~4 MiB


class _Reads(Rows):
    """Rows that note the fields a check reads (`rec` itself, read whole: None).

    A check that read only the scanned field saw nothing of the rest of the record, so
    its outcome for each of the 256 values is the same for every record: one probe
    serves them all (the check sees the generation and engine, the same for all)."""

    def __init__(self, rec: np.ndarray, ctx: Ctx) -> None:
        self.read: set[str | None] = set()
        super().__init__(rec, ctx)

    @property
    def rec(self) -> np.ndarray:
        self.read.add(None)
        return self._rec

    @rec.setter
    def rec(self, value: np.ndarray) -> None:
        self._rec = value

    def __len__(self) -> int:
        return len(self._rec)

    def __getitem__(self, name: str) -> np.ndarray:
        self.read.add(name)
        return self._rec[name]

    def true(self) -> np.ndarray:
        return np.ones(len(self._rec), dtype=bool)


def _scan(clause: Clause, part: np.ndarray, ctx: Ctx, name: str, vals: np.ndarray,
          rows_type: type[Rows]) -> tuple[np.ndarray, Rows]:
    """(records x 256 outcomes of the clause with field `name` set to each value, the Rows)."""
    rows = np.repeat(part, 256)
    rows[name] = np.tile(vals.astype(rows[name].dtype), len(part))
    checked = rows_type(rows, ctx)
    return clause.check(checked).reshape(len(part), 256), checked


# what a clause's check reads besides a scanned field, and the scan's 256 outcomes for each
# value of those fields, per (clause, field, generation and engine): the same for every
# record and every search, so each is computed once. Keyed by the clause's id, the entry
# holding the clause itself (so the id is not reused while the entry lives); both are
# cleared together at SHARED_MAX entries.
_READS: dict[tuple[int, str, Ctx], tuple[Any, frozenset[str | None]]] = {}
_OUTCOMES: dict[tuple[int, str, Ctx, tuple[int, ...]], np.ndarray] = {}
SHARED_MAX = 1 << 14


def _shared_scan(clause: Clause, struct: Struct, rec: np.ndarray, ctx: Ctx, f: Field,
                 vals: np.ndarray) -> np.ndarray | None:
    """The scan's outcomes for every record from one scan per distinct value of the other
    fields the check reads (found by a probe on the first record, then confirmed: the
    scan of those representatives reads no other field), each kept for later searches;
    None when it reads the record whole or an array field."""
    key = (id(clause), f.name, ctx)
    entry = _READS.get(key)
    if entry is None:
        probe = _Reads(np.repeat(rec[:1], 256), ctx)
        probe._rec[f.name] = vals.astype(probe._rec[f.name].dtype)
        clause.check(probe)
        if len(_READS) >= SHARED_MAX:
            _READS.clear()
            _OUTCOMES.clear()
        entry = _READS[key] = (clause, frozenset(probe.read))
    reads = entry[1]
    if None in reads:
        return None
    others = sorted(n for n in reads if n is not None and n != f.name)
    if any(struct.field(n).count != 1 for n in others):
        return None
    if others:
        cols = np.stack([rec[n].astype(np.int64) for n in others], axis=1)
        uniq, first, inverse = np.unique(cols, axis=0, return_index=True,
                                         return_inverse=True)
        values = [tuple(row) for row in uniq.tolist()]
    else:
        first, inverse = np.zeros(1, dtype=np.intp), np.zeros(len(rec), dtype=np.intp)
        values = [()]
    out = np.empty((len(first), 256), dtype=bool)
    todo = []
    for i, v in enumerate(values):
        hit = _OUTCOMES.get((*key, v))
        if hit is None:
            todo.append(i)
        else:
            out[i] = hit
    for s in range(0, len(todo), SCAN_RECORDS):
        some = todo[s:s + SCAN_RECORDS]
        ok, rows = _scan(clause, rec[first[some]], ctx, f.name, vals, _Reads)
        if not rows.read <= reads:  # type: ignore[attr-defined]
            return None
        out[some] = ok
        if len(_OUTCOMES) + len(some) > SHARED_MAX:
            _OUTCOMES.clear()  # _READS stays: its clauses keep their ids
        for i, row in zip(some, ok, strict=True):
            _OUTCOMES[(*key, values[i])] = row
    return out[inverse.reshape(-1)]


def _byte_scan_many(clause: Clause, struct: Struct, rec: np.ndarray, ctx: Ctx,
                    need: int = 256) -> list[list[Edit]]:
    """Per record: the single-byte values of the clause's fields that make the clause pass,
    nearest in bits to the current value first (ties: the lower byte, then the earlier
    field); at least the first `need` of that order (all of it by default)."""
    per: list[list[tuple[int, Edit]]] = [[] for _ in range(len(rec))]
    for f in _scan_fields(clause, struct):
        vals = np.arange(-128, 128) if f.signed else np.arange(256)
        shared = _shared_scan(clause, struct, rec, ctx, f, vals)
        for s in range(0, len(rec), SCAN_RECORDS):
            part = rec[s:s + SCAN_RECORDS]
            if shared is not None:
                ok = shared[s:s + SCAN_RECORDS]
            else:
                ok = _scan(clause, part, ctx, f.name, vals, Rows)[0]
            old = part[f.name].astype(np.int64)[:, None]
            if f.role == "dtype":  # the nearest dtype in meaning, not in bits
                key = _DTYPE_DISTANCE[old & 0xFF, vals & 0xFF] * 256 + (vals & 0xFF)
            else:
                key = _POPCOUNT[(vals ^ old) & 0xFF] * 256 + (vals & 0xFF)
            key = np.where(ok & (vals != old), key, _NONE)
            order = np.argsort(key, axis=1, kind="stable")[:, :need]
            keys = np.take_along_axis(key, order, axis=1).tolist()
            for r, ks, vs in zip(range(s, s + len(part)), keys, vals[order].tolist(),
                                 strict=True):
                per[r] += [(k, {f.name: v}) for k, v in zip(ks, vs, strict=True) if k < _NONE]
    for r, found in enumerate(_element_scan(clause, struct, rec, ctx, need)):
        per[r] += found
    for r, found in enumerate(_wide_scan(clause, struct, rec, ctx, need)):
        per[r] += found
    for r, found in enumerate(_whole_arrays(clause, struct, rec, ctx)):
        per[r] += found
    out = []
    for edits in per:
        edits.sort(key=lambda t: t[0])  # stable: equal keys keep the field order
        out.append([e for _, e in edits])
    return out


def _element_scan(clause: Clause, struct: Struct, rec: np.ndarray, ctx: Ctx,
                  need: int) -> list[list[tuple[int, Edit]]]:
    """Per record: (key, edit) of one element of a one-byte array (a register list,
    reserved bytes) set to each of the 256 values, where that makes the clause pass;
    the first `need` of each element, nearest in bits first."""
    per: list[list[tuple[int, Edit]]] = [[] for _ in range(len(rec))]
    for f in _searched(clause, struct):
        if f.count == 1 or f.itemsize != 1:
            continue
        vals = np.arange(-128, 128) if f.signed else np.arange(256)
        for k in range(f.count):
            for s in range(0, len(rec), SCAN_RECORDS):
                part = rec[s:s + SCAN_RECORDS]
                rows = np.repeat(part, 256)
                col = rows[f.name]
                col[:, k] = np.tile(vals.astype(col.dtype), len(part))
                ok = clause.check(Rows(rows, ctx)).reshape(len(part), 256)
                old = part[f.name][:, k].astype(np.int64)[:, None]
                key = np.where(ok & (vals != old), _POPCOUNT[(vals ^ old) & 0xFF] * 256
                               + (vals & 0xFF), _NONE)
                order = np.argsort(key, axis=1, kind="stable")[:, :need]
                keys = np.take_along_axis(key, order, axis=1).tolist()
                whole = part[f.name].tolist()
                for j, ks, vs in zip(range(len(part)), keys, vals[order].tolist(), strict=True):
                    for key_, v in zip(ks, vs, strict=True):
                        if key_ < _NONE:
                            new = list(whole[j])
                            new[k] = v
                            per[s + j].append((key_, {f.name: tuple(new)}))
    return per


def _wide_targets(clause: Clause, struct: Struct) -> list[tuple[Any, int | None]]:
    """(field, element) the value scan edits: every field wider than a byte, each element
    of an array (one-byte fields get the full byte scans)."""
    out: list[tuple[Any, int | None]] = []
    for f in _searched(clause, struct):
        if f.itemsize == 1:
            continue
        out += [(f, k) for k in range(f.count)] if f.count > 1 else [(f, None)]
    return out


def _wide_values(f: Field, x: int, row: np.void, struct: Struct, k: int | None) -> list[int]:
    """The values tried for one wide element: 0, 1, the bounds, the value with one bit
    flipped or one byte cleared, and the same-sized values elsewhere in the record (dst's
    count from src's)."""
    lo, hi = f.bounds
    bits = 8 * f.itemsize
    mask = (1 << bits) - 1
    u = x & mask
    raw = {0, 1, lo & mask, hi & mask}
    raw |= {u ^ (1 << b) for b in range(bits)}
    raw |= {u & ~(0xFF << (8 * b)) & mask for b in range(f.itemsize)}
    for g in struct.fields:
        if g.itemsize != f.itemsize or g.name == f.name:
            continue
        val = row[g.name]
        if g.count == 1:
            raw.add(int(val) & mask)
        elif k is not None and g.count == f.count:
            raw.add(int(val[k]) & mask)
    if f.role == "addr4":  # never set a mode bit (register, shape, indirect): clear only
        raw = {v for v in raw if (v >> 24) & ~(u >> 24) == 0}
    signed = f.signed
    vals = {(v - (1 << bits)) if signed and v >= 1 << (bits - 1) else v for v in raw}
    return sorted(v for v in vals if lo <= v <= hi and v != x)


def _wide_scan(clause: Clause, struct: Struct, rec: np.ndarray, ctx: Ctx,
               need: int) -> list[list[tuple[int, Edit]]]:
    """Per record: (key, edit) of the array-element and wide-field values that make the
    clause pass, keyed as _byte_scan_many's (bits changed)."""
    per: list[list[tuple[int, Edit]]] = [[] for _ in range(len(rec))]
    for f, k in _wide_targets(clause, struct):
        for s in range(0, len(rec), SCAN_RECORDS):
            part = rec[s:s + SCAN_RECORDS]
            cur = part[f.name] if k is None else part[f.name][:, k]
            tried = [_wide_values(f, int(x), part[j], struct, k) for j, x in
                     enumerate(cur.tolist())]
            counts = np.array([len(t) for t in tried], dtype=np.intp)
            if not counts.sum():
                continue
            rows = np.repeat(part, counts)
            flat = np.array([v for t in tried for v in t], dtype=np.int64)
            if k is None:
                rows[f.name] = flat.astype(rows[f.name].dtype)
            else:
                col = rows[f.name]
                col[:, k] = flat.astype(col.dtype)
                rows[f.name] = col
            ok = clause.check(Rows(rows, ctx)).tolist()
            at = 0
            mask = (1 << (8 * f.itemsize)) - 1
            for j, t in enumerate(tried):
                old = int(cur[j])
                whole = None if k is None else [int(v) for v in part[f.name][j]]
                found = sorted((_bits_changed(old ^ v, mask) * 256 + (v & 0xFF), v)
                               for v, good in zip(t, ok[at:at + len(t)], strict=True) if good)
                for key, v in found[:need]:
                    if whole is None:
                        edit: Edit = {f.name: v}
                    else:
                        new = list(whole)
                        new[k] = v  # type: ignore[index]
                        edit = {f.name: tuple(new)}
                    per[s + j].append((key, edit))
                at += len(t)
    return per


def _whole_arrays(clause: Clause, struct: Struct, rec: np.ndarray,
                  ctx: Ctx) -> list[list[tuple[int, Edit]]]:
    """Per record: (key, edit) of an array field set to all zeros or all ones where that
    makes the clause pass (reserved bytes, unused counts: every element wrong at once)."""
    per: list[list[tuple[int, Edit]]] = [[] for _ in range(len(rec))]
    for f in _searched(clause, struct):
        if f.count == 1:
            continue
        for fill in (0, 1):
            rows = rec.copy()
            col = rows[f.name]
            col[...] = fill
            rows[f.name] = col
            ok = clause.check(Rows(rows, ctx)).tolist()
            cur = rec[f.name].tolist()
            for r, good in enumerate(ok):
                if good and any(x != fill for x in cur[r]):
                    per[r].append((_NONE - 2 + fill, {f.name: (fill,) * f.count}))
    return per


def _bits_changed(x: int, mask: int) -> int:
    return bin(x & mask).count("1")


def _byte_scan(clause: Clause, struct: Struct, rec: np.ndarray, ctx: Ctx) -> list[Edit]:
    """Single-byte values of the clause's fields that make the clause pass."""
    return _byte_scan_many(clause, struct, rec, ctx)[0]


def _keep(declared: Sequence[Edit], scanned: Sequence[Edit], struct: Struct,
          values: Values) -> list[Edit]:
    """The first K_MAX edits, declared ones first, that fit the fields and change something,
    each once. `scanned` are _byte_scan's: one-byte values that fit and differ already."""
    found: list[Edit] = []
    for edit in declared:
        edit = {k: _norm(v) for k, v in edit.items()}
        if not edit or not all(_fits(struct, k, v) for k, v in edit.items()):
            continue
        if all(_norm(values[k]) == v for k, v in edit.items()) or edit in found:
            continue
        found.append(edit)
        if len(found) >= K_MAX:
            return found
    mine = found.copy()  # a scanned edit can only repeat a declared one
    for edit in scanned:
        if mine and edit in mine:
            continue
        found.append(edit)
        if len(found) >= K_MAX:
            break
    return found


def candidates(clause: Clause, struct: Struct, rec: np.ndarray, values: Values,
               ctx: Ctx) -> list[Edit]:
    """The clause's candidate edits, declared ones first, each changing something."""
    declared = clause.repair(values, ctx) if clause.repair is not None else []
    return _keep(declared, _byte_scan(clause, struct, rec, ctx), struct, values)


def apply(struct: Struct, rec: np.ndarray, edit: Mapping[str, Any]) -> np.ndarray:
    """A one-record copy of `rec` with the edits applied."""
    out = rec.copy()
    for name, value in edit.items():
        out[name][0] = value
    return out


def _judge(records: np.ndarray, pred: Predicate, ctx: Ctx, forced: bool,
           skip: tuple[str, ...] = ()) -> np.ndarray:
    """Per record: the whole predicate (the edited opcode's, unless forced) passes, but
    the top-level clauses named in `skip`."""
    from neurondbg.machine.legality.wire.bulk import evaluate
    from neurondbg.machine.legality.wire.registry import predicate_for

    ok = np.zeros(len(records), dtype=bool)
    ops = records["header.opcode"]
    for op in np.unique(ops).tolist():
        p = pred if forced else predicate_for(int(op))
        if p.struct != pred.struct:
            continue  # an opcode of another struct: not a field edit of this record
        sel = ops == op
        clauses, passed = evaluate(p, records[sel], ctx)
        fatal = np.array([not c.note and c.name not in skip for c in clauses], dtype=bool)
        ok[sel] = np.all(passed[fatal], axis=0) if fatal.any() else True
    return ok


Option = tuple[int, "Edit | None"]  # (rank: 0 = the clause's most plausible edit, edit)


def _options(cands: Sequence[list[Edit]]) -> list[list[Option]]:
    """Per failing clause, the choices searched: none or one of its first k candidates,
    k as large as keeps the combinations within COMBOS (each clause's first edit when
    even k = 1 is too many)."""
    n = len(cands)
    k = K_MAX
    while k > 1 and (k + 1) ** n > COMBOS:
        k -= 1
    if (k + 1) ** n > COMBOS:  # too many failing clauses to search: each one's first edit
        return [[(0, c[0])] if c else [(0, None)] for c in cands]
    return [[(0, None)] + [(r + 1, e) for r, e in enumerate(c[:k])] for c in cands]


class _Normed(dict[str, "int | tuple[int, ...]"]):
    """_norm(values[k]) of a record's fields, each computed once (the combinations of a
    search merge the same few fields hundreds of times)."""

    def __init__(self, values: Values) -> None:
        super().__init__()
        self.source = values

    def __missing__(self, key: str) -> int | tuple[int, ...]:
        value = self[key] = _norm(self.source[key])
        return value


def _changed(edits: Sequence[Edit | None], values: Values,
             normed: Mapping[str, int | tuple[int, ...]] | None = None) -> Edit:
    """The edits merged in order, minus no-op fields: a later clause's value of a scalar
    wins; an array takes each edit's changed elements (two register slots fixed by two
    clauses are one edit of the list). `normed`: the record's values normalised, if the
    caller keeps them (`_Normed`)."""
    cur = _Normed(values) if normed is None else normed
    merged: Edit = {}
    for e in edits:
        if e is None:
            continue
        for k, v in e.items():
            now = cur[k] if k in merged and isinstance(v, tuple) else None
            if isinstance(now, tuple):  # an array field: its value and the edit's are tuples
                merged[k] = tuple(n if n != c else b for n, c, b in
                                  zip(v, now, merged[k], strict=True))
            else:
                merged[k] = v
    return {k: v for k, v in merged.items() if cur[k] != v}


def _plan(pred: Predicate, struct: Struct, ctx: Ctx, failing: Sequence[tuple[Path, Clause]],
          cands: Sequence[list[Edit]], combined: Edit | None,
          per_leaf: Sequence[Edit | None]) -> Plan:
    """The Plan of a search's outcome, with why no fix exists when none does."""
    no_fix = None
    if combined is None:
        stuck = [path[-1] for (path, _), c in zip(failing, cands, strict=True) if not c]
        if stuck:
            no_fix = (f"no edit of this record's fields makes {pred.name} pass on "
                      f"{ctx.gen.label}" + (f", engine {ctx.engine}" if ctx.engine else "")
                      + f": {', '.join(stuck)} cannot be fixed within the record")
        else:
            no_fix = (f"no combination of the candidate edits makes {pred.name} pass on "
                      f"{ctx.gen.label}")
    return Plan(combined, {path: e for (path, _), e in zip(failing, per_leaf, strict=True)},
                no_fix, struct)


SECOND_ROUND_DEPTH = 1  # rounds after the first: an edit that uncovers another failure
SECOND_TRIES = 8  # first-round edits followed into a second round
# a second round only for a record failing a few rules: a corrupted field or two, not
# random bytes (whose every clause fails: no search of those finds a fix worth it)
SECOND_ROUND_FAILING = 6
# likewise the partial search (the fixable clauses beside an unfixable one): a record on
# the wrong engine with a field or two wrong, not random bytes
PARTIAL_FAILING = 8


def _second_round(pred: Predicate, struct: Struct, rec: np.ndarray, values: Values, ctx: Ctx,
                  failing: Sequence[tuple[Path, Clause]],
                  combos: list[tuple[int, int, Edit, tuple[bool, ...]]], forced: bool,
                  depth: int) -> Edit | None:
    """When no combination passes: the edits that make every failing clause pass but
    uncover a clause that passed before (a garbage address in shape-register mode hid a
    wrong count), each followed by a search for what now fails; the smallest total."""
    from neurondbg.machine.isa.codec import record_fields
    from neurondbg.machine.legality.explain import failing_leaves

    if not combos:
        return None
    records = np.repeat(rec, len(combos))
    for j, (_, _, e, _) in enumerate(combos):
        for name, value in e.items():
            records[name][j] = value
    rows = Rows(records, ctx)
    fixed = np.ones(len(combos), dtype=bool)
    for _, cl in failing:
        fixed &= cl.check(rows)
    best: tuple[tuple[int, bool], Edit] | None = None
    for j in np.flatnonzero(fixed)[:SECOND_TRIES].tolist():
        first = combos[j][2]
        again = records[j:j + 1].copy()
        more = failing_leaves(pred, again, ctx)
        if not more:
            continue
        sub = plan(pred, struct, again, record_fields(struct, again[0]), ctx, more, forced,
                   depth + 1)
        if sub.combined is None:
            continue
        total = _changed([first, sub.combined], values)
        key = (len(total), OPCODE in total)
        if best is None or key < best[0]:
            best = (key, total)
    return None if best is None else best[1]


def _stuck(failing: Sequence[tuple[Path, Clause]], cands: Sequence[list[Edit]]) -> set[str]:
    """The top-level clauses with a failing leaf that has no candidate edit."""
    return {path[0] for (path, _), c in zip(failing, cands, strict=True) if not c}


def _second_round_due(failing: Sequence[tuple[Path, Clause]], stuck: set[str],
                      depth: int) -> bool:
    return not stuck and depth < SECOND_ROUND_DEPTH and len(failing) <= SECOND_ROUND_FAILING


def _partial_due(failing: Sequence[tuple[Path, Clause]], stuck: set[str]) -> bool:
    return bool(stuck) and len(stuck) < len({p[0] for p, _ in failing}) \
        and len(failing) <= PARTIAL_FAILING


def plan(pred: Predicate, struct: Struct, rec: np.ndarray, values: Values, ctx: Ctx,
         failing: Sequence[tuple[Path, Clause]], forced: bool = False,
         depth: int = 0, cands: list[list[Edit]] | None = None,
         none_passes: bool = False) -> Plan:
    """Search the smallest checked edit sets for the failing leaves of one record
    (`cands`: each failing clause's candidates(), when the caller has them already;
    `none_passes`: the caller judged these very combinations and none passed)."""
    if not failing:
        return Plan(None, {}, None, struct)
    if cands is None:
        cands = [candidates(cl, struct, rec, values, ctx) for _, cl in failing]
    cands = _with_joint(list(cands), failing, struct, rec, ctx)
    combos = _combos(cands, values)
    passing = [] if none_passes else _passing(combos, rec, pred, ctx, forced, ())
    combined = passing[0][2] if passing else None
    stuck = _stuck(failing, cands)
    # an opcode change is chosen only when no fix as small keeps the opcode: one may be
    # behind an uncovered failure (a dtype restored makes a wrong address misaligned)
    if (combined is None or OPCODE in combined) and _second_round_due(failing, stuck, depth):
        second = _second_round(pred, struct, rec, values, ctx, failing, combos, forced,
                               depth)
        if second is not None and (combined is None or (OPCODE not in second
                                                        and len(second) <= len(combined))):
            combined = second
            passing = [(len(combined), 0, combined, tuple(True for _ in failing))]
    partial = None
    if combined is None and _partial_due(failing, stuck):
        passing = _passing(combos, rec, pred, ctx, forced, tuple(stuck))
        partial = passing[0][2] if passing else None
    per_leaf = [next((e for _, _, e, used in passing if used[i]), None)
                for i in range(len(failing))]
    out = _plan(pred, struct, ctx, failing, cands, combined, per_leaf)
    return out if partial is None else replace(out, partial=partial)


def _combos(cands: Sequence[list[Edit]],
            values: Values) -> list[tuple[int, int, Edit, tuple[bool, ...]]]:
    """The candidate combinations (one or no edit per failing clause), each changed-value
    set once with its least rank, in the search's order (the module docstring's)."""
    combos: list[tuple[int, int, Edit, tuple[bool, ...]]] = []
    seen: dict[tuple[tuple[str, Any], ...], int] = {}
    normed = _Normed(values)
    for choice in itertools.product(*_options(cands)):
        changed = _changed([e for _, e in choice], values, normed)
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
    combos.sort(key=lambda t: (t[0], OPCODE in t[2], t[1]))  # the ordering: module doc
    return combos[:COMBOS]


def _passing(combos: list[tuple[int, int, Edit, tuple[bool, ...]]], rec: np.ndarray,
             pred: Predicate, ctx: Ctx, forced: bool,
             skip: tuple[str, ...]) -> list[tuple[int, int, Edit, tuple[bool, ...]]]:
    """The combinations whose edited record passes the predicate (but its `skip` clauses)."""
    if not combos:
        return []
    records = np.repeat(rec, len(combos))  # one copy per combination, then its edits
    for j, (_, _, e, _) in enumerate(combos):
        for name, value in e.items():
            records[name][j] = value
    ok = _judge(records, pred, ctx, forced, skip)
    return [c for c, good in zip(combos, ok.tolist(), strict=True) if good]


ROWS_MAX = 1 << 16  # combinations enumerated per vectorized pass of plan_many (memory bound)


def plan_many(pred: Predicate, struct: Struct, rec: np.ndarray, values: Sequence[Values],
              ctx: Ctx, failing: Sequence[Sequence[tuple[Path, Clause]]]) -> list[Plan]:
    """`plan(pred, struct, rec[i:i+1], values[i], ctx, failing[i])` of every record, plan
    for plan, batched: each failing clause's byte scan runs once over all the records it
    fails, and the combinations of every record are enumerated, deduplicated, ranked and
    judged as arrays (`_search`) instead of one Python dict per combination."""
    n = len(rec)
    declared = [[cl.repair(values[r], ctx) if cl.repair is not None else []
                 for _, cl in failing[r]] for r in range(n)]
    by_clause: dict[int, tuple[Clause, list[tuple[int, int]]]] = {}
    for r in range(n):
        for slot, (_, cl) in enumerate(failing[r]):
            by_clause.setdefault(id(cl), (cl, []))[1].append((r, slot))
    scanned: list[list[list[Edit]]] = [[[] for _ in failing[r]] for r in range(n)]
    for cl, sites in by_clause.values():
        if not _searched(cl, struct):
            continue
        # _keep skips at most one scanned edit per declared one: K_MAX + that many suffice
        need = K_MAX + max(len(declared[r][slot]) for r, slot in sites)
        rs = [r for r, _ in sites]
        for (r, slot), edits in zip(sites, _byte_scan_many(cl, struct, rec[rs], ctx, need),
                                    strict=True):
            scanned[r][slot] = edits
    cands = [[_keep(declared[r][slot], scanned[r][slot], struct, values[r])
              for slot in range(len(failing[r]))] for r in range(n)]
    bad = [r for r in range(n) if failing[r]]
    found = dict(zip(bad, _search(pred, rec[bad], [values[r] for r in bad], ctx,
                                  [_options(cands[r]) for r in bad]), strict=True))
    out = [_plan(pred, struct, ctx, failing[r], cands[r], *found[r]) if failing[r]
           else Plan(None, {}, None, struct) for r in range(n)]
    for r in bad:  # plan() is the search of record: where this batch's may differ from it
        same = not (_shares_array(cands[r]) or _joint_fields(failing[r], struct))
        stuck = _stuck(failing[r], cands[r])
        found_r = out[r].combined
        more = found_r is None and (_second_round_due(failing[r], stuck, 0)
                                    or _partial_due(failing[r], stuck))
        opcode = (found_r is not None and OPCODE in found_r
                  and _second_round_due(failing[r], stuck, 0))
        if more or opcode or not same:  # `same`: this batch judged plan()'s combinations
            out[r] = plan(pred, struct, rec[r:r + 1], values[r], ctx, failing[r],
                          cands=cands[r], none_passes=same and not opcode)
    return out


class _All:
    """The conjunction of clauses, as the byte scan checks one."""

    def __init__(self, clauses: Sequence[Clause]) -> None:
        self.clauses = clauses

    def check(self, rows: Rows) -> np.ndarray:
        ok = self.clauses[0].check(rows)
        for cl in self.clauses[1:]:
            ok = ok & cl.check(rows)
        return ok


def _joint_fields(failing: Sequence[tuple[Path, Clause]],
                  struct: Struct) -> dict[str, list[int]]:
    """One-byte fields read by two or more failing clauses -> those clauses' slots."""
    by: dict[str, list[int]] = {}
    for i, (_, cl) in enumerate(failing):
        for f in _scan_fields(cl, struct):
            by.setdefault(f.name, []).append(i)
    return {n: idx for n, idx in by.items() if len(idx) > 1}


def _with_joint(cands: list[list[Edit]], failing: Sequence[tuple[Path, Clause]],
                struct: Struct, rec: np.ndarray, ctx: Ctx) -> list[list[Edit]]:
    """Where failing clauses share a one-byte field (a dtype pair's two nibbles), the
    values of it that make them all pass, first among each one's candidates: each
    clause's own nearest value may fail the other. Where one of them also reads another
    field that a further failing clause reads (that field is wrong too: src1's dtype must
    equal an invalid out_dtype), the two are also scanned together, and the pairs that
    pass every clause reading either follow, offered by the clauses that read both."""
    lead: dict[int, list[Edit]] = {}  # per clause: the shared values put first
    pairs: dict[int, list[Edit]] = {}
    for name, idx in _joint_fields(failing, struct).items():
        f = struct.field(name)
        vals = np.arange(-128, 128) if f.signed else np.arange(256)
        ok = _scan(_All([failing[i][1] for i in idx]), rec, ctx, name, vals,  # type: ignore[arg-type]
                   Rows)[0][0]
        old = int(rec[name][0])
        dist = _distance(f, old, vals)
        good = ok & (vals != old)
        order = vals[good][np.argsort(dist[good], kind="stable")]
        joint = [{name: int(v)} for v in order[:2]]
        for i in idx:
            cands[i] = (joint + [e for e in cands[i] if e not in joint])[:K_MAX]
            lead[i] = joint + [e for e in lead.get(i, []) if e not in joint]
        for _, both, edits in _pair_scan(name, idx, cands, failing, struct, rec, ctx):
            for i in both:
                pairs[i] = pairs.get(i, []) + [e for e in edits if e not in pairs.get(i, [])]
    for i, two in pairs.items():  # right after the shared values: fewer fields first
        n = len([e for e in lead.get(i, []) if e in cands[i]])
        cands[i] = (cands[i][:n] + two[:2] + [e for e in cands[i][n:] if e not in two[:2]])
        cands[i] = cands[i][:K_MAX]
    return cands


def _distance(f: Field, old: int, vals: np.ndarray) -> np.ndarray:
    """How far each of `vals` is from `old`, as the byte scan orders them: a dtype in
    meaning, any other byte in bits."""
    if f.role == "dtype":
        return cast(np.ndarray, _DTYPE_DISTANCE[old & 0xFF, vals & 0xFF])
    return cast(np.ndarray, _POPCOUNT[(vals ^ old) & 0xFF])


def _pair_scan(name: str, idx: Sequence[int], cands: Sequence[list[Edit]],
               failing: Sequence[tuple[Path, Clause]], struct: Struct, rec: np.ndarray,
               ctx: Ctx) -> list[tuple[str, list[int], list[Edit]]]:
    """For each other one-byte field a clause of `idx` (those sharing `name`) reads and a
    failing clause outside `idx` reads too: (that field, the clauses of `idx` reading it,
    the first two edits of both fields together that pass every failing clause reading
    either). The other field takes the values the failing clauses' candidates give it
    (at most K_MAX), `name` all 256: one vectorized scan of at most K_MAX x 256 rows."""
    out = []
    reads = [{g.name for g in _scan_fields(cl, struct)} for _, cl in failing]
    f = struct.field(name)
    vals = np.arange(-128, 128) if f.signed else np.arange(256)
    old = int(rec[name][0])
    for other in sorted(set().union(*(reads[i] for i in idx)) - {name}):
        both = [i for i in idx if other in reads[i]]
        outside = [i for i in range(len(failing)) if i not in idx and other in reads[i]]
        if not both or not outside:
            continue
        g = struct.field(other)
        g_old = int(rec[other][0])
        tried = list(dict.fromkeys(int(e[other]) for c in cands for e in c
                                   if e.keys() == {other} and int(e[other]) != g_old))
        tried = tried[:K_MAX]
        if not tried:
            continue
        gv = np.array(tried, dtype=np.int64)
        rows = np.repeat(rec, len(gv) * 256)
        rows[other] = np.repeat(gv, 256).astype(rows[other].dtype)
        rows[name] = np.tile(vals, len(gv)).astype(rows[name].dtype)
        group = _All([failing[i][1] for i in sorted({*idx, *outside})])
        ok = group.check(Rows(rows, ctx)).reshape(len(gv), 256) & (vals != old)[None, :]
        dist = _distance(g, g_old, gv)[:, None] + _distance(f, old, vals)[None, :]
        key = np.where(ok, dist, _NONE).reshape(-1)
        first = np.argsort(key, kind="stable")[:2]  # ties: the earlier tried value first
        edits: list[Edit] = [{name: int(vals[k % 256]), other: int(gv[k // 256])}
                             for k in first.tolist() if key[k] < _NONE]
        if edits:
            out.append((other, both, edits))
    return out


def _shares_array(cands: Sequence[list[Edit]]) -> bool:
    """Two failing clauses have edits of one array field (merged element by element by
    plan(), which the batched search does not do)."""
    seen: set[str] = set()
    for c in cands:
        mine = {k for e in c for k, v in e.items() if isinstance(v, tuple)}
        if mine & seen:
            return True
        seen |= mine
    return False


def _search(pred: Predicate, rec: np.ndarray, values: Sequence[Values], ctx: Ctx,
            options: Sequence[list[list[Option]]]) -> list[tuple[Edit | None,
                                                                    list[Edit | None]]]:
    """Per record: (combined, per failing clause its edit) as plan()'s loop finds them, for
    records grouped into passes of at most ROWS_MAX combinations."""
    out: list[tuple[Edit | None, list[Edit | None]]] = []
    batch: list[int] = []
    rows = 0
    for r in range(len(rec) + 1):
        size = int(np.prod([len(o) for o in options[r]])) if r < len(rec) else 0
        if batch and (r == len(rec) or rows + size > ROWS_MAX):
            out += _search_pass(pred, rec[batch], [values[b] for b in batch], ctx,
                                [options[b] for b in batch])
            batch, rows = [], 0
        if r < len(rec):
            batch.append(r)
            rows += size
    return out


def _search_pass(pred: Predicate, rec: np.ndarray, values: Sequence[Values], ctx: Ctx,
                 options: Sequence[list[list[Option]]]) -> list[tuple[Edit | None,
                                                                         list[Edit | None]]]:
    """One pass of _search. Each row of `choice` is one combination (option ids, 0: no
    edit; slots in the clauses' order); each field's final value is the last chosen edit's,
    interned as a small int; a combination's key is its changed values, one per field."""
    opts: list[Option] = [(0, None)]
    col: dict[str, int] = {}  # field -> column of the key
    ids: list[dict[Any, int]] = []  # per column: value -> id
    start, count = [0], [0]  # per option: its first field edit in edit_col / edit_vid, count
    edit_col: list[int] = []
    edit_vid: list[int] = []
    n_max = max(len(o) for o in options)
    shapes = [tuple(len(s) for s in slots) for slots in options]
    sizes = [int(np.prod(sh)) for sh in shapes]
    choice = np.zeros((sum(sizes), n_max), dtype=np.intp)
    who = np.repeat(np.arange(len(options)), sizes)
    grids: dict[tuple[int, ...], np.ndarray] = {}  # itertools.product's order, as rows
    at = 0
    for r, slots in enumerate(options):
        base = []
        for slot in slots:
            base.append(len(opts))
            for rank, e in slot:
                start.append(len(edit_col))
                count.append(0 if e is None else len(e))
                opts.append((rank, e))
                for k, v in (e or {}).items():
                    c = col.setdefault(k, len(col))
                    if c == len(ids):
                        ids.append({})
                    edit_col.append(c)
                    edit_vid.append(ids[c].setdefault(v, len(ids[c])))
        grid = grids.get(shapes[r])
        if grid is None:
            grid = grids[shapes[r]] = np.indices(shapes[r]).reshape(len(slots), -1).T
        choice[at:at + sizes[r], :len(slots)] = grid + np.array(base, dtype=np.intp)
        at += sizes[r]
    none = np.array([e is None for _, e in opts])
    choice[none[choice]] = 0
    cur = np.array([[ids[c].setdefault(_norm(v[name]), len(ids[c])) for name, c in col.items()]
                    for v in values], dtype=np.int64).reshape(len(values), len(col))[who]
    final = cur.copy()
    starts, counts = np.array(start), np.array(count)
    cols, vids = np.array(edit_col, dtype=np.intp), np.array(edit_vid, dtype=np.int64)
    for s in range(n_max):  # slot by slot: a later clause's edit of a field wins
        o = choice[:, s]
        m = np.flatnonzero(counts[o])
        if len(m):
            reps = counts[o[m]]
            pos = np.repeat(starts[o[m]] - (np.cumsum(reps) - reps), reps) + np.arange(reps.sum())
            final[np.repeat(m, reps), cols[pos]] = vids[pos]
    keys = np.empty((len(choice), 1 + len(col)), dtype=np.int64)
    keys[:, 0] = who
    keys[:, 1:] = np.where(final != cur, final, -1)
    size = (keys[:, 1:] >= 0).sum(axis=1)
    live = np.flatnonzero(size > 0)
    results: list[tuple[Edit | None, list[Edit | None]]] = [
        (None, [None] * len(o)) for o in options]
    if not len(live):
        return results
    # one group per record and changed-value set: first row, least rank, any use per slot
    flat = np.ascontiguousarray(keys[live]).view(np.dtype((np.void, keys.itemsize
                                                             * keys.shape[1]))).reshape(-1)
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    rank = np.array([r for r, _ in opts], dtype=np.int64)[choice[live]].sum(axis=1)
    least = np.full(len(first), np.iinfo(np.int64).max)
    np.minimum.at(least, inverse, rank)
    used = np.zeros((len(first), n_max), dtype=bool)
    np.logical_or.at(used, inverse, choice[live] != 0)
    row = live[first]
    opcode = (keys[row, 1 + col[OPCODE]] >= 0) if OPCODE in col else np.zeros(len(row), bool)
    order = np.lexsort((row, least, opcode, size[row], who[row]))  # plan()'s stable sort
    row, used, owners = row[order], used[order], who[row[order]]
    starts = np.searchsorted(owners, owners, side="left")
    keep = np.arange(len(row)) - starts < COMBOS
    row, used, owners = row[keep], used[keep], owners[keep]
    judged = rec[owners]
    for name, c in col.items():
        k = keys[row, 1 + c]
        sel = k >= 0
        if sel.any():
            table = list(ids[c])  # ids in insertion order: the value of id j is table[j]
            judged[name][sel] = np.array(table)[k[sel]]
    ok = _judge(judged, pred, ctx, False)

    def firsts(mask: np.ndarray) -> dict[int, int]:
        """Per record: its first passing combination's row (in the sorted order)."""
        hits = np.flatnonzero(mask)
        who_hits, at = np.unique(owners[hits], return_index=True)
        return dict(zip(who_hits.tolist(), row[hits[at]].tolist(), strict=True))

    def edit(r: int, g: int) -> Edit:
        return _changed([opts[o][1] for o in choice[g].tolist() if o], values[r])

    combined = firsts(ok)
    per_slot = [firsts(ok & used[:, s]) for s in range(n_max)]
    for r, g in combined.items():
        results[r] = (edit(r, g), [edit(r, per_slot[s][r]) if r in per_slot[s] else None
                                   for s in range(len(options[r]))])
    return results


def describe(edit: Mapping[str, Any], struct: Struct | None = None) -> str:
    """`set out_dtype = FP32 (0xA), reduce_cmd = ZERO_ACCUMULATE (3), dst.start_addr =
    0x00000400`: enum fields by name (when `struct` is given), addresses in hex."""
    from neurondbg.machine.isa.opcodes import mnemonic
    from neurondbg.machine.legality.wire.gates import dtype_label

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
