"""The DAP `launch` of a NEFF: its subgraph on a core of five engine threads and its
DMA queues, run to the end as `neurondbg run FILE.neff` runs it; what it cannot do is
one line. Synthetic NEFFs only (tests.neff.kernels)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from neurondbg.machine.neff.writer import write_neff
from tests.dap.client import InProcess
from tests.dap.test_adapter import LOOP, launched
from tests.neff.kernels import COLS, PARTS, vector_add


@pytest.fixture
def neff(tmp_path: Path) -> Path:
    path = tmp_path / "k.neff"
    write_neff(path, [vector_add()], target="sunda")
    return path


def refusal(**launch: object) -> str:
    c = InProcess()
    c.ok("initialize", adapterID="neurondbg", linesStartAt1=True)
    r = c.request("launch", **launch)
    assert not r["success"]
    return r["message"]


def test_a_neff_launches_with_a_thread_per_engine_and_runs_to_its_end(neff: Path) -> None:
    c = launched(neff, stopOnEntry=True)
    out = c.event("output")["body"]["output"]
    assert "input a, b not given: they start as zeros" in out
    c.ok("configurationDone")
    assert c.event("stopped")["body"]["reason"] == "entry"
    names = [t["name"] for t in c.ok("threads")["threads"]]
    assert names == ["pool", "dve", "act", "pe", "sp"]
    top = c.ok("stackTrace", threadId=5)["stackFrames"][0]
    assert top["name"] == "sp: SET_ORDERING_MODE @ 0x0"
    c.ok("next", threadId=5)
    assert c.event("stopped")["body"]["reason"] == "step"
    c.ok("continue", threadId=1)
    c.event("exited")


def test_what_a_neff_launch_refuses_is_one_line(neff: Path) -> None:
    assert refusal(program=str(neff), gen="cayman") == (
        f"launch: {neff}: gen cayman: this NEFF was built for sunda (its kelf-0.json "
        "target); launch it without gen")
    got = refusal(program=str(neff), subgraph="sg07")
    assert got.startswith("launch: ") and "sg07" in got and "\n" not in got
    assert refusal(program=str(LOOP), subgraph="sg00") == (
        f"launch: {LOOP}: subgraph 'sg00': only a NEFF has subgraphs")


def test_a_neff_launch_loads_its_inputs(neff: Path, tmp_path: Path) -> None:
    np.save(tmp_path / "a.npy", np.ones((PARTS, COLS), np.float32))
    c = launched(neff, stopOnEntry=True, inputs={"a": str(tmp_path / "a.npy")})
    out = c.event("output")["body"]["output"]
    assert "input b not given: it starts as zeros" in out


def test_a_bad_neff_input_is_one_line(neff: Path, tmp_path: Path) -> None:
    np.save(tmp_path / "a.npy", np.ones(3, np.float32))
    got = refusal(program=str(neff), inputs={"a": str(tmp_path / "a.npy")})
    assert got == (f"launch: {tmp_path / 'a.npy'}: expected float32 (128, 16), found "
                   "float32 (3,)")
    assert refusal(program=str(LOOP), inputs={"a": "a.npy"}) == (
        f"launch: {LOOP}: inputs: only a NEFF has input tensors")
