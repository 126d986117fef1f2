"""Machine.edit_record (the TUI's "apply fix"): a record of the program replaced,
journaled like a `set` edit, undone by reverse, replayed exactly from history and from a
saved session; bad input is a one-line ValueError."""

from __future__ import annotations

import numpy as np
import pytest

from neurondbg.machine.asm import assemble
from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine, bits_record, record_bits
from neurondbg.machine.edits import Edit
from neurondbg.machine.legality.wire.repair import apply
from neurondbg.machine.state import MachineConfig
from neurondbg.sessions import load_session, save_session
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.schema import session_from_dict

from .helpers import SMALL, back_to, edits, position, queue, rewind, step, use_core

# record 1 is a COPY from FP32 to BF16: invalid (s4d4_tr_same_src_dst_type); its checked
# fix sets out_dtype = FP32. Records 2..4 loop R2 times adding R5 to R1.
PROGRAM = """
.data sb[0:4, 0] fp32 1.0 2.5 -3.0 0.1
    MOVE R1=0 R2=4 R5=3
    COPY in_dtype=FP32 out_dtype=BF16 nac=4 src=sb[0, 0] {pattern} dst=sb[0, 64] {pattern}
loop:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=R{src}
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop
    HALT
"""
COPY, ADD = 1, 2


def source(src: int = 5) -> str:
    return PROGRAM.format(src=src, pattern="step=[1,0,0,0] num=[4,1,1,1]")


def machine() -> Core:
    a = assemble(source(), "<test>")
    return use_core(Machine(a.program(), MachineConfig(**SMALL), data=a.data,
                            labels=a.labels))


def fixed_copy(m: Machine | Core) -> bytes:
    """Record COPY with its verdict's checked fix applied."""
    m = m if isinstance(m, Machine) else queue(m)
    v = m.verdict(COPY)
    assert not v.valid and v.fix_fields == {"out_dtype": 0xA}
    inst = m.instruction(COPY)
    rec = np.frombuffer(inst.raw, dtype=inst.struct.dtype).copy()
    return apply(inst.struct, rec, v.fix_fields).tobytes()


def other_add() -> bytes:
    """Record ADD adding R0 (zero) instead of R5."""
    return assemble(source(src=0), "<test>").program().raw[ADD].tobytes()


def test_edit_then_reverse_restores_the_bytes_and_the_verdict() -> None:
    m = machine()
    old = queue(m).program.raw[COPY].tobytes()
    assert m.cont().reason == "invalid" and m.state().pc == 0x40
    new = fixed_copy(m)
    assert m.edit_record(COPY, new) == "record 1 at 0x40: 1 byte changed, now valid"
    assert queue(m).program.raw[COPY].tobytes() == new and queue(m).verdict(COPY).valid
    assert queue(m).instruction(COPY).fields["out_dtype"] == 0xA
    assert edits(m) == [Edit(1, "record[1]", record_bits(new))]
    assert position(m) == (1, 1)
    assert m.cont().reason == "halt" and m.state().R[1] == 12
    assert m.reverse(m.state().steps - 1).steps > 0 and position(m) == (1, 1)
    assert m.reverse_step()  # the edit is an event of its own, undone without a step
    assert position(m) == (1, 0)
    assert queue(m).program.raw[COPY].tobytes() == old
    assert not queue(m).valid(COPY) and not queue(m).verdict(COPY).valid
    assert queue(m).loaded_program.raw[COPY].tobytes() == old  # the loaded records never change
    assert m.cont().reason == "invalid"


def test_an_edit_reaches_the_bulk_flags_the_fast_path_and_breakpoints() -> None:
    m = machine()
    m.add_breakpoint("invalid")
    assert m.cont().reason == "breakpoint"
    m.edit_record(COPY, fixed_copy(m))
    m.edit_record(ADD, other_add())  # a SEQ record whose fast closure may be built already
    assert m.cont().reason == "halt"  # no stop at the repaired COPY
    assert m.state().R[1] == 0  # the loop added R0, not R5
    rewind(m)
    assert queue(m).program.raw.tobytes() == queue(m).loaded_program.raw.tobytes()
    assert m.cont().reason == "breakpoint"


