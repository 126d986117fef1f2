"""Debugger: reverse exactness, breakpoints of every kind, random records never raise."""

import threading

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine
from neurondbg.machine.engines import HANDLERS
from neurondbg.machine.isa.codec import decode_bytes
from neurondbg.machine.isa.opcodes import OPCODES
from neurondbg.machine.isa.programs import counted_loop
from neurondbg.machine.state import MachineConfig

from .helpers import clear_breakpoints, core_of, last, machine, put, queue, rewind, use_core

PROGRAM = """
    MOVE R1=0 R2=4 R7=0x40
loop:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=3
    CAST in_dtype=FP32 out_dtype=BF16 nac=4 src=sb[0, 0] step=[1,0,0,0] num=[8,1,1,1] \
        dst=sb[0, 64] step=[1,0,0,0] num=[8,1,1,1]
    EVENT_SEMAPHORE events_extended.update_mode=SEM_INC_READ events_extended.update_idx=2
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop
    HALT
"""


def _m(**kw) -> Core:
    m = machine(PROGRAM, **kw)
    put(m, slice(0, 4), 0, np.array([1, 1 + 2.0**-8, 3.4e38, -2, 0.1, 7, 8, 9], np.float32))
    return use_core(m)


def test_reverse_step_then_step_is_bit_identical() -> None:
    m = _m()
    digests = [m.state().digest()]
    while (rec := m.step().record) is not None and rec.executed:
        digests.append(m.state().digest())
    assert m.state().halted and len(digests) == m.state().steps + 1
    for k in range(len(digests) - 1, 0, -1):
        assert m.reverse_step()
        assert m.state().digest() == digests[k - 1]
    assert not m.reverse_step()
    assert m.cont().reason == "halt" and m.state().digest() == digests[-1]


def test_breakpoints_pc_op_label_and_conditions() -> None:
    m = _m()
    bp = m.add_breakpoint("label:loop if R1 >= 6")
    stop = m.cont()
    assert stop.reason == "breakpoint" and stop.pc == 0x40 and m.state().R[1] == 6
    m.delete_breakpoint(bp.id)
    m.add_breakpoint("op:CAST")
    assert m.cont().pc == 0x80
    clear_breakpoints(m)
    m.add_breakpoint("pc:0x140")
    assert m.cont().pc == 0x140
    clear_breakpoints(m)
    m.add_breakpoint("if:sem[2] == 4")
    stop = m.cont()
    assert stop.reason == "breakpoint" and m.state().sem[2] == 4 and stop.pc == 0x100


def test_watch_change_and_semantic_breakpoints() -> None:
    m = _m()
    m.add_breakpoint("watch:sb[3, 64:66]")
    stop = m.cont()
    assert stop.reason == "breakpoint" and stop.record.mnemonic == "CAST"
    m = _m()
    m.add_breakpoint("change:R2")
    assert m.cont().detail.endswith("R2 changed: 0 -> 4")
    assert m.cont().detail.endswith("R2 changed: 4 -> 3")
    m = _m()
    m.add_breakpoint("watch:R2")
    assert m.cont().record.mnemonic == "MOVE" and m.state().R[2] == 4
    assert m.cont().record.mnemonic == "ALU_OP" and m.state().R[2] == 3
    for kind, mnemonic in (("tie", "CAST"), ("inf", "CAST")):
        m = _m()
        m.add_breakpoint(kind)
        stop = m.cont()
        assert stop.reason == "breakpoint" and stop.record.mnemonic == mnemonic, kind
    m = _m()
    m.add_breakpoint("nan")
    assert m.cont().reason == "halt"


def test_run_to_reverse_continue_and_who_wrote() -> None:
    m = _m()
    assert m.run_to(0x100).pc == 0x100
    m.cont()
    step, pc = m.state().who_wrote("R1")  # the last ADD: CAST, EVENT, SUB, BRANCH, HALT follow
    assert pc == 0x40 and step == m.state().steps - 6
    step, pc = m.state().who_wrote("sbuf", 2, 65)
    assert pc == 0x80
    assert m.state().who_wrote("sbuf", 2, 200) is None
    m.add_breakpoint("op:CAST")
    stop = m.reverse_continue()
    assert stop.reason == "breakpoint" and m.state().pc == 0x80 and m.state().R[2] == 1
    clear_breakpoints(m)
    assert m.reverse_continue().detail == "start of history" and m.state().steps == 0


