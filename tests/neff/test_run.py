"""Running NEFF subgraphs (machine.neff.runner, machine.neff.dma): one synthetic kernel
per rule of neff-facts §5, real bytes through DMA, and the model's refusals."""

from __future__ import annotations

import functools
import itertools
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.debugger import Machine
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.engines.record import Fault
from neurondbg.machine.isa.codec import Program
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.neff.data import read_output
from neurondbg.machine.neff.dma import DmaModel, _Plan
from neurondbg.machine.neff.lower import lower_subgraph
from neurondbg.machine.neff.model import SB, Descriptor, DmaEntry, Engine, Subgraph
from neurondbg.machine.neff.runner import NeffRun, Outcome
from neurondbg.machine.neff.stale import marks as stale_marks
from neurondbg.machine.neff.stale import stale_note
from neurondbg.machine.state import MachineConfig, MachineState
from tests.neff.kernels import (
    COLS,
    PARTS,
    POOL_SEMS,
    ROW,
    SP_Q,
    SP_SEMS,
    asm,
    inc,
    tt_add,
    vector_add,
    wait,
    wait2,
)

RNG = np.random.default_rng(7)
A = RNG.standard_normal((PARTS, COLS)).astype(np.float32)
B = RNG.standard_normal((PARTS, COLS)).astype(np.float32)


def run(sub: Subgraph, inputs: dict[str, np.ndarray] | None = None,
        budget: int = 0) -> tuple[NeffRun, Outcome]:
    r = NeffRun(lower_subgraph(sub, Gen.SUNDA), inputs if inputs is not None else
                {"a": A, "b": B}, journal_budget=budget)
    return r, r.run()


@pytest.mark.parametrize("budget", [0, 1 << 20], ids=["headless", "journaled"])
def test_vector_add_moves_real_bytes_and_completes(budget: int) -> None:
    r, out = run(vector_add(), budget=budget)
    assert out.status == "complete" and r.notes == []
    # 5 SET_ORDERING_MODE + 2 SP triggers + ES + TT + trigger + NOP + 5 HALT + 3 DMA
    assert out.steps == 19 and r.completions == [2, 1]  # qSPIO0, qPoolIO0
    assert np.array_equal(read_output(r.dma, r.low.sub, "out"), A + B)
    assert r.state.sem[SP_SEMS[0]] == r.state.sem[SP_SEMS[1]] == 16
    assert r.state.sem[POOL_SEMS[0]] == 16 and r.state.sem[6] == 1


def test_a_missing_input_is_zeros_and_the_run_says_so() -> None:
    r, _ = run(vector_add(), {"a": A})
    assert r.notes == ["input b not given: it starts as zeros"]
    assert np.array_equal(read_output(r.dma, r.low.sub, "out"), A)


def test_fifo_per_queue_and_16_per_entry() -> None:
    """Triggered 1 then 0: the queue completes them in that order, each adding 16 to its
    own semaphore once, whatever its descriptors."""
    sub = vector_add(sp=f"TRIGGER {SP_Q} 1\nTRIGGER {SP_Q} 0")
    r = NeffRun(lower_subgraph(sub, Gen.SUNDA), {"a": A, "b": B}, journal_budget=1 << 20)
    sp = r.machines[Engine.SP]
    for _ in range(3):
        sp.step()
    q = r.dma.index[SP_Q]
    assert [x.id for x in r.dma.queued(q)] == [1, 0]
    first = r.complete(q)
    assert not isinstance(first, str) and first.entry.id == 1
    assert (r.state.sem[SP_SEMS[1]], r.state.sem[SP_SEMS[0]]) == (16, 0)
    assert [x.id for x in r.dma.queued(q)] == [0]
    r.complete(q)
    assert (r.state.sem[SP_SEMS[1]], r.state.sem[SP_SEMS[0]]) == (16, 16)
    assert r.dma.pending(q) == 0 and isinstance(r.complete(q), str)


