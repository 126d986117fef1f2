"""Memory reads recorded per step (MachineState.reads): what the race detector sees."""

from __future__ import annotations

from neurondbg.machine.state import Region
from tests.machine.helpers import machine

COPY = ("COPY in_dtype=FP32 out_dtype=FP32 nac=2 src=sb[0, 0x40] step=[2,0,0,0] "
        "num=[3,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[3,1,1,1]")


def test_reads_are_recorded_only_while_a_list_is_set() -> None:
    m = machine(f"{COPY}\n{COPY}\nHALT")
    assert m.state.reads is None
    m.step()
    assert m.state.reads is None  # not recording: nothing kept
    m.state.reads = []
    rec = m.step()
    assert rec.executed
    assert m.state.reads == [Region("sbuf", 0, 2, 0x40, 4, (2, 0, 0, 0), (3, 1, 1, 1))]
    assert [w.region for w in rec.writes] == [
        Region("sbuf", 0, 2, 0x100, 4, (1, 0, 0, 0), (3, 1, 1, 1))]


def test_scalar_pointer_operand_read_is_recorded() -> None:
    m = machine("""
        TENSOR_SCALAR_ARITH_OP in_dtype=FP32 out_dtype=FP32 nac=2 op0=ADD imm0=1.0 \
            op1=MULT imm1_src=POINTER_IMMEDIATE imm1=0x200 \
            src=sb[0,0x100] step=[1,0,0] num=[2,1,1] dst=sb[0,0x120] step=[1,0,0] num=[2,1,1]
        HALT
    """, engine="dve", execute_invalid=True)
    m.state.reads = []
    assert m.step().executed
    assert Region("sbuf", 0, 2, 0x200, 4, (1,), (1,)) in m.state.reads
    assert m.state.reads[-1].start == 0x100  # then the tensor source
