"""SEQ control: MOVE, ALU_OP semantics, COMPARE_BRANCH, MOVE_SHAPE, events, HALT."""

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.dtypes import Dtype
from neurondbg.machine.engines.alu import AluFault, alu32, alu64, f32_bits
from neurondbg.machine.isa.enums import AluOp as A
from neurondbg.machine.isa.programs import counted_loop

from .helpers import (
    core_of,
    fault,
    queue,
)

I32, U32, F32 = Dtype.INT32, Dtype.UINT32, Dtype.FP32


def fb(x: float) -> int:
    return f32_bits(x)


def bf(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b))[0]


@pytest.mark.parametrize("op, a, b, dtype, want", [
    (A.ADD, 0x7FFFFFFF, 1, I32, 0x80000000),  # integer wrap
    (A.SUBTRACT, 0, 1, U32, 0xFFFFFFFF),
    (A.MULT, 0x10000, 0x10000, I32, 0),
    (A.DIVIDE, (-7) & 0xFFFFFFFF, 2, I32, (-3) & 0xFFFFFFFF),  # C truncation
    (A.MOD, (-7) & 0xFFFFFFFF, 3, I32, (-1) & 0xFFFFFFFF),  # C fmod sign
    (A.MOD, fb(-7.5), fb(2.0), F32, fb(-1.5)),
    (A.ADD, fb(1.0), fb(2.0**-24), F32, fb(1.0)),  # RNE tie to even
    (A.ADD, fb(1.0), fb(3 * 2.0**-24), F32, fb(1.0 + 2.0**-22)),
    (A.MULT, fb(3e38), fb(10.0), F32, 0x7F800000),  # overflow -> inf
    (A.DIVIDE, fb(1.0), fb(0.0), F32, 0x7F800000),
    (A.MAX, (-5) & 0xFFFFFFFF, 3, I32, 3), (A.MAX, (-5) & 0xFFFFFFFF, 3, U32, (-5) & 0xFFFFFFFF),
    (A.IS_GT, fb(2.0), fb(1.0), F32, fb(1.0)), (A.IS_LT, 5, 3, I32, 0),
    (A.ABS_DIFF, 3, 10, I32, 7), (A.ABS_VALUE, (-9) & 0xFFFFFFFF, 0, I32, 9),
    (A.BITWISE_NOT, 0, 0, U32, 0xFFFFFFFF), (A.ARITH_SHIFT_RIGHT, 0x80000000, 4, U32, 0xF8000000),
    (A.LOGICAL_SHIFT_RIGHT, 0x80000000, 4, I32, 0x08000000), (A.BITWISE_XOR, 0xF0, 0xFF, U32, 0x0F),
    (A.LOGICAL_AND, 2, 0, I32, 0), (A.LOGICAL_OR, 2, 0, I32, 1),
    (A.ADD_INT, 0xFFFFFFFF, 2, F32, 1), (A.MAX_UINT, 0xFFFFFFFF, 1, I32, 0xFFFFFFFF),
    (A.MIN_INT, 0xFFFFFFFF, 1, U32, 0xFFFFFFFF), (A.IS_LT_UINT, 1, 0xFFFFFFFF, I32, 1),
    (A.ARGMAX_INT, 1, 5, I32, 1), (A.RELU, fb(-2.0), 0, F32, 0),
    (A.SQUARE, fb(3.0), 0, F32, fb(9.0)), (A.SYMMETRIC_CLAMP, fb(-9.0), fb(4.0), F32, fb(-4.0)),
    (A.POW, fb(2.0), fb(10.0), F32, fb(1024.0)), (A.RSQRT, fb(4.0), 0, F32, fb(0.5)),
    (A.BYPASS, 0x1234, 0, U32, 0x1234),
])
def test_alu_semantics(op, a, b, dtype, want) -> None:
    assert alu32(op, a, b, dtype) == want


def test_alu_fp_to_int_truncates_and_saturates() -> None:
    assert alu32(A.BYPASS, fb(-2.9), 0, F32, I32) == (-2) & 0xFFFFFFFF
    assert alu32(A.BYPASS, fb(3e9), 0, F32, I32) == 0x7FFFFFFF
    assert alu32(A.BYPASS, fb(float("nan")), 0, F32, U32) == 0
    assert alu32(A.ADD, (1 << 24) + 1, 0, I32, F32) == fb(2.0**24)  # int -> fp32 rounds


def test_alu_integer_division_by_zero_faults() -> None:
    with pytest.raises(AluFault):
        alu32(A.DIVIDE_INT, 1, 0, I32)


@settings(deadline=None, max_examples=200)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1),
       st.sampled_from([A.ADD, A.SUBTRACT, A.MULT, A.MAX, A.MIN, A.DIVIDE]))
