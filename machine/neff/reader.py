"""Reading a NEFF: the archive (machine.neff.container) into the typed model.

    neff = open_neff("model.neff")        # NeffError: one line, naming file and member
    sub = neff.subgraph(None)             # the first subgraph that has work
    sub.program(Engine.PE)                 # codec Program over PE.bin's records

What is required (neff-facts §1.3): `kelf-0.json`, each subgraph's `def.json`, and the
five `.bin` and five engine `.json` files `def.json` names. Everything else is optional
(`info.json`, `tensor_map.json`, `metrics.json`, ...). Liberal where the corpus varies:
unknown keys are ignored, `num_tiling_dimensions` and `op` may be absent, transposes
carry extra keys, def.json may omit the file names (the compiler's defaults are used).
Strict where a runner would go wrong: a semaphore index outside 0..255, a queue owner
that is not an engine, a DMA entry naming a queue def.json lacks, two entries with one
(queue, id), a stream whose size is not whole 64-byte records, a sizes/steps pair of
different lengths. Each is a NeffError naming the member and the JSON path.
"""

from __future__ import annotations

import builtins
import gc
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from neurondbg.machine.isa.spec import RECORD_BYTES
from neurondbg.machine.neff.container import (
    DEFAULT_LIMITS,
    Archive,
    HashCheck,
    Limits,
    NeffError,
    NeffHeader,
    read_archive,
)
from neurondbg.machine.neff.descscan import scan_engine_json
from neurondbg.machine.neff.jsonfile import MAX_JSON_DEPTH, JsonMemberError, load_json
from neurondbg.machine.neff.model import (
    ENGINES,
    SEMAPHORES,
    Descriptor,
    DescriptorRange,
    DmaEntry,
    DmaQueue,
    Engine,
    NeffInfo,
    Subgraph,
    Tensor,
    Var,
)

T = TypeVar("T")


@dataclass
class Neff:
    """A NEFF read in memory: header, info, subgraphs, and the reader's warnings."""

    path: str
    header: NeffHeader
    hash_check: HashCheck
    info: NeffInfo
    subgraphs: list[Subgraph]
    warnings: list[str] = field(default_factory=list)
    member_count: int = 0
    unpacked_bytes: int = 0

    def subgraph(self, name: str | None = None) -> Subgraph:
        """The subgraph called `name`; by default the first that has work (else the
        first). NeffError naming the choices when there is none by that name."""
        if name is None:
            return next((s for s in self.subgraphs if s.has_work), self.subgraphs[0])
        for s in self.subgraphs:
            if s.name == name:
                return s
        names = ", ".join(s.name for s in self.subgraphs)
        raise NeffError(f"{self.path}: no subgraph {name!r}; this NEFF has {names}")


class _Doc:
    """A JSON value and where it is (`sg00/SP.json: dma[3].desc[0].from_off`)."""

    def __init__(self, value: Any, where: str, path: str = "") -> None:
        self.value = value
        self.where = where
        self.path = path

    def at(self) -> str:
        return f"{self.where}: {self.path}" if self.path else self.where

    def fail(self, expected: str) -> NeffError:
        shown = repr(self.value)
        if len(shown) > 40:
            shown = shown[:37] + "..."
        return NeffError(f"{self.at()}: {shown}; expected {expected}")

    def child(self, key: str | int) -> _Doc:
        sub = f"{self.path}[{key}]" if isinstance(key, int) else (
            f"{self.path}.{key}" if self.path else key)
        return _Doc(self.value[key], self.where, sub)

    def obj(self) -> dict[str, Any]:
        if not isinstance(self.value, dict):
            raise self.fail("an object")
        return self.value

    def get(self, key: str) -> _Doc | None:
        d = self.obj()
        return self.child(key) if key in d and d[key] is not None else None

    def need(self, key: str) -> _Doc:
        got = self.get(key)
        if got is None:
            raise NeffError(f"{self.at() if self.path else self.where}: missing key {key!r}")
        return got

    def items(self) -> list[_Doc]:
        if not isinstance(self.value, list):
            raise self.fail("a list")
        return [self.child(i) for i in range(len(self.value))]

    def str(self) -> str:
        if not isinstance(self.value, str):
            raise self.fail("a string")
        return self.value

    def int(self, lo: int = 0, hi: int | None = None) -> int:
        v = self.value
        if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None
                                                                       and v > hi):
            raise self.fail(f"an integer in {lo}..{hi}" if hi is not None
                            else f"an integer >= {lo}")
        return v

    def ints(self, lo: builtins.int | None = 0) -> tuple[builtins.int, ...]:
        v = self.value
        if not isinstance(v, list) or not all(
                isinstance(x, int) and not isinstance(x, bool) and (lo is None or x >= lo)
                for x in v):
            raise self.fail("a list of integers" + (f" >= {lo}" if lo is not None else ""))
        return tuple(v)


