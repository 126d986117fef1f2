"""The race detector driven directly with accesses, releases and acquires."""

from __future__ import annotations

import pytest

from neurondbg.machine.core import races as races_mod
from neurondbg.machine.core.races import Access, Race, RaceDetector, byte_runs
from neurondbg.machine.isa.enums import UpdateMode
from neurondbg.machine.state import Region


def reg(start: int = 0, n: int = 1024, step: int = 1, size: int = 4, p0: int = 0,
        p1: int = 128, space: str = "sbuf") -> Region:
    return Region(space, p0, p1, start, size, (step, 1, 1, 1), (n, 1, 1, 1))


def acc(engine: str, pc: int, kind: str, region: Region, step: int,
        opcode: str = "CAST") -> Access:
    return Access(engine, pc, opcode, kind, region, step)


def ge(k: int):
    return lambda v: v >= k


def producer_consumer(d: RaceDetector, *, wait: bool, when: str = "complete",
                      mode: UpdateMode | None = None) -> list[Race]:
    """POOL writes a tile and signals sem 3; DVE (maybe) waits on it and reads the tile."""
    tile = reg()
    if when == "read":
        d.release("pool", 0x40, 3, 1, "read", 0, mode=mode)
        d.access(acc("pool", 0x40, "write", tile, 0))
    else:
        d.access(acc("pool", 0x40, "write", tile, 0))
        d.release("pool", 0x40, 3, 1, "complete", 0, mode=mode)
    if wait:
        d.acquire("dve", 3, ge(1), 1)
    return d.access(acc("dve", 0x80, "read", tile, 1, opcode="TENSOR_COPY"))


def test_producer_consumer_with_the_edge_is_no_race() -> None:
    d = RaceDetector(["pool", "dve"])
    assert producer_consumer(d, wait=True) == []
    assert d.races == []


def test_missing_wait_is_a_race_naming_both_accesses() -> None:
    d = RaceDetector(["pool", "dve"])
    found = producer_consumer(d, wait=False)
    assert len(found) == 1 and d.races == found
    r = found[0]
    assert (r.a.engine, r.a.pc, r.a.kind, r.a.opcode) == ("pool", 0x40, "write", "CAST")
    assert (r.b.engine, r.b.pc, r.b.kind, r.b.opcode) == ("dve", 0x80, "read", "TENSOR_COPY")
    assert (r.space, r.partitions, r.bytes) == ("sbuf", (0, 128), (0, 4096))
    assert r.missing == "a semaphore update in POOL after 0x40 waited on by DVE before 0x80"
    assert r.to_dict() == {
        "a": {"engine": "pool", "pc": 0x40, "opcode": "CAST", "access": "write"},
        "b": {"engine": "dve", "pc": 0x80, "opcode": "TENSOR_COPY", "access": "read"},
        "space": "sbuf", "partitions": [0, 128], "bytes": [0, 4096],
        "missing": "a semaphore update in POOL after 0x40 waited on by DVE before 0x80"}


def test_read_update_is_a_race_with_the_complete_hint() -> None:
    d = RaceDetector(["pool", "dve"])
    (r,) = producer_consumer(d, wait=True, when="read", mode=UpdateMode.SEM_INC_READ)
    assert r.missing == ("use SEM_INC_COMPLETE instead of SEM_INC_READ in POOL at 0x40: "
                         "the _READ update fires before the writes")
    d = RaceDetector(["pool", "dve"])
    (r,) = producer_consumer(d, wait=True, when="read", mode=UpdateMode.SEM_ADD_REG_READ)
    assert r.missing.startswith("use SEM_ADD_REG_COMPLETE instead of SEM_ADD_REG_READ")
    d = RaceDetector(["pool", "dve"])
    (r,) = producer_consumer(d, wait=True, when="read")
    assert r.missing == ("use SEM_INC_COMPLETE (or the _COMPLETE form of its update) in POOL "
                         "at 0x40: the _READ update fires before the writes")


def test_read_update_without_the_wait_names_the_plain_missing_edge() -> None:
    d = RaceDetector(["pool", "dve"])
    (r,) = producer_consumer(d, wait=False, when="read", mode=UpdateMode.SEM_INC_READ)
    assert r.missing.startswith("a semaphore update in POOL after 0x40")


