"""`Core.race_rows`: the races found so far, as a list shows them (engine, PC, bytes,
missing edge, the step to jump to); they follow reverse and stay bounded."""

from __future__ import annotations

from pathlib import Path

from neurondbg.machine.core.core import Core
from neurondbg.machine.core.kernel import load_kernel
from neurondbg.machine.core.races import KEEP_RACES, RaceRow, WaitFix
from tests.core.conftest import core
from tests.core.test_race_intent import MISSING

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"


def test_missing_wait_lists_one_row_and_reverse_forgets_it() -> None:
    c = Core(load_kernel(KERNELS / "missing_wait.asm"), schedule="random:0")
    assert c.race_rows() == ([], 0)
    c.cont()
    rows, dropped = c.race_rows()
    assert dropped == 0
    assert rows == [RaceRow(1, rows[0].step, ("dve", 0, "CAST", "read"),
                            ("pool", 0, "CAST", "write"), "sbuf[0:128, 0x100:0x120]",
                            MISSING, WaitFix("dve", 0, 0, 1))]
    assert c.taken()[1][rows[0].step] == "pool"  # the step that found it is POOL's write
    c.reverse(c.steps - rows[0].step)
    assert c.race_rows() == ([], 0)
    c.cont()
    assert c.race_rows() == (rows, 0)


def test_race_checking_off_lists_nothing() -> None:
    c = Core(load_kernel(KERNELS / "missing_wait.asm"), races=False)
    c.cont()
    assert c.race_rows() == ([], 0)


def test_rows_are_numbered_in_order_found_and_the_rest_counted() -> None:
    n = KEEP_RACES + 5  # each DVE read of its own tile races with POOL's write of it
    pool = ".data sb[0:1, 0] fp32 1.0\n" + "".join(
        f"COPY in_dtype=FP32 out_dtype=FP32 nac=1 src=sb[0, 0] step=[1,0,0,0] num=[1,1,1,1] "
        f"dst=sb[0, {4 * t:#x}] step=[1,0,0,0] num=[1,1,1,1]\n" for t in range(1, n + 1))
    dve = "".join(
        f"COPY in_dtype=FP32 out_dtype=FP32 nac=1 src=sb[0, {4 * t:#x}] step=[1,0,0,0] "
        f"num=[1,1,1,1] dst=sb[1, 0] step=[1,0,0,0] num=[1,1,1,1]\n" for t in range(1, n + 1))
    c = core("rr", config={"sbuf_bytes": 8192}, pool=pool + "HALT", dve=dve + "HALT")
    c.cont()
    rows, dropped = c.race_rows()
    assert [r.n for r in rows] == list(range(1, KEEP_RACES + 1)) and dropped == 5
    assert rows[2].where == "sbuf[0:1, 0xc:0x10]"
    assert [r.step for r in rows] == sorted(r.step for r in rows)
