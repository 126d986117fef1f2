"""An entry's merged operations: an evenly spaced run given by its first two offsets
and its count stacks as the whole run does, and the operations kept for an entry
completed again are the ones planned afresh."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.neff.dma import _geometry, _Plan, _stacked
from neurondbg.machine.neff.lower import lower_subgraph
from neurondbg.machine.neff.model import SB_PARTITION_STEP, Engine
from neurondbg.machine.neff.runner import NeffRun
from tests.neff.test_run_fast_props import X_BYTES, subgraph


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 8), st.integers(0, 4096), st.integers(0, 4096),
       st.sampled_from((0, 16, 32, 64, 96)), st.sampled_from((0, 16, 32, 64, -32)),
       st.sampled_from(((32, 4), (8, 2), (64,))))
def test_a_run_stacks_from_its_first_two_offsets(n: int, so: int, do: int, ds: int,
                                                 dd: int, sizes: tuple[int, ...]) -> None:
    steps = (1, 64)[:len(sizes)]
    gs = _geometry(sizes, steps, 0, False)
    gd = _geometry(sizes, (1, SB_PARTITION_STEP)[:len(sizes)], 1024, True)
    run = [(so + k * ds, do + 4096 + k * dd) for k in range(n)]
    whole = _stacked("dram", "sbuf", gs, gd, run)
    assert _stacked("dram", "sbuf", gs, gd, run[:2], n) == whole


def test_an_entry_completed_again_moves_what_a_fresh_plan_moves() -> None:
    x = (np.arange(X_BYTES // 4, dtype=np.float32) * 0.25).astype(np.float32)
    ents = [(0, [(i * 32, i * 32) for i in range(5)]), (0, [(0, 64), (96, 0), (32, 320)])]
    low = lower_subgraph(subgraph({e: [] for e in Engine}, ents, [0, 1, 0, 1, 0], True),
                         Gen.SUNDA)
    run = NeffRun(low, {"X": x})
    assert run.run().status == "complete" and run.completions == [5]
    assert len(run.dma._kept) == 2
    for (k, _), (ops, error) in run.dma._kept.items():
        fresh = _Plan(run.dma, run.state, run.dma.entries[k]).merged
        assert error is None and fresh == (ops, None)