@pytest.mark.parametrize("first,second", list(itertools.product([True, False], repeat=2)))
def test_event_semaphore_waits_on_both(first: bool, second: bool) -> None:
    """EVENT_SEMAPHORE's header wait and its wait at 0x20 must both hold: sem[9] reaches
    16 and sem[3] stays 0, so a wait on sem[3] >= 1 never holds."""
    head = wait(SP_SEMS[1], 16) if first else wait(3, 1)
    ext = wait2(SP_SEMS[1], 16) if second else wait2(3, 1)
    _, out = run(vector_add(
        dve=f"EVENT_SEMAPHORE {head} {ext}\n{tt_add(0, ROW, 2 * ROW, inc(6))}"))
    assert out.status == ("complete" if first and second else "deadlock")
    if not (first and second):
        assert out.blocked[0].startswith("DVE waits at #1 for sem[3] >= 1 (now 0): ")


def test_a_starved_wait_is_a_deadlock_naming_the_dma_entries() -> None:
    """DVE waits for sem[9] >= 32: entries 1 and 17 of qSPIO0 raise sem[9], and 17 is
    never triggered."""
    extra = (DmaEntry(SP_Q, 17, SP_SEMS[1], (), "never"),)
    dve = f"EVENT_SEMAPHORE {wait(SP_SEMS[1], 32)}\n{tt_add(0, ROW, 2 * ROW, inc(6))}"
    _, out = run(vector_add(dve=dve, extra_sp=extra))
    assert out.status == "deadlock"
    assert out.detail == "deadlock: nothing can step and DVE, Pool have not reached their end"
    assert out.blocked == [
        "DVE waits at #1 for sem[9] >= 32 (now 16): only qSPIO0 entries 1 and 17 can raise "
        "it, and qSPIO0#17 is never triggered",
        "Pool waits at #1 for sem[6] >= 1 (now 0): only updates by DVE can raise it"]


def test_opaque_instructions_apply_events_and_mark_memory_stale() -> None:
    sub = vector_add()
    pe = [asm("SET_ORDERING_MODE"), bytes([Opcode.LDWEIGHTS, 16]) + bytes(62),
          bytes([Opcode.MATMUL, 16, 0, 0, 0, 0, 0x13, 5]) + bytes(56)]  # SEM_INC sem[5]
    sub.streams[Engine.PE] = np.frombuffer(b"".join(pe), np.uint8).reshape(-1, 64)
    for budget in (0, 1 << 20):
        r, out = run(sub, budget=budget)
        assert out.status == "complete"
        assert r.state.sem[5] == 1
        for space in ("sbuf", "psum"):
            assert stale_note(r.state, space) == (
                f"values may be stale: MATMUL at pe 0x80 may have written {space} and is "
                "not modelled")
        assert stale_note(r.state, "out") is None


def test_a_descriptor_outside_sbuf_stops_the_run_naming_the_entry() -> None:
    sub = vector_add()
    bad = replace(sub.entries[Engine.SP][1], descriptors=(
        Descriptor("b", SB, "float32", "float32", 0, 0x40000 * 100, (ROW, PARTS),
                   (ROW, PARTS), (1, ROW), (1, 0x40000)),))
    sub.entries[Engine.SP] = (sub.entries[Engine.SP][0], bad)
    for budget in (0, 1 << 20):
        _, out = run(sub, budget=budget)
        assert (out.status, out.actor) == ("fault", SP_Q)
        assert out.detail == (
            "fault: DMA qSPIO0#1 descriptor 0: SB partitions 100..227, bytes 0x0..0x3f: "
            "outside SBUF (128 partitions of 196,608 bytes)")


def test_a_cast_descriptor_converts_each_element() -> None:
    sub = vector_add()
    half = Descriptor("a", SB, "float32", "float16", 0, 0, (ROW, PARTS), (ROW // 2, PARTS),
                      (1, ROW), (1, 0x40000), op="cast")
    sub.entries[Engine.SP] = (replace(sub.entries[Engine.SP][0], descriptors=(half,)),
                              sub.entries[Engine.SP][1])
    r, _ = run(sub)
    got = r.state.sbuf[:, :ROW // 2].copy().view(np.float16)
    assert np.array_equal(got, A.astype(np.float16))


def test_a_trigger_outside_a_neff_faults_in_one_line() -> None:
    raw = np.frombuffer(asm("PSEUDO_DMATRIGGER queue=qSPIO0 id=0"), np.uint8).reshape(-1, 64)
    m = Machine(Program(raw), MachineConfig(gen=Gen.SUNDA, engine="sp", execute_invalid=True))
    assert m.step().fault == ("PSEUDO_DMATRIGGER starts a NEFF's DMA entry; this program has "
                              "no DMA queues (open the .neff to run it)")


def _naive(off: int, sizes: tuple[int, ...], steps: tuple[int, ...]) -> list[int]:
    out = [off]
    for n, s in zip(sizes, steps, strict=True):
        out = [a + i * s for i in range(n) for a in out]
    return out


@functools.cache
def _numbered_sbuf() -> MachineState:
    """A Trn1 state whose SBUF byte at flat index i is i % 251, made once: the test only
    reads it, and filling 24 MiB per example was most of its time."""
    st_ = MachineState.create(MachineConfig(gen=Gen.SUNDA))
    st_.sbuf[:] = (np.arange(st_.sbuf.size, dtype=np.uint32) % 251).reshape(st_.sbuf.shape)
    return st_


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 5), st.integers(-3, 9)), min_size=1, max_size=3),
       st.integers(0, 3), st.integers(40, 60))