def test_a_passing_wait_that_clears_its_event_gives_no_complete_hint() -> None:
    """A wait that clears its event as it passes releases before the writes, like a _READ
    update, but it is no UPDATE_MODE: the missing edge is named, not "use _COMPLETE"."""
    d = RaceDetector(["pool", "dve"])
    tile = reg()
    d.release("pool", 0x40, 3, 0, "read", 0, update=False)
    d.access(acc("pool", 0x40, "write", tile, 0))
    d.acquire("dve", 3, lambda v: v == 0, 1, initial=1)
    (r,) = d.access(acc("dve", 0x80, "read", tile, 1))
    assert r.missing == "a semaphore update in POOL after 0x40 waited on by DVE before 0x80"


def test_read_update_orders_the_reads_before_the_consumers_write() -> None:
    """The _READ release covers the instruction's reads: a WAR on its source is ordered."""
    d = RaceDetector(["pool", "dve"])
    src = reg(start=8192)
    d.access(acc("pool", 0x40, "read", src, 0))
    d.release("pool", 0x40, 3, 1, "read", 0)
    d.acquire("dve", 3, ge(1), 1)
    assert d.access(acc("dve", 0x80, "write", src, 1)) == []


def test_transitive_chain_is_no_race() -> None:
    d = RaceDetector(["pool", "dve", "act"])
    tile = reg()
    d.access(acc("pool", 0x00, "write", tile, 0))
    d.release("pool", 0x00, 1, 1, "complete", 0)
    d.acquire("dve", 1, ge(1), 1)
    d.release("dve", 0x40, 2, 1, "complete", 1)
    d.acquire("act", 2, ge(1), 2)
    assert d.access(acc("act", 0x80, "read", tile, 2)) == []
    assert d.access(acc("act", 0xC0, "write", tile, 3)) == []
    # the chain does not order POOL after ACT: a write after the chain by POOL races
    found = d.access(acc("pool", 0x40, "write", tile, 4))
    assert [(r.a.engine, r.a.pc, r.a.kind, r.b.pc) for r in found] == [
        ("act", 0xC0, "write", 0x40), ("act", 0x80, "read", 0x40)]
    assert found[1].missing == ("a semaphore update in ACT after 0x80 waited on by POOL "
                                "before 0x40")


def test_read_read_and_same_engine_are_no_race() -> None:
    d = RaceDetector(["pool", "dve"])
    tile = reg()
    d.access(acc("pool", 0, "read", tile, 0))
    assert d.access(acc("dve", 0, "read", tile, 1)) == []
    d.access(acc("pool", 0x40, "write", tile, 2))
    d.access(acc("pool", 0x80, "write", tile, 3))
    # each POOL write races with DVE's read; POOL against POOL is program order
    assert [(r.a.engine, r.a.pc, r.b.engine, r.b.pc) for r in d.races] == [
        ("dve", 0, "pool", 0x40), ("dve", 0, "pool", 0x80)]


def test_interleaved_strided_patterns_are_no_race() -> None:
    d = RaceDetector(["pool", "dve"])
    even = reg(start=0, n=512, step=2)
    odd = reg(start=4, n=512, step=2)
    d.access(acc("pool", 0, "write", even, 0))
    assert d.access(acc("dve", 0, "write", odd, 1)) == []
    # a contiguous read of the same span does meet the even elements
    (r,) = d.access(acc("dve", 0x40, "read", reg(start=0, n=1024), 2))
    assert r.bytes == (0, 4092)  # the last even element: [4088, 4092)


def test_partial_overlap_is_exact() -> None:
    d = RaceDetector(["pool", "dve"])
    d.access(acc("pool", 0, "write", reg(start=0, n=1024, p0=0, p1=64), 0))
    (r,) = d.access(acc("dve", 0, "read", reg(start=1000, n=1000, size=1, p0=32, p1=128), 1))
    assert (r.partitions, r.bytes) == ((32, 64), (1000, 2000))
    assert d.access(acc("dve", 0x40, "read", reg(start=4096, n=8, p0=0, p1=64), 2)) == []
    assert d.access(acc("dve", 0x80, "read", reg(start=0, n=8, p0=64, p1=128), 3)) == []
    assert d.access(acc("dve", 0xC0, "read", reg(space="psum"), 4)) == []


