"""Predicates as data: a `Predicate` is a named list of `Clause`s.

A clause is declared once and serves both uses: its `check` is vectorized over
a structured record array (bulk validation: a few numpy operations per clause
for a whole file) and the single-instruction explanation runs the very same
`check` on a one-record array, then asks `message` to state the actual values
and the rule. Clauses read fields by their flat dotted names from
machine.isa.structs (ref 000 §3.1, isa-facts §1-6).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar, cast

import numpy as np
import numpy.typing as npt

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.messages import MessagePattern
from neurondbg.machine.legality.provenance import Provenance

# field name -> python int, or tuple of ints for array fields (one record's values)
Values = Mapping[str, Any]
T = TypeVar("T")
Mask = npt.NDArray[np.bool_]  # one verdict (or one flag) per record


def as_mask(x: Any) -> Mask:
    """`x`, a bool array (a check's verdicts, a flag column, a verdict table by code) that
    numpy's stubs type as Any: they give Any for `==` and `!=` on arrays (ndarray.__eq__
    keeps object's signature), for an operator on arrays of unknown dtype and for a
    reduction along an axis. A cast: nothing is computed."""
    return cast(Mask, x)


class Rows:
    """The records a clause checks (one group of one struct), with a memo.

    `rows["in_dtype"]` is the field column; `rows.memo(key, fn)` caches derived
    arrays (decoded addresses, element counts) shared by several clauses.

    A field column is copied out of the records once, on first read, and that contiguous
    copy serves every clause that reads the field: a field view steps through the
    records 64 bytes at a time (a cache line per element), the copy is dense. Columns
    and memoised arrays are shared: clauses never write into them.
    """

    def __init__(self, rec: np.ndarray, ctx: Ctx) -> None:
        self.rec = rec
        self.ctx = ctx
        self._memo: dict[Hashable, object] = {}
        self._cols: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.rec)

    def __getitem__(self, name: str) -> np.ndarray:
        col = self._cols.get(name)
        if col is None:
            col = self._cols[name] = np.ascontiguousarray(self.rec[name])
        return col

    def memo(self, key: Hashable, fn: Callable[[], T]) -> T:
        """fn(), computed once per key: a key names one derivation (one function, one
        type of result) whatever clause asks for it."""
        if key not in self._memo:
            self._memo[key] = fn()
        return cast(T, self._memo[key])  # the key's one derivation made it: a T

    def true(self) -> np.ndarray:
        return np.ones(len(self.rec), dtype=bool)


def lookup(table: np.ndarray, col: np.ndarray) -> np.ndarray:
    """table[col] for a 1-D column of codes (a table of 256 verdicts, ...), fast.

    A long column (LOOKUP_RUN codes or more) that holds one value throughout (the opcode
    within a predicate's group, a mode field most records share) is looked up once: two
    cheap passes instead of a gather. Otherwise `take`, which on small integer codes is
    about twice as fast as fancy indexing and, like it, refuses codes beyond the table;
    on a shorter column the test for one value would cost more than the gather (most
    groups of a deduplicated program are a few records)."""
    if len(col) >= LOOKUP_RUN and (col == col[0]).all():
        return np.full(len(col), table[col[0]], dtype=table.dtype)
    return table.take(col)


LOOKUP_RUN = 1 << 12  # measured: below it, take alone beats the one-value test and fill


class Ctx(NamedTuple):
    """What a check depends on besides the record: the generation and the engine (a
    NamedTuple: immutable and hashable as a frozen dataclass, and cheaper to declare on
    the start-up path)."""

    gen: Gen
    engine: str | None = None


Check = Callable[[Rows], np.ndarray]
Message = Callable[[Values, Ctx, bool], str]
Fix = Callable[[Values, Ctx], "str | None"]
# candidate field edits that may make a failing clause pass ({field: new value}, most
# plausible first); machine.legality.wire.repair checks them on the whole predicate
Repair = Callable[[Values, Ctx], "list[dict[str, Any]]"]


@dataclass(frozen=True)
class Clause:
    """One clause: name (the reference's), fields read, check, message, provenance."""

    name: str
    fields: tuple[str, ...]
    check: Check
    message: Message | None  # None: a composite's message is its children's
    provenance: Provenance
    fix: Fix | None = None
    note: bool = False  # note-level: reported, never makes an instruction invalid
    gens: frozenset[Gen] | None = None  # present on these generations only (None: all)
    informational: bool = False  # always passes: states a fact ("no documented predicate")
    # the reference's sub-clauses: the clause passes exactly when every child does
    children: tuple[Clause, ...] = ()
    repair: Repair | None = None
    # fields the generic one-byte search (machine.legality.wire.repair) may not touch
    frozen: tuple[str, ...] = ()
    # the messages the references quote for this rule, and the other names they give it
    # (machine.legality.messages.quoting): `explain` finds the rule by either
    messages: tuple[MessagePattern, ...] = ()
    aliases: tuple[str, ...] = ()
    # children_for's answers by generation (memo: every explanation asks, per node)
    _kids: dict[Gen, tuple[Clause, ...]] = field(default_factory=dict, init=False,
                                                  compare=False, repr=False)

    def present(self, gen: Gen) -> bool:
        return self.gens is None or gen in self.gens

    def children_for(self, gen: Gen) -> tuple[Clause, ...]:
        """The sub-clauses present on `gen` (a gate's sub-rule may exist on some only)."""
        kids = self._kids.get(gen)
        if kids is None:
            kids = self._kids[gen] = tuple(ch for ch in self.children if ch.present(gen))
        return kids

    def walk(self, path: tuple[str, ...] = (),
             gen: Gen | None = None) -> Iterator[tuple[tuple[str, ...], Clause]]:
        """(path of names, clause) for this clause and every sub-clause, depth first (with
        `gen`, the sub-clauses present on it)."""
        here = (*path, self.name)
        yield here, self
        for child in self.children if gen is None else self.children_for(gen):
            yield from child.walk(here, gen)


def composite(name: str, children: tuple[Clause, ...], provenance: Provenance,
              message: Message | None = None, fix: Fix | None = None,
              alone: Check | None = None) -> Clause:
    """A clause that is the conjunction of its sub-clauses (the reference's tree).

    Its check is the AND of the checks of the children present on the generation, so the
    bulk validator and the one-instruction explanation run the same declarations. With no
    `message`, the explanation states the failing children's messages (every child's when
    all pass). On a generation where no child is present, the clause is a leaf checking
    `alone`.
    """
    fields = tuple(dict.fromkeys(f for ch in children for f in ch.fields))
    by_gen = any(ch.gens is not None for ch in children)

    def check(rows: Rows) -> np.ndarray:
        present = tuple(ch for ch in children if ch.present(rows.ctx.gen)) if by_gen \
            else children
        if not present and alone is not None:
            return alone(rows)
        ok = present[0].check(rows)
        for ch in present[1:]:
            ok = ok & ch.check(rows)
        return ok

    return Clause(name, fields, check, message, provenance, fix=fix, children=children)


@dataclass(frozen=True)
class Predicate:
    """A named conjunction of clauses over one struct, for a set of opcodes."""

    name: str
    struct: str
    opcodes: tuple[int, ...]
    clauses: tuple[Clause, ...]
    provenance: Provenance
    doc: str = ""
    _by_gen: dict[Gen, tuple[Clause, ...]] = field(default_factory=dict, compare=False,
                                                    repr=False)

    def clauses_for(self, gen: Gen) -> tuple[Clause, ...]:
        """The clauses present on `gen`, in declaration order."""
        if gen not in self._by_gen:
            self._by_gen[gen] = tuple(c for c in self.clauses if c.present(gen))
        return self._by_gen[gen]


def const_message(text: str) -> Message:
    """A message that does not depend on the values."""
    return lambda v, ctx, ok: text
