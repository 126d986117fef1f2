"""The semaphore shorthand `wait=` / `signal=` (machine.asm.semaphores): assembly,
errors, the disassembler's form, and the fast path agreeing with the full path."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.asm import AsmError, assemble, disassemble, disassemble_lines
from neurondbg.machine.asm.fastpath import FastPath, split_line
from neurondbg.machine.asm.semaphores import UPDATE_SYNTAX, WAIT_SYNTAX
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.codec import decode_bytes
from neurondbg.machine.isa.enums import UpdateMode, WaitMode
from tests.asm.test_fastpath import assemble_full


def _events(line: str) -> tuple[int, int, int, int, int]:
    f = assemble(line, "t.asm").program().instruction(0).fields
    return tuple(f[f"events.{k}"] for k in ("wait_mode", "wait_idx", "update_mode",
                                            "update_idx", "semaphore_value"))


@pytest.mark.parametrize("line, want", [
    ("CAST wait=sem[3]>=1", (WaitMode.SEM_GE_IMM, 3, 0, 0, 1)),
    ("CAST wait=sem[0]>7", (WaitMode.SEM_GT_IMM, 0, 0, 0, 7)),
    ("CAST wait=sem[255]==0x10", (WaitMode.SEM_EQ_IMM, 255, 0, 0, 16)),
    ("CAST wait=sem[1] <= 2", (WaitMode.SEM_LE_IMM, 1, 0, 0, 2)),
    ("CAST wait=sem[1]<4294967295", (WaitMode.SEM_LT_IMM, 1, 0, 0, 0xFFFFFFFF)),
    ("CAST signal=sem[3]++@complete", (0, 0, UpdateMode.SEM_INC_COMPLETE, 3, 0)),
    ("CAST signal=sem[3]++@READ", (0, 0, UpdateMode.SEM_INC_READ, 3, 0)),
    ("CAST signal=sem[9]--@read", (0, 0, UpdateMode.SEM_DEC_READ, 9, 0)),
    ("CAST signal=sem[2]+=5@complete", (0, 0, UpdateMode.SEM_ADD_IMM_COMPLETE, 2, 5)),
    ("CAST signal=sem[2]-=5@read", (0, 0, UpdateMode.SEM_SUB_IMM_READ, 2, 5)),
    ("CAST signal=sem[2]=0@complete", (0, 0, UpdateMode.SEM_WR_IMM_COMPLETE, 2, 0)),
    ("CAST wait=sem[1]>=2 signal=sem[4]+=2@read",
     (WaitMode.SEM_GE_IMM, 1, UpdateMode.SEM_ADD_IMM_READ, 4, 2)),
    ("CAST signal=sem[4]++@complete wait=sem[1]>=2",
     (WaitMode.SEM_GE_IMM, 1, UpdateMode.SEM_INC_COMPLETE, 4, 2)),
    ("NOP wait=sem[3]>=1", (WaitMode.SEM_GE_IMM, 3, 0, 0, 1)),  # every struct with events
    # the raw field names keep working
    ("CAST events.wait_mode=SEM_GE_IMM wait_idx=3 update_mode=SEM_INC_READ update_idx=1 "
     "semaphore_value=1", (WaitMode.SEM_GE_IMM, 3, UpdateMode.SEM_INC_READ, 1, 1)),
])
def test_shorthand_sets_the_events_fields(line: str, want: tuple) -> None:
    assert _events(line) == tuple(int(v) for v in want)
    assert assemble(line).records == assemble_full(line)


def test_event_semaphore_shorthand_is_its_header_events() -> None:
    f = assemble("EVENT_SEMAPHORE wait=sem[1]>=1 events_extended.update_mode=SEM_INC_READ "
                 "events_extended.update_idx=2").program().instruction(0).fields
    assert (f["events.wait_mode"], f["events.wait_idx"], f["events.semaphore_value"]) == (
        WaitMode.SEM_GE_IMM, 1, 1)
    assert (f["events_extended.update_mode"], f["events_extended.update_idx"]) == (
        UpdateMode.SEM_INC_READ, 2)


@pytest.mark.parametrize("line, column, message", [
    ("CAST signal=sem[1]++", 19, "expected @read or @complete after the update"),
    ("CAST signal=sem[1]++@soon", 22, "expected @read or @complete"),
    ("CAST wait=sem[1]>=1@read", 21, "a wait has no @timing"),
    ("CAST wait=sem[1]++", 17, "a wait compares: expected one of >= > == <= <"),
    ("CAST signal=sem[1]>=1@read", 19, "an update is one of ++ -- += -= ="),
    ("CAST wait=sem[256]>=1", 15, "expected a semaphore index 0..255"),
    ("CAST wait=sem[1:3]>=1", 11, "expected a semaphore like sem[3]"),
    ("CAST wait=sem[1]>=-1", 19, "expected a semaphore value 0..4294967295"),
    ("CAST wait=sem[1]>=1.5", 19, "expected a semaphore value"),
    ("CAST wait=sem[1]>=", 19, "expected a value after '>='"),
    ("CAST wait=sem[1]@read", 17, "expected a comparison (>= > == <= <) or an update"),
    ("CAST wait=3", 11, "expected a semaphore wait like wait=sem[3]>=1"),
    ("CAST signal=sb[0, 0]", 13, "expected a semaphore update like signal=sem[3]++@complete"),
    ("CAST wait=sem[1]>=1 signal=sem[1]+=2@read", 21,
     "wait= and signal= share events.semaphore_value: 1 and 2 differ"),
    ("CAST wait=sem[1]>=1 wait=sem[2]>=1", 21, "events.wait_mode is set twice on this line"),
    ("CAST semaphore_value=1 wait=sem[2]>=1", 24, "events.semaphore_value is set twice"),
    ("CAST in_dtype=sem[1]>=1", 15, "a semaphore expression is written with wait= or signal="),
    ("COPY src=sb[0, 0] @", 19, "unexpected character '@'"),  # as before operators
    ("COPY nac=>3", 10, "unexpected character '>'"),
])
def test_shorthand_errors_name_the_column(line: str, column: int, message: str) -> None:
    for full in (False, True):
        with pytest.raises(AsmError) as e:
            assemble_full(line) if full else assemble(line, "t.asm")
        assert (e.value.line, e.value.column) == (1, column)
        assert message in e.value.message


def test_disasm_prints_the_shorthand_and_raw_fields_where_it_has_none() -> None:
    src = ("CAST events.wait_mode=SEM_LT_IMM wait_idx=1 update_mode=SEM_ADD_IMM_READ "
           "update_idx=1 semaphore_value=5\n"
           "CAST events.wait_mode=EVT_SET update_mode=SEM_INC_READ semaphore_value=5\n"
           "CAST update_mode=SEM_WR_REG_READ update_idx=4 semaphore_value=9\n"
           "EVENT_SEMAPHORE events.wait_mode=SEM_GT_IMM "
           "events_extended.update_mode=SEM_INC_READ events_extended.update_idx=2\n")
    a = assemble(src)
    assert disassemble_lines(a.program()) == [
        "CAST wait=sem[1]<5 signal=sem[1]+=5@read",
        "CAST wait_mode=EVT_SET signal=sem[0]++@read semaphore_value=5",
        "CAST update_mode=SEM_WR_REG_READ update_idx=4 semaphore_value=9",
        "EVENT_SEMAPHORE wait=sem[0]>0 events_extended.update_mode=SEM_INC_READ "
        "events_extended.update_idx=2",
    ]


def test_every_shorthand_mode_round_trips() -> None:
    rows = []
    for wm in [0, *WAIT_SYNTAX]:
        for um in [0, *UPDATE_SYNTAX]:
            rec = bytearray(64)
            rec[0], rec[1] = 0x47, 16  # CAST
            rec[4:12] = bytes([wm, 7, um, 200]) + (123456).to_bytes(4, "little")
            rows.append(bytes(rec))
    data = b"".join(rows)
    text = disassemble(decode_bytes(data))
    assert "wait=sem[7]>=123456 signal=sem[200]+=123456@complete" in text
    assert assemble(text).records == data == assemble_full(text)


@settings(deadline=None, max_examples=150)
@given(st.lists(st.tuples(st.sampled_from([0x47, 0x46, 0xA7]),
                          st.sampled_from([0, 1, 6, 0x81, *WAIT_SYNTAX]), st.integers(0, 255),
                          st.sampled_from([0, 1, 0x85, *UPDATE_SYNTAX]), st.integers(0, 255),
                          st.integers(0, 2**32 - 1)), min_size=1, max_size=8),
       st.sampled_from(list(Gen)))
def test_disasm_of_events_takes_the_fast_path_and_round_trips(rows: list, gen: Gen) -> None:
    raw = np.zeros((len(rows), 64), np.uint8)
    for i, (op, wm, wi, um, ui, sv) in enumerate(rows):
        raw[i, :2] = (op, 16)
        raw[i, 4:12] = np.frombuffer(bytes([wm, wi, um, ui]) + sv.to_bytes(4, "little"), np.uint8)
    data = raw.tobytes()
    lines = disassemble_lines(decode_bytes(data), gen)
    fast = FastPath()
    for i, line in enumerate(lines):
        split = split_line(line)
        assert split is not None, line
        assert fast.record(split[1], split[2], gen, {}, i * 64) == data[i * 64:(i + 1) * 64]
    assert assemble("\n".join(lines), "t", gen).records == data == assemble_full(
        "\n".join(lines), gen)