def test_strided_partial_overlap_hull() -> None:
    """Elements of 2 bytes every 8 bytes vs bytes [5, 21): shared bytes 8, 9, 16, 17."""
    d = RaceDetector(["pool", "dve"])
    d.access(acc("pool", 0, "write", reg(start=0, n=8, step=4, size=2), 0))
    (r,) = d.access(acc("dve", 0, "read", reg(start=5, n=16, size=1), 1))
    assert r.bytes == (8, 18)
    assert d.access(acc("dve", 0x40, "read", reg(start=2, n=6, size=1), 2)) == []


def test_byte_runs_merge_and_expand_outer_dims() -> None:
    r = Region("sbuf", 0, 1, 16, 2, (1, 8, 1, 1), (4, 3, 1, 1))  # rows of 8 bytes, stride 16
    s, e = byte_runs(r)
    assert s.tolist() == [16, 32, 48] and e.tolist() == [24, 40, 56]
    r = Region("sbuf", 0, 1, 0, 4, (1, 4, 1, 1), (4, 3, 1, 1))  # rows back to back: one run
    s, e = byte_runs(r)
    assert s.tolist() == [0] and e.tolist() == [48]
    r = Region("sbuf", 0, 1, 40, 4, (-2, 1, 1, 1), (3, 1, 1, 1))  # negative step
    s, e = byte_runs(r)
    assert s.tolist() == [24, 32, 40] and e.tolist() == [28, 36, 44]


def test_acquire_joins_the_release_that_began_the_run() -> None:
    """Incs to 1 then 2; a wait >= 1 is ordered after the first inc only."""
    def run(k: int, initial: int = 0) -> list[tuple[int, int]]:
        d = RaceDetector(["pool", "dve"])
        x, y = reg(start=0, n=16), reg(start=64, n=16)
        d.access(acc("pool", 0x00, "write", x, 0))
        d.release("pool", 0x00, 3, initial + 1, "complete", 0)
        d.access(acc("pool", 0x40, "write", y, 1))
        d.release("pool", 0x40, 3, initial + 2, "complete", 1)
        d.acquire("dve", 3, ge(k), 2, initial=initial)
        d.access(acc("dve", 0x80, "read", x, 2))
        d.access(acc("dve", 0xC0, "read", y, 3))
        return [(r.a.pc, r.b.pc) for r in d.races]

    assert run(1) == [(0x40, 0xC0)]
    assert run(2) == []
    assert run(1, initial=1) == [(0x00, 0x80), (0x40, 0xC0)]  # held since the start: no edge
    assert run(2, initial=1) == [(0x40, 0xC0)]  # run began at the first inc (value 2)


def test_a_later_run_of_the_condition_is_joined() -> None:
    """Values 1, 0, 1: a wait >= 1 now joins the second inc (the current run's start)."""
    d = RaceDetector(["pool", "dve"])
    t = reg()
    d.release("pool", 0, 3, 1, "complete", 0)
    d.release("pool", 0x40, 3, 0, "complete", 1)
    d.access(acc("pool", 0x80, "write", t, 2))
    d.release("pool", 0x80, 3, 1, "complete", 2)
    d.acquire("dve", 3, ge(1), 3)
    assert d.access(acc("dve", 0, "read", t, 3)) == []
    assert d.acquire("dve", 9, ge(1), 4) is None  # no release on sem 9 yet: nothing joined
    assert d.clock("dve") == (3, 1)


def test_semaphore_history_is_bounded_and_joins_conservatively() -> None:
    d = RaceDetector(["pool", "dve"])
    t = reg()
    d.access(acc("pool", 0, "write", t, 0))
    for i in range(races_mod.SEM_HISTORY + 10):
        d.release("pool", 0x40, 3, i + 1, "complete", i + 1)
    assert d.stats()["releases"] == races_mod.SEM_HISTORY
    # the run began at inc 1, pushed out: the oldest kept one is joined (orders the write)
    d.acquire("dve", 3, ge(1), 100)
    assert d.access(acc("dve", 0, "read", t, 100)) == []


