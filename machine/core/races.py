"""Race detection by happens-before over semaphore edges (DESIGN.md "NeuronCore", Races).

Like a thread sanitizer: each engine carries a vector clock (machine/core/clock.py).

- **Release** (a semaphore update): the updater's clock is published into that
  semaphore's history, then the updater's own epoch advances, so what it does after
  the update is not covered. The core calls `release` after an instruction's reads and
  before its writes for a `_READ` update, after its writes for `_COMPLETE`.
- **Acquire** (a satisfied wait) joins ONE published clock: that of the release that
  BEGAN the current run of values for which the wait's condition holds. Incs to 1, 2 and
  a wait `>= 1` acquire the first inc, whatever the schedule did after: under another
  schedule the waiter could have passed right after it, so only what preceded it is
  guaranteed. When the condition has held since the initial value, there is no edge.
  For a semaphore that one engine alone updates, the history of values is that
  engine's program order, so the joined release, and with it every verdict, is the
  same under every schedule. Limits: with several producers on one semaphore, the
  values (and so which release begins the run) depend on the interleaving, and the
  verdict can differ between schedules; order that comes from counting alone is not
  seen (POOL and ACT each inc once, DVE waits `>= 2`: DVE joins only the release that
  reached 2, so an access of the other producer is reported); a wait whose condition
  does not hold on the current value joins nothing; beyond the last `SEM_HISTORY`
  releases of a semaphore the run's start is unknown and the oldest kept release is
  joined (more order than proven: it can miss a race, never invent one).
- **Accesses**: an access races with an earlier access from ANOTHER engine to
  overlapping bytes of the same space, at least one a write, unless the earlier one
  happens before it (its epoch <= the later engine's clock entry for it). Same-engine
  accesses are program order. Overlap is exact: partition ranges and byte bounds
  first, then, for strided patterns whose bounds meet, an interval intersection in
  numpy over each pattern's merged byte runs (never a Python loop over bytes). The
  stored accesses an access is checked against are found by byte range
  (machine/core/liveindex.py), not by scanning every unordered one. The accesses of
  one instruction at one step that differ in their Regions alone (a DMA entry's
  descriptors) may come as a run (`access_run`): checked by their bounds together and
  stored as one (counted as that many), with the reports of one access each.
- **Fixes**: a race's missing edge is named as the code intends when it can be
  (machine/core/intent.py: the producer signals a semaphore nobody waits on, so the
  other engine should wait on it), else as the schedule ordered the two accesses. A wait
  always goes on an engine: for a DMA entry's access (`Access.queued`), before the
  trigger that enqueued it, on the trigger's engine; a wait for such an access waits for
  the semaphore its completion raises. When the engine a wait would go on runs the
  later access's wait point before the earlier's, the hint orders them the other way
  round (waiting there for the earlier one would wait for what follows the wait).
- **Reports**: once per pair of instructions ((engine, pc, kind) twice, unordered) and
  space; `races` keeps the first `KEEP_RACES`, `dropped` counts the rest.

Memory stays bounded however long a run goes:
- a stored access is dropped once it happens before every other engine's current
  clock (clocks only grow, so it can never race again);
- of repeated identical (engine, pc, kind, region) accesses only the newest is kept:
  its epoch is >= the older one's, so any later access the older one is not ordered
  before, the newer one is not ordered before either, over the same bytes, as the
  same instruction: the report (once per instruction pair) is the same. The pc is in
  the key so that which instruction is named does not depend on the schedule;
- at most `MAX_LIVE` unordered accesses per engine and space are kept (beyond, the
  oldest goes: a race with it is missed, none invented); `SEM_HISTORY` releases per
  semaphore;
- the undo log for `rewind` holds between half and all of `undo_budget` entries, and
  of `history_budget` bytes: older history is folded into snapshots of the detector
  (at most `MAX_SNAPSHOTS`, and the snapshots after step 0's together within the
  other half of `history_budget`: beyond, the ones closest together go first, the
  newest last). `rewind` to a step before the log's reach restores the newest
  snapshot at or before it and returns that snapshot's step: the caller then feeds
  the steps from there again (as the core's own replay from a checkpoint does).
- `history_nbytes` is what the log and the snapshots hold, as Python really keeps it
  (each entry's tuple, and the objects only it keeps alive: a replaced or dropped
  access, a release pushed out of a history, an old clock; a snapshot's containers
  and what they hold), so a core counts it in its history budget
  (tests/core/test_race_history_bytes.py holds the count to tracemalloc's).

Event steps are the core's global step numbers, nondecreasing between rewinds.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Final, Literal, NamedTuple

import numpy as np

from neurondbg.machine.core.clock import Clock, fresh
from neurondbg.machine.core.liveindex import LiveIndex
from neurondbg.machine.isa.enums import UpdateMode
from neurondbg.machine.state import Region

AccessKind = Literal["read", "write"]
READ: Final = "read"
WRITE: Final = "write"
KEEP_RACES = 1000
SEM_HISTORY = 64  # releases kept per semaphore
MAX_LIVE = 1 << 14  # unordered accesses kept per engine and space
UNDO_BUDGET = 1 << 18  # undo-log entries (each a small tuple) before folding
MAX_SNAPSHOTS = 16
# Bytes Python keeps per undo-log entry (measured with tracemalloc on CPython 3.11; the
# clock-sized parts add 8 per engine): the tuple and its step, plus what only the entry
# keeps alive. A stored access (_Live, its Access, its bare Region, its key) is
# LIVE_BYTES; a release pushed out of a semaphore's history RELEASE_BYTES.
LIVE_BYTES = 400
RELEASE_BYTES = 230
_ENTRY_BYTES = 110
RUNS_CACHE = 256  # strided patterns (and pairs) whose byte runs (verdicts) are kept


@dataclass(frozen=True, slots=True)
class Queued:
    """What a DMA queue entry's access adds (the queue neither runs code nor waits): the
    trigger that enqueued the entry, `engine`'s record at `pc` run at global step `step`
    (where a wait that orders the access after something goes), and the semaphore the
    entry's completion raises, `sem`, to `value` (what a wait ordering something after
    the access waits for). `label` names the entry (`qSPIO0#3`)."""

    engine: str
    pc: int
    step: int
    sem: int
    value: int
    label: str


@dataclass(frozen=True)
class Access:
    """One read or write of a memory region by one instruction (or a DMA entry)."""

    engine: str
    pc: int
    opcode: str
    kind: AccessKind
    region: Region
    step: int  # global step number
    queued: Queued | None = None  # a DMA entry's access: its trigger and completion

    def to_dict(self) -> dict[str, str | int]:
        return {"engine": self.engine, "pc": self.pc, "opcode": self.opcode,
                "access": self.kind}


@dataclass(frozen=True)
class WaitFix:
    """A suggested fix: `engine`'s instruction at `pc` waits for `sem[sem] >= value`."""

    engine: str
    pc: int
    sem: int
    value: int

    def to_dict(self) -> dict[str, str | int]:
        return {"engine": self.engine, "pc": self.pc, "wait_mode": "SEM_GE_IMM",
                "semaphore": self.sem, "value": self.value}


