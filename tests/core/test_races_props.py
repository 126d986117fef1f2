"""Properties of the race detector on random small kernels (2-3 engines, one producer per
semaphore, increments and `>=` waits), against an independent happens-before graph."""

from __future__ import annotations

import random
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.core.races import Access, RaceDetector
from neurondbg.machine.state import Region

ENGINES = ("pool", "dve", "act")


@dataclass(frozen=True)
class Inst:
    wait: tuple[int, int] | None  # (sem, k): wait sem >= k
    reads: tuple[Region, ...]
    writes: tuple[Region, ...]
    update: tuple[int, str] | None  # (sem, "read" | "complete"): increment by one


regions = st.builds(
    lambda space, p0, dp, start, size, s0, n0, s1, n1: Region(
        space, p0, p0 + dp, start, size, (s0, s1, 1, 1), (n0, n1, 1, 1)),
    st.sampled_from(["sbuf"] * 5 + ["psum"]), st.integers(0, 1), st.integers(1, 2),
    st.integers(6, 14), st.sampled_from([1, 2, 4]), st.integers(1, 3), st.integers(1, 4),
    st.integers(-3, 8), st.integers(1, 3))


@st.composite
def kernels(draw: st.DrawFn) -> list[list[Inst]]:
    n = draw(st.integers(2, 3))
    owner = [draw(st.integers(0, n - 1)) for _ in range(3)]  # sem -> its one producer
    progs = []
    for e in range(n):
        mine = [s for s in range(3) if owner[s] == e]
        prog = []
        for _ in range(draw(st.integers(1, 6))):
            wait = draw(st.none() | st.tuples(st.integers(0, 2), st.integers(1, 2)))
            update = None
            if mine and draw(st.integers(0, 3)):
                update = (draw(st.sampled_from(mine)),
                          draw(st.sampled_from(["read", "complete"])))
            prog.append(Inst(wait, tuple(draw(st.lists(regions, max_size=2))),
                             tuple(draw(st.lists(regions, max_size=2))), update))
        progs.append(prog)
    return progs


def run(progs: list[list[Inst]], rng: random.Random, d: RaceDetector | None = None
        ) -> tuple[list[tuple], list[tuple[int, int]]]:
    """One maximal interleaving: its detector events, and the instructions executed."""
    pcs = [0] * len(progs)
    sems = [0, 0, 0]
    events: list[tuple] = []
    done: list[tuple[int, int]] = []
    step = 0
    while True:
        ready = [e for e, p in enumerate(progs) if pcs[e] < len(p)
                 and (p[pcs[e]].wait is None or sems[p[pcs[e]].wait[0]] >= p[pcs[e]].wait[1])]
        if not ready:
            return events, sorted(done)
        e = rng.choice(ready)
        i = pcs[e]
        inst, name, pc = progs[e][i], ENGINES[e], 64 * i
        if inst.wait is not None:
            events.append(("q", name, inst.wait[0], inst.wait[1], step))
        events += [("a", Access(name, pc, "OP", "read", r, step)) for r in inst.reads]
        writes = [("a", Access(name, pc, "OP", "write", r, step)) for r in inst.writes]
        if inst.update is None:
            events += writes
        else:
            sem, when = inst.update
            sems[sem] += 1
            rel = ("r", name, pc, sem, sems[sem], when, step)
            events += [rel, *writes] if when == "read" else [*writes, rel]
        done.append((e, i))
        pcs[e] += 1
        step += 1


def feed(d: RaceDetector, events: list[tuple], ge: bool = False) -> None:
    """`events` to `d`; a wait `sem >= k` through `acquire_ge` when `ge`, else through
    `acquire` with the condition."""
    for ev in events:
        if ev[0] == "a":
            d.access(ev[1])
        elif ev[0] == "r":
            d.release(*ev[1:])
        elif ge:
            d.acquire_ge(*ev[1:])
        else:
            _, name, sem, k, step = ev
            d.acquire(name, sem, lambda v, k=k: v >= k, step)


def step_of(ev: tuple) -> int:
    return ev[1].step if ev[0] == "a" else ev[-1]


def pair_keys(d: RaceDetector) -> set[tuple]:
    out = set()
    for r in d.races:
        ka, kb = (r.a.engine, r.a.pc, r.a.kind), (r.b.engine, r.b.pc, r.b.kind)
        out.add((r.space, min(ka, kb), max(ka, kb)))
    return out


