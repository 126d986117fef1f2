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
from tests.neff.kernels import ROW, SP_SEMS, inc, tt_add, vector_add, wait
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
    "race-free vector add": vector_add,
    "race-free two queues": lambda: two_queues(f"{SPILL_SEMS[0]} 16,{SP_SEMS[0]} 16"),
    "race-free spill": lambda: spill_kernel(BASE + RUN + 16, True),
    "a deadlock": lambda: vector_add(dve=f"EVENT_SEMAPHORE {wait(SP_SEMS[1], 32)}\n"
                                         f"{tt_add(0, ROW, 2 * ROW, inc(6))}"),
}


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