def _opt(doc: _Doc, key: str, conv: Callable[[_Doc], T]) -> T | None:
    got = doc.get(key)
    return None if got is None else conv(got)


def _json(archive: Archive, member: str, where: str,
          hook: Callable[[dict[str, Any]], Any] | None = None) -> _Doc:
    data = archive.members.get(member)
    if data is None:
        raise NeffError(f"{where}: no member {member!r} in the archive")
    try:
        return _Doc(load_json(data, f"{where}: {member}", object_hook=hook),
                    f"{where}: {member}")
    except JsonMemberError as e:
        raise NeffError(str(e)) from None


def _engine_json(archive: Archive, member: str, where: str) -> _Doc:
    """An engine JSON, its descriptors read by machine.neff.descscan when it can (a
    large NEFF's are nearly all of its JSON), else each by _descriptor_hook."""
    data = archive.members.get(member)
    if data is not None:
        doc = scan_engine_json(data, MAX_JSON_DEPTH, _descriptor_fast)
        if doc is not None:
            return _Doc(doc, f"{where}: {member}")
    return _json(archive, member, where, _descriptor_hook)


def _stream(archive: Archive, member: str, where: str) -> np.ndarray:
    data = archive.members.get(member)
    if data is None:
        raise NeffError(f"{where}: no member {member!r} in the archive")
    if len(data) % RECORD_BYTES:
        raise NeffError(f"{where}: member {member!r}: {len(data):,} bytes is not a whole "
                        f"number of {RECORD_BYTES}-byte records")
    arr = np.frombuffer(data, dtype=np.uint8).reshape(-1, RECORD_BYTES)
    arr.flags.writeable = False
    return arr


def _queue(name: str, doc: _Doc) -> DmaQueue:
    owner_text = doc.need("owner").str()
    try:
        owner = Engine(owner_text.lower())
    except ValueError:
        raise doc.child("owner").fail("an engine: " + ", ".join(e.value for e in ENGINES)
                                      ) from None
    sems = doc.need("semaphore_set")
    sem_set = sems.ints()
    bad = [s for s in sem_set if s >= SEMAPHORES]
    if bad:
        raise NeffError(f"{sems.at()}: semaphore index {bad[0]}; expected 0..{SEMAPHORES - 1}")
    if not sem_set:
        raise sems.fail("a non-empty list of semaphore indices")
    return DmaQueue(name, owner, sem_set,
                    type=_opt(doc, "type", _Doc.str) or "in",
                    num_queues=_opt(doc, "num_queues", _Doc.int) or len(sem_set),
                    fabric_path=_opt(doc, "fabric_path", _Doc.str) or "main")


def _side(doc: _Doc, side: str) -> tuple[str, str, int, tuple[int, ...], tuple[int, ...]]:
    sizes = doc.need(f"{side}_sizes")
    steps = doc.need(f"{side}_steps")
    sz, st = sizes.ints(), steps.ints(lo=None)
    if len(sz) != len(st):
        raise NeffError(f"{doc.at()}: {side}_sizes has {len(sz)} dimensions, "
                        f"{side}_steps {len(st)}; expected the same number")
    return (doc.need(side).str(), _opt(doc, f"{side}_dtype", _Doc.str) or "",
            doc.need(f"{side}_off").int(), sz, st)


_INT = {int}


def _ints(v: Any) -> tuple[int, ...] | None:
    """`v` as a tuple when it is a list of ints (bools excluded), else None."""
    if type(v) is not list or (v and set(map(type, v)) != _INT):
        return None
    return tuple(v)


def _naturals(v: Any) -> tuple[int, ...] | None:
    """As _ints, and every value >= 0."""
    t = _ints(v)
    return t if t is not None and (not t or min(t) >= 0) else None