def test_a_side_reads_the_bytes_its_addresses_name(dims: list[tuple[int, int]], parts: int,
                                                   byte: int) -> None:
    """SB side: byte dimensions and a partition dimension (step 0x40000) in any order; the
    pattern's bytes, in ordinal order, are those at off + sum(i_d * step_d)."""
    sizes = [n for n, _ in dims]
    steps = [s for _, s in dims]
    if parts:
        sizes.insert(len(sizes) // 2 + 1, parts)
        steps.insert(len(steps) // 2 + 1, 0x40000)
    sub = vector_add()
    st_ = _numbered_sbuf()
    dma = DmaModel(sub, st_.config.partitions, st_.config.sbuf_bytes)
    off = 0x40000 * 2 + byte
    p = dma.pattern(st_, SB, off, tuple(sizes), tuple(steps), "source")
    got = np.array(p.view(dma.flat(st_, "sbuf"))).reshape(-1).tolist()
    want = [int(st_.sbuf[a // 0x40000, a % 0x40000]) for a in _naive(off, tuple(sizes),
                                                                      tuple(steps))]
    assert got == want


@pytest.mark.parametrize("journaled", [False, True], ids=["headless", "journaled"])
@pytest.mark.parametrize("shift", [-24, -1, 0, 5, 24])
def test_an_sb_to_sb_copy_reads_before_it_writes(journaled: bool, shift: int) -> None:
    """Source and destination overlap: every destination byte is the source byte as it
    was before the copy (the headless runner copies view to view; numpy must buffer)."""
    sub = vector_add()
    st_ = MachineState.create(MachineConfig(gen=Gen.SUNDA))
    st_.sbuf[:] = (np.arange(st_.sbuf.size, dtype=np.uint64) % 251).reshape(st_.sbuf.shape)
    before = st_.sbuf.copy()
    dma = DmaModel(sub, st_.config.partitions, st_.config.sbuf_bytes, journaled=journaled)
    d = Descriptor(SB, SB, "float32", "float32", 0x100, 0x100 + shift, (48, 4), (48, 4),
                   (1, 0x40000), (1, 0x40000))
    st_.begin_step()
    for op in dma._describe(st_, sub.entries[Engine.SP][0], d, [], []):
        dma._apply(st_, op)
    st_.end_step()
    want = before.copy()
    want[:4, 0x100 + shift:0x100 + shift + 48] = before[:4, 0x100:0x100 + 48]
    assert np.array_equal(st_.sbuf, want)


def test_an_interrupt_stops_the_run_at_a_step_boundary() -> None:
    r = NeffRun(lower_subgraph(vector_add(), Gen.SUNDA), {"a": A, "b": B})
    r.interrupt.set()
    out = r.run()
    assert (out.status, out.steps) == ("interrupted", 0)
    r.interrupt.clear()
    assert r.run().status == "complete"


def test_max_steps_stops_and_a_second_run_goes_on() -> None:
    r = NeffRun(lower_subgraph(vector_add(), Gen.SUNDA), {"a": A, "b": B})
    first = r.run(5)
    assert (first.status, first.steps) == ("limit", 5)
    assert r.run().status == "complete" and r.steps == 19


def _chunks(n: int, step: int = 16, sb_step: int = 16) -> tuple[Descriptor, ...]:
    """n loads of 16 bytes x 8 partitions of `a`, source chunks `step` apart, SB chunks
    `sb_step` apart (16: side by side, as compilers split a tile)."""
    return tuple(Descriptor("a", SB, "float32", "float32", k * step, 0x40000 + k * sb_step,
                            (16, 8), (16, 8), (1, ROW), (1, 0x40000)) for k in range(n))


_OUT_OF_SBUF = Descriptor("a", SB, "float32", "float32", 0, 0x40000 * 125, (16, 8), (16, 8),
                          (1, ROW), (1, 0x40000))
_TRANSPOSE = Descriptor(SB, "out", "float32", "float32", 0, 0, (16, 8), (16, 8),
                        (1, 0x40000), (1, ROW), op=None, transpose_op="2d")
_CAST = Descriptor("b", SB, "float32", "float16", 0, 0x40000 * 20, (16, 8), (8, 8),
                   (1, ROW), (1, 0x40000), op="cast")
_STORE = Descriptor(SB, "out", "float32", "float32", 0x40000 + 8, 32, (16, 8), (16, 8),
                    (1, 0x40000), (1, ROW))


@pytest.mark.parametrize("descriptors", [
    _chunks(4), _chunks(5, step=32, sb_step=16), _chunks(3, step=16, sb_step=0),
    _chunks(4, step=16, sb_step=8), (*_chunks(3), _STORE, *_chunks(2, step=-16)),
    (*_chunks(2), _CAST, *_chunks(3)), (*_chunks(2), _TRANSPOSE, *_chunks(2)),
    (*_chunks(3), _OUT_OF_SBUF, *_chunks(2)),
], ids=["side-by-side", "gapped-source", "same-destination", "overlapping-destinations",
        "store-between", "cast-between", "transpose-between", "fault-part-way"])
def test_a_headless_entry_moves_what_its_descriptors_move_one_by_one(
        descriptors: tuple[Descriptor, ...]) -> None:
    """Completing an entry nobody records (runs of copies merged into one numpy copy)
    leaves SBUF, DRAM, the stale marks and the fault exactly as completing it with its
    writes recorded (descriptor by descriptor) does."""
    got = []
    for recorded in (False, True):
        sub = vector_add(extra_sp=(DmaEntry(SP_Q, 2, SP_SEMS[2], descriptors, "t"),))
        st_ = MachineState.create(MachineConfig(gen=Gen.SUNDA))
        st_.sbuf[:] = (np.arange(st_.sbuf.size, dtype=np.uint64) % 251).reshape(st_.sbuf.shape)
        dma = DmaModel(sub, st_.config.partitions, st_.config.sbuf_bytes, journaled=False)
        dma.attach(st_)
        dma.dram[:] = np.arange(dma.dram.size, dtype=np.uint64) % 241
        dma.trigger(st_, Engine.SP, SP_Q, 2)
        st_.writes = [] if recorded else None
        fault = None
        try:
            dma.complete(st_, dma.index[SP_Q])
        except Fault as e:
            fault = str(e)
        got.append((st_.sbuf.copy(), dma.dram.copy(), dict(stale_marks(st_)), fault))
    (sb0, dram0, marks0, fault0), (sb1, dram1, marks1, fault1) = got
    assert np.array_equal(sb0, sb1) and np.array_equal(dram0, dram1)
    assert (marks0, fault0) == (marks1, fault1)
    assert not np.array_equal(sb0, (np.arange(sb0.size, dtype=np.uint64) % 251
                                    ).reshape(sb0.shape))  # something moved


def test_side_by_side_copies_of_an_entry_go_as_one() -> None:
    sub = vector_add(extra_sp=(DmaEntry(SP_Q, 2, SP_SEMS[2], _chunks(25), "t"),))
    st_ = MachineState.create(MachineConfig(gen=Gen.SUNDA))
    dma = DmaModel(sub, st_.config.partitions, st_.config.sbuf_bytes, journaled=False)
    ops, error = _Plan(dma, st_, sub.entries[Engine.SP][2]).merged
    assert error is None
    assert [op.dst.shape for op in ops] == [(25, 8, 16)]
    ops, _ = _Plan(dma, st_, replace(sub.entries[Engine.SP][2],
                                     descriptors=_chunks(3, sb_step=0))).merged
    assert [op.dst.shape for op in ops] == [(8, 16)] * 3  # one destination: one by one
    ops, _ = _Plan(dma, st_, replace(sub.entries[Engine.SP][2],
                                     descriptors=_chunks(3, sb_step=8))).merged
    assert [op.dst.shape for op in ops] == [(8, 16)] * 3  # overlapping: one by one