def test_alu_fp32_matches_numpy(a, b, op) -> None:
    x, y = np.uint32(a).view(np.float32), np.uint32(b).view(np.float32)
    with np.errstate(all="ignore"):
        ref = {A.ADD: x + y, A.SUBTRACT: x - y, A.MULT: x * y, A.MAX: np.maximum(x, y),
               A.MIN: np.minimum(x, y), A.DIVIDE: x / y}[op]
    got = np.uint32(alu32(op, a, b, F32)).view(np.float32)
    assert got == ref or (np.isnan(got) and np.isnan(ref))


@settings(deadline=None, max_examples=200)
@given(st.integers(-2**31, 2**31 - 1), st.integers(-2**31, 2**31 - 1))
def test_alu_int32_wraps_like_numpy(a, b) -> None:
    x, y = np.int32(a), np.int32(b)
    with np.errstate(all="ignore"):
        for op, ref in ((A.ADD, x + y), (A.SUBTRACT, x - y), (A.MULT, x * y)):
            assert alu32(op, a & 0xFFFFFFFF, b & 0xFFFFFFFF, I32) == int(ref) & 0xFFFFFFFF


LOOP = counted_loop(10)


def test_counted_loop_fast_and_slow_agree() -> None:
    fast = core_of(LOOP)
    stop = fast.cont()
    assert stop.reason == "halt" and fast.state().R[1] == 30 and fast.state().R[2] == 0
    assert fast.state().steps == 1 + 3 * 10 + 1
    slow = core_of(LOOP)
    records = []
    slow.on_step = records.append
    assert slow.cont().reason == "halt"
    assert slow.state().digest() == fast.state().digest() and len(records) == 32
    assert queue(fast).last is not None and queue(fast).last.mnemonic == "HALT"


def test_move_reads_pc_halves_and_ignores_pc_writes() -> None:
    m = core_of("NOP\nMOVE R3=PC_LO R4=PC_HI\nMOVE num_mov=1 move_source=IMMEDIATE "
                "dst_registers=[128,0,0,0,0,0,0,0] immediate=[9,0,0,0,0,0,0,0]\nHALT",
                base=0x1_0000_0000, execute_invalid=True)
    m.step()
    rec = m.step().record
    assert m.state().R[3] == 0x40 and m.state().R[4] == 1
    assert [w.target for w in rec.writes] == ["R3", "R4"]
    rec = m.step().record
    assert rec.fault is None and rec.writes == [] and m.state().pc == 0x1_0000_00C0


def test_move_register_sources_are_read_before_writes() -> None:
    m = core_of("MOVE R1=1 R2=2\nMOVE R1=R2 R2=R1\nHALT", execute_invalid=True)
    m.cont()
    assert m.state().R[1:3] == [2, 1]


@pytest.mark.parametrize("cmp, value, taken", [
    ("EQ_IMM", 5, True), ("EQ_IMM", 4, False), ("NE_IMM", 4, True), ("LT_IMM", 6, True),
    ("GT_IMM", 6, False), ("LE_IMM", 5, True), ("GE_IMM", 6, False), ("ALWAYS", 0, True),
])
def test_compare_branch_immediate(cmp, value, taken) -> None:
    m = core_of(f"""
        MOVE R1=5
        COMPARE_BRANCH cmp_op={cmp} dtype=INT32 cmp_reg0=R1 cmp_immediate={value} target=there
        HALT
    there:
        HALT
    """)
    m.step()
    m.step()
    assert m.state().pc == (0xC0 if taken else 0x80)


def test_compare_branch_signed_vs_unsigned_and_register_target() -> None:
    m = core_of("MOVE R1=0xFFFFFFFF R2=1 R3=0x100\n"
                "COMPARE_BRANCH cmp_op=LT_REG dtype=INT32 cmp_reg0=R1 cmp_reg1=R2 "
                "target_mode=REGISTER target_reg_lo=R3\nHALT", execute_invalid=True)
    m.step()
    m.step()
    assert m.state().pc == 0x100  # -1 < 1 signed
    assert m.step().record.fault is not None and "outside the program" in queue(m).last.fault


def test_move_shape_and_semaphores() -> None:
    m = core_of("""\
        MOVE_SHAPE move_type=IMMEDIATE num_move=2 shape_registers=[3,4,0,0] data=[7,8,0,0,0,0,0,0]
        MOVE_SHAPE move_type=SHAPE_TO_REG num_move=1 shape_registers=[4,0,0,0] \
            data=[9,0,0,0,0,0,0,0]
        EVENT_SEMAPHORE events_extended.update_mode=SEM_ADD_IMM_READ \
            events_extended.update_idx=5 events_extended.sem_update_value=3
        NOP update_mode=SEM_INC_READ update_idx=5
        NOP wait_mode=SEM_EQ_IMM wait_idx=5 semaphore_value=4
        NOP wait_mode=SEM_GT_IMM wait_idx=5 semaphore_value=4
        HALT
    """, execute_invalid=True)
    stop = m.cont()
    assert m.state().shape[3:5] == [7, 8] and m.state().R[9] == 8 and m.state().sem[5] == 4
    assert stop.reason == "fault" and "deadlock" in stop.detail and stop.pc == 0x140


