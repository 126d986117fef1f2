"""A headless machine (run alone, journal budget 0: a NEFF run's engines) runs records
through its per-body cache and direct writes; a journaled one through `_execute`. Both
must end every step with the same state, fault, refusal and next PC."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.debugger import Machine
from neurondbg.machine.isa.codec import decode_bytes, struct_for
from neurondbg.machine.isa.enums import UpdateMode as U
from neurondbg.machine.isa.enums import WaitMode as W
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.state import MachineConfig, MachineState, Write
from tests.machine.test_fuzz import GEN, MODELLED, _record

# most records wait on what holds and update validly (a lone machine faults on a wait
# that does not hold); the rest take the other forms, faults included
WAITS = [0, W.SEM_GE_IMM, W.UNORDERED]
UPDATES = [0, U.SEM_INC_READ, U.SEM_INC_COMPLETE, U.SEM_ADD_IMM_READ, U.SEM_WR_IMM_READ,
           U.SEM_DEC_COMPLETE]
ODD_WAITS = [W.SEM_GE_IMM, W.SEM_EQ_IMM, W.EVT_SET_THEN_CLEAR, W.SEM_GE_REG, 0x33]
ODD_UPDATES = [U.SEM_ADD_REG_READ, U.EVT_SET_READ, 0x23, U.INVALID]


def _with_events(raw: bytes, rng: np.random.Generator) -> bytes:
    if not any(f.name == "events.wait_mode" for f in struct_for(raw[0]).fields):
        return raw
    b = bytearray(raw)
    odd = rng.random() < 0.15
    b[4], b[5] = int(rng.choice(ODD_WAITS if odd else WAITS)), int(rng.integers(0, 4))
    b[6], b[7] = int(rng.choice(ODD_UPDATES if odd else UPDATES)), int(rng.integers(0, 4))
    b[8:12] = int(rng.integers(0, 4) if odd else 0).to_bytes(4, "little")
    return bytes(b)


def _program(seed: int, n: int) -> bytes:
    rng = np.random.default_rng(seed)
    memsets = [_record(Opcode.MEMSET, rng) for _ in range(3)]
    out = []
    for _ in range(n):
        if rng.random() < 0.6:  # MEMSETs sharing bodies: the direct write and the cache
            raw = memsets[int(rng.integers(0, len(memsets)))]
        else:
            raw = _record(int(rng.choice(MODELLED)), rng)
        out.append(_with_events(raw, rng))
    return b"".join(out)


def _fill(m: Machine, seed: int) -> None:
    rng = np.random.default_rng(seed)
    s = m.state
    s.sbuf[...] = rng.integers(0, 256, s.sbuf.shape, dtype=np.uint8)
    s.psum[...] = rng.integers(0, 256, s.psum.shape, dtype=np.uint8)
    for k in range(4):
        s.sem[k] = int(rng.integers(0, 4))
        s.R[k] = int(rng.integers(0, 4))


def _same(a: MachineState, b: MachineState) -> None:
    assert (a.pc, a.halted, a.sem, a.R, a.shape) == (b.pc, b.halted, b.sem, b.R, b.shape)
    assert (a.fp8_exp4, a.fp8_sat) == (b.fp8_exp4, b.fp8_sat)
    for x, y in ((a.sbuf, b.sbuf), (a.psum, b.psum), (a.acc, b.acc), (a.idx, b.idx)):
        assert np.array_equal(x.view(np.uint8), y.view(np.uint8))


@settings(deadline=None, max_examples=25)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["pool", "dve"]), st.booleans())
def test_headless_steps_match_journaled_steps(seed: int, engine: str, anyway: bool) -> None:
    prog = decode_bytes(_program(seed, 14))
    cfg = MachineConfig(gen=GEN, engine=engine, sbuf_bytes=2048, psum_bytes=2048,
                        execute_invalid=anyway)
    fast, slow = Machine(prog, cfg, journal_budget=0), Machine(prog, cfg)
    assert fast.headless and not slow.headless
    for m in (fast, slow):
        _fill(m, seed)
    for _ in range(20):
        a, b = fast.step(), slow.step()
        assert (a.index, a.pc, a.fault, a.invalid, a.halted, a.next_pc, a.mnemonic) == (
            b.index, b.pc, b.fault, b.invalid, b.halted, b.next_pc, b.mnemonic)
        assert fast.state.steps == slow.state.steps
        _same(fast.state, slow.state)
        if a.fault or a.invalid or a.halted:
            break


def _written(w: Write) -> tuple[object, ...]:
    """A Write as the race feed reads it, and its new bytes (a headless step keeps no
    old bytes of memory)."""
    new = np.asarray(w.new)
    old = None if w.region is not None else w.old
    return w.target, w.region, old, new.shape, new.tobytes()


@settings(deadline=None, max_examples=25)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["pool", "dve"]))
def test_recorded_headless_steps_give_the_journaled_reads_and_writes(seed: int,
                                                                    engine: str) -> None:
    """While a step's reads are recorded (a race feed), a headless step records the same
    reads and carries the same Writes as a journaled one, in the same order."""
    prog = decode_bytes(_program(seed, 14))
    cfg = MachineConfig(gen=GEN, engine=engine, sbuf_bytes=2048, psum_bytes=2048)
    fast, slow = Machine(prog, cfg, journal_budget=0), Machine(prog, cfg)
    for m in (fast, slow):
        _fill(m, seed)
    for _ in range(20):
        got = []
        for m in (fast, slow):
            m.state.reads = []
            rec = m.step()
            reads, m.state.reads = m.state.reads, None
            assert m.state.writes is None
            got.append((rec.fault, reads, [_written(w) for w in rec.writes]))
        assert got[0] == got[1]
        _same(fast.state, slow.state)
        if rec.fault or rec.invalid or rec.halted:
            break


def test_a_headless_memset_stream_keeps_nothing_and_decodes_once() -> None:
    rng = np.random.default_rng(5)
    body = _record(Opcode.MEMSET, rng)
    while not (m := Machine(decode_bytes(body), MachineConfig(gen=GEN, engine="dve"),
                            journal_budget=0)).step().executed:
        body = _record(Opcode.MEMSET, rng)  # one that runs
    recs = []
    for k in range(40):  # each waits for the updates before it, as a compiler's stream
        b = bytearray(body)
        b[4:12] = bytes([W.SEM_GE_IMM, 2, U.SEM_INC_COMPLETE, 2]) + k.to_bytes(4, "little")
        recs.append(bytes(b))
    m = Machine(decode_bytes(b"".join(recs)), MachineConfig(gen=GEN, engine="dve"),
                journal_budget=0)
    for _ in recs:
        assert m.step().executed
    assert m.state.sem[2] == 40 and m.state.steps == 40 and m.state.pc == 40 * 64
    assert not m.state.journal.steps and not m.state.journal.others
    assert len(m._bodies) == 1


def test_a_core_machine_is_never_headless() -> None:
    from neurondbg.machine.core.core import Core

    prog = decode_bytes(_program(1, 4))
    m = Machine(prog, MachineConfig(gen=GEN, engine="dve"), journal_budget=0)
    assert m.headless
    Core.of_program(m, Path("p.bin"), journal_budget=0)
    assert not m.headless
