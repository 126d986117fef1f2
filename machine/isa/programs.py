"""Parameterised assembly texts of the SEQ loops the tests and the benchmarks step.

There is no LOOP opcode: a loop is ALU_OP + COMPARE_BRANCH (isa-facts §4.4, §4.5), as in
`sessions/examples/loop.asm`. The tests and the benchmarks all step that same counted loop
with other trip counts (and spin, for interrupting), so its text is declared once, here.
Every builder returns assembly text for `machine.asm.assemble` (`kernel_text` joins them
into a NeuronCore kernel). The counted loop's layout (and so every PC) is fixed:

    0x00 MOVE R1=0 R2=trips  (then the `prelude` lines, 0x40 each)
    loop: R1 += add; R2 -= 1; branch to loop while R2 > 0
    HALT

so a `counted_loop(trips)` halts after 1 + 3 * trips + 1 steps with R1 = add * trips.
"""

from __future__ import annotations


def trip(label: str, add: int | str = 3) -> str:
    """One counted trip at `label`: R1 += add (an immediate or a register), R2 -= 1, and
    branch back to `label` while R2 > 0."""
    return (f"{label}:\n"
            f"    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1={add}\n"
            "    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1\n"
            "    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 "
            f"target={label}\n")


def counted_loop(trips: int, add: int | str = 3, prelude: str = "") -> str:
    """`MOVE R1=0 R2=trips`, the `prelude` lines (each a full line), `trips` trips, HALT."""
    return f"    MOVE R1=0 R2={trips}\n{prelude}{trip('loop', add)}    HALT\n"


def handshake_loops(trips: int, add: int | str = 1, sync: str = "") -> str:
    """Two counted loops of `trips` trips with a `NOP {sync}` between them (a semaphore
    wait or signal for a NeuronCore engine queue); the first adds `add` per trip, the
    second 1."""
    return (f"    MOVE R1=0 R2={trips}\n{trip('loop', add)}"
            f"    NOP {sync}\n    MOVE R2={trips}\n{trip('again', 1)}    HALT\n")


def spin(reg: int = 1) -> str:
    """An endless loop at `top`: R{reg} += 1 while R{reg} > -1 (2**31 trips before the
    int32 wrap ends it), for tests that a run can be interrupted."""
    return (f"top:\n    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R{reg} src0=R{reg} src1=1\n"
            f"    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R{reg} cmp_immediate=-1 "
            "target=top\n")


def kernel_text(**engines: str) -> str:
    """A NeuronCore kernel source (machine/core): one `.engine NAME` section per keyword,
    in keyword order, holding that engine's program text."""
    return "".join(f".engine {engine}\n{text}" for engine, text in engines.items())