def test_halt_stays_halted() -> None:
    m = core_of("HALT\nNOP")
    assert m.cont().reason == "halt"
    assert m.cont().reason == "halt" and m.state().steps == 1
    assert m.reverse_step() and not m.state().halted and m.state().pc == 0


def test_opcode_not_on_engine_and_not_modelled_fault() -> None:
    assert "does not run on the pool engine" in fault(
        "COPY_PREDICATED in0_dtype=INT32 in1_dtype=FP32 out_dtype=FP32 op=BYPASS nac=1 "
        "src0=sb[0,0] step=[1,0,0] num=[1,1,1] src1=sb[0,0] step=[1,0,0] num=[1,1,1] "
        "dst=sb[0,0] step=[1,0,0] num=[1,1,1]")
    assert "not modelled" in fault("RECIPROCAL in_dtype=FP32 out_dtype=FP32 nac=1")


def test_alu_64_bit_pairs_read_the_pc() -> None:
    m = core_of("NOP\nALU_OP op=ADD dtype=INT64 dst_dtype=INT64 src0_lo=PC_LO src0_hi=PC_HI "
                "src1_datasrc=IMMEDIATE immediate=[0xFFFFFFC0,0] dst_lo=R4 dst_hi=R5\nHALT",
                base=0x1_0000_0000)
    assert m.cont().reason == "halt"
    # PC of the ALU_OP is 0x1_0000_0040; + 0xFFFF_FFC0 carries into the high word
    assert m.state().R[4:6] == [0x00000000, 0x2]
    assert alu64(A.ARITH_SHIFT_RIGHT, 1 << 63, 4, True) == 0xF8 << 56
    assert alu64(A.SUBTRACT, 0, 1, False) == 2**64 - 1
    assert alu64(A.IS_LT, 2**64 - 1, 0, True) == 1  # -1 < 0 as INT64


_FAST_OPS = ["ADD", "SUBTRACT", "MULT", "MAX", "MIN", "BITWISE_AND", "BITWISE_OR",
             "BITWISE_XOR", "LOGICAL_SHIFT_LEFT", "ARITH_SHIFT_RIGHT", "IS_GT", "IS_EQUAL",
             "ABS_DIFF", "ADD_INT", "MULT_UINT", "MIN_INT", "BYPASS", "DIVIDE", "MOD"]


@st.composite
def seq_programs(draw) -> str:
    n = draw(st.integers(3, 12))
    lines = ["MOVE R1=7 R2=0xFFFFFFF0 R3=0x40490FDB R4=3"]
    for _ in range(n):
        kind = draw(st.sampled_from(["alu", "alu", "move", "branch", "nop"]))
        r = lambda: f"R{draw(st.integers(0, 5))}"  # noqa: E731
        if kind == "alu":
            dt = draw(st.sampled_from(["INT32", "UINT32", "FP32"]))
            src1 = r() if draw(st.booleans()) else str(draw(st.integers(0, 2**32 - 1)))
            lines.append(f"ALU_OP op={draw(st.sampled_from(_FAST_OPS))} dtype={dt} "
                         f"dst_dtype={dt} dst={r()} src0={r()} src1={src1}")
        elif kind == "move":
            lines.append(f"MOVE {r()}={r()}" if draw(st.booleans())
                         else f"MOVE {r()}={draw(st.integers(0, 2**32 - 1))}")
        elif kind == "branch":
            cmp = draw(st.sampled_from(["EQ_IMM", "GT_IMM", "LT_IMM", "ALWAYS", "NE_REG",
                                        "GE_REG"]))
            dt = draw(st.sampled_from(["INT32", "UINT32", "FP32"]))
            lines.append(f"COMPARE_BRANCH cmp_op={cmp} dtype={dt} cmp_reg0={r()} "
                         f"cmp_reg1={r()} cmp_immediate={draw(st.integers(0, 9))} "
                         f"target=l{draw(st.integers(0, n))}")
        else:
            lines.append("NOP")
    out = []
    for k, line in enumerate(lines[1:]):
        out.append(f"l{k}:\n{line}")
    return "\n".join([lines[0], *out, f"l{n}:", "HALT"])


@settings(deadline=None, max_examples=40)
@given(seq_programs())
def test_fast_closures_equal_the_slow_path(text) -> None:
    fast = core_of(text, execute_invalid=True)
    stop_fast = fast.cont(max_steps=300)
    built = queue(fast)._fast
    assert built is not None and sum(f is not None for f in built) >= 1  # used
    slow = core_of(text, execute_invalid=True)
    slow.on_step = lambda rec: None  # records for every step: the slow path
    stop_slow = slow.cont(max_steps=300)
    assert (stop_fast.reason, stop_fast.pc) == (stop_slow.reason, stop_slow.pc)
    assert fast.state().digest() == slow.state().digest()
    assert bytes(fast.state().journal.steps) == bytes(slow.state().journal.steps)
    assert bytes(fast.state().journal.regs) == bytes(slow.state().journal.regs)