class Side(NamedTuple):
    """One access of a race as a suggested fix reads it (machine/core/intent.py)."""

    engine: str
    pc: int
    kind: str  # "read" | "write"
    queued: Queued | None = None  # a DMA entry's: a wait before it goes before its trigger


# (a, b) -> (words, fix) or None (machine/core/intent.py)
Suggest = Callable[[Side, Side], "tuple[str, WaitFix | None] | None"]


@dataclass(frozen=True)
class Race:
    """Two unordered conflicting accesses; `a` came first in the schedule taken."""

    a: Access
    b: Access
    space: str
    partitions: tuple[int, int]  # half-open
    bytes: tuple[int, int]  # half-open: lowest overlapping byte, one past the highest
    missing: str  # the edge that would order them, in words
    fix: WaitFix | None = None  # the wait that orders them as the code intends

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "a": self.a.to_dict(), "b": self.b.to_dict(), "space": self.space,
            "partitions": list(self.partitions), "bytes": list(self.bytes),
            "missing": self.missing}
        if self.fix is not None:
            out["fix"] = self.fix.to_dict()
        return out


@dataclass(frozen=True)
class RaceRow:
    """One race as a list shows it (`info races`, a Races pane): both instructions, the
    bytes, the missing edge, and the global step that found it (where to jump)."""

    n: int  # 1-based, in the order found
    step: int  # the global step of the later access (the one that found it)
    first: tuple[str, int, str, AccessKind]  # (engine, pc, opcode, kind), ran first
    second: tuple[str, int, str, AccessKind]
    where: str  # "sbuf[0:128, 0x100:0x120]": partitions and bytes, half-open
    missing: str
    fix: WaitFix | None

    @classmethod
    def of(cls, n: int, r: Race) -> RaceRow:
        (p0, p1), (b0, b1) = r.partitions, r.bytes
        return cls(n, r.b.step, (r.a.engine, r.a.pc, r.a.opcode, r.a.kind),
                   (r.b.engine, r.b.pc, r.b.opcode, r.b.kind),
                   f"{r.space}[{p0}:{p1}, {b0:#x}:{b1:#x}]", r.missing, r.fix)


class _Release(NamedTuple):  # a tuple: built on every semaphore update, so cheap
    engine: int
    pc: int
    value: int  # the semaphore's value after the update
    clock: tuple[int, ...]  # the updater's clock, published
    when: str
    step: int


_VALUE = itemgetter(2)  # a _Release's value
# a _Release made from its tuple of fields (a NamedTuple's own __new__ is a Python call)
_new_release = tuple.__new__


class _Run(NamedTuple):
    """What `access_run` reads of a run's Regions: those with elements (`parts`), the
    space they share ("" when they do not), whether no two parts are equal, and their
    hull (lowest p0, highest p1, lowest byte, one past the highest). `regions`: as
    given (what keeps their identities, the cache's key, alive)."""

    regions: tuple[Region, ...]
    parts: tuple[Region, ...]
    space: str
    distinct: bool
    hull: tuple[int, int, int, int]

    @classmethod
    def of(cls, regions: Sequence[Region]) -> _Run:
        parts = tuple(r for r in regions if r.count)  # as `access`: nothing to check
        spaces = {r.space for r in parts}
        space = spaces.pop() if len(spaces) == 1 else ""
        if not parts:
            return cls(tuple(regions), parts, space, True, (0, 0, 0, 0))
        bounds = [r.bounds for r in parts]
        return cls(tuple(regions), parts, space, len(set(parts)) == len(parts),
                   (min(r.p0 for r in parts), max(r.p1 for r in parts),
                    min(b[0] for b in bounds), max(b[1] for b in bounds)))


class _Live:
    """A stored access: its epoch, insertion order and the _READ release of its step; or
    a run of them (`access_run`: `acc` with each Region of `parts`, oldest first), with
    the bounds of them all."""

    __slots__ = ("acc", "epoch", "hi", "lo", "p0", "p1", "parts", "reads", "rr", "seq")

    def __init__(self, acc: Access, epoch: int, seq: int,
                 rr: _ReadRel | None) -> None:
        self.acc = acc
        self.epoch = epoch
        self.seq = seq
        self.rr = rr  # (step, pc, epoch published, mode name) of a _READ release
        self.parts: tuple[Region, ...] | None = None
        # copied out of the access: the scan reads them for every stored access
        r = acc.region
        self.reads = acc.kind == READ
        self.p0, self.p1 = r.p0, r.p1
        self.lo, self.hi = r.bounds


