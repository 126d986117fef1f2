"""Stop messages and breakpoint semantics a gdb user expects; PCs that never break packing."""

from __future__ import annotations

import pytest

from neurondbg.machine.debugger import Machine
from neurondbg.machine.isa.programs import counted_loop

from .helpers import core_of, machine, rewind

# 0x00 MOVE, 0x40 ADD R1 += 3, 0x80 SUB R2 -= 1, 0xC0 branch to 0x40 while R2 > 0, 0x100 HALT
LOOP = counted_loop(5)


def test_a_stop_lists_every_breakpoint_that_matched_and_names_the_instruction() -> None:
    m = core_of(LOOP)
    a = m.add_breakpoint("pc:0x40")
    b = m.add_breakpoint("op:ALU_OP")
    stop = m.cont()
    assert stop.reason == "breakpoint" and stop.pc == 0x40
    assert stop.breakpoints == [a, b] and stop.breakpoint is a
    assert stop.detail == "#1 pc:0x40: before ALU_OP at 0x40; #2 op:ALU_OP: before ALU_OP at 0x40"
    assert a.hits == b.hits == 1


def test_a_watch_stop_names_the_writer_and_old_and_new_values() -> None:
    m = core_of(LOOP)
    w = m.add_breakpoint("watch:R1")
    stop = m.cont()  # MOVE writes R1 = 0 (written, unchanged)
    assert stop.detail == "#1 watch:R1: MOVE at 0x0: R1 written: 0 -> 0"
    stop = m.cont()
    assert stop.detail == "#1 watch:R1: ALU_OP at 0x40: R1 written: 0 -> 3"
    assert stop.breakpoints == [w] and stop.record.pc == 0x40
    # A static breakpoint where the step arrived is reported with it.
    p = m.add_breakpoint("pc:0x80")
    m.reverse_step()
    stop = m.cont()
    assert stop.breakpoints == [w, p] and stop.pc == 0x80
    assert stop.detail == ("#2 pc:0x80: before ALU_OP at 0x80; "
                           "#1 watch:R1: ALU_OP at 0x40: R1 written: 0 -> 3")


def test_change_stop_names_the_instruction_and_values() -> None:
    m = core_of(LOOP)
    m.add_breakpoint("change:R2")
    assert m.cont().detail == "#1 change:R2: MOVE at 0x0: R2 changed: 0 -> 5"
    assert m.cont().detail == "#1 change:R2: ALU_OP at 0x80: R2 changed: 5 -> 4"


def test_if_without_location_stops_when_the_condition_becomes_true() -> None:
    m = core_of(LOOP)
    m.add_breakpoint("if:R1 >= 6")
    stop = m.cont()
    assert stop.reason == "breakpoint" and m.state().R[1] == 6
    assert stop.detail == "#1 if:R1 >= 6: ALU_OP at 0x40: R1 >= 6 became true"
    assert m.cont().reason == "halt"  # still true on every later step: no more stops
    assert m.state().R[1] == 15
    # Going back to where it was false re-arms the edge.
    rewind(m)
    assert m.cont().reason == "breakpoint" and m.state().R[1] == 6


def test_an_if_that_is_already_true_when_set_waits_for_the_next_edge() -> None:
    m = core_of(LOOP)
    m.add_breakpoint("if:R2 == 0")  # R2 is 0 before the MOVE
    assert m.cont().reason == "breakpoint" and m.state().R[2] == 0 and m.state().R[1] == 15


def test_an_expression_error_in_a_condition_is_false() -> None:
    m = core_of(LOOP)
    m.add_breakpoint("if:6 / (R2 - 3) == 3")  # true at R2 = 5; R2 = 3 divides by zero
    stop = m.cont()
    assert stop.reason == "breakpoint" and m.state().R[2] == 5
    assert m.cont().reason == "halt"  # through the division by zero: false, not a stop
    m = core_of(LOOP)
    m.add_breakpoint("op:HALT if 1 / 0")
    m.add_breakpoint("if:sb[0, 999999] == 0")  # a read outside SBUF
    assert m.cont().reason == "halt"


def test_reverse_continue_lists_every_match() -> None:
    m = core_of(LOOP)
    m.cont()
    m.add_breakpoint("pc:0x40")
    m.add_breakpoint("label:loop")
    stop = m.reverse_continue()
    assert stop.pc == 0x40 and len(stop.breakpoints) == 2
    assert stop.detail.endswith("before ALU_OP at 0x40 (reverse)")


BRANCH = """
    MOVE R3={lo} R4={hi}
    COMPARE_BRANCH cmp_op=ALWAYS dtype=INT32 target_mode={mode} target_reg_lo=R3 \
target_reg_hi=R4
    HALT
"""


@pytest.mark.parametrize(("lo", "hi", "mode", "target"), [
    (0xFFFFFF00, 0, "REL_REGISTER", "-0xc0"),  # 0x40 - 256: negative
    (0, 0x10000, "REGISTER", "0x1000000000000"),  # 2**48: past the journal's PC
    (0, 0xFFFFFFFF, "REGISTER", "0xffffffff00000000"),  # a 64-bit address
])
def test_a_branch_to_a_negative_or_overflowing_pc_is_a_fault(lo, hi, mode, target) -> None:
    m = core_of(BRANCH.format(lo=lo, hi=hi, mode=mode), execute_invalid=True)
    m.step()
    before = m.state().digest()
    stop = m.cont()
    assert stop.reason == "fault" and stop.pc == 0x40 and m.state().pc == 0x40
    assert f"branches to {target}" in stop.detail
    assert m.state().digest() == before and m.state().steps == 1


def test_digest_never_raises_on_a_hand_made_pc() -> None:
    m: Machine = machine(LOOP)
    m.state.pc = -64
    neg = m.state.digest()
    m.state.pc = 1 << 70
    assert m.state.digest() != neg
    m.state.pc = 0
    assert m.state.digest() == machine(LOOP).state.digest()


def test_who_wrote_pc_is_the_last_step() -> None:
    m = core_of(LOOP)
    assert m.state().who_wrote("PC") is None
    m.cont(max_steps=5)  # MOVE, ADD, SUB, BRANCH (taken), ADD
    assert m.state().who_wrote("PC") == (4, 0x40)
    m.reverse_step()
    assert m.state().who_wrote("pc") == (3, 0xC0)