def _descriptor_fast(d: Any) -> Descriptor | None:
    """The descriptor in `d` when every field is as expected (the common case, checked
    with a few type tests over all its numbers at once), else None: _descriptor then
    finds and words the fault."""
    g = d.get
    ss, st, ds, dt = g("from_sizes"), g("from_steps"), g("to_sizes"), g("to_steps")
    src, dst, so, do = g("from"), g("to"), g("from_off"), g("to_off")
    try:
        nums = ss + st + ds + dt
        if (set(map(type, nums)) - _INT or len(ss) != len(st) or len(ds) != len(dt)
                or type(so) is not int or type(do) is not int or min(ss + ds + [so, do]) < 0
                or type(src) is not str or type(dst) is not str):
            return None
    except TypeError:  # a value that is not a list
        return None
    sdt, ddt = g("from_dtype", ""), g("to_dtype", "")
    op, tile, top = g("op"), g("num_tiling_dimensions"), g("transpose_op")
    tsh, tel = g("transpose_shape"), g("transpose_element_size")
    if (type(sdt) is not str or type(ddt) is not str
            or (op is not None and type(op) is not str)
            or (top is not None and type(top) is not str)
            or (tile is not None and (type(tile) is not int or tile < 0))
            or (tel is not None and (type(tel) is not int or tel < 0))):
        return None
    shape = None
    if tsh is not None:
        shape = _naturals(tsh)
        if shape is None:
            return None
    n, t = _NAMES.setdefault, _SHAPES.setdefault
    ts, tst, td, tdt = tuple(ss), tuple(st), tuple(ds), tuple(dt)
    return Descriptor(n(src, src), n(dst, dst), n(sdt, sdt), n(ddt, ddt), so, do, t(ts, ts),
                      t(td, td), t(tst, tst), t(tdt, tdt), op if op is None else n(op, op),
                      tile, top, shape, tel)


# One object per distinct name and per distinct sizes/steps tuple among the descriptors
# being read (a NEFF's 10^5 descriptors share a few of each): tens of MB less for a large
# NEFF. Emptied when the NEFF is read (open_neff).
_NAMES: dict[str, str] = {}
_SHAPES: dict[tuple[int, ...], tuple[int, ...]] = {}


def _descriptor_hook(d: dict[str, Any]) -> Descriptor | dict[str, Any]:
    """json.loads' object_hook for engine JSON: a well-formed descriptor becomes its
    Descriptor at once (its dict is freed); anything else stays for _descriptor."""
    if "from_sizes" in d and type(d["from_sizes"]) is list:
        fast = _descriptor_fast(d)
        if fast is not None:
            return fast
    return d


def _descriptor(doc: _Doc) -> Descriptor:
    if isinstance(doc.value, Descriptor):
        return doc.value
    fast = _descriptor_fast(doc.value) if isinstance(doc.value, dict) else None
    if fast is not None:
        return fast
    src, src_dt, src_off, src_sizes, src_steps = _side(doc, "from")
    dst, dst_dt, dst_off, dst_sizes, dst_steps = _side(doc, "to")
    return Descriptor(src, dst, src_dt, dst_dt, src_off, dst_off, src_sizes, dst_sizes,
                      src_steps, dst_steps, op=_opt(doc, "op", _Doc.str),
                      num_tiling_dimensions=_opt(doc, "num_tiling_dimensions", _Doc.int),
                      transpose_op=_opt(doc, "transpose_op", _Doc.str),
                      transpose_shape=_opt(doc, "transpose_shape", _Doc.ints),
                      transpose_element_size=_opt(doc, "transpose_element_size", _Doc.int))


def _entry_fast(d: Any, queues: dict[str, DmaQueue]) -> DmaEntry | None:
    """The entry in `d` when every field is as expected, else None (as _descriptor_fast)."""
    if type(d) is not dict:
        return None
    q, n, sem, desc, note = d.get("queue"), d.get("id"), d.get("semaphore"), d.get("desc", []), \
        d.get("#comment", "")
    if (type(q) is not str or q not in queues or type(n) is not int or n < 0
            or type(sem) is not int or not 0 <= sem < SEMAPHORES or type(note) is not str):
        return None
    if type(desc) is DescriptorRange:  # descriptors machine.neff.descscan read
        return DmaEntry(q, n, sem, desc, note)
    if type(desc) is not list:
        return None
    for x in desc:
        if type(x) is not Descriptor:
            return None
    return DmaEntry(q, n, sem, tuple(desc), note)


def _entry(doc: _Doc, queues: dict[str, DmaQueue]) -> DmaEntry:
    fast = _entry_fast(doc.value, queues)
    if fast is not None:
        return fast
    qdoc = doc.need("queue")
    queue = qdoc.str()
    if queue not in queues:
        known = ", ".join(queues) or "none"
        raise NeffError(f"{qdoc.at()}: queue {queue!r} is not in def.json dma_queue "
                        f"(it has {known})")
    desc = doc.get("desc")
    return DmaEntry(queue, doc.need("id").int(), doc.need("semaphore").int(0, SEMAPHORES - 1),
                    () if desc is None else desc.value if type(desc.value) is DescriptorRange
                    else tuple(_descriptor(d) for d in desc.items()),
                    _opt(doc, "#comment", _Doc.str) or "")