def test_interrupt_stops_a_long_run() -> None:
    m = core_of("loop:\nCOMPARE_BRANCH cmp_op=ALWAYS dtype=INT32 target=loop\nHALT")
    timer = threading.Timer(0.05, m.interrupt.set)
    timer.start()
    stop = m.cont()
    timer.join()
    assert stop.reason == "interrupt" and stop.steps > 0 and last(m) is not None


def test_max_steps_and_invalid_and_fault_records_change_nothing() -> None:
    m = _m()
    stop = m.cont(max_steps=5)
    assert stop.reason == "max-steps" and m.state().steps == 5 and last(m).step == 4
    m = core_of("COPY in_dtype=FP32 out_dtype=BF16 nac=1 src=sb[0,0] step=[1,0,0,0] "
                "num=[4,1,1,1] dst=sb[0,64] step=[1,0,0,0] num=[4,1,1,1]")
    stop = m.cont()
    assert stop.reason == "invalid" and "s4d4_tr_same_src_dst_type" in stop.detail
    assert m.state().steps == 0 and stop.record.verdict is not None
    m.add_breakpoint("invalid")  # with execute_invalid, `invalid` stops before it
    m2 = core_of("NOP\nCOPY in_dtype=FP32 out_dtype=BF16 nac=1", execute_invalid=True)
    m2.add_breakpoint("invalid")
    assert m2.cont().pc == 0x40


OPS = sorted(OPCODES)
MODELLED = sorted(HANDLERS)


@settings(deadline=None, max_examples=2)
@given(st.integers(0, 2**32 - 1))
def test_random_records_run_10000_steps_without_raising(seed) -> None:
    rng = np.random.default_rng(seed)
    n = 64
    raw = rng.integers(0, 256, size=(n, 64), dtype=np.uint8)
    raw[:, 0] = np.where(rng.random(n) < 0.7, rng.choice(MODELLED, size=n),
                         rng.choice(OPS, size=n))  # mostly opcodes the model executes
    raw[:, 1] = 16
    raw[rng.random(n) < 0.5, 4:8] = 0  # fewer event waits, so more steps run
    cfg = MachineConfig(sbuf_bytes=4096, psum_bytes=2048, execute_invalid=True,
                        engine=str(rng.choice(["pool", "dve"])))
    m = use_core(Machine(decode_bytes(raw.tobytes()), cfg))
    loaded = m.state().digest()  # the core's checkpoint 0: the state it was made with
    executed = False
    steps = 0
    while steps < 10_000:
        rec = m.step().record
        steps += 1
        executed = executed or (rec is not None and rec.executed)
        if rec is None or not rec.executed:
            queue(m).state.pc = queue(m).config.base + 64 * int(rng.integers(0, n))  # jump
            queue(m).state.halted = False
    assert steps == 10_000 and m.state().steps <= steps
    if executed:  # some seeds give 64 records that all fault: nothing to undo
        rewind(m)
        assert m.state().digest() == loaded  # every executed step undoes exactly


def test_change_breakpoint_follows_reverse_steps() -> None:
    m = _m()
    m.add_breakpoint("change:R1")
    m.cont()  # MOVE writes R1 = 0: no change; the first ADD changes it
    assert m.state().R[1] == 3
    m.reverse_step()
    stop = m.cont()
    assert stop.detail.endswith("R1 changed: 0 -> 3")


def test_fast_path_stops_exactly_at_static_breakpoints() -> None:
    m = core_of(counted_loop(100000, add=1))
    m.add_breakpoint("op:HALT")
    stop = m.cont()
    assert stop.reason == "breakpoint" and stop.pc == 0x100 and m.state().R[1] == 100000
    assert stop.steps == 1 + 3 * 100000 and last(m).mnemonic == "COMPARE_BRANCH"
    assert m.cont().reason == "halt"
    rewind(m)
    assert m.cont(max_steps=1000).reason == "max-steps" and m.state().steps == 1000


def test_reverse_continue_stops_at_the_step_that_wrote_a_watched_target() -> None:
    m = _m()
    m.cont()
    m.add_breakpoint("watch:sem[2]")
    stop = m.reverse_continue()
    assert stop.reason == "breakpoint" and m.state().pc == 0xC0 and m.state().sem[2] == 3
    clear_breakpoints(m)
    m.add_breakpoint("watch:sb[1, 64:66]")
    stop = m.reverse_continue()
    assert stop.pc == 0x80 and m.state().R[2] == 1  # the last CAST, undone
    clear_breakpoints(m)
    m.add_breakpoint("watch:R1")
    assert m.reverse_continue().pc == 0x40