def test_a_race_is_reported_once_per_instruction_pair() -> None:
    d = RaceDetector(["pool", "dve"])
    t = reg()
    for i in range(50):
        d.access(acc("pool", 0x40, "write", reg(start=4 * i, n=64), 2 * i))
        d.access(acc("dve", 0x80, "read", t, 2 * i + 1))
    assert [(r.a.pc, r.b.pc) for r in d.races] == [(0x40, 0x80)]
    assert d.stats()["live"] == 51  # 50 distinct POOL regions, DVE's one read kept once


def test_races_keep_the_first_thousand_and_count_the_rest() -> None:
    d = RaceDetector(["pool", "dve"])
    t = reg(n=4)
    n = races_mod.KEEP_RACES + 25
    for i in range(n):
        d.access(acc("pool", 64 * i, "write", t, i))
    assert len(d.access(acc("dve", 0, "read", t, n))) == n
    assert len(d.races) == races_mod.KEEP_RACES and d.dropped == 25
    assert d.races[0].a.pc == 64 * (n - 1)  # newest unordered access checked first


def test_pruning_keeps_memory_bounded_over_many_accesses() -> None:
    """10^5 accesses to ever-new regions, handshaking both ways: nothing accumulates."""
    d = RaceDetector(["pool", "dve"], undo_budget=4000)
    step = 0
    for i in range(25_000):
        t = reg(start=(i % 997) * 64, n=16 + i % 5)
        d.access(acc("pool", 0x40, "write", t, step))
        d.release("pool", 0x40, 1, i + 1, "complete", step)
        d.acquire("dve", 1, ge(i + 1), step + 1)
        d.access(acc("dve", 0x80, "read", t, step + 1))
        d.access(acc("dve", 0xC0, "write", t, step + 1))
        d.release("dve", 0xC0, 2, i + 1, "complete", step + 1)
        d.acquire("pool", 2, ge(i + 1), step + 2)
        d.access(acc("pool", 0x100, "read", t, step + 2))
        step += 3
    st = d.stats()
    assert d.races == []
    assert st["live"] <= 3
    assert st["releases"] <= 2 * races_mod.SEM_HISTORY
    assert 2000 <= st["undo"] <= 4000 + 20
    assert st["snapshots"] <= races_mod.MAX_SNAPSHOTS


def test_repeated_identical_accesses_keep_the_newest_only() -> None:
    d = RaceDetector(["pool", "dve"])
    t = reg()
    for i in range(1000):
        d.access(acc("dve", 0x80, "read", t, i))
    assert d.stats()["live"] == 1
    (r,) = d.access(acc("pool", 0x40, "write", t, 1000))
    assert r.a.step == 999


def test_rewind_forgets_races_and_edges_of_later_steps() -> None:
    d = RaceDetector(["pool", "dve"])
    t = reg()
    d.access(acc("pool", 0x40, "write", t, 0))
    d.release("pool", 0x40, 3, 1, "complete", 0)
    d.access(acc("dve", 0x80, "read", t, 1))  # no wait yet: a race
    assert len(d.races) == 1
    assert d.rewind(1) == 1
    assert d.races == [] and d.stats()["pairs"] == 0
    d.acquire("dve", 3, ge(1), 1)  # the other future: waited first
    assert d.access(acc("dve", 0x80, "read", t, 1)) == []
    assert d.clock("dve") == (1, 1)
    # rewinding the acquire restores the POOL write it had pruned: racing again
    assert d.stats()["live"] == 1
    d.rewind(1)
    assert d.clock("dve") == (0, 1) and d.stats()["live"] == 1
    assert len(d.access(acc("dve", 0x80, "read", t, 1))) == 1
    d.rewind(0)
    assert d.clock("pool") == (1, 0) and d.stats() == RaceDetector(["pool", "dve"]).stats()


def test_rewind_restores_store_order_for_the_epoch_scan() -> None:
    """Undo re-inserts a replaced older entry; the store must be back in epoch order."""
    d = RaceDetector(["pool", "dve"])
    a, b = reg(start=0, n=4), reg(start=64, n=4)
    d.access(acc("pool", 0x00, "write", a, 0))
    d.release("pool", 0, 1, 1, "complete", 0)
    d.access(acc("pool", 0x40, "write", b, 1))
    d.access(acc("pool", 0x00, "write", a, 2))  # replaces the step-0 entry, moved to the end
    d.rewind(2)
    d.acquire("dve", 1, ge(1), 2)  # orders step 0's write, not step 1's
    found = d.access(acc("dve", 0x80, "read", Region("sbuf", 0, 128, 0, 4, (1, 1, 1, 1),
                                                     (20, 1, 1, 1)), 2))
    assert [(r.a.pc, r.a.step) for r in found] == [(0x40, 1)]


