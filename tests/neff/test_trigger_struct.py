"""PSEUDO_DMATRIGGER's declared payload (struct DMA_TRIGGER, neff-facts §5.3): the
disassembly names the queue and id, and the text assembles back to the same bytes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.asm.assembler import assemble
from neurondbg.machine.asm.disasm import disassemble
from neurondbg.machine.asm.errors import AsmError
from neurondbg.machine.isa.codec import Program
from neurondbg.machine.isa.opcodes import OPCODES, Opcode
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.isa.text import ascii_text
from neurondbg.machine.neff.triggers import trigger_record


def _program(raw: bytes) -> Program:
    return Program(np.frombuffer(raw, dtype=np.uint8).reshape(-1, 64))


def test_the_struct_is_declared_as_the_reference_gives_it() -> None:
    assert OPCODES[Opcode.PSEUDO_DMATRIGGER].struct == "DMA_TRIGGER"
    s = STRUCTS["DMA_TRIGGER"]
    assert (s.field("queue").offset, s.field("queue").count, s.field("queue").role) == (
        12, 36, "ascii")
    assert (s.field("id").offset, s.field("id").ctype) == (48, "u4")
    assert s.field("rsvd52").count == 12
    assert s.source == "neff-facts §5.3"
    assert s.coverage().tolist() == [1] * 64


def test_disasm_names_queue_and_id() -> None:
    text = disassemble(_program(trigger_record("qSPIO0", 3)))
    assert text == "PSEUDO_DMATRIGGER queue=qSPIO0 id=3\n"


_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.]{0,35}", fullmatch=True).filter(
    lambda n: n not in ("inf", "nan"))


@settings(deadline=None)  # no timed assertion: a loaded machine is not a failure
@given(_NAMES, st.integers(0, 2**32 - 1))
def test_trigger_text_round_trips(queue: str, entry: int) -> None:
    raw = trigger_record(queue, entry)
    text = disassemble(_program(raw))
    assert text.split()[1] == f"queue={queue}"
    assert assemble(text).records == raw


@settings(deadline=None)
@given(st.binary(min_size=36, max_size=36), st.binary(min_size=12, max_size=12))
def test_any_payload_round_trips(queue: bytes, tail: bytes) -> None:
    """Bytes that are no name (a byte after the padding, a space) stay a list."""
    raw = bytearray(trigger_record("q", 0))
    raw[12:48], raw[52:64] = queue, tail
    text = disassemble(_program(bytes(raw)))
    assert assemble(text).records == bytes(raw)


@pytest.mark.parametrize(("payload", "name"), [
    (b"qSPIO0".ljust(36, b"\0"), "qSPIO0"),
    (b"qSPIO0\0\0x".ljust(36, b"\0"), None),   # a byte after the padding
    (b"q SP".ljust(36, b"\0"), None),           # not a name
    (b"inf".ljust(36, b"\0"), None),            # read back as a number
    (b"\xe9t\xe9".ljust(36, b"\0"), None),      # not ASCII
    (b"\0" * 36, None),
])
def test_ascii_text(payload: bytes, name: str | None) -> None:
    assert ascii_text(tuple(payload)) == name


@pytest.mark.parametrize("text", ["PSEUDO_DMATRIGGER queue=" + "q" * 37 + " id=1"])
def test_too_long_a_queue_name_is_refused(text: str) -> None:
    with pytest.raises(AsmError, match="at most 36 characters"):
        assemble(text)
