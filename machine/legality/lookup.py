"""Find the clauses and predicates a name or a compiler message refers to, and build a
minimal instruction that fails exactly one clause (for `neurondbg explain`).

    found = lookup("inst failed assertion check: 'start_addr_active_channels'")
    found.sites      # wire clauses (every predicate and sub-clause path they appear at)
    found.predicates # predicates named, by name or by mnemonic ("Copy" -> is_valid_copy)
    found.nki        # NKI-level rules (reference 004), by intrinsic
    found.messages   # quoted compiler / assert messages in the text, with their rules
    found.documented # names the references use for rules no clause checks
    found.unknown    # names the references do not document, with the nearest known ones

Decisions (the references leave them open): quoted words in a message are what it names;
without quotes every identifier is tried, and a word is reported as unknown only when
it looks like a rule name (lower case with an underscore, as `s4d4_pl_dtype_check`).
A clause name with its operand (`tensor4d_valid(dst)`) names that operand's clause; the
bare name (`tensor4d_valid`) every operand's. The minimal failing instruction changes
the predicate's valid example (machine.legality.wire.samples) in one or two fields,
keeps the opcode (so the bytes are judged by that very predicate), and fails nothing
else where that is possible; all candidates are judged in one vectorized pass.
"""

from __future__ import annotations

import difflib
import itertools
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa import addr as isa_addr
from neurondbg.machine.isa import opcodes as isa_opcodes
from neurondbg.machine.isa.spec import Struct
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.legality.messages import MessagePattern
from neurondbg.machine.legality.messages import words as message_words
from neurondbg.machine.legality.nki.spec import ClauseSpec
from neurondbg.machine.legality.provenance import Provenance
from neurondbg.machine.legality.result import PATH_SEP
from neurondbg.machine.legality.wire.bulk import evaluate
from neurondbg.machine.legality.wire.clause import Clause, Ctx, Predicate, Rows
from neurondbg.machine.legality.wire.registry import ALL_PREDICATES, BY_NAME, predicate_for
from neurondbg.machine.legality.wire.samples import EXAMPLES, example

GEN_ORDER = (Gen.CAYMAN, Gen.MARIANA, Gen.MAVERICK, Gen.SUNDA)  # the default first


@dataclass(frozen=True)
class Site:
    """Where a wire clause appears: predicate, path of names from the top-level clause."""

    predicate: Predicate
    path: tuple[str, ...]
    clause: Clause

    @property
    def path_text(self) -> str:
        return PATH_SEP.join(self.path)


@dataclass(frozen=True)
class NkiRule:
    intrinsic: str
    spec: ClauseSpec


@dataclass(frozen=True)
class MessageHit:
    """A quoted message found in the text, and the rules that declare it."""

    pattern: MessagePattern
    sites: tuple[Site, ...]
    nki: tuple[NkiRule, ...]


@dataclass(frozen=True)
class ReferenceName:
    """A name the references use for something neurondbg does not check as a clause."""

    name: str
    provenance: Provenance
    text: str  # what it is, and why no clause checks it


@dataclass
class Found:
    """What a text names (see the module docstring)."""

    sites: dict[str, list[Site]] = field(default_factory=dict)  # query -> sites
    predicates: list[Predicate] = field(default_factory=list)
    nki: dict[str, list[NkiRule]] = field(default_factory=dict)
    intrinsics: list[str] = field(default_factory=list)
    engines: list[Clause] = field(default_factory=list)  # engine_has_opcode(<engine>)
    messages: list[MessageHit] = field(default_factory=list)
    documented: list[ReferenceName] = field(default_factory=list)
    unknown: dict[str, list[str]] = field(default_factory=dict)  # name -> nearest names

    @property
    def empty(self) -> bool:
        return not (self.sites or self.predicates or self.nki or self.intrinsics
                    or self.engines or self.messages or self.documented)


def _key(name: str) -> str:
    return name.strip().lower()


def _base(name: str) -> str:
    return name.split("(", 1)[0]