# a stored access's key: its instruction (pc, kind), then its pattern (the Region's p0, p1,
# start, size, steps, nums)
_Key = tuple[int, AccessKind, int, int, int, int, tuple[int, ...], tuple[int, ...]]
_Store = OrderedDict[_Key, _Live]  # oldest epoch first
_Who = tuple[str, int, AccessKind]  # (engine, pc, kind)
_Pair = tuple[str, _Who, _Who]  # (space, lower, higher): a reported pair of accesses
_Pattern = tuple[int, int, tuple[int, ...], tuple[int, ...]]  # a region in one partition
_Runs = tuple[np.ndarray, np.ndarray]  # sorted disjoint byte runs: starts, ends
_ReadRel = tuple[int, int, int, str]  # (step, pc, epoch published, mode name)
_Overlap = tuple[tuple[int, int], tuple[int, int]]  # shared partitions and byte hull


class _State:
    """Everything `rewind` restores: clocks, stored accesses, histories, reports."""

    def __init__(self, n: int) -> None:
        self.clocks: list[Clock] = [fresh(n, i) for i in range(n)]
        self.live: dict[str, list[_Store]] = {}
        self.hist: dict[int, deque[_Release]] = {}
        self.lost: dict[int, int] = {}  # releases pushed out of each history
        # per history: adjacent releases whose value went down (0: nondecreasing values,
        # which a NEFF's semaphores always have, so a wait's run start is a bisection)
        self.desc: dict[int, int] = {}
        self.races: list[Race] = []
        self.seen: set[_Pair] = set()
        self.dropped = 0
        self.read_rel: list[_ReadRel | None] = [None] * n
        self.seq = 0
        # per space and engine: stored accesses beyond one in each stored run (`access_run`)
        self.extra: dict[str, list[int]] = {}

    def nbytes(self, n: int) -> int:
        """What a copy of this state holds (`copy`'s containers, and the objects in them,
        which a snapshot alone keeps alive once the detector has moved on); `n` engines."""
        live = sum(len(d) for ds in self.live.values() for d in ds)
        hist = sum(len(h) for h in self.hist.values())
        return (1024 + n * (120 + 8 * n) + (LIVE_BYTES + 100) * live
                + (RELEASE_BYTES + 8 * n + 16) * hist + 320 * len(self.seen)
                + 360 * len(self.races))

    def copy(self) -> _State:
        c = _State.__new__(_State)
        c.clocks = [k[:] for k in self.clocks]
        c.live = {sp: [OrderedDict(d) for d in ds] for sp, ds in self.live.items()}
        c.hist = {k: deque(h, maxlen=SEM_HISTORY) for k, h in self.hist.items()}
        c.lost = dict(self.lost)
        c.desc = dict(self.desc)
        c.races = self.races[:]
        c.seen = set(self.seen)
        c.dropped = self.dropped
        c.read_rel = self.read_rel[:]
        c.seq = self.seq
        c.extra = {sp: xs[:] for sp, xs in self.extra.items()}
        return c


# undo-log entry kinds: (step, kind, ...); Literal so that `e[1] == _ADD` narrows an entry
_ADD: Final = 0
_DROP: Final = 1
_RACE: Final = 2
_REL: Final = 3
_JOIN: Final = 4
_TICK: Final = 5
_Add = tuple[int, Literal[0], str, int, _Key, "_Live | None"]  # space, engine, key, replaced
_Drop = tuple[int, Literal[1], str, int, _Key, _Live]  # space, engine, key, dropped
_RaceE = tuple[int, Literal[2], _Pair, bool]  # pair, kept (else counted as dropped)
_Rel = tuple[int, Literal[3], int, int, "_Release | None", "_ReadRel | None"]
# ^ engine, semaphore, the release pushed out of its history, engine's previous _READ
_Join = tuple[int, Literal[4], int, Clock]  # engine, its clock before
_Tick = tuple[int, Literal[5], int]  # engine
_Entry = _Add | _Drop | _RaceE | _Rel | _Join | _Tick


