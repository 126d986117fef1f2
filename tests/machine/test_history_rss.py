"""A program's history on its one-queue core, semaphore-heavy, stays within 1.5x of its
budget in real memory (the growth of a child process's resident set over the run)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

BUDGET_MIB = 8
STEPS = 240_000  # a third of them write a semaphore: uncapped, ~13 MiB of journal

CHILD = textwrap.dedent("""
    import resource, sys
    from pathlib import Path
    from neurondbg.machine.asm import assemble
    from neurondbg.machine.core.core import Core
    from neurondbg.machine.debugger import Machine
    from neurondbg.machine.state import MachineConfig

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize()

    source = '''\\
        MOVE R1=0 R2=1000000000
    loop:
        NOP events.update_mode=SEM_INC_READ events.update_idx=0
        ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=1
        COMPARE_BRANCH cmp_op=LT_REG dtype=INT32 cmp_reg0=R1 cmp_reg1=R2 target=loop
    '''
    a = assemble(source, "sem.asm")
    m = Machine(a.program(), MachineConfig(), data=a.data, labels=a.labels)
    c = Core.of_program(m, Path("sem.asm"), journal_budget=int(sys.argv[1]) << 20)
    c.cont(max_steps=3000)  # fast closures and checkpoint 0 made: not history
    base = rss()
    c.cont(max_steps=int(sys.argv[2]))
    print(c.steps, rss() - base, c.history_nbytes)
""")


def test_a_semaphore_heavy_programs_history_stays_within_its_budget() -> None:
    out = subprocess.run([sys.executable, "-c", CHILD, str(BUDGET_MIB), str(STEPS)],
                         capture_output=True, text=True, timeout=120, check=True)
    steps, growth, counted = map(int, out.stdout.split())
    assert steps == 3000 + STEPS
    assert counted <= (BUDGET_MIB << 20) * 17 // 16  # the policy's own bound
    assert growth <= 1.5 * (BUDGET_MIB << 20), (growth >> 20, counted >> 20)
