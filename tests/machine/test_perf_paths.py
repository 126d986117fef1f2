"""The SEQ fast closures (ops inline, sign-flipped int32 compares) and the run
loop's step count agree with the slow path step for step."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.asm import assemble
from neurondbg.machine.debugger import Machine
from neurondbg.machine.isa.programs import counted_loop
from neurondbg.machine.state import MachineConfig
from tests.machine.helpers import use_core

OPS = ["ADD", "SUBTRACT", "MULT", "BITWISE_AND", "BITWISE_OR", "BITWISE_XOR", "ADD_INT",
       "SUB_INT", "MULT_INT"]
RELS = ["EQ", "NE", "LT", "GT", "LE", "GE"]
EDGES = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE, 12345]


def machine(text: str) -> Machine:
    a = assemble(text, "<perf>")
    return Machine(a.program(), MachineConfig(), data=a.data, labels=a.labels)


def program(seed: list[tuple]) -> str:
    """A loop whose body mixes the drawn ALU ops and compares, R7 counting the trips."""
    lines = ["    MOVE R1=0x7ffffffe R2=0x80000003 R3=0xfffffff0 R7=6"]
    lines.append("top:")
    for k, (op, dtype, imm, rel, cdtype, cimm, r) in enumerate(seed):
        src1 = str(imm) if imm is not None else "R2"
        lines.append(f"    ALU_OP op={op} dtype={dtype} dst_dtype={dtype} dst=R{r} src0=R{r} "
                     f"src1={src1}")
        if cimm is None:
            lines.append(f"    COMPARE_BRANCH cmp_op={rel}_REG dtype={cdtype} cmp_reg0=R{r} "
                         f"cmp_reg1=R3 target=s{k}")
        else:
            lines.append(f"    COMPARE_BRANCH cmp_op={rel}_IMM dtype={cdtype} cmp_reg0=R{r} "
                         f"cmp_immediate={cimm} target=s{k}")
        lines.append(f"    ALU_OP op=BITWISE_XOR dtype=UINT32 dst_dtype=UINT32 dst=R4 src0=R4 "
                     f"src1={k + 1}")
        lines.append(f"s{k}:")
    lines.append("    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R7 src0=R7 src1=1")
    lines.append("    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R7 cmp_immediate=0 "
                 "target=top")
    lines.append("    HALT")
    return "\n".join(lines) + "\n"


parts = st.tuples(
    st.sampled_from(OPS), st.sampled_from(["INT32", "UINT32"]),
    st.one_of(st.none(), st.sampled_from(EDGES)), st.sampled_from(RELS),
    st.sampled_from(["INT32", "UINT32"]),
    st.one_of(st.none(), st.sampled_from([0, 1, -1, -3, 5, 0x7FFFFFFF, -0x80000000,
                                          0x80000000, 0xFFFFFFFF])),
    st.sampled_from([1, 2, 3]))


@settings(max_examples=60, deadline=None)
@given(seed=st.lists(parts, min_size=1, max_size=5))
def test_fast_run_equals_slow_steps(seed: list[tuple]) -> None:
    text = program(seed)
    try:
        fast = machine(text)
    except ValueError:  # an immediate the assembler refuses for that dtype
        return
    slow = machine(text)
    use_core(fast).cont()
    pcs = []
    while not slow.state.halted:
        slow.step()
        pcs.append(slow.state.pc)
    assert fast.state.steps == slow.state.steps == len(pcs)
    assert list(fast.state.R) == list(slow.state.R)
    assert fast.state.pc == slow.state.pc
    # the journals undo alike: back to the start, every register as it began
    for _ in range(fast.state.steps):
        fast.state.undo_step()
    assert fast.state.steps == 0 and fast.state.pc == machine(text).state.pc
    assert list(fast.state.R) == list(machine(text).state.R)


def test_budget_counts_every_step() -> None:
    """fast_run's budget is exact: n steps, never n + 1 or n - 1, wherever it ends."""
    text = counted_loop(100)
    for budget in (1, 2, 3, 7, 299, 300, 301, 10_000):
        m = machine(text)
        m.step()  # the MOVE
        done = m.fast_run(budget)
        assert done == min(budget, 300)
        assert m.state.steps == 1 + done
        assert m.state.R[1] == 3 * ((done + 2) // 3)
