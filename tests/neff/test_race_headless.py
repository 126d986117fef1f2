"""The headless run's race check (machine.neff.racecheck) finds what the core finds under
its default schedule: the same races, in the same order, with the same accesses
(engine, pc, opcode, kind, region, global step, the trigger of a DMA entry's), bytes,
missing edge and fix, on every racy synthetic NEFF of the tests and on race-free ones."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from neurondbg.machine.core.races import Race
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.neff.core import neff_core
from neurondbg.machine.neff.lower import lower_subgraph
from neurondbg.machine.neff.model import Subgraph
from neurondbg.machine.neff.runner import NeffRun
from neurondbg.machine.stops import StopReason
from tests.neff import test_race_hint_queues as hint
from tests.neff.kernels import COLS, PARTS, ROW, SP_SEMS, inc, tt_add, vector_add, wait
from tests.neff.test_core import SPILL_SEMS, two_queues
from tests.neff.test_spill_race import BASE, RUN, spill_kernel

A = np.arange(128 * 16, dtype=np.float32).reshape(128, 16)

KERNELS: dict[str, Callable[[], Subgraph]] = {
    "missing wait against two loads": lambda: vector_add(dve=tt_add(0, ROW, 2 * ROW, inc(6))),
    "a later trigger orders nothing": lambda: two_queues(f"{SPILL_SEMS[0]} 16"),
    "an engine's own load": lambda: hint.own_load(False),
    "a store of another engine's result": lambda: hint.unordered_store(False),
    "no intent either way": hint.unsignalled,
    "spill save and reload": lambda: spill_kernel(BASE + RUN + 16, False),
    "two queues one engine fed": hint.store_then_reload,
    # records the headless fast path runs (a MEMSET's direct write, a COPY's handler),
    # their Writes made for the feed: racing with a load, and (strided, after the
    # update the store waits for) with the store
    "a MEMSET over a load": lambda: vector_add(dve=f"{memset(0x8, 'step=[1,0,0,0]')}\n"
                                               f"{tt_add(0, ROW, 2 * ROW, inc(6))}"),
    "a strided MEMSET and a COPY": lambda: vector_add(dve=(
        f"EVENT_SEMAPHORE {wait(SP_SEMS[1], 16)}\n{tt_add(0, ROW, 2 * ROW)}\n"
        f"{copy(2 * ROW, 3 * ROW, inc(6))}\n{memset(2 * ROW + 4, 'step=[2,0,0,0]')}")),
    "race-free vector add": vector_add,
    "race-free two queues": lambda: two_queues(f"{SPILL_SEMS[0]} 16,{SP_SEMS[0]} 16"),
    "race-free spill": lambda: spill_kernel(BASE + RUN + 16, True),
    "a deadlock": lambda: vector_add(dve=f"EVENT_SEMAPHORE {wait(SP_SEMS[1], 32)}\n"
                                         f"{tt_add(0, ROW, 2 * ROW, inc(6))}"),
}


def memset(at: int, steps: str) -> str:
    """All 128 partitions: 8 INT32 elements from byte `at`, `steps` apart."""
    return (f"MEMSET dtype=INT32 nac={PARTS} set_value=0x1234 dst=sb[0, {at:#x}] {steps} "
            f"num=[8,1,1,1]")


def copy(src: int, dst: int, events: str = "") -> str:
    """A bit copy of 16 fp32 per partition on all 128 partitions."""
    def pat(name: str, off: int) -> str:
        return f"{name}=sb[0, {off:#x}] step=[1,0,0,0] num=[{COLS},1,1,1]"
    return (f"COPY in_dtype=FP32 out_dtype=FP32 nac={PARTS} {pat('src', src)} "
            f"{pat('dst', dst)} {events}")


def on_core(sub: Subgraph, max_steps: int | None) -> tuple[list[Race], int]:
    nc = neff_core(lower_subgraph(sub, Gen.CAYMAN), inputs={"a": A} if "a" in sub.tensors
                   else None, journal_budget=0)
    nc.keep_writes(False)  # as `run` has it
    stop = nc.core.cont(max_steps=max_steps)
    assert stop.reason in (StopReason.HALT, StopReason.DEADLOCK, StopReason.MAX_STEPS)
    return nc.core.races, nc.core.steps


def headless(sub: Subgraph, max_steps: int | None) -> tuple[list[Race], int]:
    r = NeffRun(lower_subgraph(sub, Gen.CAYMAN), {"a": A} if "a" in sub.tensors else None,
                races=True)
    r.run(max_steps)
    assert r.race_check is not None
    return r.race_check.races, r.steps


@pytest.mark.parametrize("name", KERNELS)
def test_the_headless_run_reports_the_cores_races(name: str) -> None:
    core = on_core(KERNELS[name](), None)
    assert headless(KERNELS[name](), None) == core
    assert bool(core[0]) == (not name.startswith(("race-free", "a deadlock")))


@pytest.mark.parametrize("steps", [1, 4, 7])
def test_a_run_cut_short_has_found_what_the_core_had(steps: int) -> None:
    """The same schedule step for step: at --max-steps the two have seen the same."""
    sub = KERNELS["missing wait against two loads"]
    assert headless(sub(), steps) == on_core(sub(), steps)


def test_a_run_cut_anywhere_stands_where_the_cores_does() -> None:
    """DVE's NOPs change no semaphore: once every other actor is blocked, the schedule
    runs them back to back (the runner then steps DVE again without the round); cut at
    any step, each engine's PC and the races are the core's."""
    def sub() -> Subgraph:
        return vector_add(dve="NOP\n" * 12 + f"EVENT_SEMAPHORE {wait(SP_SEMS[1], 16)}\n"
                          f"{tt_add(0, ROW, 2 * ROW, inc(6))}\n"
                          f"{memset(2 * ROW + 8, 'step=[1,0,0,0]')}")
    total = headless(sub(), None)[1]
    for steps in range(1, total + 1):
        nc = neff_core(lower_subgraph(sub(), Gen.CAYMAN), inputs={"a": A}, journal_budget=0)
        nc.keep_writes(False)
        nc.core.cont(max_steps=steps)
        r = NeffRun(lower_subgraph(sub(), Gen.CAYMAN), {"a": A}, races=True)
        r.run(steps)
        assert r.race_check is not None
        assert {e: m.state.pc for e, m in r.machines.items()} == {
            e: nc.core.machines[e.value].state.pc for e in r.machines}, steps
        assert r.race_check.races == nc.core.races
    assert r.race_check.races != []


def test_run_reports_the_cores_races_without_the_core(tmp_path: Path) -> None:
    """`run FILE.neff` (races on, `rr`) takes the headless runner; a breakpoint puts it on
    the core: the JSON `races` entries are the same, and a race exits 1 either way."""
    from click.testing import CliRunner

    from neurondbg.cli import cli
    from neurondbg.machine.neff.writer import write_neff

    path = tmp_path / "k.neff"
    write_neff(path, [hint.store_then_reload()], target="sunda")
    docs = []
    for extra in ([], ["--break", "deadlock"]):
        r = CliRunner().invoke(cli, ["run", str(path), "--json", *extra])
        assert r.exit_code == 1
        docs.append(json.loads(r.stdout))
    headless_doc, core_doc = docs
    assert headless_doc["races"] == core_doc["races"] != []
    assert headless_doc["reason"] == core_doc["reason"] == "complete"


def test_checked_records_take_the_headless_path() -> None:
    """With races on, a MEMSET and a COPY run as a headless step (its body kept, the
    MEMSET's direct write built), not through the journaled `_execute`."""
    sub = KERNELS["a strided MEMSET and a COPY"]()
    r = NeffRun(lower_subgraph(sub, Gen.CAYMAN), {"a": A}, races=True)
    assert r.run().status == "complete"
    bodies = {b.inst.mnemonic: b for m in r.machines.values() for b in m._bodies.values()
              if b is not None}
    assert {"MEMSET", "COPY", "TENSOR_TENSOR_ARITH_OP"} <= set(bodies)
    assert bodies["MEMSET"].direct is not None
    assert not any(m._handlers for m in r.machines.values())  # no `_execute` ran
