"""disasm -> asm reproduces every record byte for byte, valid or not."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.asm import assemble, disassemble, disassemble_lines, format_instruction
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.codec import decode_bytes
from neurondbg.machine.isa.opcodes import OPCODES

CODES = sorted(OPCODES)


@settings(deadline=None, max_examples=150)
@given(st.lists(st.tuples(st.sampled_from(CODES), st.binary(min_size=63, max_size=63)),
                min_size=1, max_size=12),
       st.sampled_from(list(Gen)))
def test_random_records_round_trip(recs: list[tuple[int, bytes]], gen: Gen) -> None:
    data = b"".join(bytes([c]) + rest for c, rest in recs)
    text = disassemble(decode_bytes(data), gen)
    assert assemble(text, "rt.asm").records == data


@settings(deadline=None, max_examples=100)
@given(st.binary(min_size=64, max_size=64 * 8).filter(lambda b: len(b) % 64 == 0))
def test_any_bytes_round_trip(data: bytes) -> None:
    assert assemble(disassemble(decode_bytes(data)), "rt.asm").records == data


def test_every_opcode_with_sparse_fields_round_trips() -> None:
    # sparse records exercise the "omit defaults" paths and the operand shorthands
    rng = np.random.default_rng(1)
    raw = np.zeros((len(CODES) * 4, 64), np.uint8)
    raw[:, 0] = np.repeat(CODES, 4)
    raw[:, 1] = 16
    mask = rng.random(raw[:, 1:].shape) < 0.1
    raw[:, 1:][mask] = rng.integers(0, 256, mask.sum())
    data = raw.tobytes()
    assert assemble(disassemble(decode_bytes(data))).records == data


def test_lines_and_single_instruction_agree() -> None:
    src = "COPY src=sb[1, 0x20] step=[1,0,0,0] num=[8,1,1,1] in_dtype=FP32 out_dtype=FP32\nHALT\n"
    p = assemble(src).program()
    lines = disassemble_lines(p)
    assert lines[1] == "HALT"
    assert lines[0] == format_instruction(p.instruction(0))
    assert lines[0] == ("COPY src=sb[1, 0x20] step=[1,0,0,0] num=[8,1,1,1] in_dtype=FP32 "
                        "out_dtype=FP32")


def test_unknown_opcode_disassembles_as_raw() -> None:
    data = bytes([0x5A, 16]) + bytes(62)
    line = disassemble_lines(decode_bytes(data))[0]
    assert line == ".raw 0x5a10" + "00" * 62