class RaceDetector:
    """Vector-clock race detector over one core's engines (see the module docstring)."""

    def __init__(self, engines: Sequence[str], *, undo_budget: int = UNDO_BUDGET,
                 history_budget: int | None = None, suggest: Suggest | None = None) -> None:
        """`suggest`: the fix a race's code intends (machine/core/intent.py), tried when
        no `_READ` hint applies; without it, the missing edge in schedule order.
        `undo_budget` bounds the undo log in entries (0: keep none, and no snapshots:
        rewind goes back to step 0); `history_budget` (None: no bound) the log and the
        snapshots in bytes (module docstring)."""
        self.engines = tuple(engines)
        self._suggest = suggest
        self._index = {e: i for i, e in enumerate(self.engines)}
        self._budget = undo_budget  # 0: keep no undo log (rewind goes back to step 0)
        self._bytes_budget = history_budget
        self._s = _State(len(self.engines))
        self._undo: deque[_Entry] = deque()
        self._log: Callable[[_Entry], None] = self._keep if undo_budget else _ignore
        self._undo_bytes = 0  # what the entries in _undo hold (_cost)
        # the stores of the current state by byte range (machine/core/liveindex.py), per
        # space as `live`: made when first asked, kept up to date going forward, dropped
        # on a rewind (which changes stores behind them)
        self._idx: dict[str, list[LiveIndex[_Live]]] = {}
        self._mark = 0  # len(self._undo) when the newest snapshot was taken
        self._mark_bytes = 0  # _undo_bytes then
        self._snaps: list[tuple[int, _State]] = [(0, _State(len(self.engines)))]
        self._snap_bytes: dict[int, int] = {}  # id of a snapshot's state -> its nbytes
        self._snaps_total = 0  # their sum (step 0's empty state is not counted)
        self._folded = 0  # the step of the newest fold: the log reaches back to it
        self._horizon = 0  # the earliest step the undo log can rewind to
        self._step = -1
        # strided patterns: byte runs, and the verdicts of pairs (loops repeat them)
        self._runs: dict[_Pattern, _Runs] = {}
        self._pairs: dict[tuple[_Pattern, _Pattern], tuple[int, int] | None] = {}
        # what `access_run` reads of its Regions, by their identities (`_run`)
        self._runs_of_parts: dict[tuple[int, ...], _Run] = {}

    # -- what the core reads ---------------------------------------------------------

    @property
    def races(self) -> list[Race]:
        """Every race found so far (the first KEEP_RACES), in the order found."""
        return self._s.races

    @property
    def dropped(self) -> int:
        """Races found beyond the first KEEP_RACES (counted, not kept)."""
        return self._s.dropped

    @property
    def history_nbytes(self) -> int:
        """Bytes the undo log and the snapshots hold (module docstring)."""
        return self._undo_bytes + self._snaps_total

    def clock(self, engine: str) -> tuple[int, ...]:
        return tuple(self._s.clocks[self._index[engine]])

    def stats(self) -> dict[str, int]:
        """Sizes of what the detector holds (the memory bound is on these)."""
        s = self._s
        return {"live": sum(len(d) for ds in s.live.values() for d in ds)
                + sum(sum(xs) for xs in s.extra.values()),
                "releases": sum(len(h) for h in s.hist.values()),
                "undo": len(self._undo), "snapshots": len(self._snaps),
                "races": len(s.races), "dropped": s.dropped, "pairs": len(s.seen)}

    # -- events ------------------------------------------------------------------------

    def access(self, acc: Access) -> list[Race]:
        """Check `acc` against the stored accesses of other engines, then store it."""
        self._begin(acc.step)
        s = self._s
        region = acc.region
        if region.count == 0 or len(self.engines) < 2:
            return []
        ei = self._index[acc.engine]
        clock = s.clocks[ei]
        stores = s.live.get(region.space)
        if stores is None:
            stores = s.live[region.space] = [OrderedDict() for _ in self.engines]
        idx = self._idx.get(region.space)
        if idx is None:
            idx = self._idx[region.space] = [_indexed(store) for store in stores]
        found: list[Race] = []
        kb = (acc.engine, acc.pc, acc.kind)
        reading = acc.kind == READ
        p0, p1 = region.p0, region.p1
        lo, hi = region.bounds
        for ej, store in enumerate(stores):
            if ej == ei or not store:
                continue
            # the cheap conservative tests first (not ordered before acc, kinds,
            # partitions, byte bounds), by the index; newest first
            for live in idx[ej].unordered(clock[ej], p0, p1, lo, hi, reading):
                a = live.acc
                ka = (a.engine, a.pc, a.kind)
                pair = (region.space, ka, kb) if ka < kb else (region.space, kb, ka)
                if pair in s.seen:
                    continue
                hit = self._hit(live, region)
                if hit is None:
                    continue
                race = self._race(live, hit[0], acc, hit[1], clock[ej])
                self._report(acc.step, pair, race)
                found.append(race)
        self._store(acc, ei, stores[ei], idx[ei], clock[ei])
        return found

    def access_run(self, acc: Access, regions: Sequence[Region]) -> list[Race]:
        """`access` of `acc` with each of `regions` in turn as its region (the same
        races, in the same order), at about the cost of one while nothing races with
        them: the accesses of one instruction at one step that differ in their Regions
        alone (a DMA entry's descriptors, of one space). They are checked by their bounds
        together, and looked at one by one only against a stored access those bounds
        meet; they are stored as one run (the Regions as given: patterns without index
        arrays), which counts as that many stored accesses (MAX_LIVE drops its oldest
        first). The instruction's (engine, pc) must be that of no other access of its
        engine (a DMA queue's pc is the entry's ordinal): a run's parts are never
        replaced by a later identical access. With an undo log, they go one by one."""
        run = self._run(regions)
        parts = run.parts
        space = acc.region.space
        if (len(parts) < 2 or self._budget or len(self.engines) < 2
                or run.space != space):
            found: list[Race] = []
            for r in parts or regions[:1]:
                found += self.access(dataclasses.replace(acc, region=r))
            return found
        self._begin(acc.step)
        s = self._s
        ei = self._index[acc.engine]
        clock = s.clocks[ei]
        stores = s.live.get(space)
        if stores is None:
            stores = s.live[space] = [OrderedDict() for _ in self.engines]
        idx = self._idx.get(space)
        if idx is None:
            idx = self._idx[space] = [_indexed(store) for store in stores]
        p0, p1, lo, hi = run.hull
        kb = (acc.engine, acc.pc, acc.kind)
        reading = acc.kind == READ
        # (the first part that meets it, engine, newest-first rank, pair, stored, hit):
        # the order the calls one by one would report them in
        hits: list[tuple[int, int, int, _Pair, _Live, tuple[Access, _Overlap]]] = []
        for ej, store in enumerate(stores):
            if ej == ei or not store:
                continue
            for rank, live in enumerate(idx[ej].unordered(clock[ej], p0, p1, lo, hi,
                                                          reading)):
                a = live.acc
                ka = (a.engine, a.pc, a.kind)
                pair = (space, ka, kb) if ka < kb else (space, kb, ka)
                if pair in s.seen:
                    continue
                for j, r in enumerate(parts):
                    hit = self._hit(live, r)
                    if hit is not None:
                        hits.append((j, ej, rank, pair, live, hit))
                        break
        found = []
        if hits:
            hits.sort(key=lambda h: h[:3])
            for j, ej, _, pair, live, (a, ov) in hits:
                if pair in s.seen:
                    continue
                b = dataclasses.replace(acc, region=parts[j])
                race = self._race(live, a, b, ov, clock[ej])
                self._report(acc.step, pair, race)
                found.append(race)
        self._store_run(acc, run, ei, stores[ei], idx[ei], clock[ei])
        return found

    def release(self, engine: str, pc: int, sem: int, value: int,
                when: Literal["read", "complete"], step: int,
                mode: UpdateMode | str | None = None, *, update: bool = True) -> None:
        """Publish `engine`'s clock into `sem`'s history, then advance its epoch.

        when: "read" | "complete"; value: the semaphore's value after the update; mode:
        the update mode, named in the hint when a `_READ` update is the missing order.
        update=False: not an UPDATE_MODE but a wait that clears/sets its event as it
        passes (before the reads); its writes are unordered too, but "use _COMPLETE"
        would be the wrong advice, so no hint names it.
        """
        if when not in (READ, "complete"):
            raise ValueError(f"release when must be 'read' or 'complete', not {when!r}")
        if step > self._step:  # (`_begin`: most events of a step are not its first)
            self._begin(step)
        s = self._s
        ei = self._index[engine]
        clock = s.clocks[ei]
        h = s.hist.get(sem)
        if h is None:
            h = s.hist[sem] = deque(maxlen=SEM_HISTORY)
        lost = None
        if h:
            down = int(value < h[-1].value)
            if len(h) == SEM_HISTORY:
                lost = h[0]
                s.lost[sem] = s.lost.get(sem, 0) + 1
                down -= h[1].value < lost.value  # that pair leaves the history
            if down:
                s.desc[sem] = s.desc.get(sem, 0) + down
        h.append(_new_release(_Release, (ei, pc, value, tuple(clock), when, step)))
        prev = s.read_rel[ei]
        if when == READ and update:
            s.read_rel[ei] = (step, pc, clock[ei], _mode_name(mode))
        clock[ei] += 1
        if self._budget:
            self._log((step, _REL, ei, sem, lost, prev))

    def acquire(self, engine: str, sem: int, holds: Callable[[int], bool], step: int,
                initial: int = 0) -> None:
        """A satisfied wait on `sem` (condition `holds`): join the run-starting release."""
        self._begin(step)
        s = self._s
        rel = _run_start(s.hist.get(sem), s.lost.get(sem, 0), holds, initial)
        if rel is not None:
            self._acquire(self._index[engine], rel, step)

    def acquire_ge(self, engine: str, sem: int, value: int, step: int,
                   initial: int = 0) -> None:
        """`acquire` of the wait `sem >= value` (a NEFF's only wait), which compares the
        history's values directly instead of calling a condition on each."""
        if step > self._step:
            self._begin(step)
        s = self._s
        h = s.hist.get(sem)
        if not h or h[-1].value < value:
            return
        if len(h) > 1 and h[-2].value < value:  # the newest release began the run
            rel: _Release | None = h[-1]
        else:
            rel = _run_start_ge(h, s.lost.get(sem, 0), value, initial, not s.desc.get(sem))
        if rel is not None:
            self._acquire(self._index[engine], rel, step)

    def fork(self, engine: str, step: int) -> tuple[int, ...]:
        """Hand out `engine`'s clock for work it starts but another actor completes (a
        DMA trigger: the entry's accesses happen when its queue completes it), then
        advance `engine`'s epoch, so what it does after the hand-off is not covered."""
        self._begin(step)
        ei = self._index[engine]
        clock = self._s.clocks[ei]
        out = tuple(clock)
        clock[ei] += 1
        if self._budget:
            self._log((step, _TICK, ei))
        return out

    def join_clock(self, engine: str, clock: Sequence[int], step: int) -> None:
        """`engine` acquires a clock handed out by `fork` (a DMA queue completing an
        entry joins its trigger's clock): what preceded the fork happens before what
        `engine` does from here."""
        self._begin(step)
        self._join(self._index[engine], clock, step)

    def rewind(self, step: int) -> int:
        """Forget everything done at global steps >= `step`.

        Returns the step the detector now stands at: `step` itself while the undo log
        reaches it, else an earlier snapshot's step, from which the caller feeds the
        events again.
        """
        step = max(step, 0)
        self._idx.clear()
        while self._snaps[-1][0] > step:
            self._unsnap(len(self._snaps) - 1)
        self._folded = min(self._folded, step)
        if self._budget and step >= self._horizon:
            touched: set[tuple[str, int]] = set()
            n = len(self.engines)
            while self._undo and self._undo[-1][0] >= step:
                e = self._undo.pop()
                self._undo_bytes -= _cost(e, n)
                self._apply(e, touched)
            for space, ei in touched:
                _resort(self._s.live[space], ei)
            if len(self._undo) < self._mark:
                self._mark, self._mark_bytes = len(self._undo), self._undo_bytes
            self._step = min(self._step, step - 1)
            return step
        at, snap = self._snaps[-1]
        self._s = snap.copy()
        self._undo.clear()
        self._undo_bytes = self._mark_bytes = 0
        self._horizon, self._step, self._mark, self._folded = at, at - 1, 0, at
        return at

    # -- internals ---------------------------------------------------------------------

    def _keep(self, entry: _Entry) -> None:
        """The undo log of a detector with an undo budget: append, and count its bytes."""
        self._undo.append(entry)
        self._undo_bytes += _cost(entry, len(self.engines))

    def _begin(self, step: int) -> None:
        if step > self._step:
            if self._budget and (len(self._undo) - self._mark > self._budget // 2 or (
                    self._bytes_budget is not None
                    and self._undo_bytes - self._mark_bytes > self._bytes_budget // 4)):
                self._fold(step)
            self._step = step

    def _fold(self, step: int) -> None:
        """Snapshot the state at the start of `step`; drop the log before the previous
        fold (whose snapshot, while kept, covers it), so the log keeps between half and
        all of its budget."""
        n = len(self.engines)
        cut = self._folded
        snap = self._s.copy()
        self._snaps.append((step, snap))
        self._snap_bytes[id(snap)] = b = snap.nbytes(n)
        self._snaps_total += b
        self._folded = step
        while self._undo and self._undo[0][0] < cut:
            self._undo_bytes -= _cost(self._undo.popleft(), n)
        self._horizon = max(self._horizon, cut)
        self._mark, self._mark_bytes = len(self._undo), self._undo_bytes
        limit = None if self._bytes_budget is None else self._bytes_budget // 2
        while len(self._snaps) > 1 and (len(self._snaps) > MAX_SNAPSHOTS or (
                limit is not None and self._snaps_total > limit)):
            if len(self._snaps) > 2:
                # keep a spread over the past: drop the one closest to its predecessor
                # (the newest last: it is the nearest a rewind past the log goes back to)
                gap = min(range(1, len(self._snaps) - 1),
                          key=lambda i: self._snaps[i][0] - self._snaps[i - 1][0])
            else:  # the newest alone is over budget: a rewind past the log goes to 0
                gap = 1
            self._unsnap(gap)

    def _unsnap(self, k: int) -> None:
        """Forget snapshot k (never step 0's)."""
        _, snap = self._snaps.pop(k)
        self._snaps_total -= self._snap_bytes.pop(id(snap), 0)

    def _hit(self, live: _Live, region: Region) -> tuple[Access, _Overlap] | None:
        """The stored access of `live` (of a run: its newest part that does) whose bytes
        meet `region`, and where they meet; None when none does."""
        if live.parts is None:
            ov = self._overlap(live.acc.region, region)
            return None if ov is None else (live.acc, ov)
        for r in reversed(live.parts):
            ov = self._overlap(r, region)
            if ov is not None:
                return dataclasses.replace(live.acc, region=r), ov
        return None

    def _store_run(self, acc: Access, run: _Run, ei: int, store: _Store,
                   idx: LiveIndex[_Live], epoch: int) -> None:
        """Store a run (`access_run`) as one stored access, as `_store` of each part in
        turn would keep them: an identical earlier part gives way to the later one."""
        s = self._s
        parts = run.parts
        if not run.distinct:  # the order of each pattern's last occurrence
            last: dict[Region, None] = {}
            for r in parts:
                last.pop(r, None)
                last[r] = None
            parts = tuple(last)
        hull = run.hull
        m = s.read_rel[ei]
        rr = m if acc.kind == WRITE and m is not None and m[0] == acc.step else None
        live = _Live(dataclasses.replace(acc, region=parts[-1]), epoch, s.seq, rr)
        live.parts = parts
        live.p0, live.p1, live.lo, live.hi = hull
        key: _Key = (acc.pc, acc.kind, -1, -1, -1, -1, (), ())
        space = acc.region.space
        store.pop(key, None)
        store[key] = live
        idx.add(key, live)
        s.seq += 1
        extra = s.extra.get(space)
        if extra is None:
            extra = s.extra[space] = [0] * len(self.engines)
        extra[ei] += len(parts) - 1
        self._log((acc.step, _ADD, space, ei, key, None))
        self._evict(space, ei, store, idx, acc.step)

    def _run(self, regions: Sequence[Region]) -> _Run:
        """What `access_run` reads of `regions`, kept by their identities (a NEFF's
        entries repeat a few sides, as shared Regions; the Regions are held with it, so
        that no identity is reused while it is a key)."""
        key = tuple(map(id, regions))
        got = self._runs_of_parts.get(key)
        if got is None:
            if len(self._runs_of_parts) >= RUNS_CACHE:
                self._runs_of_parts.clear()
            got = self._runs_of_parts[key] = _Run.of(regions)
        return got

    def _evict(self, space: str, ei: int, store: _Store, idx: LiveIndex[_Live],
               step: int) -> None:
        """Past MAX_LIVE stored accesses, the oldest go (of a run, its oldest parts)."""
        extra = self._s.extra.get(space)
        more = extra[ei] if extra is not None else 0
        while len(store) + more > MAX_LIVE:
            k0, l0 = next(iter(store.items()))
            if l0.parts is not None and len(l0.parts) > 1:
                l0.parts = l0.parts[1:]  # (its bounds stay: still a superset)
                more -= 1
                assert extra is not None
                extra[ei] = more
                continue
            del store[k0]
            idx.remove(k0)
            self._log((step, _DROP, space, ei, k0, l0))

    def _store(self, acc: Access, ei: int, store: _Store, idx: LiveIndex[_Live],
               epoch: int) -> None:
        s = self._s
        region = acc.region.bare()  # the stored pattern keeps no index arrays
        if region is not acc.region:
            acc = dataclasses.replace(acc, region=region)
        m = s.read_rel[ei]
        rr = m if acc.kind == WRITE and m is not None and m[0] == acc.step else None
        key = (acc.pc, acc.kind, region.p0, region.p1, region.start, region.size,
               region.steps, region.nums)
        old = store.pop(key, None)
        store[key] = live = _Live(acc, epoch, s.seq, rr)
        idx.add(key, live)
        s.seq += 1
        self._log((acc.step, _ADD, region.space, ei, key, old))
        if len(store) > MAX_LIVE or s.extra:
            self._evict(region.space, ei, store, idx, acc.step)

    def _race(self, live: _Live, a: Access, b: Access, ov: _Overlap, seen: int) -> Race:
        """The race of `a` (stored as `live`, or a part of it) with the new access `b`."""
        missing, fix = _missing(live, a, b, seen), None
        if self._suggest is not None and not _read_hint(live, seen):
            got = self._suggest(Side(a.engine, a.pc, a.kind, a.queued),
                                Side(b.engine, b.pc, b.kind, b.queued))
            if got is not None:
                missing, fix = got
        return Race(a, b, b.region.space, ov[0], ov[1], missing, fix)

    def _report(self, step: int, pair: _Pair, race: Race) -> None:
        s = self._s
        s.seen.add(pair)
        kept = len(s.races) < KEEP_RACES
        if kept:
            s.races.append(race)
        else:
            s.dropped += 1
        self._log((step, _RACE, pair, kept))

    def _acquire(self, ei: int, rel: _Release, step: int) -> None:
        """Engine `ei` joins the clock `rel` published, unless it has seen `rel`'s epoch
        of its engine: each epoch is published once (a release or a fork advances it
        after), and every clock that has seen an engine's epoch e is at least what that
        engine published at e (by induction over the joins: clocks only grow), so the
        join would change nothing (many waits of a NEFF join what they have seen)."""
        r = rel.engine
        if self._s.clocks[ei][r] < rel.clock[r]:
            self._join(ei, rel.clock, step)

    def _join(self, ei: int, other: Sequence[int], step: int) -> None:
        """Engine `ei` joins clock `other`; what every engine is now ordered after goes."""
        clock = self._s.clocks[ei]
        grown = [j for j, v in enumerate(other) if v > clock[j]]
        if not grown:  # (a wait often joins what it has seen already)
            return
        if self._budget:
            self._log((step, _JOIN, ei, clock[:]))
        for j in grown:
            clock[j] = other[j]
        self._prune(step, ei, grown)

    def _prune(self, step: int, joined: int, grown: list[int]) -> None:
        """Drop stored accesses every other engine is now ordered after.

        Only `joined`'s clock grew, and of it only the entries `grown`: only the floors
        of those engines' stores can have risen (every stored access is above its
        store's floor: its epoch was above every other clock's entry when stored, and
        each rise of a floor is pruned here), so only their stores are looked at.
        """
        s = self._s
        clocks = s.clocks
        for space, stores in s.live.items():
            for ej in grown:
                store = stores[ej]
                if ej == joined or not store:
                    continue
                # (ej's own entry is its epoch, at least what any other has seen of it)
                floor = min([c[ej] for c in clocks])
                while store:
                    key, live = next(iter(store.items()))
                    if live.epoch > floor:
                        break
                    del store[key]
                    if live.parts is not None:
                        s.extra[space][ej] -= len(live.parts) - 1
                    idx = self._idx.get(space)
                    if idx is not None:
                        idx[ej].remove(key)
                    self._log((step, _DROP, space, ej, key, live))

    def _apply(self, e: _Entry, touched: set[tuple[str, int]]) -> None:
        """Undo one log entry (entries are undone newest first)."""
        s = self._s
        if e[1] == _ADD:
            _, _, space, ei, key, old = e
            store = s.live[space][ei]
            del store[key]
            if old is not None:
                store[key] = old
                touched.add((space, ei))
        elif e[1] == _DROP:
            _, _, space, ei, key, live = e
            s.live[space][ei][key] = live
            touched.add((space, ei))
        elif e[1] == _RACE:
            _, _, pair, kept = e
            s.seen.discard(pair)
            if kept:
                s.races.pop()
            else:
                s.dropped -= 1
        elif e[1] == _REL:
            _, _, ei, sem, lost, prev = e
            h = s.hist[sem]
            last = h.pop()
            down = int(bool(h) and last.value < h[-1].value)
            if lost is not None:
                down -= bool(h) and h[0].value < lost.value
                h.appendleft(lost)
                s.lost[sem] -= 1
            if down:
                s.desc[sem] = s.desc.get(sem, 0) - down
            s.clocks[ei][ei] -= 1
            s.read_rel[ei] = prev
        elif e[1] == _TICK:
            s.clocks[e[2]][e[2]] -= 1
        else:
            _, _, ei, before = e
            s.clocks[ei] = before

    def _overlap(self, ra: Region, rb: Region
                 ) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """Shared partitions and the hull [lo, hi) of the shared bytes, or None."""
        p0, p1 = max(ra.p0, rb.p0), min(ra.p1, rb.p1)
        if p0 >= p1 or ra.count == 0:
            return None
        (alo, ahi), (blo, bhi) = ra.bounds, rb.bounds
        lo, hi = max(alo, blo), min(ahi, bhi)
        if lo >= hi:
            return None
        if ra.contiguous and rb.contiguous:
            return (p0, p1), (lo, hi)
        ka, kb = _pattern(ra), _pattern(rb)
        try:
            got = self._pairs[(ka, kb)]
        except KeyError:  # (loops repeat their pairs: a miss is rare)
            got = _intersect(self._runs_of(ra, ka), self._runs_of(rb, kb))
            if len(self._pairs) >= RUNS_CACHE:
                del self._pairs[next(iter(self._pairs))]
            self._pairs[(ka, kb)] = got
        return None if got is None else ((p0, p1), got)

    def _runs_of(self, r: Region, key: _Pattern) -> _Runs:
        got = self._runs.get(key)
        if got is None:
            if len(self._runs) >= RUNS_CACHE:
                del self._runs[next(iter(self._runs))]
            got = self._runs[key] = byte_runs(r)
        return got


def _pattern(r: Region) -> _Pattern:
    """A region's bytes within one partition, as a key (tuples hash in C)."""
    return (r.start, r.size, r.steps, r.nums)


def _intersect(a: _Runs, b: _Runs) -> tuple[int, int] | None:
    """The hull [lo, hi) of the bytes two sorted disjoint run lists share, or None."""
    sa, ea = a
    sb, eb = b
    if len(sb) > len(sa):  # search the longer list once per run of the shorter
        sa, ea, sb, eb = sb, eb, sa, ea
    i = np.searchsorted(ea, sb, side="right")  # first run of a ending after each b
    ic = np.minimum(i, len(ea) - 1)
    hit = (i < len(ea)) & (sa[ic] < eb)
    if not hit.any():
        return None
    j = np.searchsorted(sa, eb, side="left") - 1  # last run of a starting before it
    return (int(np.maximum(sb, sa[ic])[hit].min()), int(np.minimum(eb, ea[j])[hit].max()))


def byte_runs(r: Region) -> _Runs:
    """The bytes one partition of `r` touches, as sorted disjoint runs [starts, ends).

    The innermost dimensions that pack elements back to back form one run each; only
    the outer dimensions are expanded into an index array.
    """
    inner = 1
    outer: list[tuple[int, int]] = []
    for st, n in zip(r.steps, r.nums, strict=True):
        if n == 1:
            continue
        if not outer and st == inner:
            inner *= n
        else:
            outer.append((st, n))
    offs = np.zeros(1, dtype=np.int64)
    for st, n in outer:
        offs = (np.arange(n, dtype=np.int64)[:, None] * (st * r.size) + offs[None, :]).ravel()
    offs += r.start
    if len(offs) > 1 and not (offs[1:] >= offs[:-1]).all():
        offs.sort()  # (duplicates need no removing: the merge below absorbs them)
    length = inner * r.size
    if len(offs) == 1:
        return offs, offs + length
    brk = offs[1:] > offs[:-1] + length  # a gap before the next run
    starts = offs[np.concatenate(([True], brk))]
    ends = (offs + length)[np.concatenate((brk, [True]))]
    return starts, ends


def _ignore(entry: _Entry) -> None:
    """The undo log of a detector with no undo budget."""


def _cost(e: _Entry, n: int) -> int:
    """Bytes undo-log entry `e` holds among `n` engines (the constants above)."""
    if e[1] == _ADD:
        return _ENTRY_BYTES + 120 + (LIVE_BYTES if e[5] is not None else 0)
    if e[1] == _DROP:
        return _ENTRY_BYTES + LIVE_BYTES
    if e[1] == _REL:
        return _ENTRY_BYTES + 80 + (RELEASE_BYTES + 8 * n if e[4] is not None else 0)
    if e[1] == _JOIN:
        return _ENTRY_BYTES + 72 + 8 * n
    return _ENTRY_BYTES


def _run_start(h: deque[_Release] | None, lost: int, holds: Callable[[int], bool],
               initial: int) -> _Release | None:
    """The release that began the current run of values satisfying `holds` (or None)."""
    if not h or not holds(h[-1].value):
        return None
    start = None
    for rel in reversed(h):
        if not holds(rel.value):
            return start
        start = rel
    if lost:
        return h[0]  # the run began before the kept history: join its oldest (see above)
    return None if holds(initial) else h[0]


def _run_start_ge(h: deque[_Release] | None, lost: int, value: int,
                  initial: int, rising: bool = False) -> _Release | None:
    """`_run_start` of the condition `>= value`; `rising`: the history's values never go
    down, so the run begins at the first release that reaches `value` (bisection)."""
    if not h or h[-1].value < value:
        return None
    if rising:
        i = bisect_left(h, value, key=_VALUE)
        if i:
            return h[i]
        if lost:
            return h[0]
        return None if initial >= value else h[0]
    start = None
    for rel in reversed(h):
        if rel.value < value:
            return start
        start = rel
    if lost:
        return h[0]
    return None if initial >= value else h[0]


def _mode_name(mode: UpdateMode | str | None) -> str:
    if mode is None or mode == "":
        return ""
    return mode.name if isinstance(mode, UpdateMode) else str(mode)


def _complete_of(mode: str) -> str:
    """The `_COMPLETE` form of a `_READ` update mode name ("" when there is none)."""
    done = mode.removesuffix("_READ") + "_COMPLETE"
    return done if mode.endswith("_READ") and done in UpdateMode.__members__ else ""


def _read_hint(live: _Live, seen: int) -> bool:
    """Did the later engine see the _READ release of `live`'s own instruction?"""
    return live.rr is not None and seen >= live.rr[2]


def _missing(live: _Live, a: Access, b: Access, seen: int) -> str:
    """In words, the edge that would order `a` (earlier, stored as `live`) before `b`,
    or `b` before it when that is the only way round a wait on the engine named can
    go."""
    rr = live.rr
    if rr is not None and seen >= rr[2]:
        # b's engine saw the _READ release of a's own instruction, just not its writes
        done = _complete_of(rr[3])
        where = f"in {a.engine.upper()} at {a.pc:#x}"
        fix = (f"use {done} instead of {rr[3]} {where}" if done
               else f"use SEM_INC_COMPLETE (or the _COMPLETE form of its update) {where}")
        return f"{fix}: the _READ update fires before the writes"
    first, then = a, b
    wa, wb = _wait_point(a), _wait_point(b)
    if wa[0] == wb[0] and wb[2] < wa[2]:
        # b's trigger came first on the engine that a (or a's trigger) runs on: a wait
        # there for a would wait for what follows it, so b is the one to go first
        first, then = b, a
    we, wpc, _ = _wait_point(then)
    before = f"its trigger of {then.queued.label} at {wpc:#x}" if then.queued else f"{wpc:#x}"
    q = first.queued
    if q is None:
        return (f"a semaphore update in {first.engine.upper()} after {first.pc:#x} "
                f"waited on by {we.upper()} before {before}")
    return (f"{we.upper()} should wait for sem[{q.sem}] >= {q.value} before {before} "
            f"(the completion of {q.label} raises sem[{q.sem}] to {q.value})")


def _wait_point(x: Access) -> tuple[str, int, int]:
    """(engine, pc, global step) of the record a wait ordering `x` after something goes
    before: `x`'s own instruction, or for a DMA entry's access the trigger that
    enqueued the entry (the queue only completes what it is given)."""
    q = x.queued
    return (q.engine, q.pc, q.step) if q is not None else (x.engine, x.pc, x.step)


def _indexed(store: _Store) -> LiveIndex[_Live]:
    """An index of `store` (oldest first, as stored)."""
    idx: LiveIndex[_Live] = LiveIndex()
    for key, live in store.items():
        idx.add(key, live)
    return idx


def _resort(stores: list[_Store], ei: int) -> None:
    """Put a store back in insertion (= epoch) order after undo re-inserted entries."""
    store = stores[ei]
    items = sorted(store.items(), key=lambda kv: kv[1].seq)
    store.clear()
    store.update(items)
