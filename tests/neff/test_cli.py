"""`neurondbg validate|disasm FILE.neff` as a user runs them, on synthetic NEFFs."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.asm.sections import assemble_sections
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.neff.model import DmaQueue, Engine, Subgraph
from neurondbg.machine.neff.triggers import trigger_record
from neurondbg.machine.neff.writer import neff_bytes, write_neff
from tests.neff import hostile
from tests.neff.synth import QUEUE, SEMS, load, record, stream, vector_add


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


def neff(tmp_path: Path, *subs: Subgraph, target: str = "sunda", name: str = "k.neff") -> str:
    path = tmp_path / name
    write_neff(path, list(subs), target=target)
    return str(path)


def test_validate_a_valid_neff(tmp_path: Path) -> None:
    code, out, err = run("validate", neff(tmp_path, vector_add()))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert "subgraph sg00 of sg00, sunda; header hash MD5 verified" in lines[0]
    assert ("SP: 3 instructions, 0 invalid; lowered by the runtime: 2 PSEUDO_DMATRIGGER; "
            "payload layout not in the reference (header and events judged only): "
            "1 SET_ORDERING_MODE") in lines
    assert "check wait_reachable: ok" in lines and "check entry_triggered_once: ok" in lines
    assert lines[-1] == ("10 instructions, 0 invalid; 2 DMA triggers, 2 entries, "
                         "2 descriptors; 0 check failures, 0 warnings (sunda, sg00)")


def test_validate_json_and_summary(tmp_path: Path) -> None:
    path = neff(tmp_path, vector_add())
    code, out, _ = run("validate", path, "--json")
    doc = json.loads(out)
    assert code == 0 and (doc["gen"], doc["count"], doc["invalid"]) == ("sunda", 10, 0)
    sp = doc["engines"]["sp"]
    assert sp["lowered"] == {"PSEUDO_DMATRIGGER": 2}
    row = sp["instructions"][1]
    assert (row["index"], row["offset"], row["mnemonic"], row["valid"]) == (
        1, 64, "PSEUDO_DMATRIGGER", True)
    assert row["notes"][-1] == "lowered_by_runtime" and row["failed"] == []
    assert doc["checks"]["failed"] == 0 and doc["dma"] == {
        "queues": 1, "entries": 2, "descriptors": 2, "triggers": 2}
    code, out, _ = run("validate", path, "--summary")
    doc = json.loads(out)
    assert code == 0 and "instructions" not in doc["engines"]["sp"]
    assert doc["engines"]["pe"]["notes"] == {"payload_layout_not_in_reference": 1}


def test_a_starved_wait_fails(tmp_path: Path) -> None:
    sub = vector_add()
    sub.streams[Engine.DVE] = stream(record(Opcode.EVENT_SEMAPHORE, wait=(4, 0),
                                            wait2=(SEMS[1], 32)), record(Opcode.MEMSET,
                                                                         update=6))
    code, out, _ = run("validate", neff(tmp_path, sub))
    assert code == 1
    assert ("  fail: DVE #0 (EVENT_SEMAPHORE) (its second wait, at 0x20) waits for sem[9] "
            ">= 32: everything that exists adds at most 16 (1 DMA entry x 16: qSPIO0#1)"
            ) in out.splitlines()


def test_an_entry_never_triggered_and_a_trigger_off_its_owner(tmp_path: Path) -> None:
    sub = vector_add()
    pool_q = DmaQueue("qPoolIO0", Engine.POOL, tuple(range(40, 56)))
    sub.queues["qPoolIO0"] = pool_q
    sub.entries[Engine.SP] = (*sub.entries[Engine.SP],
                              replace(load(2), queue="qPoolIO0", id=0, semaphore=40),
                              load(3))
    sub.streams[Engine.SP] = stream(*sub.stream(Engine.SP), trigger_record("qPoolIO0", 0))
    code, out, _ = run("validate", neff(tmp_path, sub))
    assert code == 1
    lines = out.splitlines()
    assert ("  fail: SP #3 (PSEUDO_DMATRIGGER) triggers qPoolIO0#0, but queue qPoolIO0 "
            "belongs to Pool") in lines
    assert "  fail: SP.json entry qSPIO0#3 (I-3) is never triggered; each entry is " \
        "triggered exactly once" in lines


def test_a_wait_on_a_runtime_semaphore_warns(tmp_path: Path) -> None:
    sub = vector_add()
    sub.streams[Engine.PE] = stream(record(Opcode.NOP, wait=(2, 0)))
    code, out, _ = run("validate", neff(tmp_path, sub))
    assert code == 0
    assert ("  warning: PE #0 (NOP) waits on sem[2], a runtime semaphore (0..2 belong to "
            "the runtime, neff-facts §5.1)") in out.splitlines()


def test_an_invalid_record_is_reported_on_its_engine(tmp_path: Path) -> None:
    sub = vector_add()
    bad = bytearray(record(Opcode.MEMSET, update=6))
    bad[1] = 15  # inst_word_len must be 16
    sub.streams[Engine.DVE] = stream(bytes(bad))
    code, out, _ = run("validate", neff(tmp_path, sub))
    assert code == 1
    assert "DVE #0 @0x000000 MEMSET (0x49): invalid" in out
    assert "DVE: 1 instruction, 1 invalid" in out


def test_the_generation_comes_from_the_target(tmp_path: Path) -> None:
    path = neff(tmp_path, vector_add(), target="cayman")
    code, out, err = run("validate", path, "--summary")
    assert code == 0 and json.loads(out)["gen"] == "cayman" and err == ""
    code, out, err = run("validate", path, "--summary", "--gen", "sunda")
    assert code == 0 and json.loads(out)["gen"] == "sunda"
    assert err == (f"neurondbg: warning: {path}: --gen sunda overrides the NEFF's target "
                   "'cayman' (cayman)\n")
    odd = neff(tmp_path, vector_add(), target="tonga", name="t.neff")
    code, _, err = run("validate", odd)
    assert code == 2 and "kelf-0.json target 'tonga' names no generation" in err
    assert run("validate", odd, "--gen", "sunda")[0] == 0


def test_the_first_subgraph_with_work_opens(tmp_path: Path) -> None:
    idle = Subgraph("sg00", {e: stream(record(Opcode.SET_ORDERING_MODE),
                                       record(Opcode.PSEUDO_BRANCH_LABEL)) for e in Engine})
    work = replace(vector_add(), name="sg01")
    path = neff(tmp_path, idle, work, target="cayman")
    assert json.loads(run("validate", path, "--summary")[1])["subgraph"] == "sg01"
    doc = json.loads(run("validate", path, "--summary", "--subgraph", "sg00")[1])
    assert (doc["subgraph"], doc["count"]) == ("sg00", 10)
    code, _, err = run("validate", path, "--subgraph", "sg07")
    assert code == 2 and err.endswith("no subgraph 'sg07'; this NEFF has sg00, sg01\n")


def test_options_that_do_not_apply(tmp_path: Path) -> None:
    path = neff(tmp_path, vector_add())
    assert run("validate", path, "--engine", "dve")[0] == 2
    prog = tmp_path / "p.bin"
    prog.write_bytes(record(Opcode.MEMSET))
    code, _, err = run("validate", str(prog), "--subgraph", "sg00")
    assert code == 2 and "--subgraph applies to a NEFF only" in err


def test_disasm_text_assembles_back_to_the_streams(tmp_path: Path) -> None:
    sub = vector_add(3)
    code, out, _ = run("disasm", neff(tmp_path, sub, target="sunda"))
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == "# queue qSPIO0: owner sp, type in, semaphores 8..23"
    assert ".engine sp" in lines and ".gen sunda" in lines
    trig = [ln for ln in lines if ln.startswith("PSEUDO_DMATRIGGER")]
    assert trig[1].startswith("PSEUDO_DMATRIGGER queue=qSPIO0 id=1  #")
    assert trig[1].endswith("# qSPIO0#1 -> sem[9] [I-1]: X[+0x200 512B] -> "
                            "SB[p0..0 +0x200 512B/p] copy float32")
    sections = assemble_sections(out, "k", Gen.SUNDA).sections
    assert [s.engine for s in sections] == [e.value for e in Engine]
    for s in sections:
        assert np.array_equal(s.assembly.program().raw, sub.stream(Engine(s.engine)))


def test_disasm_json_adds_the_dma(tmp_path: Path) -> None:
    code, out, _ = run("disasm", neff(tmp_path, vector_add()), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["subgraph"] == "sg00" and doc["gen"] == "sunda"
    assert doc["dma"]["queues"] == {QUEUE: {"owner": "sp", "type": "in", "num_queues": 16,
                                            "semaphore_set": list(SEMS), "fabric_path": "main"}}
    entry = doc["dma"]["entries"]["sp"][1]
    assert (entry["queue"], entry["id"], entry["semaphore"], entry["triggered_at"]) == (
        QUEUE, 1, 9, 2)
    assert entry["desc"][0]["from"] == "X" and entry["desc"][0]["to_sizes"] == [512, 1]
    assert doc["engines"]["sp"][2]["dma"]["summary"].startswith("X[+0x200 512B] -> SB[")
    assert doc["semaphores"]["6"] == "DVE done" and doc["semaphores"]["9"] == "qSPIO0[1]"
    assert doc["semaphores"]["0"] == "runtime"


HOSTILE = {
    "lying-data-size": lambda: hostile.lying_sizes(neff_bytes([vector_add()]),
                                                   data_size=1 << 30),
    "gzip-bomb": hostile.gzip_bomb,
    "dotdot": lambda: hostile.with_members(hostile.header_block("../x")),
    "absolute": lambda: hostile.with_members(hostile.header_block("/etc/x")),
    "symlink": lambda: hostile.with_members(hostile.header_block("sg00/l", 0, b"2", "/etc")),
    "fifo": lambda: hostile.with_members(hostile.header_block("sg00/f", 0, b"6")),
    "million-members": hostile.million_members,
    "100MB-json": hostile.big_json,
    "missing-queue": lambda: neff_bytes([replace(vector_add(), streams={
        **vector_add().streams, Engine.SP: stream(trigger_record("qX", 0))})]),
    "missing-id": lambda: neff_bytes([replace(vector_add(), streams={
        **vector_add().streams, Engine.SP: stream(trigger_record(QUEUE, 9))})]),
    "semaphore-256": lambda: neff_bytes([replace(vector_add(), queues={
        QUEUE: DmaQueue(QUEUE, Engine.SP, tuple(range(241, 257)))})]),
}


SLOW = ("gzip-bomb", "million-members")  # the reader is shared: validate covers them


@pytest.mark.parametrize(("case", "command"), [
    *((case, "validate") for case in sorted(HOSTILE)),
    *((case, "disasm") for case in sorted(HOSTILE) if case not in SLOW)])
def test_hostile_neffs_are_one_line_and_exit_2(tmp_path: Path, case: str, command: str) -> None:
    path = hostile.write(tmp_path, "h.neff", HOSTILE[case]())
    before = sorted(os.listdir(tmp_path))
    code, out, err = run(command, str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"neurondbg: error: {path}")
    assert sorted(os.listdir(tmp_path)) == before


@pytest.mark.parametrize("option,words", [
    (["--engine", "dve"], "--engine does not apply to a NEFF: each stream is judged on its own"),
    (["--fix", "out.bin"], "--fix takes one program, not a NEFF"),
])
def test_validate_refuses_one_programs_options_for_a_neff(
        tmp_path: Path, option: list[str], words: str) -> None:
    code, out, err = run("validate", neff(tmp_path, vector_add()), *option)
    assert code == 2 and out == "" and words in err
    assert not (tmp_path / "out.bin").exists()
