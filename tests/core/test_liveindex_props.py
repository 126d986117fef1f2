"""The race detector's index of stored accesses by byte range (machine/core/liveindex.py)
answers as the plain scan it replaces: on random sequences of stores (epochs in order,
keys repeated), removals and queries, the same accesses, newest first."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.core.liveindex import GRANULE_BITS, LiveIndex


@dataclass(frozen=True)
class Item:
    epoch: int
    reads: bool
    p0: int
    p1: int
    lo: int
    hi: int


def _scan(store: OrderedDict[int, Item], seen: int, p0: int, p1: int, lo: int, hi: int,
          reading: bool) -> list[Item]:
    """The detector's scan before the index: newest first, down to the first ordered."""
    out = []
    for it in reversed(store.values()):
        if it.epoch <= seen:
            break
        if not ((reading and it.reads) or it.p1 <= p0 or p1 <= it.p0
                or it.hi <= lo or hi <= it.lo):
            out.append(it)
    return out


G = 1 << GRANULE_BITS
# byte ranges from a byte to a hundred granules, so every level of buckets and the scan occur
ranges = st.tuples(st.integers(0, 40 * G), st.sampled_from([1, 3, G // 2, G, 3 * G, 20 * G,
                                                          100 * G]))
parts = st.tuples(st.integers(0, 3), st.integers(1, 3))
ops = st.lists(st.one_of(
    st.tuples(st.just("add"), st.integers(0, 40), st.booleans(), parts, ranges,
              st.integers(0, 2)),
    st.tuples(st.just("remove"), st.integers(0, 40)),
    st.tuples(st.just("query"), st.integers(0, 30), parts, ranges, st.booleans())),
    max_size=300)


@settings(max_examples=60, deadline=None)
@given(ops)
def test_index_answers_as_the_scan(seq: list[tuple]) -> None:
    ref: OrderedDict[int, Item] = OrderedDict()
    idx: LiveIndex[Item] = LiveIndex()
    epoch = 1
    for op in seq:
        if op[0] == "add":
            _, key, reads, (p0, dp), (lo, n), tick = op
            epoch += tick  # an engine's epoch never goes down
            it = Item(epoch, reads, p0, p0 + dp, lo, lo + n)
            ref.pop(key, None)
            ref[key] = it
            idx.add(key, it)
        elif op[0] == "remove":
            ref.pop(op[1], None)
            idx.remove(op[1])
        else:
            _, seen, (p0, dp), (lo, n), reading = op
            args = (seen, p0, p0 + dp, lo, lo + n, reading)
            assert idx.unordered(*args) == _scan(ref, *args)
        assert len(idx) == len(ref)


def test_removed_accesses_leave_the_buckets() -> None:
    """Replacing one key over and over keeps the buckets as small as what is stored."""
    idx: LiveIndex[Item] = LiveIndex()
    for k in range(32):
        idx.add(k, Item(1, False, 0, 1, k * G, k * G + 8))
    for e in range(2, 1000):
        idx.add(0, Item(e, False, 0, 1, 0, 8))
    assert len(idx) == 32
    assert sum(len(b) for _, level in idx._levels for b in level.values()) <= 2 * 32 + 65
    got = idx.unordered(0, 0, 1, 0, 8, False)
    assert [it.epoch for it in got] == [999]