def _wire_sites() -> list[Site]:
    return [Site(p, path, cl) for p in ALL_PREDICATES for top in p.clauses
            for path, cl in top.walk() if not cl.informational]


SITES: list[Site] = _wire_sites()


ANY_CALL = "any call"  # the intrinsic column of rules added to every call (a dtype's gate)


def _nki_rules() -> list[NkiRule]:
    from neurondbg.machine.legality.nki.check import CATALOG
    from neurondbg.machine.legality.nki.common import NATIVE_DTYPE

    rules = [NkiRule(name, spec) for name, intr in CATALOG.items() for spec in intr.clauses]
    return [*rules, NkiRule(ANY_CALL, NATIVE_DTYPE)]


def _names(name: str, aliases: tuple[str, ...]) -> list[str]:
    """The keys a rule is found by: its name, the name without its operand, its aliases."""
    return list(dict.fromkeys(_key(n) for n in (name, _base(name), *aliases)))


def _nki() -> tuple[dict[str, list[NkiRule]], list[str]]:
    from neurondbg.machine.legality.nki.check import CATALOG

    rules: dict[str, list[NkiRule]] = {}
    for r in _nki_rules():
        for k in _names(r.spec.name, r.spec.aliases):
            rules.setdefault(k, []).append(r)
    return rules, list(CATALOG)


def _wire_names() -> dict[str, list[Site]]:
    by_name: dict[str, list[Site]] = {}
    for s in SITES:
        for k in _names(s.path[-1], s.clause.aliases):
            by_name.setdefault(k, []).append(s)
    return by_name


def message_index() -> list[MessageHit]:
    """Every message a rule declares (wire clauses and NKI rules), with the rules that
    declare it: explain's index of compiler messages, derived from the declarations."""
    index: dict[str, tuple[MessagePattern, list[Site], list[NkiRule]]] = {}
    for s in SITES:
        for m in s.clause.messages:
            index.setdefault(m.text, (m, [], []))[1].append(s)
    for r in _nki_rules():
        for m in r.spec.messages:
            index.setdefault(m.text, (m, [], []))[2].append(r)
    return [MessageHit(m, tuple(sites), tuple(rules)) for m, sites, rules in index.values()]


# Names the references give to rules neurondbg does not check as a clause of its own
# (a gate no modelled predicate uses, a sub-rule the references did not recover).
REFERENCE_NAMES: tuple[ReferenceName, ...] = (
    ReferenceName("is_valid_mx_dtype", Provenance("isa-facts", "§8.1"),
                  "the MX dtype gate {FP8_EXP2..EXP5, FP4, INT4}; no predicate neurondbg "
                  "models calls it (the MX opcodes have no documented predicate)"),
    ReferenceName("is_cptc", Provenance("isa-facts", "§8"),
                  "is_cptc(c) = (c & 0xF8) == 0x18 && (c & 7) != 0: the compressed-tensor "
                  "dtype codes CPTC1..7; no predicate neurondbg models calls it"),
    ReferenceName("is_valid_int_aluop_dve", Provenance("isa-facts", "§3.3"),
                  "MAVERICK's 15 DVE integer ALU ops; the list was not recovered, so no "
                  "clause checks it"),
    ReferenceName("is_update_semaphore", Provenance("isa-facts", "§1.2, §10"),
                  "the semaphore-update consistency sub-clause of has_valid_neuron_events; "
                  "its rule was not recovered, so neurondbg checks only the two enum codes"),
    ReferenceName("is_arith_op", Provenance("isa-facts", "§3.3"),
                  "the arithmetic ALU-op class; the clauses check its narrowing "
                  "is_general_arith_op (see tensor_tensor_arith_accepts(op), "
                  "is_general_arith_op(op0))"),
    ReferenceName("is_bitvec_op", Provenance("isa-facts", "§3.3"),
                  "the 10 bit-vector ALU ops; the clauses check its narrowing "
                  "is_general_bitvec_op (is_bitvec_op minus CRC32)"),
    ReferenceName("mem3d_valid", Provenance("isa-facts", "§2.3"),
                  "the MEM_PATTERN form of tensor3d_valid (its indirect arm checks the index "
                  "and data addresses); neurondbg judges an indirect operand under "
                  "tensorNd_valid's indirect_mem_pattern clause"),
)
_REFERENCE_BY_KEY = {_key(r.name): r for r in REFERENCE_NAMES}


