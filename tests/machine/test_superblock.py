"""Superblocks (machine/engines/superblock.py): a fast run through compiled blocks equals
the slow path step for step (registers, PC, journal words, stop reason and detail, step
counts) for random SEQ programs, budgets and breakpoints."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.asm import assemble
from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine
from neurondbg.machine.isa.programs import counted_loop
from neurondbg.machine.state import MachineConfig
from tests.machine.helpers import queue, use_core

REGS = [1, 2, 3, 4]
INT_OPS = ["ADD", "SUBTRACT", "MULT", "BITWISE_AND", "BITWISE_OR", "BITWISE_XOR"]
VALUES = [0, 1, 3, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x3F800000, 12345]
RELS = ["EQ", "NE", "LT", "GT", "LE", "GE"]

reg = st.sampled_from(REGS)
value = st.sampled_from(VALUES)
record = st.one_of(
    st.tuples(st.just("NOP")),
    st.tuples(st.just("MOVE_IMM"), reg, value, reg, value),
    st.tuples(st.just("MOVE_REG"), reg, reg, reg, reg),
    st.tuples(st.just("ALU"), st.sampled_from(INT_OPS), st.sampled_from(["INT32", "UINT32"]),
              reg, reg, st.one_of(st.none(), value)),
    st.tuples(st.just("ALU_FP32"), st.sampled_from(["ADD", "MULT", "MAX"]), reg, reg),
    st.tuples(st.just("DIVIDE"), reg),  # no fast closure: a block ends before it
    st.tuples(st.just("BRANCH"), st.sampled_from(RELS), st.sampled_from(["INT32", "UINT32",
                                                                         "FP32"]),
              reg, st.one_of(st.none(), value)),
    st.tuples(st.just("INNER"), st.integers(1, 4)),  # a self-loop of its own
)


def text_of(body: list[tuple], trips: int) -> str:
    """The drawn records in a loop of `trips` trips (R7 counts them); branches jump
    forward to the label after them, INNER loops R6 down to zero in a block of its own."""
    lines = ["    MOVE R1=7 R2=0x80000001 R3=0x3f800000 R4=0xfffffffe R7=" + str(trips),
             "top:"]
    for k, r in enumerate(body):
        kind = r[0]
        if kind == "NOP":
            lines.append("    NOP")
        elif kind == "MOVE_IMM":
            lines.append(f"    MOVE R{r[1]}={r[2]} R{r[3]}={r[4]}")
        elif kind == "MOVE_REG":
            lines.append(f"    MOVE R{r[1]}=R{r[2]} R{r[3]}=R{r[4]}")
        elif kind == "ALU":
            _, op, dt, d, s0, imm = r
            src1 = "R2" if imm is None else str(imm)
            lines.append(f"    ALU_OP op={op} dtype={dt} dst_dtype={dt} dst=R{d} src0=R{s0} "
                         f"src1={src1}")
        elif kind == "ALU_FP32":
            _, op, d, s0 = r
            lines.append(f"    ALU_OP op={op} dtype=FP32 dst_dtype=FP32 dst=R{d} src0=R{s0} "
                         f"src1=R3")
        elif kind == "DIVIDE":
            lines.append(f"    ALU_OP op=DIVIDE dtype=UINT32 dst_dtype=UINT32 dst=R{r[1]} "
                         f"src0=R{r[1]} src1=3")
        elif kind == "BRANCH":
            _, rel, dt, r0, imm = r
            tail = f"{rel}_REG dtype={dt} cmp_reg0=R{r0} cmp_reg1=R4" if imm is None else \
                f"{rel}_IMM dtype={dt} cmp_reg0=R{r0} cmp_immediate={imm}"
            lines.append(f"    COMPARE_BRANCH cmp_op={tail} target=f{k}")
            lines.append("    ALU_OP op=BITWISE_XOR dtype=UINT32 dst_dtype=UINT32 dst=R5 "
                         f"src0=R5 src1={k + 1}")
            lines.append(f"f{k}:")
        else:  # INNER
            lines += [f"    MOVE R6={r[1]}", f"i{k}:",
                      "    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R6 src0=R6 src1=1",
                      f"    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R6 "
                      f"cmp_immediate=0 target=i{k}"]
    lines += ["    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R7 src0=R7 src1=1",
              "    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R7 cmp_immediate=0 "
              "target=top", "    HALT"]
    return "\n".join(lines) + "\n"


def _machine(text: str) -> Machine:
    a = assemble(text, "<superblock>")
    return Machine(a.program(), MachineConfig(execute_invalid=True), data=a.data,
                   labels=a.labels)


def snapshot(m: Core) -> tuple:
    j = m.state().journal
    return (m.state().steps, m.state().pc, list(m.state().R), j.steps.tobytes(), j.regs.tobytes(),
            m.state().halted)


@settings(max_examples=40, deadline=None)
@given(body=st.lists(record, min_size=1, max_size=7), trips=st.integers(1, 5),
       budgets=st.lists(st.integers(1, 40), min_size=1, max_size=6),
       stops=st.lists(st.integers(0, 40), max_size=2), op=st.booleans())
def test_fast_run_with_superblocks_equals_slow_steps(body: list[tuple], trips: int,
                                                     budgets: list[int], stops: list[int],
                                                     op: bool) -> None:
    text = text_of(body, trips)
    try:
        fast, slow = use_core(_machine(text)), use_core(_machine(text))
    except ValueError:  # an immediate the assembler refuses for that dtype
        return
    slow.on_step = lambda rec: None  # a per-step listener: every step on the slow path
    for m in (fast, slow):
        for k in stops:
            if k < queue(m).count:
                m.add_breakpoint(f"pc:{k * 64:#x}")
        if op:
            m.add_breakpoint("op:NOP")
    for budget in [*budgets, None]:  # then on to the end
        a, b = fast.cont(max_steps=budget), slow.cont(max_steps=budget)
        assert (a.reason, a.detail, a.steps, a.pc) == (b.reason, b.detail, b.steps, b.pc)
        assert snapshot(fast) == snapshot(slow)
        if a.reason == "halt":
            break
    for _ in range(fast.state().steps):  # the journal undoes alike, to the start
        fast.reverse_step()
    assert snapshot(fast)[:3] == snapshot(use_core(_machine(text)))[:3]


def test_a_loop_runs_in_whole_passes_and_the_budget_stays_exact() -> None:
    """A 3-record loop block: any budget is met exactly (the remainder steps one by one)
    and a breakpoint added mid-run is honoured (the blocks are rebuilt without it)."""
    for budget in (1, 2, 3, 4, 5, 299, 300, 301, 302):
        m = use_core(_machine(counted_loop(1000)))
        m.step()  # the MOVE
        assert queue(m).fast_run(budget) == budget and m.state().steps == 1 + budget
        assert m.state().R[1] == 3 * ((budget + 2) // 3)
    m = use_core(_machine(counted_loop(1000)))
    assert m.cont(max_steps=1000).steps == 1000
    m.add_breakpoint("pc:0x80")  # the SUB inside the loop block
    stop = m.cont()
    assert stop.reason == "breakpoint" and m.state().pc == 0x80 and stop.steps in (1, 2, 3)


def test_blocks_are_compiled_for_entries_reached_twice(monkeypatch) -> None:
    """Code run once is not worth compiling; a loop compiles its block once."""
    import neurondbg.machine.debugger as debugger

    built: list[int] = []
    real = debugger.superblock

    def counting(entry, records, state):  # type: ignore[no-untyped-def]
        built.append(entry)
        return real(entry, records, state)
    monkeypatch.setattr(debugger, "superblock", counting)
    once = use_core(_machine("\n".join(["MOVE R1=1"] * 50 + ["HALT"])))
    assert once.cont().reason == "halt" and built == []
    loop = use_core(_machine(counted_loop(1000)))
    assert loop.cont().reason == "halt" and loop.state().R[1] == 3000
    assert built == [1]  # the loop body, entered at its head (record 1)
