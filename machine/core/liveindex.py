"""An index by byte range of the accesses a race detector keeps for one engine in one
memory space (machine/core/races.py).

The detector asks, for each new access, which stored accesses of another engine it is
not ordered after (epoch above what it has seen) and that may conflict with it (not
both reads, shared partitions, overlapping byte bounds), newest first. Stored accesses
of a long run mostly sit on other bytes (a DMA queue's entries fill one buffer after
another), so scanning all the unordered ones costs a Python step each. The index puts
each stored access in the buckets of the granules its byte bounds cover, at the first
level whose granules it spans at most WIDE of (level L's granules are 1 KiB << 3L: a
64 KiB access sits in two buckets of level 2, not in 64 of level 0 nor in a list every
query reads), and a query reads, at each level that holds any, the buckets its own
bounds cover.

Buckets are cleaned lazily: a removed access stays in its buckets until they are
rebuilt, which happens once removed ones outnumber the kept ones (amortized, and the
memory stays within a constant factor of what is kept).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, Protocol, TypeVar

GRANULE_BITS = 10  # level 0's granules: 1 KiB
LEVEL_BITS = 3  # each level's granules are 8 times the size of the one below
WIDE = 8  # granules: an access spanning more goes up a level
SCAN = 16  # stored accesses: at most this many, or a query this wide, scans them all


class Stored(Protocol):
    """What the index reads of a stored access (races._Live)."""

    @property
    def epoch(self) -> int: ...
    @property
    def reads(self) -> bool: ...
    @property
    def p0(self) -> int: ...
    @property
    def p1(self) -> int: ...
    @property
    def lo(self) -> int: ...
    @property
    def hi(self) -> int: ...


T = TypeVar("T", bound=Stored)


class LiveIndex(Generic[T]):
    """Stored accesses by key, in insertion order, with buckets by byte granule.

    Epochs must not decrease in insertion order (the detector stores an engine's
    accesses at its own epoch, which only grows): `unordered` relies on it, as the
    detector's scan from the newest did.
    """

    __slots__ = ("_dead", "_items", "_levels", "_next", "_slot")

    def __init__(self) -> None:
        self._items: dict[int, T] = {}  # slot -> access; slots grow: insertion order
        self._slot: dict[Hashable, int] = {}
        # per level: (its granule bits, granule -> slots (some removed)), lowest first
        self._levels: list[tuple[int, dict[int, list[int]]]] = []
        self._next = 0
        self._dead = 0  # removed slots still in buckets or the wide list

    def __len__(self) -> int:
        return len(self._items)

    def add(self, key: Hashable, item: T) -> None:
        """Store `item` as the newest, replacing what `key` held."""
        if key in self._slot:
            self.remove(key)
        k = self._next
        self._next += 1
        self._items[k] = item
        self._slot[key] = k
        self._file(k, item)

    def remove(self, key: Hashable) -> None:
        """Forget what `key` holds (a no-op when it holds nothing)."""
        k = self._slot.pop(key, None)
        if k is None:
            return
        del self._items[k]
        self._dead += 1
        if self._dead > 64 and self._dead > len(self._items):
            self._rebuild()

    def unordered(self, seen: int, p0: int, p1: int, lo: int, hi: int,
                  reading: bool) -> list[T]:
        """Stored accesses with an epoch above `seen` that may conflict with an access
        of partitions [p0, p1) and bytes [lo, hi) (a read, when `reading`), newest
        first."""
        items = self._items
        if len(items) <= SCAN or ((hi - 1) >> GRANULE_BITS) - (lo >> GRANULE_BITS) >= SCAN:
            out = []
            for it in reversed(items.values()):
                if it.epoch <= seen:
                    break
                if not ((reading and it.reads) or it.p1 <= p0 or p1 <= it.p0
                        or it.hi <= lo or hi <= it.lo):
                    out.append(it)
            return out
        hits: set[int] = set()
        for bits, buckets in self._levels:
            if not buckets:
                continue
            for g in range(lo >> bits, ((hi - 1) >> bits) + 1):
                b = buckets.get(g)
                if b is None:
                    continue
                # a bucket lists slots in insertion order, so epochs never fall along it:
                # read it from the newest and stop at the first one already seen (a
                # hot granule keeps hundreds of ordered accesses a query need not touch)
                for k in reversed(b):
                    got = items.get(k)
                    if got is None:
                        continue  # removed, not yet cleaned out
                    if got.epoch <= seen:
                        break
                    if not ((reading and got.reads) or got.p1 <= p0 or p1 <= got.p0
                            or got.hi <= lo or hi <= got.lo):
                        hits.add(k)
        return [items[k] for k in sorted(hits, reverse=True)]

    def _file(self, k: int, item: T) -> None:
        lo, hi = item.lo, item.hi - 1
        bits = GRANULE_BITS
        level = 0
        while (hi >> bits) - (lo >> bits) >= WIDE:
            bits += LEVEL_BITS
            level += 1
        while len(self._levels) <= level:
            self._levels.append((GRANULE_BITS + LEVEL_BITS * len(self._levels), {}))
        buckets = self._levels[level][1]
        for g in range(lo >> bits, (hi >> bits) + 1):
            b = buckets.get(g)
            if b is None:
                buckets[g] = [k]
            else:
                b.append(k)

    def _rebuild(self) -> None:
        self._levels = []
        self._dead = 0
        for k, it in self._items.items():
            self._file(k, it)