def known_names() -> list[str]:
    """Every documented name: wire clauses (with and without operand, and their aliases),
    predicates, NKI rules and intrinsics, and the names of REFERENCE_NAMES."""
    _, intrinsics = _nki()
    names = {s.path[-1] for s in SITES} | {_base(s.path[-1]) for s in SITES}
    names |= {a for s in SITES for a in s.clause.aliases}
    names |= {p.name for p in ALL_PREDICATES}
    names |= {n for r in _nki_rules() for n in (r.spec.name, _base(r.spec.name),
                                               *r.spec.aliases)}
    names |= {c.name for cs in _engine_clauses().values() for c in cs}
    names |= {r.name for r in REFERENCE_NAMES}
    return sorted(names | set(intrinsics))


_QUOTED = re.compile(r"['\"`]([^'\"`]+)['\"`]")
# an operand may name an array element: is_valid_register_read(src_registers[3])
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\([A-Za-z0-9_, \[\]]*\))?")
_RULE_LIKE = re.compile(r"[a-z][a-z0-9]*_[a-z0-9_]+(\([a-z0-9_, \[\]]*\))?")


def _tokens(text: str) -> tuple[list[str], bool]:
    """(candidate names, quoted): the quoted words if any, else every identifier."""
    quoted = [q.strip() for q in _QUOTED.findall(text) if q.strip()]
    return (quoted, True) if quoted else (_WORD.findall(text), False)


def lookup(text: str) -> Found:
    """The clauses, predicates and NKI rules `text` names (see the module docstring)."""
    rules, intrinsics = _nki()
    by_name = _wire_names()
    mnemonics = {m.name.lower(): int(m) for m in isa_opcodes.Opcode}
    engine_clauses = _engine_clauses()
    found = Found(messages=[h for h in message_index() if h.pattern.matches(text)])
    tokens, quoted = _tokens(text)
    single = len(tokens) == 1
    for tok in dict.fromkeys(tokens):
        k = _key(tok)
        hit = False
        if k in by_name:
            found.sites[tok] = by_name[k]
            hit = True
        if k in {_key(p.name) for p in ALL_PREDICATES}:
            found.predicates.append(BY_NAME[next(p.name for p in ALL_PREDICATES
                                                 if _key(p.name) == k)])
            hit = True
        elif k in mnemonics:  # "Copy" in an NCC_IINAR001 line names the instruction
            pred = predicate_for(mnemonics[k])
            if pred.opcodes and pred not in found.predicates:
                found.predicates.append(pred)
                hit = True
        if k in rules:
            found.nki[tok] = rules[k]
            hit = True
        if k in engine_clauses:
            found.engines += [c for c in engine_clauses[k] if c not in found.engines]
            hit = True
        if k in {_key(i) for i in intrinsics}:
            found.intrinsics.append(next(i for i in intrinsics if _key(i) == k))
            hit = True
        if k in _REFERENCE_BY_KEY and _REFERENCE_BY_KEY[k] not in found.documented:
            found.documented.append(_REFERENCE_BY_KEY[k])
            hit = True
        # a matched message's quoted words are its operands (`src`), not rule names
        if not hit and not found.messages and (quoted or single or _RULE_LIKE.fullmatch(tok)):
            found.unknown[tok] = nearest(tok)
    return found


def _engine_clauses() -> dict[str, list[Clause]]:
    """engine_has_opcode(<engine>) by name, and every engine's under the bare name."""
    from neurondbg.machine.legality.wire.registry import ENGINE_CHOICES, engine_clause

    out: dict[str, list[Clause]] = {}
    for engine in ENGINE_CHOICES:
        cl = engine_clause(engine)
        out.setdefault(_key(cl.name), []).append(cl)
        out.setdefault(_key(_base(cl.name)), []).append(cl)
    return out


