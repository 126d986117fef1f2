"""The headless runner's fast paths against the slow ones, on random synthetic NEFFs: an
engine's waits read from the sync table (declining to the record's Plan for other wait
modes) and the inline loop, against the journaled run that steps every record on its
Machine; a DMA entry merged from the reader's descriptor table (declining to the
descriptor-by-descriptor walk), against the same entry as a tuple of Descriptors."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.neff.dma import _Plan
from neurondbg.machine.neff.lower import lower_subgraph
from neurondbg.machine.neff.model import (
    SB,
    Descriptor,
    DescriptorRange,
    DescriptorTable,
    DmaEntry,
    DmaQueue,
    Engine,
    Subgraph,
    Tensor,
    Var,
)
from neurondbg.machine.neff.runner import NeffRun
from neurondbg.machine.neff.stale import marks
from neurondbg.machine.neff.triggers import trigger_record
from tests.neff.synth import QUEUE, SEMS, record, stream

X_BYTES = 8192
KINDS = (  # 32 bytes x 4 rows each way; a cast (never merged); a load of 4 partitions
    Descriptor("X", SB, "float32", "float32", 0, 0, (32, 4), (32, 4), (1, 64), (1, 0x40000)),
    Descriptor(SB, "Y", "float32", "float32", 0, 0, (32, 4), (32, 4), (1, 0x40000), (1, 64)),
    Descriptor("X", SB, "float32", "float16", 0, 0, (32, 4), (16, 4), (1, 64), (1, 0x40000),
               op="cast"),
    Descriptor("X", SB, "float32", "float32", 0, 0, (128,), (32, 4), (1,), (1, 0x40000)),
)
ENGINE_SEMS = (1, 2, 3)
OPS = (Opcode.NOP, Opcode.EVENT_SEMAPHORE, Opcode.MATMUL, Opcode.ACTIVATE, Opcode.MEMSET,
       Opcode.SET_ORDERING_MODE, Opcode.LDWEIGHTS)


@st.composite
def entries(draw: st.DrawFn) -> list[tuple[int, list[tuple[int, int]]]]:
    """Entries as (kind, [(source offset, destination offset)]): evenly spaced runs
    (mostly) or scattered, now and then out of bounds."""
    out = []
    for _ in range(draw(st.integers(1, 5))):
        k = draw(st.integers(0, len(KINDS) - 1))
        n = draw(st.integers(1, 6))
        sb_side = KINDS[k].src == SB
        if draw(st.booleans()):
            a, b = draw(st.integers(0, 64)) * 32, draw(st.integers(0, 8)) * 32
            da, db = draw(st.sampled_from((32, 64, 0))), draw(st.sampled_from((32, 0, 16)))
            rows = [(a + i * da, b + i * db) for i in range(n)]
        else:
            rows = [(draw(st.integers(0, 300)) * 32, draw(st.integers(0, 300)) * 32)
                    for _ in range(n)]
        part = draw(st.sampled_from((0, 4, 124, 125)))  # 125: 4 partitions reach past SBUF
        rows = [((s + part * 0x40000) if sb_side else s, d if sb_side else d + part * 0x40000)
                for s, d in rows]
        out.append((k, rows))
    return out


# a record: opcode, header wait, SEM_INC target, EVENT_SEMAPHORE's second wait, and 0 for
# a header wait made SEM_EQ_IMM (one the table leaves to the Plan)
RECORDS = st.tuples(
    st.sampled_from(OPS),
    st.one_of(st.none(), st.tuples(st.sampled_from((*ENGINE_SEMS, *SEMS[:3])),
                                   st.integers(0, 40))),
    st.one_of(st.none(), st.sampled_from(ENGINE_SEMS)),
    st.one_of(st.none(), st.tuples(st.sampled_from(ENGINE_SEMS), st.integers(0, 3))),
    st.integers(0, 5))
Drawn = tuple[int, tuple[int, int] | None, int | None, tuple[int, int] | None, int]
programs = st.fixed_dictionaries({e: st.lists(RECORDS, max_size=8) for e in Engine})


def records(e: Engine, drawn: list[Drawn]) -> list[bytes]:
    out = []
    for op, w, u, w2, eq in drawn:
        if op == Opcode.MEMSET and e not in (Engine.DVE, Engine.POOL):
            op = Opcode.NOP
        rec = bytearray(record(op, w, u, w2 if op == Opcode.EVENT_SEMAPHORE else None))
        if w is not None and eq == 0:
            rec[4] = 0x01  # SEM_EQ_IMM
        out.append(bytes(rec))
    return out


def subgraph(progs: dict[Engine, list[Drawn]], ents: list[tuple[int, list[tuple[int, int]]]],
             order: list[int], as_table: bool) -> Subgraph:
    kinds, so, do = [], [], []
    for k, rows in ents:
        kinds += [k] * len(rows)
        so += [s for s, _ in rows]
        do += [d for _, d in rows]
    table = DescriptorTable(KINDS, np.array(kinds, dtype=np.intp), np.array(so, np.int64),
                            np.array(do, np.int64))
    dma, at = [], 0
    for i, (_, rows) in enumerate(ents):
        rng = DescriptorRange(table, at, at + len(rows))
        dma.append(DmaEntry(QUEUE, i, SEMS[i % 3], rng if as_table else tuple(rng), f"e{i}"))
        at += len(rows)
    sp = [trigger_record(QUEUE, i % len(ents)) for i in order]
    streams = {e: stream(*(sp if e == Engine.SP else []), *records(e, progs[e]),
                         record(Opcode.NOP)) for e in Engine}
    return Subgraph("sg00", streams, {QUEUE: DmaQueue(QUEUE, Engine.SP, SEMS)},
                    {Engine.SP: tuple(dma)},
                    {"SB": Var("SB", "state-buffer", 0), "X": Var("X", "input", 1, X_BYTES),
                     "Y": Var("Y", "output", 2, X_BYTES)},
                    {"X": Tensor("X", "float32", (X_BYTES // 4,), "input", False, "N", "x.npy")})


def outcome(run: NeffRun, max_steps: int | None) -> tuple[tuple[object, ...], np.ndarray]:
    """How the run ended, and its memory (the SBUF bytes the entries can reach, PSUM,
    DRAM) in one array."""
    out = run.run(max_steps)
    st_ = run.state
    return ((out.status, out.steps, out.lines(), out.actor, list(st_.sem),
             [(m.state.pc, m.state.halted) for m in run.machines.values()],
             run.completions, dict(marks(st_))),
            np.concatenate([st_.sbuf[:, :0x4000].reshape(-1),
                            st_.psum.reshape(-1).view(np.uint8),
                            run.dma.dram]))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(progs=programs, ents=entries(),
       order=st.lists(st.integers(0, 7), min_size=1, max_size=6),
       max_steps=st.one_of(st.none(), st.integers(0, 40)))
def test_fast_and_slow_paths_give_the_same_run(
        progs: dict[Engine, list[Drawn]], ents: list[tuple[int, list[tuple[int, int]]]],
        order: list[int], max_steps: int | None) -> None:
    x = (np.arange(X_BYTES // 4, dtype=np.float32) * 0.5 - 7).astype(np.float32)
    got = []
    for headless, as_table in ((True, True), (False, False), (True, False)):
        low = lower_subgraph(subgraph(progs, ents, order, as_table), Gen.SUNDA)
        run = NeffRun(low, {"X": x}, journal_budget=0 if headless else 1 << 20)
        got.append(outcome(run, max_steps))
    assert got[0][0] == got[1][0] == got[2][0]
    assert np.array_equal(got[0][1], got[2][1])
    # a journaled run undoes the entry it faulted in; a headless one keeps what it wrote
    assert got[0][0][0] == "fault" or np.array_equal(got[0][1], got[1][1])


def test_an_entry_from_the_table_merges_as_its_descriptors_do() -> None:
    """Five evenly spaced rows of one kind go as one stacked copy and move the bytes
    their descriptors name; scattered rows go one by one, as the walk has them."""
    x = np.arange(X_BYTES // 4, dtype=np.float32)
    ents = [(0, [(i * 32, i * 32) for i in range(5)]), (0, [(0, 64), (96, 0), (32, 320)])]
    low = lower_subgraph(subgraph({e: [] for e in Engine}, ents, [0, 1], True), Gen.SUNDA)
    run = NeffRun(low, {"X": x})
    state = run.state
    shapes = [[op.dst.shape for op in _Plan(run.dma, state, e).merged[0]]
              for e in low.sub.entries[Engine.SP]]
    walked = [[op.dst.shape for op in _Plan(run.dma, state, replace(
        e, descriptors=tuple(e.descriptors))).merged[0]] for e in low.sub.entries[Engine.SP]]
    assert shapes == walked == [[(5, 4, 32)], [(2, 4, 32), (4, 32)]]
    assert run.run().status == "complete"
    raw = x.view(np.uint8)
    for p in range(4):  # row r of a descriptor: partition r, from X[offset + 64 r]
        assert np.array_equal(state.sbuf[p, 128:160], raw[p * 64 + 128:p * 64 + 160])
        assert np.array_equal(state.sbuf[p, 0:32], raw[p * 64 + 96:p * 64 + 128])
        assert np.array_equal(state.sbuf[p, 320:352], raw[p * 64 + 32:p * 64 + 64])


def test_a_limit_at_the_steps_before_a_deadlock_ends_in_the_deadlock() -> None:
    """Cut at exactly the steps a run takes before nothing can step, a headless run ends
    as a journaled one does: in the deadlock (no step was cut off), not at the limit."""
    nop = (Opcode.NOP, None, None, None, 5)
    stuck = (Opcode.NOP, (ENGINE_SEMS[0], 1), None, None, 5)  # nothing raises it
    progs: dict[Engine, list[Drawn]] = {e: [] for e in Engine}
    progs[Engine.PE] = [nop, stuck, nop]
    progs[Engine.SP] = [nop, nop, stuck]
    x = np.zeros(X_BYTES // 4, np.float32)

    def ran(budget: int, limit: int | None) -> tuple[str, int]:
        low = lower_subgraph(subgraph(progs, [(0, [(0, 0)])], [0], True), Gen.SUNDA)
        out = NeffRun(low, {"X": x}, journal_budget=budget).run(limit)
        return out.status, out.steps

    status, steps = ran(0, None)
    assert status == "deadlock"
    assert ran(0, steps) == ran(1 << 20, steps) == ("deadlock", steps)
    assert ran(0, steps - 1) == ran(1 << 20, steps - 1) == ("limit", steps - 1)
