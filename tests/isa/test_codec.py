"""Codec: decode never rejects bytes, encode/decode agree, bulk views, size errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.asm.loader import load
from neurondbg.machine.isa.codec import IsaFormatError, decode, decode_bytes, encode, load_program
from neurondbg.machine.isa.opcodes import OPCODES
from neurondbg.machine.isa.structs import STRUCTS


@settings(deadline=None, max_examples=300)
@given(st.binary(min_size=64, max_size=64))
def test_decode_any_bytes_and_reencode(raw: bytes) -> None:
    inst = decode(raw)
    assert inst.opcode == raw[0]
    assert encode(inst.struct, inst.fields) == raw
    assert len(inst.table()) == len(inst.struct.fields)


def test_unknown_opcode_is_raw() -> None:
    inst = decode(bytes([0x5A]) + bytes(63))
    assert inst.struct.name == "RAW" and inst.mnemonic == "OP_5A"


def test_encode_errors_name_the_field() -> None:
    s = STRUCTS["S4D4_TR"]
    with pytest.raises(ValueError, match="in_dtype"):
        encode(s, {"in_dtype": 300})
    with pytest.raises(ValueError, match="step_elem: expected 4"):
        encode(s, {"src_mem_pattern.step_elem": (1, 2)})
    with pytest.raises(KeyError):
        encode(s, {"nope": 1})
    # negative steps, and the unsigned spelling of a negative step
    raw = encode(s, {"header.opcode": 0x46, "src_mem_pattern.step_elem": (-1, 0xFFFF, 0, 0)})
    assert decode(raw).fields["src_mem_pattern.step_elem"] == (-1, -1, 0, 0)


def test_program_groups_and_instruction(tmp_path) -> None:
    recs = [bytes([c, 16]) + bytes(62) for c in (0x46, 0xA7, 0x47, 0x5A, 0xA7)]
    path = tmp_path / "p.bin"
    path.write_bytes(b"".join(recs))
    p = load(path).program
    assert load_program(path).tobytes() == p.tobytes()  # the same loader under another name
    assert len(p) == 5 and list(p.opcodes) == [0x46, 0xA7, 0x47, 0x5A, 0xA7]
    idx, tr = p.records_for("S4D4_TR")
    assert list(idx) == [0, 2] and list(tr["header.opcode"]) == [0x46, 0x47]
    idx, mv = p.records_for("CTRL_MV")
    assert list(idx) == [1, 4] and mv.dtype == STRUCTS["CTRL_MV"].dtype
    assert list(p.records_for("RAW")[0]) == [3]
    assert p.instruction(2).offset == 128 and p.instruction(-1).mnemonic == "MOVE"
    assert p.view_as("S4D4_TR").shape == (5,)
    assert set(p.struct_names()) == {"S4D4_TR", "CTRL_MV", "RAW"}


@pytest.mark.parametrize("size", [1, 63, 65, 200])
def test_size_not_multiple_of_64(size: int) -> None:
    partial = size - size % 64
    with pytest.raises(IsaFormatError) as e:
        decode_bytes(bytes(size), "x.bin")
    msg = str(e.value)
    assert msg == (f"x.bin: size {size} bytes is not a multiple of 64: offset {partial}: "
                   f"partial record of {size % 64} bytes")
    assert isinstance(e.value, ValueError)


def test_every_known_opcode_decodes_with_its_struct() -> None:
    raw = np.zeros((len(OPCODES), 64), np.uint8)
    raw[:, 0] = list(OPCODES)
    p = decode_bytes(raw.tobytes())
    for i, code in enumerate(OPCODES):
        assert p.instruction(i).struct.name == OPCODES[code].struct


def test_load_program_is_the_one_loader(tmp_path) -> None:
    """codec.load_program reads through machine.asm.loader: assembly text too, and its
    one-line errors (it was a second, binary-only reader)."""
    from neurondbg.machine.asm import assemble
    src = tmp_path / "p.asm"
    src.write_text("MOVE R1=7\nHALT\n")
    assert load_program(src).tobytes() == assemble(src.read_text()).records
    bad = tmp_path / "bad.asm"
    bad.write_text("HALT\nNOPE\n")
    with pytest.raises(ValueError, match=f"^{bad}:2:1: unknown mnemonic 'NOPE'"):
        load_program(bad)