def _entries(doc: _Doc, queues: dict[str, DmaQueue]) -> tuple[DmaEntry, ...]:
    dma = doc.get("dma")
    if dma is None:
        return ()
    if type(dma.value) is not list:
        raise dma.fail("a list")
    # the common case without a _Doc per entry; an odd entry takes the worded path
    out = tuple(_entry_fast(d, queues) or _entry(dma.child(i), queues)
                for i, d in enumerate(dma.value))
    seen: set[tuple[str, int]] = set()
    for i, e in enumerate(out):
        if (e.queue, e.id) in seen:
            raise NeffError(f"{dma.at()}[{i}]: a second entry {e.label}; each (queue, id) "
                            "names one entry")
        seen.add((e.queue, e.id))
    return out


def _var(name: str, doc: _Doc) -> Var:
    return Var(name, _opt(doc, "type", _Doc.str) or "", _opt(doc, "var_id", _Doc.int),
               _opt(doc, "size", _Doc.int), _opt(doc, "file_name", _Doc.str),
               _opt(doc, "backing_variable_off", _Doc.int))


def _tensor(name: str, doc: _Doc) -> Tensor:
    shape = doc.get("tf_shape") or doc.get("sim_shape")
    return Tensor(name, _opt(doc, "dtype", _Doc.str) or "",
                  shape.ints() if shape is not None else (),
                  kind=_opt(doc, "kind", _Doc.str),
                  is_const=bool(doc.obj().get("is_const", False)),
                  format=_opt(doc, "tf_format", _Doc.str),
                  file=_opt(doc, "tf_file", _Doc.str))


def _subgraph(archive: Archive, name: str, definition: str, where: str) -> Subgraph:
    d = _json(archive, definition, where)
    d.obj()
    folder = posixpath.dirname(definition)
    queues = {q: _queue(q, d.child("dma_queue").child(q))
              for q in (d.get("dma_queue") or _Doc({}, d.where)).obj()}
    streams: dict[Engine, np.ndarray] = {}
    entries: dict[Engine, tuple[DmaEntry, ...]] = {}
    for e in ENGINES:
        bin_name = _opt(d, f"{e.value}_instr", _Doc.str) or f"{e.file_stem}.bin"
        json_name = _opt(d, e.value, _Doc.str) or f"{e.file_stem}.json"
        streams[e] = _stream(archive, posixpath.join(folder, bin_name), where)
        entries[e] = _entries(_engine_json(archive, posixpath.join(folder, json_name), where),
                              queues)
    var_doc = d.get("var")
    variables = ({k: _var(k, var_doc.child(k)) for k in var_doc.obj()}
                 if var_doc is not None else {})
    tensors: dict[str, Tensor] = {}
    tmap = posixpath.join(folder, "tensor_map.json")
    if tmap in archive.members:
        t = _json(archive, tmap, where)
        tensors = {k: _tensor(k, t.child(k)) for k in t.obj()}
    runtime = _opt(d, "runtime_semaphore_count", lambda x: x.int(0, SEMAPHORES))
    files = {k: archive.members[m] for k, v in variables.items()
             if v.file_name is not None
             and (m := posixpath.join(folder, v.file_name)) in archive.members}
    return Subgraph(name, streams, queues, entries, variables, tensors,
                    3 if runtime is None else runtime, files)


def neff_from_archive(archive: Archive, where: str) -> Neff:
    """The typed NEFF in `archive` (module docstring)."""
    kelf = _json(archive, "kelf-0.json", where)
    target = kelf.need("target").str()
    subgraphs = []
    graphs = kelf.need("graphs").items()
    if not graphs:
        raise NeffError(f"{kelf.where}: graphs: an empty list; expected at least one "
                        "subgraph")
    for g in graphs:
        name = g.need("name").str()
        given = g.get("definition")
        definition = posixpath.normpath(given.str() if given is not None
                                        else f"{name}/def.json")
        subgraphs.append(_subgraph(archive, name, definition, where))
    tool = None
    if "info.json" in archive.members:
        tool = _opt(_json(archive, "info.json", where), "tool_version", _Doc.str)
    info = NeffInfo(archive.header.name, target, tool)
    return Neff(where, archive.header, archive.hash_check, info, subgraphs,
                list(archive.warnings), len(archive.names), archive.unpacked_bytes)


def open_neff(path: str | Path, limits: Limits = DEFAULT_LIMITS) -> Neff:
    """The NEFF at `path`, read and typed; NeffError (one line) on anything wrong."""
    where = str(path)
    # hundreds of thousands of descriptors and no cycles among them: a collection
    # triggered part-way would walk them all again for nothing
    enabled = gc.isenabled()
    gc.disable()
    try:
        return neff_from_archive(read_archive(path, limits), where)
    finally:
        _NAMES.clear()
        _SHAPES.clear()
        # ... and so would the first collections after it (0.2 s), which find them all in
        # the youngest generation: moved to the oldest at once (through the permanent
        # one, and back: still collected, by a full collection)
        gc.freeze()
        gc.unfreeze()
        if enabled:
            gc.enable()
