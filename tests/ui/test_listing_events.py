"""The Program listing writes the header events as the disassembler does (`wait=`,
`signal=`; debug.listing_text), where it showed `update_mode=... update_idx=...`."""

from __future__ import annotations

from pathlib import Path

import pytest

from neurondbg.debug.listing_text import listing_lines_with_events, listing_with_events
from neurondbg.debug.session import Session
from neurondbg.machine.asm.disasm import disassemble_lines, events_tokens
from neurondbg.machine.dtypes import DEFAULT_GEN
from neurondbg.machine.isa.codec import decode_bytes
from neurondbg.machine.isa.enums import WaitMode
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.sessions.examples import DEMO

KERNELS = sorted((DEMO.parent / "kernels").glob("*.asm"))
RAW_EVENT_NAMES = ("wait_mode=", "wait_idx=", "update_mode=", "update_idx=",
                   "semaphore_value=")


def test_the_producer_consumer_listing_uses_the_shorthand() -> None:
    session = Session(DEMO.parent / "kernels" / "producer_consumer.asm")
    pool, dve = session.lines_of["pool"], session.lines_of["dve"]
    assert pool[0].listing == "CAST signal=sem[0]++@complete FP32→BF16 sb[0,0x0]×16 → " \
        "sb[0,0x100]×16"
    assert dve[0].listing == "CAST wait=sem[0]>=1 BF16→FP32 sb[0,0x100]×16 → sb[0,0x200]×16"
    assert "wait=sem[0]>=1" in dve[0].text  # the disassembly says the same
    assert session.listing_line("dve", 0) == dve[0].listing  # the Engines pane's text


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: Path(p).stem)
def test_every_kernel_listing_carries_the_disassemblers_events(path: Path) -> None:
    session = Session(path)
    seen = []
    for e in session.core.engines:
        program = session.core.machines[e].program
        events = events_tokens(program)
        seen += events
        for line, ev, full in zip(session.lines_of[e], events, disassemble_lines(program),
                                  strict=True):
            assert not any(name in line.listing for name in RAW_EVENT_NAMES), line.listing
            assert ev in full  # the disassembler's own tokens
            if ev:
                assert line.listing.split(" ", 1)[1].startswith(ev), line.listing
    assert any(seen)  # every shipped kernel signals or waits on a semaphore


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: Path(p).stem)
def test_one_instruction_lists_as_in_the_bulk_listing(path: Path) -> None:
    session = Session(path)
    for e in session.core.engines:
        m = session.core.machines[e]
        labels = {off: name for name, off in m.labels.items()}
        bulk = listing_lines_with_events(m.program, session.gen, labels)
        assert bulk == [line.listing for line in session.lines_of[e]]
        for i in range(len(m.program)):
            assert listing_with_events(m.program.instruction(i), session.gen, labels) \
                == bulk[i]


def test_events_without_a_shorthand_keep_their_fields() -> None:
    # an event wait has no shorthand: the disassembler writes the field, so does the listing
    raw = bytearray(64)
    raw[0], raw[1] = Opcode.HALT, 16  # inst_word_len
    raw[4], raw[5] = WaitMode.EVT_SET, 2  # events.wait_mode, events.wait_idx
    program = decode_bytes(bytes(raw))
    ev = events_tokens(program)[0]
    assert ev == "wait_mode=EVT_SET wait_idx=2" and ev in disassemble_lines(program)[0]
    assert listing_lines_with_events(program, DEFAULT_GEN) == [f"HALT {ev}"]


def test_a_program_without_events_lists_as_before() -> None:
    session = Session(DEMO.parent / "loop.asm")
    assert [line.listing for line in session.lines][:2] == [
        "MOVE INT32 R1=0 R2=0xa", "ALU_OP INT32 ADD src0=R1 dst=R1 imm=3"]
