"""A race's suggested fix follows the code's intent (machine/core/intent.py): a producer
that signals a semaphore nobody waits on means the consumer should wait on it, whichever
engine the schedule happened to run first; applied, the fix gives a race-free run in
which the consumer reads the producer's data."""

from __future__ import annotations

import threading
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from neurondbg.machine.core.core import Core
from neurondbg.machine.core.explore import explore
from neurondbg.machine.core.kernel import load_kernel
from neurondbg.machine.core.races import Race, WaitFix
from neurondbg.machine.state import MachineConfig
from tests.core.conftest import SMALL, core, kernel
from tests.core.test_race_explore import EQ0_RACE

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
SCHEDULES = ["rr", "in-order", *(f"random:{s}" for s in range(8)), "seq:1", "seq:1*2"]
MISSING = ("DVE should wait for sem[0] >= 1 before 0x0 (POOL's instruction at 0x0 signals "
           "sem[0] with SEM_INC_COMPLETE and nothing waits on it)")


def _run(source: Path | str, schedule: str) -> Core:
    c = Core(load_kernel(source), schedule=schedule)
    assert c.cont().reason == "halt"
    return c


def apply(text: str, fix: WaitFix) -> str:
    """`text` (an `.engine` source) with the wait of `fix` added to its instruction."""
    out, engine, k = [], None, 0
    for line in text.splitlines():
        body = line.split("#")[0].strip()
        if body.startswith(".engine"):
            engine, k = body.split()[1], 0
        elif body and not body.startswith(".") and not body.endswith(":"):
            if engine == fix.engine and k * 64 == fix.pc:
                line += (f" events.wait_mode=SEM_GE_IMM events.wait_idx={fix.sem} "
                         f"events.semaphore_value={fix.value}")
            k += 1
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_missing_wait_suggests_the_consumer_waits_under_every_schedule(schedule: str) -> None:
    (r,) = _run(KERNELS / "missing_wait.asm", schedule).races
    assert r.missing == MISSING
    assert r.fix == WaitFix("dve", 0, 0, 1)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_applying_the_fix_is_race_free_and_the_consumer_reads_the_tile(
        tmp_path: Path, schedule: str) -> None:
    src = (KERNELS / "missing_wait.asm").read_text()
    (r,) = _run(KERNELS / "missing_wait.asm", "random:0").races
    assert r.fix is not None
    fixed = tmp_path / "fixed.asm"
    fixed.write_text(apply(src, r.fix))
    c = _run(fixed, schedule)
    assert c.races == []
    good = _run(KERNELS / "producer_consumer.asm", "rr")
    out = c.state().sbuf[:, 0x200:0x240]
    np.testing.assert_array_equal(out, good.state().sbuf[:, 0x200:0x240])
    # what POOL wrote: 1 + k/4 + p/2 rounded to bf16, widened back (not zeros)
    expect = 1 + np.arange(16) / 4 + np.arange(128)[:, None] / 2
    np.testing.assert_array_equal(out.copy().view(np.float32),
                                  expect.astype(ml_dtypes.bfloat16).astype(np.float32))


TILE = ("COPY in_dtype=FP32 out_dtype=FP32 nac=2 src=sb[0, {src:#x}] step=[1,0,0,0] "
        "num=[4,1,1,1] dst=sb[0, {dst:#x}] step=[1,0,0,0] num=[4,1,1,1]")


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("signal", ["update_mode=SEM_INC_COMPLETE update_idx=2",
                                    "update_mode=SEM_ADD_IMM_COMPLETE update_idx=2 "
                                    "semaphore_value=3"])
def test_every_tile_of_a_pipeline_gets_its_wait_and_the_fixed_kernel_is_race_free(
        k: int, signal: str) -> None:
    """POOL fills k tiles, signalling after each; DVE copies each out with no wait."""
    step = 3 if "ADD" in signal else 1
    pool = ".data sb[0:2, 0] fp32 1.0 2.0 3.0 4.0\n" + "".join(
        TILE.format(src=0, dst=0x100 + 0x10 * t) + f" {signal}\n" for t in range(k)) + "HALT\n"
    dve = "".join(TILE.format(src=0x100 + 0x10 * t, dst=0x200 + 0x10 * t) + "\n"
                  for t in range(k)) + "HALT\n"
    c = core("seq:1*9", pool=pool, dve=dve)
    c.cont()
    fixes = sorted({r.fix for r in c.races if r.fix is not None}, key=lambda f: f.pc)
    assert fixes == [WaitFix("dve", 64 * t, 2, step * (t + 1)) for t in range(k)]
    text = f".engine pool\n{pool}.engine dve\n{dve}"
    for f in fixes:
        text = apply(text, f)
    sections = text.split(".engine ")[1:]
    queues = {s.split("\n", 1)[0]: s.split("\n", 1)[1] for s in sections}
    ex = explore(lambda s: Core(kernel(**queues), MachineConfig(**SMALL), schedule=s,
                                journal_budget=0), 200, max_steps=100,
                 interrupt=threading.Event())
    assert ex.complete and ex.found == []
    c = core("seq:1*9", **queues)
    assert c.cont().reason == "halt"
    out = c.state().sbuf[0:2, 0x200:0x200 + 0x10 * k].copy().view(np.float32)
    np.testing.assert_array_equal(out, np.tile([1.0, 2.0, 3.0, 4.0], (2, k)))


def test_a_signal_in_a_later_instruction_is_named_with_its_pc() -> None:
    pool = (".data sb[0:2, 0] fp32 1.0 2.0 3.0 4.0\n" + TILE.format(src=0, dst=0x100)
            + "\nNOP\nNOP update_mode=SEM_INC_COMPLETE update_idx=0\nHALT\n")
    dve = TILE.format(src=0x100, dst=0x200) + "\nHALT\n"
    (r,) = _races(pool, dve)
    assert r.missing == ("DVE should wait for sem[0] >= 1 before 0x0 (POOL signals sem[0] "
                         "with SEM_INC_COMPLETE at 0x80, after 0x0, and nothing waits on it)")
    assert r.fix == WaitFix("dve", 0, 0, 1)


def _races(pool: str, dve: str) -> list[Race]:
    c = core("rr", pool=pool, dve=dve)
    c.cont()
    return c.races


def test_no_intent_keeps_the_detectors_words() -> None:
    # a _READ update of the writer: the timing hint, not a wait
    (r,) = _run(KERNELS / "read_vs_complete.asm", "rr").races
    assert r.missing.startswith("use SEM_INC_COMPLETE instead of SEM_INC_READ in POOL")
    assert r.fix is None
    # the semaphore is waited on already (sem[0] == 0): no intent to follow
    (r,) = _eq0_races()
    assert r.fix is None and r.missing.startswith("a semaphore update in DVE after 0x0")
    # no signal at all
    (r,) = _races(".data sb[0:2, 0] fp32 1.0 2.0 3.0 4.0\n" + TILE.format(src=0, dst=0x100)
                  + "\nHALT\n", TILE.format(src=0x100, dst=0x200) + "\nHALT\n")
    assert r.fix is None and r.missing == ("a semaphore update in POOL after 0x0 waited on "
                                           "by DVE before 0x0")


def _eq0_races() -> list[Race]:
    c = core("seq:1", **EQ0_RACE)
    c.cont()
    return c.races
