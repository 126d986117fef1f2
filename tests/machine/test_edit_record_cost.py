"""Record edits without copying the program (Program.edited): the edited records are kept
aside over the loaded ones, and a Machine drops only the edited record's caches. The
machine must behave exactly as when every edit copied the records and rebuilt every
table (`CopyMachine`, the old code kept here as the oracle)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from neurondbg.machine.asm import assemble
from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine
from neurondbg.machine.isa.codec import Program, decode_bytes
from neurondbg.machine.isa.programs import counted_loop
from neurondbg.machine.state import MachineConfig

from .helpers import SMALL, clear_breakpoints, edits, position, queue, use_core

# A loop of SEQ records (a superblock once hot), then an invalid COPY.
SOURCE = """
.data sb[0:4, 0] fp32 1.0 2.5 -3.0 0.1
    MOVE R1=0 R2=40 R5=3
loop:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=R5
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    NOP
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop
    COPY in_dtype=FP32 out_dtype=BF16 nac=4 src=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1] dst=sb[0, 64] step=[1,0,0,0] num=[4,1,1,1]
    HALT
"""  # noqa: E501 (one instruction per line, as the assembler reads it)
# Records an edit may put in (any index): other arithmetic, a NOP, a valid COPY, a HALT.
POOL = [assemble(text, "<pool>").program().record(0) for text in (
    "ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=R0",
    "ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R3 src0=R3 src1=7",
    "NOP",
    "MOVE R7=1",
    "COPY in_dtype=FP32 out_dtype=FP32 nac=4 src=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1] "
    "dst=sb[0, 64] step=[1,0,0,0] num=[4,1,1,1]",
    "HALT",
)]


class CopyMachine(Machine):
    """The record edits as they were: a new Program over a copy of every record, and
    every fast table (closures, stop table, superblocks) rebuilt after each."""

    def _write_record(self, index: int, raw: bytes) -> None:
        records = np.array(self.program.raw, dtype=np.uint8, copy=True)
        records[index] = np.frombuffer(raw, dtype=np.uint8)
        self.program = Program(records, self.loaded_program.name)
        self._insts[index] = None
        self._verdicts.pop(index, None)
        self._valid = None
        self._fast = None
        self._stop = None


def pair() -> tuple[Core, Core]:
    a = assemble(SOURCE, "<test>")
    made = (cls(a.program(), MachineConfig(**SMALL), data=a.data, labels=a.labels)
            for cls in (Machine, CopyMachine))
    return tuple(use_core(m) for m in made)  # type: ignore[return-value]


def seen(m: Core) -> tuple[object, ...]:
    """Everything the two machines must agree on."""
    j, q = m.state().journal, queue(m)
    return (position(m), m.state().pc, m.state().digest(), list(m.state().R), j.origin,
            bytes(j.steps), bytes(j.regs), len(j.others), edits(m),
            q.program.raw.tobytes(), [q.program.record(i) for i in range(q.count)],
            [q.valid(i) for i in range(q.count)],
            [q.instruction(i).raw for i in range(q.count)])


def act(m: Core, op: tuple) -> object:
    kind, a, b = op
    if kind == "edit":
        return m.edit_record(a, POOL[b])
    if kind == "cont":
        s = m.cont(max_steps=a * 9 + 1)
        return s.reason, s.pc, s.steps, s.detail
    if kind == "step":
        rec = m.step().record
        return rec is not None and rec.executed
    if kind == "reverse":
        s = m.reverse(a)
        return s.reason, s.pc, s.steps
    if kind == "rcont":
        s = m.reverse_continue(max_steps=a * 5 + 1)
        return s.reason, s.pc, s.steps
    if kind == "break":
        return m.add_breakpoint(("op:NOP", "invalid", "pc:0x80", "op:MOVE")[a % 4]).id
    clear_breakpoints(m)
    queue(m).invalidate_stops()
    return None


OPS = st.tuples(st.sampled_from(["edit", "edit", "cont", "cont", "step", "reverse",
                                 "rcont", "break", "clear"]),
                st.integers(0, 6), st.integers(0, len(POOL) - 1))


@settings(deadline=None, max_examples=60)
@given(st.lists(OPS, min_size=1, max_size=14))
# mid-loop, once its superblock is built: a SEQ record becomes a COPY (no closure), another
# SEQ form (its block must go), a breakpoint's opcode (its stop bit must be set), a COPY
# again before the stop table is rebuilt from the table of SEQ records
@example([("cont", 3, 0), ("edit", 3, 4), ("cont", 6, 0), ("reverse", 6, 0), ("cont", 6, 0)])
@example([("cont", 3, 0), ("edit", 2, 2), ("cont", 6, 0), ("rcont", 6, 0), ("cont", 6, 0)])
@example([("break", 0, 0), ("cont", 3, 0), ("cont", 1, 0), ("edit", 1, 2), ("cont", 6, 0)])
@example([("cont", 3, 0), ("edit", 3, 4), ("break", 3, 0), ("cont", 6, 0)])  # stops rebuilt
def test_edits_steps_and_reverses_match_the_copying_machine(ops) -> None:
    m, ref = pair()
    for op in ops:
        assert act(m, op) == act(ref, op), op
        assert seen(m) == seen(ref), op
    # and the records are the program a fresh machine would load
    q = queue(m)
    fresh = Machine(decode_bytes(q.program.raw.tobytes()), MachineConfig(**SMALL))
    assert [fresh.valid(i) for i in range(q.count)] == [q.valid(i) for i in range(q.count)]
    assert [fresh.instruction(i).fields for i in range(q.count)] == \
        [q.instruction(i).fields for i in range(q.count)]


def test_edited_shares_the_records_and_names_what_differs() -> None:
    p = assemble(SOURCE, "<test>").program()
    q = p.edited(2, POOL[0])
    assert q.record(2) == POOL[0] and p.record(2) != POOL[0]  # p never changes
    assert q.opcode(2) == POOL[0][0] and q.instruction(2).raw == POOL[0]
    assert q.changed_from(p) == [2] and p.changed_from(q) == [2]
    assert q.raw[2].tobytes() == POOL[0] and q.raw[3].tobytes() == p.record(3)
    assert not q.raw.flags.writeable  # no Program's records ever change
    assert int(q.opcodes[2]) == POOL[0][0] and len(q) == len(p)
    r = q.edited(2, p.record(2))  # put back: no edit left
    assert r.changed_from(p) == [] and r.raw is p.raw
    assert q.edited(5, POOL[5]).changed_from(q) == [5]
    assert decode_bytes(p.tobytes()).changed_from(p) is None  # other records
    with pytest.raises(ValueError, match=r"record 9: expected a record of 0\.\.6 and 64 bytes"):
        p.edited(9, POOL[0])


def test_an_edit_and_its_undo_copy_no_records() -> None:
    # 10**5 records (6.4 MB): the edit, 100 fast steps and the undo allocate less than one
    # copy of them (each copied the records before, and rebuilt the per-record tables).
    loop = assemble(counted_loop(10**6), "<test>").program().raw
    nop = assemble("NOP", "<test>").program().raw
    raw = np.concatenate([loop, np.repeat(nop, 10**5, axis=0)])
    m = use_core(Machine(decode_bytes(raw.tobytes()), MachineConfig(**SMALL)))
    m.cont(max_steps=20)  # the tables are built (bulk legality, fast closures)
    tracemalloc.start()
    try:
        m.edit_record(1, POOL[1])  # the loop's ADD
        m.cont(max_steps=100)
        m.reverse(100)
        m.reverse_step()  # the edit, made at step 20
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert queue(m).program.changed_from(queue(m).loaded_program) == [] and m.state().steps == 20
    assert peak < 1 << 20, peak