def nearest(name: str, n: int = 5) -> list[str]:
    """The documented names closest to `name` (difflib ratio, then shared words)."""
    names = known_names()
    close = difflib.get_close_matches(name, names, n=n, cutoff=0.5)
    if len(close) < n:  # names sharing a word: s4d4_pl_dtype_check -> *dtype*, s4d4_*
        words = {w for w in re.split(r"[_()]", name.lower()) if len(w) > 2}
        scored = sorted(((-sum(w in nm.lower() for w in words), nm) for nm in names
                         if nm not in close), key=lambda t: t)
        close += [nm for s, nm in scored if s < 0][: n - len(close)]
    return close


def nearest_to_text(text: str, found: Found, n: int = 5) -> list[str]:
    """For a text that matched nothing: the nearest names of its unknown rule-like words,
    then the names close to any of its words, then the quoted messages sharing most of
    its words (a message shown in quotes)."""
    out: list[str] = []
    for near in found.unknown.values():
        out += [x for x in near if x not in out]
    names = known_names()
    for w in dict.fromkeys(_WORD.findall(text)):
        if len(w) >= 4:
            out += [x for x in difflib.get_close_matches(w, names, n=2, cutoff=0.8)
                    if x not in out]
    mine = set(message_words(text))
    if mine:
        scored = []
        for hit in message_index():
            theirs = set(message_words(hit.pattern.text))
            share = len(mine & theirs) / max(1, len(theirs))
            if share >= 0.5:
                scored.append((-share, hit.pattern.text))
        out += [repr(t) for _, t in sorted(scored)]
    return out[:n]


# -- where a clause applies ------------------------------------------------------------------

def generations(site: Site) -> list[Gen]:
    """The generations on which the clause is evaluated for some opcode of its predicate."""
    opgens = {g for code in site.predicate.opcodes for g in isa_opcodes.OPCODES[code].gens}
    if not site.predicate.opcodes:
        opgens = set(Gen)
    top = next(c for c in site.predicate.clauses if c.name == site.path[0])
    path = [top]
    for name in site.path[1:]:  # a sub-rule may exist on some generations only
        path.append(next(c for c in path[-1].children if c.name == name))
    return [g for g in Gen if g in opgens and all(c.present(g) for c in path)]


def engines(pred: Predicate) -> list[str]:
    """The queue engines whose dispatch tables hold an opcode of the predicate."""
    found = {e for code in pred.opcodes for e in isa_opcodes.OPCODES[code].engines}
    return sorted(found)


# -- a minimal failing instruction -------------------------------------------------------------

_ADDR_PROBES = (0x1, 0x2, 0x3, 0x401, 0x3000000, 0x2000000, 0x2000001, 0x2300000,
                200 * 1024, 229376, 33 * 0x40000, 97 * 0x40000, 100 * 0x40000, 127 * 0x40000,
                0x80000041, 0x80000105, 0xA0000005, 0x23000000, 0xE0000005)
_WORD_PROBES = (0, 1, 2, 4, 8, 64, 0x1000001, 0xFF800000, 0x7F7FFFFF, 0xFFFFFFFF)
_BYTE_ARRAY_PROBES = (1, 64, 130, 200)


def _probes(struct: Struct, name: str) -> list[int | tuple[int, ...]]:
    f = struct.field(name)
    lo, hi = f.bounds
    if f.count == 1:
        if f.itemsize == 1:
            return list(range(lo, hi + 1))
        base = _ADDR_PROBES if f.role == "addr4" else _WORD_PROBES
        out: list[int | tuple[int, ...]] = [v for v in base if lo <= v <= hi]
        if f.signed:
            out += [v for v in (-(1 << 31), 1 << 31, -1) if lo <= v <= hi]
        return out
    if f.role == "count":  # num_elem: a zero in one dim, or a different count
        zeros = [tuple(0 if j == k else 4 if j == 0 else 1 for j in range(f.count))
                 for k in range(f.count)]
        return [*zeros, (8,) + (1,) * (f.count - 1), (1,) * f.count]
    if f.itemsize == 1:
        return [tuple(v if j == k else 0 for j in range(f.count))
                for k in range(f.count) for v in _BYTE_ARRAY_PROBES]
    return []


