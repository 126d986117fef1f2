"""`neurondbg run FILE.neff` as a user runs it, on synthetic NEFFs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.neff.model import Engine
from neurondbg.machine.neff.writer import write_neff
from tests.neff.kernels import COLS, PARTS, ROW, asm, inc, tt_add, vector_add

A = np.arange(PARTS * COLS, dtype=np.float32).reshape(PARTS, COLS) / 8
B = np.full((PARTS, COLS), -2.5, np.float32)


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["run", *args])
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    np.save(tmp_path / "a.npy", A)
    np.save(tmp_path / "b.npy", B)
    path = tmp_path / "kernel.bin"  # named like a program: the header decides
    write_neff(path, [vector_add()], target="sunda")
    return {"neff": str(path), "a": str(tmp_path / "a.npy"), "b": str(tmp_path / "b.npy"),
            "out": str(tmp_path / "out.npy"), "dir": str(tmp_path)}


@pytest.mark.parametrize("races", ["on", "off"])
def test_run_moves_inputs_to_the_output(files: dict[str, str], races: str) -> None:
    code, out, err = run(files["neff"], "--races", races, "--input", f"a={files['a']}",
                         "--input", f"b={files['b']}", "--output", f"out={files['out']}")
    assert (code, err) == (0, "")
    assert out.splitlines()[:2] == [
        "stop: complete: every engine at the end of its stream, 3 DMA entries completed",
        "steps: 19  subgraph: sg00  gen: sunda"]
    assert np.array_equal(np.load(files["out"]), A + B)
    said = "races: none" if races == "on" else "races: not checked (--races off)"
    assert [x for x in out.splitlines() if x.startswith("races: ")] == [said]


@pytest.mark.parametrize("races", ["on", "off"])
def test_run_json_says_whether_races_were_checked(files: dict[str, str], races: str) -> None:
    code, out, _ = run(files["neff"], "--json", "--races", races)
    doc = json.loads(out)
    assert (code, doc["races"], doc["races_checked"]) == (0, [], races == "on")


def test_run_json_labels_semaphores_and_notes_missing_inputs(files: dict[str, str]) -> None:
    code, out, err = run(files["neff"], "--json", "--input", f"b={files['b']}")
    assert code == 0
    assert err == f"neurondbg: warning: {files['neff']}: input a not given: it starts as zeros\n"
    doc = json.loads(out)
    assert (doc["reason"], doc["steps"], doc["races"], doc["dma"]) == (
        "complete", 19, [], {"qSPIO0": 2, "qPoolIO0": 1})
    assert doc["semaphores"] == {"6": {"value": 1, "role": "DVE done"},
                                 "8": {"value": 16, "role": "qSPIO0[0]"},
                                 "9": {"value": 16, "role": "qSPIO0[1]"},
                                 "24": {"value": 16, "role": "qPoolIO0[0]"}}


def test_a_race_against_a_dma_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "k.neff"
    write_neff(path, [vector_add(dve=tt_add(0, ROW, 2 * ROW, inc(6)))], target="sunda")
    code, out, _ = run(str(path), "--schedule", "in-order")
    assert code == 1
    races = [x for x in out.splitlines() if x.startswith("race: ")]
    assert races == [
        "race: dve TENSOR_TENSOR_ARITH_OP (read) and qSPIO0 DMA qSPIO0#0 (load a) (write) on "
        "sbuf partitions 0..127 bytes 0x0..0x40",
        "race: dve TENSOR_TENSOR_ARITH_OP (read) and qSPIO0 DMA qSPIO0#1 (load b) (write) on "
        "sbuf partitions 0..127 bytes 0x40..0x80"]


def test_a_stale_output_says_which_instruction(files: dict[str, str], tmp_path: Path) -> None:
    sub = vector_add()
    pe = [asm("SET_ORDERING_MODE"), bytes([Opcode.MATMUL, 16]) + bytes(62)]
    sub.streams[Engine.PE] = np.frombuffer(b"".join(pe), np.uint8).reshape(-1, 64)
    path = tmp_path / "mm.neff"
    write_neff(path, [sub], target="sunda")
    out_path = tmp_path / "o.npy"
    code, _, err = run(str(path), "--input", f"a={files['a']}", "--input", f"b={files['b']}",
                       "--output", f"out={out_path}")
    assert code == 0
    assert err.splitlines() == [
        f"neurondbg: warning: --output out={out_path}: values may be stale: MATMUL at pe 0x40 "
        "may have written sbuf and is not modelled (the output's bytes came through SBUF)"]


@pytest.mark.parametrize(("args", "message"), [
    (["--input", "c=X"], "--input c=X: no input tensor 'c' (inputs: a, b)"),
    (["--output", "a=Y"], "--output a=Y: no output tensor 'a' (outputs: out)"),
    (["--input", "a"], "--input 'a': expected NAME=FILE.npy"),
    (["--subgraph", "sg07"], "NEFF: no subgraph 'sg07'; this NEFF has sg00"),
])
def test_bad_input_is_one_line_exit_2(files: dict[str, str], args: list[str],
                                      message: str) -> None:
    code, out, err = run(files["neff"], *args)
    assert (code, out) == (2, "")
    assert err.strip().splitlines()[-1].endswith(message.replace("NEFF: ", ""))


def test_an_input_of_the_wrong_shape_is_refused(files: dict[str, str], tmp_path: Path) -> None:
    np.save(tmp_path / "small.npy", np.zeros((4, 4), np.float32))
    code, out, err = run(files["neff"], "--input", f"a={tmp_path / 'small.npy'}")
    assert (code, out) == (2, "")
    assert err == (f"neurondbg: error: {tmp_path / 'small.npy'}: shape (4, 4); input a is "
                   "float32 (128, 16)\n")


def test_an_output_may_not_overwrite_an_input(files: dict[str, str]) -> None:
    before = Path(files["a"]).read_bytes()
    code, _, err = run(files["neff"], "--input", f"a={files['a']}", "--output",
                       f"out={files['a']}")
    assert code == 2 and "input" in err and Path(files["a"]).read_bytes() == before


@pytest.mark.parametrize("races", ["on", "off"])
def test_a_deadlock_names_the_dma_entries_and_exits_1(tmp_path: Path, races: str) -> None:
    from neurondbg.machine.neff.model import DmaEntry
    from tests.neff.kernels import SP_Q, SP_SEMS, wait

    extra = (DmaEntry(SP_Q, 17, SP_SEMS[1], (), "never"),)
    dve = f"EVENT_SEMAPHORE {wait(SP_SEMS[1], 32)}\n{tt_add(0, ROW, 2 * ROW, inc(6))}"
    path = tmp_path / "k.neff"
    write_neff(path, [vector_add(dve=dve, extra_sp=extra)], target="sunda")
    code, out, _ = run(str(path), "--races", races)
    assert code == 1
    assert out.splitlines()[1:3] == [
        "  DVE waits at #1 for sem[9] >= 32 (now 16): only qSPIO0 entries 1 and 17 can "
        "raise it, and qSPIO0#17 is never triggered",
        "  Pool waits at #1 for sem[6] >= 1 (now 0): only updates by DVE can raise it"]
    assert out.startswith("stop: deadlock: ")


def test_a_variable_too_large_to_model_is_refused(tmp_path: Path) -> None:
    from dataclasses import replace

    sub = vector_add()
    sub.vars["a"] = replace(sub.vars["a"], size=1 << 31)
    path = tmp_path / "huge.neff"
    write_neff(path, [sub], target="sunda")
    said = (f"neurondbg: error: {path}: sg00: the DRAM variables hold 2,147,500,032 "
            "bytes; the model holds at most 1,073,741,824\n")
    code, out, err = run(str(path), "--races", "off")
    assert (code, out, err) == (2, "", said)
    r = CliRunner().invoke(cli, ["tui", str(path)])  # refused before the window opens
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", said)
