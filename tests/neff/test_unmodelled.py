"""What the references do not describe, said as such: records of newer compilers whose
effect no reference gives (PSEUDO_DMA_DIRECT2D, PSEUDO_EXTENSION, ...), which validate
does not call invalid and run stops at, saying so; and def.json's backing_variable_off,
which run and validate name once as not modelled."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.neff.model import DmaQueue, Engine, Subgraph, Var
from neurondbg.machine.neff.triggers import trigger_record as trigger
from neurondbg.machine.neff.unmodelled import backing_note
from neurondbg.machine.neff.verdicts import HEADER_NOT_JUDGED, NOTE_TEXT, judge_stream
from neurondbg.machine.neff.writer import write_neff
from tests.neff.synth import QUEUE, SEMS, record, stream, vector_add

DYNAMIC = "qSPDynamicHW"
DYN_SEMS = tuple(range(40, 56))


def extension() -> bytes:
    """A PSEUDO_EXTENSION as newer compilers write it: header byte 1 is 0, not 16, and
    bytes 4..11 hold what would read as a wait on and an update of runtime sem[0]."""
    rec = bytearray(64)
    rec[0], rec[15] = Opcode.PSEUDO_EXTENSION, 16
    rec[4:12] = bytes([0x05, 0, 0x13, 0, 1, 0, 0, 0])
    return bytes(rec)


def dynamic() -> Subgraph:
    """SP triggers one described entry, then a PSEUDO_DMA_DIRECT2D (+ its extension);
    DVE waits for the entry and for sem[40], which only the DIRECT2D could raise."""
    sub = vector_add(1)
    sp = stream(record(Opcode.SET_ORDERING_MODE), trigger(QUEUE, 0),
                record(Opcode.PSEUDO_DMA_DIRECT2D), extension())
    dve = stream(record(Opcode.SET_ORDERING_MODE),
                 record(Opcode.EVENT_SEMAPHORE, wait=(SEMS[0], 16), wait2=(DYN_SEMS[0], 16)),
                 record(Opcode.MEMSET, update=6))
    queues = {**sub.queues,
              DYNAMIC: DmaQueue(DYNAMIC, Engine.SP, DYN_SEMS, type="dynamic")}
    return replace(sub, streams={**sub.streams, Engine.SP: sp, Engine.DVE: dve},
                   queues=queues)


def invoke(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def neff(tmp_path: Path) -> str:
    path = tmp_path / "dyn.neff"
    write_neff(path, [dynamic()], target="cayman")
    return str(path)


def test_a_wait_only_unmodelled_records_could_satisfy_is_not_checked(neff: str) -> None:
    code, out, _ = invoke("validate", neff, "--summary")
    doc = json.loads(out)
    assert (code, doc["invalid"], doc["checks"]["failed"]) == (0, 0, 0)
    assert [f for f in doc["checks"]["findings"] if f["check"] == "wait_reachable"] == [
        {"check": "wait_reachable", "level": "note", "engine": None, "index": None,
         "message": "1 wait beyond what the modelled records add (1 PSEUDO_DMA_DIRECT2D, "
                    "1 PSEUDO_EXTENSION records are not modelled and may raise "
                    "semaphores): not checked"}]


def test_an_extension_record_has_no_header_events(neff: str) -> None:
    code, out, _ = invoke("validate", neff, "--summary")
    doc = json.loads(out)
    assert code == 0
    assert [f for f in doc["checks"]["findings"] if f["check"] == "semaphore_owner"] == []
    assert doc["engines"]["sp"]["notes"][HEADER_NOT_JUDGED] == 1


def test_the_text_line_counts_records_whose_header_is_not_judged(neff: str) -> None:
    code, out, _ = invoke("validate", neff)
    sp = next(ln for ln in out.splitlines() if ln.startswith("SP: "))
    assert code == 0
    assert sp.endswith(f"; {NOTE_TEXT[HEADER_NOT_JUDGED]}: 1")


def test_a_starved_wait_still_fails_without_unmodelled_records(tmp_path: Path) -> None:
    sub = dynamic()
    sp = stream(record(Opcode.SET_ORDERING_MODE), trigger(QUEUE, 0))
    path = tmp_path / "starved.neff"
    write_neff(path, [replace(sub, streams={**sub.streams, Engine.SP: sp})], target="cayman")
    code, out, _ = invoke("validate", str(path), "--summary")
    doc = json.loads(out)
    assert (code, doc["checks"]["failed"]) == (1, 1)


def test_an_extension_record_is_not_judged_on_the_hardware_header_rule() -> None:
    v = judge_stream(stream(extension(), trigger(QUEUE, 0)), Gen.CAYMAN, Engine.SP)
    assert v.valid.tolist() == [True, True]
    assert HEADER_NOT_JUDGED in v.outcomes[v.outcome[0]]["notes"]
    # a described pseudo record keeps the rule: a trigger with byte 1 = 0 is invalid
    bad = bytearray(trigger(QUEUE, 0))
    bad[1] = 0
    assert judge_stream(stream(bytes(bad)), Gen.CAYMAN, Engine.SP).valid.tolist() == [False]


@pytest.mark.parametrize("races", ["on", "off"])
def test_run_stops_at_the_first_unmodelled_record_saying_so(neff: str, races: str) -> None:
    code, out, err = invoke("run", neff, "--json", "--races", races)
    doc = json.loads(out)
    assert (code, doc["reason"]) == (1, "fault")
    assert "PSEUDO_DMA_DIRECT2D is not modelled: no reference gives" in doc["detail"]
    assert doc["engines"]["sp"] == {"pc": 0x80, "status": "faulted"}
    note = ("sg00 holds records whose effect is not modelled (1 PSEUDO_DMA_DIRECT2D, "
            "1 PSEUDO_EXTENSION): a run stops at the first it reaches")
    assert note in doc["notes"]
    assert f"neurondbg: warning: {neff}: {note}\n" in err


def spilled(offsets: dict[str, int | None]) -> Subgraph:
    """vector_add with one virtual var per name, carrying the backing_variable_off given."""
    sub = vector_add(1)
    extra = {n: Var(n, "virtual", 10 + k, 1024, backing_variable_off=off)
             for k, (n, off) in enumerate(offsets.items())}
    return replace(sub, vars={**sub.vars, **extra})


BACKING = ("def.json var 'save1' has backing_variable_off 0x400 (and 2 more vars): not "
           "modelled (each var has storage of its own; a value saved through one var and "
           "read back through another that shares its buffer reads as that var's own "
           "bytes, so values may be stale)")


def test_backing_variable_off_is_said_once_by_run_and_validate(tmp_path: Path) -> None:
    path = tmp_path / "spill.neff"
    write_neff(path, [spilled({"save0": 0, "save1": 0x400, "reload0": 0})])
    code, out, err = invoke("run", str(path), "--json", "--races", "off")
    assert (code, json.loads(out)["notes"].count(BACKING)) == (0, 1)
    assert err.count("has backing_variable_off") == 1
    code, out, _ = invoke("validate", str(path), "--summary")
    found = [f for f in json.loads(out)["checks"]["findings"]
             if "has backing_variable_off" in f["message"]]
    assert (code, found) == (0, [{"check": "dma_in_bounds", "level": "note",
                                  "message": BACKING, "engine": None, "index": None}])
    code, out, _ = invoke("validate", str(path))
    assert out.count("has backing_variable_off") == 1


@pytest.mark.parametrize("offsets", [{}, {"alone": 0}, {"a": None, "b": None}])
def test_no_backing_note_when_no_offset_matters(offsets: dict[str, int | None]) -> None:
    assert backing_note(spilled(offsets)) is None


def test_a_load_mask_select_on_dve_is_not_refused_for_its_engine() -> None:
    # the 2.27 compiler issues it on DVE; no reference names its engine
    for engine in (Engine.DVE, Engine.POOL):
        v = judge_stream(stream(record(Opcode.LOAD_MASK_SELECT)), Gen.MARIANA, engine)
        assert v.valid.tolist() == [True]
    v = judge_stream(stream(record(Opcode.LOAD_MASK_SELECT)), Gen.MARIANA, Engine.ACT)
    assert v.valid.tolist() == [False]