@dataclass(frozen=True)
class Failing:
    """A record that fails the clause: its bytes, generation, and what else fails."""

    raw: bytes
    gen: Gen
    # the failing paths outside the clause (empty: it fails that clause alone; under a
    # composite clause, any of its rules may be the failing one)
    also: tuple[str, ...]


def _leaf_checks(site: Site, rows: Rows) -> np.ndarray:
    """Per record: the target fails and no leaf of the same top-level clause outside it
    does (under a composite target any of its leaves may be the failing one)."""
    top = next(c for c in site.predicate.clauses if c.name == site.path[0])
    ok = ~site.clause.check(rows)
    for path, cl in top.walk(gen=rows.ctx.gen):
        if not cl.children_for(rows.ctx.gen) and path[: len(site.path)] != site.path:
            ok &= cl.check(rows)
    return ok


def failing_example(site: Site) -> Failing | None:
    """The predicate's example changed in one or two of the clause's fields so that the
    clause fails (alone, where possible), on the first generation that has it. When every
    such record also fails another clause, the fewest-failing ones are changed further,
    in the fields of the clauses failing beside it (their declared repairs and probes),
    while the clause keeps failing: up to REFINE_ROUNDS times."""
    pred = site.predicate
    if pred.name not in EXAMPLES:
        return None
    struct = STRUCTS[pred.struct]
    base = np.frombuffer(example(pred.name), dtype=struct.dtype)
    fields = list(dict.fromkeys(site.clause.fields))
    probes = {f: _probes(struct, f) if f != OPCODE else _opcode_probes(pred, base)
              for f in fields}
    combos: list[dict[str, Any]] = [{f: v} for f in fields for v in probes[f]]
    for a, b in itertools.combinations(fields, 2):
        pa, pb = probes[a], probes[b]
        if len(pa) * len(pb) > PAIRS_MAX:  # two byte fields: the low values, then a spread
            pa, pb = _some(pa), _some(pb)
        combos += [{a: x, b: y} for x, y in itertools.product(pa, pb)]
    # a dtype set on another operand too: a Copy's FP32R source fails only its own gate
    # when the destination (which allows FP32R) has it as well
    for a in fields:
        if a != OPCODE and struct.field(a).role == "dtype":
            combos += [{a: x, g.name: x} for g in struct.fields
                       if g.role == "dtype" and g.name not in fields and g.count == 1
                       for x in probes[a]]
    if not combos:
        return None
    # a record keeping the opcode first: among equally good ones, the first is shown
    combos.sort(key=lambda edit: OPCODE in edit)
    recs = _edited(base, combos)
    gens = [g for g in GEN_ORDER if g in generations(site)]
    # a sub-clause fails alone where it can; where no record fails it without a sibling
    # rule (FP4 fails Copy's plain gate and its 4-bit check), any record failing it will do
    for gen, alone in [(g, True) for g in gens] + [(g, False) for g in gens
                                                   if len(site.path) > 1]:
        ctx = Ctx(gen)
        hits, others = _judge(site, recs, ctx, alone)
        if not hits.any():
            continue
        for _ in range(REFINE_ROUNDS):
            if others[hits].min() == 0:
                break
            more = _refined(site, struct, recs, hits, others, ctx)
            if not len(more):
                break
            more_hits, more_others = _judge(site, more, ctx)
            if not more_hits.any() or more_others[more_hits].min() >= others[hits].min():
                break
            recs, hits, others = more, more_hits, more_others
        best = int(np.flatnonzero(hits)[np.argmin(others[hits])])
        from neurondbg.machine.legality.explain import explain

        raw = recs[best:best + 1].tobytes()
        v = explain(raw, gen, fixes=False)
        also = tuple(p for p in v.failing_paths() if not p.startswith(site.path_text))
        return Failing(raw, gen, also)
    return None


