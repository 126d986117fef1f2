"""A run of accesses (RaceDetector.access_run: a DMA entry's descriptors, stored as one)
finds what `access` of each in turn finds: on random interleavings of single accesses
of two engines, runs of a queue (repeated and overlapping Regions among them), releases
and acquires, the same races in the same order after every event, and the same stored
accesses counted, MAX_LIVE's evictions included."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.core import races
from neurondbg.machine.core.races import Access, Queued, RaceDetector
from neurondbg.machine.state import Region

ENGINES = ("pool", "dve", "q")
REGIONS = [Region("sbuf", p, p + n, start, 1, steps, nums)
           for p, n in ((0, 4), (2, 2), (5, 1))
           for start, steps, nums in ((0, (1,), (16,)), (8, (1,), (16,)), (32, (1,), (8,)),
                                      (0, (1, 8), (4, 4)), (40, (1,), (1,)))]
region = st.sampled_from(REGIONS)
kind = st.sampled_from(["read", "write"])
events = st.lists(st.one_of(
    st.tuples(st.just("single"), st.integers(0, 1), st.integers(0, 3), kind, region),
    st.tuples(st.just("run"), kind, st.lists(region, min_size=1, max_size=5)),
    st.tuples(st.just("release"), st.integers(0, 2), st.integers(0, 1)),
    st.tuples(st.just("acquire"), st.integers(0, 2), st.integers(0, 1), st.integers(1, 3))),
    max_size=60)


@pytest.fixture(autouse=True)
def _few_live(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(races, "MAX_LIVE", 6)  # evictions within a short sequence


@settings(max_examples=40, deadline=None)
@given(events)
def test_a_run_finds_what_its_accesses_one_by_one_find(seq: list[tuple]) -> None:
    runs, singles = RaceDetector(ENGINES, undo_budget=0), RaceDetector(ENGINES, undo_budget=0)
    values = [0, 0]
    entry = 0
    for step, ev in enumerate(seq):
        if ev[0] == "single":
            _, e, pc, k, r = ev
            acc = Access(ENGINES[e], 64 * pc, "OP", k, r, step)
            assert runs.access(acc) == singles.access(acc)
        elif ev[0] == "run":
            _, k, rs = ev
            q = Queued("pool", 0, max(step - 1, 0), 0, 16, f"q#{entry}")
            acc = Access("q", entry, f"DMA q#{entry}", k, rs[0], step, q)
            one_by_one = [race for r in rs for race in singles.access(replace(acc, region=r))]
            assert runs.access_run(acc, rs) == one_by_one
            entry += 1
        elif ev[0] == "release":
            _, e, sem = ev
            values[sem] += 1
            for det in (runs, singles):
                det.release(ENGINES[e], 0, sem, values[sem], "complete", step)
        else:
            _, e, sem, v = ev
            if values[sem] >= v:
                for det in (runs, singles):
                    det.acquire_ge(ENGINES[e], sem, v, step)
        assert runs.stats()["live"] == singles.stats()["live"]
    assert runs.races == singles.races


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=1, max_size=90),
       st.integers(0, 40))
def test_a_wait_joins_the_same_release_by_bisection(seq: list[tuple[int, bool]],
                                                    value: int) -> None:
    """A history whose values never go down (`desc` 0) is bisected for the release that
    began a `>=` wait's run; any other is scanned. Both give the scan's release, also
    after a rewind (the count of descents is undone with the releases)."""
    det = RaceDetector(ENGINES, undo_budget=1 << 10)
    v = 0
    for step, (delta, down) in enumerate(seq):
        v = max(0, v - delta) if down else v + delta
        det.release("pool", 0, 0, v, "complete", step)
    for at in (len(seq), len(seq) // 2):
        det.rewind(at)
        s = det._s
        h = s.hist.get(0)
        if not h:
            continue
        values = [r.value for r in h]
        assert s.desc.get(0, 0) == sum(b < a for a, b in pairwise(values))
        lost = s.lost.get(0, 0)
        scan = races._run_start_ge(h, lost, value, 0)
        assert races._run_start_ge(h, lost, value, 0, not s.desc.get(0)) is scan
