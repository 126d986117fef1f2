"""Semaphore roles, waits and updates as arrays, and the static checks of neff-facts §5."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.neff.checks import Level, check_subgraph
from neurondbg.machine.neff.events import updates, waits
from neurondbg.machine.neff.jsonfile import json_depth
from neurondbg.machine.neff.model import DmaQueue, Engine
from neurondbg.machine.neff.reader import open_neff
from neurondbg.machine.neff.roles import semaphore_roles
from neurondbg.machine.neff.triggers import resolve_triggers
from neurondbg.machine.neff.writer import neff_bytes
from tests.neff.synth import QUEUE, SEMS, record, stream, vector_add


def test_waits_and_updates() -> None:
    s = stream(record(Opcode.NOP, wait=(9, 32)),
               record(Opcode.EVENT_SEMAPHORE, wait=(4, 1), wait2=(10, 48)),
               record(Opcode.MEMSET, update=6))
    w = waits(s)
    assert w.index.tolist() == [0, 1, 1] and w.second.tolist() == [False, False, True]
    assert w.sem.tolist() == [9, 4, 10] and w.value.tolist() == [32, 1, 48]
    assert w.mode.tolist() == [5, 5, 5]
    u = updates(s)
    assert (u.index.tolist(), u.sem.tolist(), u.mode.tolist()) == ([2], [6], [0x13])


def test_roles() -> None:
    sub = vector_add()
    sub.streams[Engine.ACT] = stream(record(Opcode.MEMSET, update=4))
    sub.streams[Engine.PE] = stream(record(Opcode.MEMSET, update=50),
                                    record(Opcode.MEMSET, update=5))
    sub.streams[Engine.POOL] = stream(record(Opcode.MEMSET, update=50))
    r = semaphore_roles(sub)
    assert [r.role(i) for i in (0, 2, 3, 4, 5, 6, 8, 23, 50)] == [
        "runtime", "runtime", "unassigned", "ACT done", "PE done", "DVE done",
        "qSPIO0[0]", "qSPIO0[15]", "raised by PE, Pool"]
    assert (r.kind(4), r.kind(9), r.kind(50), r.kind(1)) == ("engine", "dma", "shared",
                                                             "runtime")


def findings(sub):
    return check_subgraph(sub, resolve_triggers(sub, "k"))


def test_a_correct_kernel_has_no_findings() -> None:
    assert findings(vector_add(20)) == []


def test_increments_adds_and_dma_completions_count_toward_a_wait() -> None:
    add = bytearray(record(Opcode.MEMSET))
    add[6], add[7] = 0x15, 60  # SEM_ADD_IMM_COMPLETE sem[60] += 5
    struct.pack_into("<I", add, 8, 5)
    sub = vector_add(2)
    sub.streams[Engine.ACT] = stream(bytes(add), record(Opcode.MEMSET, update=60))
    sub.streams[Engine.PE] = stream(record(Opcode.NOP, wait=(60, 6)),
                                    record(Opcode.NOP, wait=(60, 7)),
                                    record(Opcode.NOP, wait=(SEMS[0], 16)),
                                    record(Opcode.NOP, wait=(SEMS[0], 17)))
    got = [(f.check, f.level, f.index) for f in findings(sub)]
    assert got == [("wait_reachable", Level.FAIL, 1), ("wait_reachable", Level.FAIL, 3)]


def test_a_lowered_semaphore_is_not_checked() -> None:
    dec = bytearray(record(Opcode.MEMSET))
    dec[6], dec[7] = 0x14, 60  # SEM_DEC_COMPLETE: sem[60] is no longer monotone
    sub = vector_add()
    sub.streams[Engine.ACT] = stream(bytes(dec))
    sub.streams[Engine.PE] = stream(record(Opcode.NOP, wait=(60, 99)))
    (f,) = findings(sub)
    assert (f.level, f.message) == (
        Level.NOTE, "1 wait on sem[60] (ACT SEM_DEC_COMPLETE makes it non-monotone): "
                    "not checked")


def test_an_update_of_a_dma_semaphore_and_a_shared_set() -> None:
    sub = vector_add()
    sub.streams[Engine.ACT] = stream(record(Opcode.MEMSET, update=SEMS[3]),
                                     record(Opcode.MEMSET, update=1))
    sub.queues["qOther"] = DmaQueue("qOther", Engine.POOL, (23, 24))
    got = [(f.level, f.message) for f in findings(sub) if f.check == "semaphore_owner"]
    assert got == [
        (Level.WARN, "ACT #0 (MEMSET) updates sem[11] (qSPIO0[3]), which only DMA "
                     "completions raise (neff-facts §5.1)"),
        (Level.FAIL, "ACT #1 (MEMSET) updates sem[1], a runtime semaphore the compiler "
                     "never names (neff-facts §5.1)"),
        (Level.WARN, "queues qSPIO0 and qOther share sem[23]"),
    ]


def test_an_entry_off_its_set() -> None:
    from dataclasses import replace
    sub = vector_add()
    first = sub.entries[Engine.SP][0]
    sub.entries[Engine.SP] = (replace(first, semaphore=40), sub.entries[Engine.SP][1])
    (f,) = [f for f in findings(sub) if f.check == "semaphore_owner"]
    assert f.message == (f"SP.json entry {QUEUE}#0 signals sem[40], not {QUEUE}'s set[0] = "
                         "sem[8] (neff-facts §2.5)")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\\\ab', max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.text(alphabet='[]{}"\\\\ab', max_size=4), inner, max_size=3),
    max_leaves=20)


def depth(v: object) -> int:
    if isinstance(v, list):
        return 1 + max((depth(x) for x in v), default=0)
    if isinstance(v, dict):
        return 1 + max((depth(x) for x in v.values()), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(json_values, st.booleans())
def test_json_depth_is_the_nesting(value: object, indent: bool) -> None:
    text = json.dumps(value, indent=1 if indent else None).encode()
    assert json_depth(text) == depth(value)


def test_streams_are_read_only(tmp_path: Path) -> None:
    path = tmp_path / "k.neff"
    path.write_bytes(neff_bytes([vector_add()]))
    sub = open_neff(path).subgraphs[0]
    assert all(not sub.stream(e).flags.writeable for e in Engine)
    assert np.array_equal(sub.program(Engine.SP).raw, sub.stream(Engine.SP))
