"""What `explain NAME` shows for every wire clause, over the whole clause table: the
failing record fails exactly that clause, and the checked fix passes the whole predicate.

Where the record also fails another clause, the test proves no record fails the clause
alone: the other clauses read only fields it enumerates (every value of at most two
one-byte fields, every opcode of the predicate), and no combination fails the clause
with those passing. A clause with no failing record passes on random records of its
predicate (a rule the predicate's own opcode or the generation already decides).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.legality.explain import explain
from neurondbg.machine.legality.lookup import (
    SITES,
    Site,
    failing_example,
    generations,
    judged_opcodes,
)
from neurondbg.machine.legality.result import PATH_SEP
from neurondbg.machine.legality.wire.clause import Clause, Ctx, Predicate, Rows
from neurondbg.machine.legality.wire.repair import apply
from neurondbg.machine.legality.wire.samples import EXAMPLES

OPCODE = "header.opcode"
PREDICATES = sorted({s.predicate.name for s in SITES if s.predicate.name in EXAMPLES})


def clause_at(pred: Predicate, path: str) -> Clause:
    first, *rest = path.split(PATH_SEP)
    node = next(c for c in pred.clauses if c.name == first)
    for name in rest:
        node = next(c for c in node.children if c.name == name)
    return node


def _alone_impossible(site: Site, raw: bytes, gen: Gen, also: tuple[str, ...]) -> None:
    """Every value of the fields the clause and `also` read (at most two one-byte fields,
    and the predicate's opcodes) that fails the clause also fails a clause reading only
    those fields: no edit elsewhere in the record makes it fail alone (a proof)."""
    pred = site.predicate
    struct = STRUCTS[pred.struct]
    others = [clause_at(pred, p) for p in also]
    fields = list(dict.fromkeys(f for cl in (site.clause, *others) for f in cl.fields))
    values = []
    for name in fields:
        if name == OPCODE:
            values.append(judged_opcodes(pred))
            continue
        f = struct.field(name)
        assert f.count == 1 and f.itemsize == 1, (site.path_text, also, name)
        values.append(list(range(256)))
    assert len(values) <= 3 and np.prod([len(v) for v in values]) <= 1 << 17, fields
    grid = list(itertools.product(*values))
    recs = np.repeat(np.frombuffer(raw, dtype=struct.dtype), len(grid))
    for k, name in enumerate(fields):
        recs[name] = [row[k] for row in grid]
    ctx = Ctx(gen)
    rows = Rows(recs, ctx)
    within = set(fields) | {OPCODE}
    decided = np.zeros(len(grid), dtype=bool)  # another clause fails, decided by `fields`
    for top in pred.clauses_for(gen):
        for path, cl in top.walk(gen=gen):
            if cl.children_for(gen) or cl.note or PATH_SEP.join(path).startswith(
                    site.path_text):
                continue
            if set(cl.fields) <= within:
                decided |= ~cl.check(rows)
    alone = ~site.clause.check(rows) & ~decided
    assert not alone.any(), (site.path_text, also, grid[int(np.flatnonzero(alone)[0])])


def _never_fails(site: Site) -> None:
    """The clause passes on 4,096 random records of its predicate on each generation that
    has it (its failure is decided elsewhere: the opcode, the generation, the operand)."""
    pred = site.predicate
    struct = STRUCTS[pred.struct]
    rng = np.random.default_rng(26)
    raw = rng.integers(0, 256, (4096, struct.dtype.itemsize), dtype=np.uint8)
    raw[:, 0] = rng.choice(judged_opcodes(pred), 4096)
    recs = raw.view(struct.dtype).reshape(-1)
    for gen in generations(site):
        assert site.clause.check(Rows(recs, Ctx(gen))).all(), (site.path_text, gen)


@pytest.mark.parametrize("predicate", PREDICATES)
def test_each_clause_example_fails_exactly_it_and_its_fix_passes(predicate: str) -> None:
    shown = 0
    for site in [s for s in SITES if s.predicate.name == predicate]:
        fail = failing_example(site)
        if fail is None:
            _never_fails(site)
            continue
        shown += 1
        v = explain(fail.raw, fail.gen)
        assert not v.node(site.path_text).passed, site.path_text
        inside = [p for p in v.failing_paths() if p.startswith(site.path_text)]
        assert inside or site.clause.note, site.path_text  # notes are not failing paths
        assert [p for p in v.failing_paths() if p not in inside] == list(fail.also)
        if fail.also:
            _alone_impossible(site, fail.raw, fail.gen, fail.also)
        if site.clause.note:
            continue
        if v.fix_fields is None and set(v.node(site.path_text).fields) == {OPCODE}:
            # the opcode byte is not in the generation's set: no field edit fixes that
            assert "cannot be fixed within the record" in (v.no_fix or ""), v.no_fix
            continue
        assert v.fix_fields is not None, (site.path_text, v.no_fix)
        struct = STRUCTS[site.predicate.struct]
        fixed = apply(struct, np.frombuffer(fail.raw, struct.dtype).copy(), v.fix_fields)
        assert explain(fixed.tobytes(), fail.gen, fixes=False).valid, site.path_text
    assert shown


def test_the_table_is_covered() -> None:
    """Every clause of every predicate with an example is a site the test above walks."""
    walked = {(s.predicate.name, s.path_text) for s in SITES}
    from neurondbg.machine.legality.wire.registry import BY_NAME
    for name in PREDICATES:
        for top in BY_NAME[name].clauses:
            for path, cl in top.walk():
                if not cl.informational:
                    assert (name, PATH_SEP.join(path)) in walked
