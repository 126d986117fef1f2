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


def _scan_fields(clause: Clause, struct: Struct) -> list[Any]:
    """The one-byte fields of the clause the generic search tries all 256 values of."""
    out = []
    for name in dict.fromkeys(clause.fields):
        if name in FROZEN or name in clause.frozen:
            continue
        f = struct.field(name)
        if f.count == 1 and f.itemsize == 1:
            out.append(f)
    return out


_POPCOUNT = np.array([bin(v).count("1") for v in range(256)], dtype=np.int64)
_NONE = 1 << 20  # a sort key above every real one (a value that does not pass)
SCAN_RECORDS = 256  # records per vectorized byte scan: 256 x 256 rows, ~4 MiB


class _Reads(Rows):
    """Rows that note the fields a check reads (`rec` itself, read whole: None).

    A check that read only the scanned field saw nothing of the rest of the record, so
    its outcome for each of the 256 values is the same for every record: one probe
    serves them all (the check sees the generation and engine, the same for all)."""

    def __init__(self, rec: np.ndarray, ctx: Ctx) -> None:
        self.read: set[str | None] = set()
        super().__init__(rec, ctx)

    @property  # type: ignore[override]
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


def _shared_scan(clause: Clause, struct: Struct, rec: np.ndarray, ctx: Ctx, f: Any,
                 vals: np.ndarray) -> np.ndarray | None:
    """The scan's outcomes for every record from one scan per distinct value of the other
    fields the check reads (found by a probe on the first record, then confirmed: the
    scan of those representatives reads no other field); None when it reads the record
    whole or an array field."""
    probe = _Reads(np.repeat(rec[:1], 256), ctx)
    probe._rec[f.name] = vals.astype(probe._rec[f.name].dtype)
    clause.check(probe)
    others = sorted(n for n in probe.read if n != f.name)  # type: ignore[type-var]
    if None in probe.read or any(struct.field(n).count != 1 for n in others):
        return None
    if others:
        cols = np.stack([rec[n].astype(np.int64) for n in others], axis=1)
        _, first, inverse = np.unique(cols, axis=0, return_index=True, return_inverse=True)
    else:
        first, inverse = np.zeros(1, dtype=np.intp), np.zeros(len(rec), dtype=np.intp)
    reps = []
    for s in range(0, len(first), SCAN_RECORDS):
        ok, rows = _scan(clause, rec[first[s:s + SCAN_RECORDS]], ctx, f.name, vals, _Reads)
        if not rows.read <= probe.read:  # type: ignore[attr-defined]
            return None
        reps.append(ok)
    return np.concatenate(reps)[inverse.reshape(-1)]


def _byte_scan_many(clause: Clause, struct: Struct, rec: np.ndarray, ctx: Ctx,
                    need: int = 256) -> list[list[Edit]]:
    """Per record: the single-byte values of the clause's fields that make the clause pass,
    nearest in bits to the current value first (ties: the lower byte, then the earlier
    field); at least the first `need` of that order (all of it by default)."""
    per: list[list[tuple[int, Edit]]] = [[] for _ in range(len(rec))]
    for f in _scan_fields(clause, struct):
        vals = np.arange(-128, 128) if f.signed else np.arange(256)
        shared = _shared_scan(clause, struct, rec, ctx, f, vals) if len(rec) > 1 else None
        for s in range(0, len(rec), SCAN_RECORDS):
            part = rec[s:s + SCAN_RECORDS]
            if shared is not None:
                ok = shared[s:s + SCAN_RECORDS]
            else:
                ok = _scan(clause, part, ctx, f.name, vals, Rows)[0]
            old = part[f.name].astype(np.int64)[:, None]
            key = _POPCOUNT[(vals ^ old) & 0xFF] * 256 + (vals & 0xFF)
            key = np.where(ok & (vals != old), key, _NONE)
            order = np.argsort(key, axis=1, kind="stable")[:, :need]
            keys = np.take_along_axis(key, order, axis=1).tolist()
            for r, ks, vs in zip(range(s, s + len(part)), keys, vals[order].tolist(),
                                 strict=True):
                per[r] += [(k, {f.name: v}) for k, v in zip(ks, vs, strict=True) if k < _NONE]
    out = []
    for edits in per:
        edits.sort(key=lambda t: t[0])  # stable: equal keys keep the field order
        out.append([e for _, e in edits])
    return out


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


def _changed(edits: Sequence[Edit | None], values: Values) -> Edit:
    """The edits merged in order (a later clause's value wins), minus no-op fields."""
    merged: Edit = {}
    for e in edits:
        if e is not None:
            merged.update(e)
    return {k: v for k, v in merged.items() if _norm(values[k]) != v}


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


def plan(pred: Predicate, struct: Struct, rec: np.ndarray, values: Values, ctx: Ctx,
         failing: Sequence[tuple[Path, Clause]], forced: bool = False) -> Plan:
    """Search the smallest checked edit sets for the failing leaves of one record."""
    if not failing:
        return Plan(None, {}, None, struct)
    cands = [candidates(cl, struct, rec, values, ctx) for _, cl in failing]
    combos: list[tuple[int, int, Edit, tuple[bool, ...]]] = []
    seen: dict[tuple, int] = {}
    for choice in itertools.product(*_options(cands)):
        changed = _changed([e for _, e in choice], values)
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
        records = np.repeat(rec, len(combos))  # one copy per combination, then its edits
        for j, (_, _, e, _) in enumerate(combos):
            for name, value in e.items():
                records[name][j] = value
        ok = _judge(records, pred, ctx, forced)
    else:
        ok = np.zeros(0, dtype=bool)
    passing = [c for c, good in zip(combos, ok.tolist(), strict=True) if good]
    combined = passing[0][2] if passing else None
    per_leaf = [next((e for _, _, e, used in passing if used[i]), None)
                for i in range(len(failing))]
    return _plan(pred, struct, ctx, failing, cands, combined, per_leaf)


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
        if not _scan_fields(cl, struct):
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
    return [_plan(pred, struct, ctx, failing[r], cands[r], *found[r]) if failing[r]
            else Plan(None, {}, None, struct) for r in range(n)]


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
    order = np.lexsort((row, least, size[row], who[row]))  # plan()'s stable sort
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