def test_every_position_is_reached_again_exactly_by_one_jump_back() -> None:
    # One event at a time (journal pops), then each position again by one reverse from the
    # end (far jumps replay from checkpoint 0, which holds the state but not the program:
    # the records edited after it are put back, then re-edited on the way).
    def run() -> Core:
        m = machine()
        m.cont()
        m.edit_record(COPY, fixed_copy(m))
        step(m, 3)
        m.edit_record(ADD, other_add())
        m.cont()
        return m

    m = run()
    seen = {}
    while True:
        seen[sum(position(m))] = (position(m), m.state().digest(), queue(m).program.raw.tobytes())
        if not m.reverse_step():
            break
    q = queue(m)
    assert position(m) == (0, 0) and q.program.raw.tobytes() == q.loaded_program.raw.tobytes()
    for want in seen.values():
        m = run()
        back_to(m, want[0])
        assert (position(m), m.state().digest(), queue(m).program.raw.tobytes()) == want


def test_reverse_far_back_replays_record_edits_exactly() -> None:
    m = machine()
    m.cont()
    m.edit_record(COPY, fixed_copy(m))
    step(m, 2)
    m.edit_record(ADD, other_add())
    after_edit = (position(m), m.state().digest(), queue(m).program.raw.tobytes())
    m.cont()
    back_to(m, after_edit[0])  # one jump: a checkpoint replay
    assert (position(m), m.state().digest(), queue(m).program.raw.tobytes()) == after_edit
    m.reverse_step()  # the ADD edit undone: the COPY edit stays
    assert queue(m).program.raw[ADD].tobytes() == queue(m).loaded_program.raw[ADD].tobytes()
    assert queue(m).program.raw[COPY].tobytes() != queue(m).loaded_program.raw[COPY].tobytes()
    rewind(m)
    q = queue(m)
    assert position(m) == (0, 0) and q.program.raw.tobytes() == q.loaded_program.raw.tobytes()


def test_a_folded_history_replays_record_edits_too() -> None:
    # A tiny journal budget folds history into checkpoints; going back past the window
    # replays from one, and the records must be those of the position reached.
    a = assemble(source().replace("R2=4", "R2=3000"), "<test>")
    m = use_core(Machine(a.program(), MachineConfig(**SMALL), data=a.data, labels=a.labels),
                 journal_budget=64 << 10)
    m.cont()
    m.edit_record(COPY, fixed_copy(m))
    step(m, 10)
    m.edit_record(ADD, other_add())
    mid = (position(m), m.state().digest(), queue(m).program.raw.tobytes())
    m.cont()
    assert m.state().halted and m.state().journal.origin > mid[0][0]
    back_to(m, mid[0])
    assert (position(m), m.state().digest(), queue(m).program.raw.tobytes()) == mid
    rewind(m)
    assert queue(m).program.raw.tobytes() == queue(m).loaded_program.raw.tobytes()


@pytest.mark.parametrize(("index", "raw", "message"), [
    (6, bytes(64), "record 6 does not exist (the program has records 0..5)"),
    (-1, bytes(64), "record -1 does not exist (the program has records 0..5)"),
    (True, bytes(64), "record: expected a record number, found True"),
    (1, bytes(63), "record 1: expected 64 bytes, found 63"),
    (1, "00" * 64, "record 1: expected 64 bytes, found str"),
])
def test_bad_input_is_a_one_line_error_and_changes_nothing(index, raw, message) -> None:
    m = machine()
    with pytest.raises(ValueError) as e:
        m.edit_record(index, raw)
    assert str(e.value) == message
    assert not edits(m) and queue(m).program is queue(m).loaded_program