def expected_races(progs: list[list[Inst]], done: list[tuple[int, int]]) -> set[tuple]:
    """Conflicting access pairs that no chain of program order and semaphore edges orders.

    Nodes: each executed instruction's read half and write half. A wait `sem >= k` is
    fed by the k-th increment of sem (its one producer's k-th update, in program order):
    from the updater's read half for `_READ`, its write half for `_COMPLETE`.
    """
    ran = set(done)
    succ: dict[tuple, set[tuple]] = {}

    def edge(u: tuple, v: tuple) -> None:
        succ.setdefault(u, set()).add(v)

    nth: dict[tuple[int, int], tuple] = {}
    for e, prog in enumerate(progs):
        count = [0, 0, 0]
        for i, inst in enumerate(prog):
            if (e, i) not in ran:
                continue
            edge((e, i, "R"), (e, i, "W"))
            if (e, i + 1) in ran:
                edge((e, i, "W"), (e, i + 1, "R"))
            if inst.update is not None:
                sem, when = inst.update
                count[sem] += 1
                nth[(sem, count[sem])] = (e, i, "R" if when == "read" else "W")
    for e, prog in enumerate(progs):
        for i, inst in enumerate(prog):
            if (e, i) in ran and inst.wait is not None:
                edge(nth[inst.wait], (e, i, "R"))

    def reach(u: tuple) -> set[tuple]:
        seen, todo = {u}, [u]
        while todo:
            for v in succ.get(todo.pop(), ()):
                if v not in seen:
                    seen.add(v)
                    todo.append(v)
        return seen

    accesses = []
    for e, i in done:
        inst = progs[e][i]
        accesses += [((e, i, "R"), "read", r) for r in inst.reads]
        accesses += [((e, i, "W"), "write", r) for r in inst.writes]
    closure = {u: reach(u) for u, _, _ in accesses}
    out = set()
    for x, (u, kx, rx) in enumerate(accesses):
        for v, ky, ry in accesses[x + 1:]:
            if u[0] == v[0] or "write" not in (kx, ky) or v in closure[u] or u in closure[v]:
                continue
            if touched(rx) & touched(ry):
                ka, kb = (ENGINES[u[0]], 64 * u[1], kx), (ENGINES[v[0]], 64 * v[1], ky)
                out.add((rx.space, min(ka, kb), max(ka, kb)))
    return out


def touched(r: Region) -> set[tuple[str, int, int]]:
    """Every (space, partition, byte) of `r`, one by one (the slow, obvious way)."""
    return {(r.space, p, int(o) + b) for p in range(r.p0, r.p1)
            for o in r.elem_offsets for b in range(r.size)}


@settings(max_examples=150, deadline=None)
@given(kernels(), st.lists(st.integers(0, 2**32), min_size=3, max_size=3), st.booleans())
def test_races_are_the_unordered_pairs_under_every_interleaving(
        progs: list[list[Inst]], seeds: list[int], ge: bool) -> None:
    verdicts = []
    for seed in seeds:
        events, done = run(progs, random.Random(seed))
        d = RaceDetector(ENGINES[:len(progs)])
        feed(d, events, ge)
        verdicts.append((done, pair_keys(d)))
    done = verdicts[0][0]
    assert all(v[0] == done for v in verdicts)  # monotone waits: the same instructions run
    want = expected_races(progs, done)
    for _, got in verdicts:
        assert got == want


@settings(max_examples=100, deadline=None)
@given(kernels(), st.integers(0, 2**32), st.integers(0, 30),
       st.sampled_from([0, 4, 16, 1 << 18]))
def test_rewind_gives_the_shorter_runs_detector(
        progs: list[list[Inst]], seed: int, cut: int, budget: int) -> None:
    events, _ = run(progs, random.Random(seed))
    d = RaceDetector(ENGINES[:len(progs)], undo_budget=budget)
    feed(d, events)
    at = d.rewind(cut)
    assert at <= cut
    feed(d, [ev for ev in events if at <= step_of(ev) < cut])
    ref = RaceDetector(ENGINES[:len(progs)])
    feed(ref, [ev for ev in events if step_of(ev) < cut])
    assert [r.to_dict() for r in d.races] == [r.to_dict() for r in ref.races]
    assert [d.clock(e) for e in d.engines] == [ref.clock(e) for e in ref.engines]
    assert d.stats()["live"] == ref.stats()["live"]
    # and going forward again ends where the full run ended
    feed(d, [ev for ev in events if step_of(ev) >= cut])
    full = RaceDetector(ENGINES[:len(progs)])
    feed(full, events)
    assert [r.to_dict() for r in d.races] == [r.to_dict() for r in full.races]