def fed(d: RaceDetector, events: list[tuple], start: int = 0) -> None:
    for ev in events:
        if ev[-1] < start:
            continue
        if ev[0] == "a":
            d.access(ev[1])
        elif ev[0] == "r":
            d.release(*ev[1:])
        else:
            d.acquire(*ev[1:-1], ev[-1])


def loop_events(n: int) -> list[tuple]:
    out: list[tuple] = []
    for i in range(n):
        s = 2 * i
        t = reg(start=(i % 7) * 64, n=8)
        out.append(("a", acc("pool", 0x40, "write", t, s), s))
        out.append(("r", "pool", 0x40, 1, i + 1, "complete" if i % 3 else "read", s))
        if i % 4:
            out.append(("q", "dve", 1, ge(i + 1), s + 1))
        out.append(("a", acc("dve", 0x80 + 64 * (i % 3), "read", t, s + 1), s + 1))
    return out


@pytest.mark.parametrize("target", [0, 7, 501, 1200, 1999])
def test_rewind_past_the_undo_log_restores_a_snapshot_and_replays(target: int) -> None:
    events = loop_events(1000)
    d = RaceDetector(["pool", "dve"], undo_budget=300)
    fed(d, events)
    at = d.rewind(target)
    assert at <= target
    fed(d, [e for e in events if at <= e[-1] < target])
    ref = RaceDetector(["pool", "dve"])
    fed(ref, [e for e in events if e[-1] < target])
    assert [r.to_dict() for r in d.races] == [r.to_dict() for r in ref.races]
    assert d.clock("pool") == ref.clock("pool") and d.clock("dve") == ref.clock("dve")
    assert d.stats()["live"] == ref.stats()["live"]


def test_no_undo_budget_rewinds_to_the_start() -> None:
    d = RaceDetector(["pool", "dve"], undo_budget=0)
    fed(d, loop_events(50))
    assert d.stats()["undo"] == 0
    assert d.rewind(40) == 0
    assert d.races == [] and d.clock("dve") == (0, 1)


def test_release_rejects_an_unknown_timing() -> None:
    d = RaceDetector(["pool"])
    with pytest.raises(ValueError, match="'read' or 'complete'"):
        d.release("pool", 0, 1, 1, "soon", 0)


def test_two_producers_counted_by_one_wait_is_the_documented_limit() -> None:
    """POOL and ACT each inc once, DVE waits >= 2: only the release reaching 2 is joined."""
    d = RaceDetector(["pool", "dve", "act"])
    x, y = reg(start=0, n=4), reg(start=64, n=4)
    d.access(acc("pool", 0, "write", x, 0))
    d.release("pool", 0, 3, 1, "complete", 0)
    d.access(acc("act", 0, "write", y, 1))
    d.release("act", 0, 3, 2, "complete", 1)
    d.acquire("dve", 3, ge(2), 2)
    assert d.access(acc("dve", 0, "read", y, 2)) == []
    assert [r.a.engine for r in d.access(acc("dve", 0x40, "read", x, 3))] == ["pool"]


def test_unordered_accesses_beyond_the_cap_drop_the_oldest(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(races_mod, "MAX_LIVE", 4)
    d = RaceDetector(["pool", "dve"])
    for i in range(6):
        d.access(acc("pool", 64 * i, "write", reg(start=16 * i, n=4), i))
    assert d.stats()["live"] == 4
    found = d.access(acc("dve", 0, "read", reg(start=0, n=24), 6))
    assert sorted(r.a.pc for r in found) == [128, 192, 256, 320]


def test_stored_accesses_keep_no_index_arrays() -> None:
    d = RaceDetector(["pool", "dve"])
    r = reg(n=512, step=2)
    assert len(r.elem_offsets) == 512  # cached on the engine's region
    d.access(acc("pool", 0, "write", r, 0))
    (race,) = d.access(acc("dve", 0, "read", reg(n=8), 1))
    assert race.a.region == r and "elem_offsets" not in race.a.region.__dict__