@pytest.mark.parametrize(("value", "fragment"), [
    ("0x12", "expected a record's 64 bytes as 0x and 128 hex digits, found '0x12'"),
    ("0x" + "zz" * 64, "expected a record's 64 bytes as 0x and 128 hex digits"),
])
def test_a_saved_record_edit_that_holds_no_record_is_refused(value, fragment) -> None:
    with pytest.raises(ValueError, match="expected a record's 64 bytes"):
        bits_record(value)
    doc = {"schema": 1, "program": {"path": "p.asm"}, "machine": {"gen": "cayman"},
           "position": {"steps": 1},
           "edits": [{"step": 1, "target": "record[1]", "value": value}]}
    with pytest.raises(SessionError) as e:
        session_from_dict(doc, "s.toml")
    assert str(e.value).startswith("s.toml: edits[0].value: ") and fragment in str(e.value)


def test_a_saved_session_replays_the_record_edit(tmp_path) -> None:
    prog = tmp_path / "prog.asm"
    prog.write_text(source())
    loaded = load_session_of(prog, tmp_path)
    c, m = loaded.core, loaded.machine
    assert c.cont().reason == "invalid"
    new = fixed_copy(m)
    c.edit_record(COPY, new)
    step(c, 2)
    session = tmp_path / "s.toml"
    save_session(session, c, program_path=prog)
    text = session.read_text()
    assert "schema = 1" in text and 'target = "record[1]"' in text
    assert f'value = "{record_bits(new)}"' in text
    again = load_session(session)
    assert again.warnings == [] and again.digest_ok
    c2, m2 = again.core, again.machine
    assert position(c2) == position(c) and m2.state.digest() == m.state.digest()
    assert m2.program.raw.tobytes() == m.program.raw.tobytes()
    assert m2.loaded_program.raw[COPY].tobytes() != new
    assert c2.reverse(2).steps == 2 and position(c2) == (1, 1)
    assert c2.reverse_step() and position(c2) == (1, 0)
    assert not m2.valid(COPY)
    assert c2.cont().reason == "invalid"


def test_a_saved_record_edit_beyond_the_program_is_a_session_error(tmp_path) -> None:
    prog = tmp_path / "prog.asm"
    prog.write_text(source())
    session = tmp_path / "s.toml"
    session.write_text('schema = 1\n[program]\npath = "prog.asm"\n[machine]\ngen = "cayman"\n'
                       f'sbuf_bytes = 4096\npsum_bytes = 2048\n[[edits]]\nstep = 0\n'
                       f'target = "record[9]"\nvalue = "{record_bits(bytes(64))}"\n')
    with pytest.raises(SessionError) as e:
        load_session(session)
    assert str(e.value) == (f"{session}: edits[0]: record[9]: edit of record[9]: the "
                            f"program has records 0..5")


def load_session_of(prog, folder):
    """A machine on `prog` through a fresh session file (the loader the TUI uses)."""
    s = folder / "fresh.toml"
    s.write_text('schema = 1\n[program]\npath = "prog.asm"\n[machine]\ngen = "cayman"\n'
                 'sbuf_bytes = 4096\npsum_bytes = 2048\n')
    return load_session(s)


def test_reverse_continue_judges_steps_before_an_edit_by_the_records_then() -> None:
    # NOP at record 1 runs at steps 1 and 4; then it is edited into a MOVE. Reversing to
    # `break op:NOP` must stop before step 4: the records of that time had a NOP there
    # (judged by today's records it would run back to the start).
    a = assemble("""
        MOVE R2=3
    loop:
        NOP
        ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
        COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop
        HALT
    """, "<test>")
    m = use_core(Machine(a.program(), MachineConfig(**SMALL), labels=a.labels))
    assert step(m, 7).reason == "max-steps" and m.state().pc == 0x40
    m.edit_record(1, assemble("MOVE R7=1", "<test>").program().raw[0].tobytes())
    assert m.cont().reason == "halt" and m.state().R[7] == 1
    m.add_breakpoint("op:NOP")
    stop = m.reverse_continue()
    assert (stop.reason, m.state().pc, position(m)) == ("breakpoint", 0x40, (4, 0))
    assert queue(m).instruction(1).mnemonic == "NOP"
