"""Records with the same bytes share their decode and their fast closure, built when first
reached: a machine must behave exactly as one that decodes every record on its own each
time and runs every step through the slow path (`EagerMachine`, the oracle), through
record edits (of one copy of a repeated record), `set` edits, breakpoints and reverse."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.asm import assemble
from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine
from neurondbg.machine.isa.codec import Instruction, decode, decode_bytes, twins
from neurondbg.machine.state import RECORD_BYTES, MachineConfig

from .helpers import SMALL, edits, position, queue, rewind, use_core

# SEQ records, most with a fast closure; the relative branches go to other records from
# each place they stand (and out of the program from some: those fault on the slow path)
TEXTS = (
    "NOP",
    "MOVE R1=5 R2=7",
    "MOVE R3=R1",
    "ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=3",
    "ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1",
    "ALU_OP op=MULT dtype=INT32 dst_dtype=INT32 dst=R4 src0=R1 src1=R2",
    "COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 "
    "target_mode=REL_IMM br_immediate=-128",
    "COMPARE_BRANCH cmp_op=LT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=40 "
    "target_mode=REL_IMM br_immediate=192",
    "COMPARE_BRANCH cmp_op=ALWAYS target_mode=REL_IMM br_immediate=128",
    "COMPARE_BRANCH cmp_op=LT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=30 "
    "target_mode=ABS_IMM br_immediate=64",
    "HALT",
)
POOL = [assemble(t, "<pool>").program().record(0) for t in TEXTS]


class EagerMachine(Machine):
    """The oracle: every record decoded afresh whenever it is read, and every step
    through the slow path (no fast closure, no superblock)."""

    def instruction(self, i: int) -> Instruction:
        return decode(self.program.record(i), offset=i * RECORD_BYTES, index=i)

    def _fast_run(self, budget: int) -> int:
        return 0


def pair(records: list[int]) -> tuple[Core, Core]:
    program = decode_bytes(b"".join(POOL[k] for k in records), "<test>")
    return (use_core(Machine(program, MachineConfig(**SMALL))),
            use_core(EagerMachine(program, MachineConfig(**SMALL))))


def seen(m: Core) -> tuple[object, ...]:
    """Everything the two machines must agree on."""
    j = m.state().journal
    insts = [queue(m).instruction(i) for i in range(queue(m).count)]
    return (position(m), m.state().pc, m.state().digest(), list(m.state().R), bytes(j.steps),
            bytes(j.regs), edits(m), [(x.index, x.offset, x.raw, x.fields) for x in insts],
            [queue(m).valid(i) for i in range(queue(m).count)])


def act(m: Core, op: tuple[str, int, int]) -> object:
    kind, a, b = op
    if kind == "edit":
        return m.edit_record(a % queue(m).count, POOL[b % len(POOL)])
    if kind == "set":
        return m.edit(f"R{1 + a % 4}", str(b))
    if kind == "cont":
        s = m.cont(max_steps=1 + a * 7)
        return s.reason, s.pc, s.steps, s.detail
    if kind == "step":
        r = m.step().record
        if r is None:  # halted: nothing to take
            return None
        return r.executed, r.fault, r.invalid, r.next_pc
    if kind == "reverse":
        s = m.reverse(1 + a % 5)
        return s.reason, s.pc, s.steps
    return m.add_breakpoint(("op:NOP", "pc:0x80", "op:MOVE")[a % 3]).id


OPS = st.tuples(st.sampled_from(["edit", "edit", "set", "cont", "cont", "cont", "step",
                                 "reverse", "break"]),
                st.integers(0, 40), st.integers(0, 60))
# few distinct records, many copies of each: the twins the sharing is about
PROGRAMS = st.lists(st.sampled_from(range(len(POOL))), min_size=2, max_size=40).map(
    lambda ks: ks + ks[:len(ks) // 2])


@settings(max_examples=80, deadline=None)
@given(PROGRAMS, st.lists(OPS, max_size=14))
def test_shared_decode_runs_as_decoding_every_record_alone(records, ops) -> None:
    shared, eager = pair(records)
    for op in ops:
        assert act(shared, op) == act(eager, op), op
        assert seen(shared) == seen(eager), op


def test_twins_share_one_closure_and_an_edit_leaves_them_alone() -> None:
    move = assemble("MOVE R1=5 R2=7", "<t>").program().record(0)
    halt = assemble("HALT", "<t>").program().record(0)
    add = assemble("ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=3",
                   "<t>").program().record(0)
    program = decode_bytes(move * 50 + add * 50 + halt, "<test>")
    m = use_core(Machine(program, MachineConfig(**SMALL)))
    assert m.cont().reason == "halt" and m.state().R[1] == 5 + 3 * 50
    fast = queue(m)._fast
    assert fast is not None
    assert len({id(f) for f in fast[:50]}) == 1 and len({id(f) for f in fast[50:100]}) == 1
    assert fast[0] is not fast[50]
    rewind(m)
    m.edit_record(60, move)  # one ADD of fifty becomes a MOVE: the other 49 still add
    assert m.cont().reason == "halt" and m.state().R[1] == 5 + 3 * 39
    assert queue(m).instruction(61).raw == add and queue(m).instruction(60).raw == move
    q = queue(m)
    assert q.instruction(61).index == 61 and q.instruction(59).offset == 59 * RECORD_BYTES
    assert queue(m)._fast[61] is fast[50] and queue(m)._fast[60] is fast[0]


@pytest.mark.parametrize("collide", [False, True])
def test_twins_group_records_by_their_bytes(monkeypatch, collide: bool) -> None:
    """Groups are exactly the equal records, also when every hash collides."""
    import neurondbg.machine.isa.codec as codec

    if collide:  # every record hashes to 0: the byte-for-byte check must regroup them
        monkeypatch.setattr(codec, "_MIX", np.zeros(RECORD_BYTES // 8, dtype=np.uint64))
    rng = np.random.default_rng(5)
    kinds = rng.integers(0, 256, size=(7, RECORD_BYTES), dtype=np.uint8)
    pick = rng.integers(0, 7, size=500)
    raw = kinds[pick]
    rows = np.flatnonzero(rng.random(500) < 0.8)
    found = twins(raw, rows)
    assert (found.key[np.setdiff1d(np.arange(500), rows)] == -1).all()
    for i in rows[:60]:
        want = rows[(pick[rows] == pick[i])]
        assert sorted(found.of(int(i)).tolist()) == want.tolist()