OPCODE = "header.opcode"
PAIRS_MAX = 1 << 13  # records tried for two fields together (every value of a byte field
# against the probes of an address; 60 x 60 values of two byte fields)
REFINE_ROUNDS = 2  # further changes of a record that fails another clause too
REFINE_KEEP = 16  # records followed into the next round, fewest other failures first


def _some(values: list[Any]) -> list[Any]:
    """The first 32 values and every 8th after them (codes, register numbers: the low ones
    are the common ones, the high ones where a range check fails)."""
    return values[:32] + values[32::8]


def judged_opcodes(pred: Predicate) -> list[int]:
    """The opcode bytes `pred` judges (the fallback predicate has no opcodes of its own:
    every byte no other predicate judges)."""
    return [code for code in range(256) if predicate_for(code) is pred]


def _opcode_probes(pred: Predicate, base: np.ndarray) -> list[int]:
    """The predicate's other opcodes (the record stays one that predicate judges)."""
    here = int(base[OPCODE][0])
    return [code for code in judged_opcodes(pred) if code != here]


def _edited(base: np.ndarray, combos: list[dict[str, Any]]) -> np.ndarray:
    recs = np.repeat(base[:1], len(combos))
    for j, edit in enumerate(combos):
        for name, value in edit.items():
            recs[name][j] = value
    return recs


def _judge(site: Site, recs: np.ndarray, ctx: Ctx,
           alone: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Per record: it fails the clause (and, `alone`, nothing else of its branch), and how
    many other fatal top-level clauses fail."""
    pred = site.predicate
    clauses, passed = evaluate(pred, recs, ctx)
    rows = Rows(recs, ctx)
    hits = ~passed[[c.name for c in clauses].index(site.path[0])]
    if len(site.path) > 1:  # a sub-clause: it fails, the rest of its branch passes
        hits &= _leaf_checks(site, rows) if alone else ~site.clause.check(rows)
    others = np.zeros(len(recs), dtype=np.int64)
    for cl, ok in zip(clauses, passed, strict=True):
        if cl.note:
            continue
        if cl.name != site.path[0]:
            others += ~ok
    return hits, others


def _refined(site: Site, struct: Struct, recs: np.ndarray, hits: np.ndarray, others: np.ndarray,
             ctx: Ctx) -> np.ndarray:
    """The best records changed once more: in each field of each other failing leaf that
    the clause does not read, by that leaf's declared repair or a probe value."""
    from neurondbg.machine.isa.codec import record_fields
    from neurondbg.machine.legality.explain import failing_leaves

    mine = set(site.clause.fields)
    order = np.flatnonzero(hits)[np.argsort(others[hits], kind="stable")][:REFINE_KEEP]
    out: list[np.ndarray] = []
    for i in order.tolist():
        rec = recs[i:i + 1]
        values = record_fields(struct, rec[0])
        edits: list[dict[str, Any]] = []
        for path, leaf in failing_leaves(site.predicate, rec, ctx):
            if path[0] == site.path[0]:
                continue
            if leaf.repair is not None:
                edits += [e for e in leaf.repair(values, ctx) if not mine & set(e)]
            for f in dict.fromkeys(leaf.fields):
                if f in mine:
                    continue
                if f == OPCODE:
                    edits += [{f: v} for v in _opcode_probes(site.predicate, rec)]
                    continue
                edits += [{f: v} for v in _probes(struct, f)[:256]]
                value = values[f]
                # the same address, shape-register mode (an addr4 field is one int)
                if struct.field(f).role == "addr4" and isinstance(value, int):
                    word = value & isa_addr.ADDRESS_MASK
                    edits.append({f: word | isa_addr.SHAPE_BIT})
        if edits:
            out.append(_edited(rec, [e for e in edits if _fits(struct, e)]))
    return np.concatenate(out) if out else recs[:0]


def _fits(struct: Struct, edit: dict[str, Any]) -> bool:
    for name, value in edit.items():
        f = struct.field(name)
        lo, hi = f.bounds
        vals = value if isinstance(value, tuple) else (value,)
        if len(vals) != f.count or not all(lo <= int(x) <= hi for x in vals):
            return False
    return True
