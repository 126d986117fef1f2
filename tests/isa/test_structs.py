"""Struct layouts: reference offsets field by field, 64 bytes, every byte covered once."""

import numpy as np
import pytest

from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.isa.enums import AluOp, BrCmpOp, TensorSubdim, alu_ops_of, confidence
from neurondbg.machine.isa.opcodes import OPCODES, opcode_by_name, opcodes_of
from neurondbg.machine.isa.spec import Field, Struct, fill_gaps
from neurondbg.machine.isa.structs import STRUCTS, make_pair, pair_hi, pair_lo, tensor_operands


@pytest.mark.parametrize("name", list(STRUCTS))
def test_every_struct_is_64_bytes_and_covers_each_byte_once(name: str) -> None:
    s = STRUCTS[name]
    assert s.dtype.itemsize == 64
    assert (s.coverage() == 1).all()
    assert len(set(s.names)) == len(s.names)
    assert s.fields[0].name == "header.opcode"


def _offsets(name: str) -> dict[str, int]:
    return {f.name: f.offset for f in STRUCTS[name].fields}


def test_s4d4_tr_offsets_ref000_3_1() -> None:
    # ref 000 §3.1 compile-verify: header@0 events@4 src@12 in_dtype@32 out_dtype@33 nac@34
    # negated@35 op@36 op_dim@37 mask_enable@38 reserved1@39 dst@44
    o = _offsets("S4D4_TR")
    assert o["header.opcode"] == 0 and o["events.wait_mode"] == 4
    assert o["src_mem_pattern.start_addr"] == 12
    assert o["src_mem_pattern.step_elem"] == 16 and o["src_mem_pattern.num_elem"] == 24
    assert (o["in_dtype"], o["out_dtype"], o["num_active_channels"], o["negated"]) == (
        32, 33, 34, 35)
    assert (o["op"], o["op_dim"], o["mask_enable"], o["reserved1"]) == (36, 37, 38, 39)
    assert o["dst_mem_pattern.start_addr"] == 44
    assert o["dst_mem_pattern.num_elem"] == 56
    s = STRUCTS["S4D4_TR"]
    assert s.field("reserved1").size == 5
    assert s.field("src_mem_pattern.step_elem").ctype == "i2"  # signed element steps
    assert s.field("in_dtype").enum is Dtype and s.field("op").enum is AluOp
    assert s.field("op_dim").enum is TensorSubdim


def test_ctrl_mv_offsets_ref001_3() -> None:
    # num_mov@12 dtype@13 move_source@14 reserved0@15 src@16 dst@24 imm@32
    o = _offsets("CTRL_MV")
    assert [o[k] for k in ("num_mov", "dtype", "move_source", "reserved0", "src_registers",
                           "dst_registers", "immediate")] == [12, 13, 14, 15, 16, 24, 32]
    s = STRUCTS["CTRL_MV"]
    assert s.field("immediate").size == 32 and s.field("src_registers").count == 8


def test_ctrl_ms_offsets_ref001_5_2() -> None:
    o = _offsets("CTRL_MS")
    assert [o[k] for k in ("move_type", "num_move", "shape_reg_type", "reserved0",
                           "shape_registers", "reserved1", "data")] == [12, 13, 14, 15, 16, 20, 32]
    assert STRUCTS["CTRL_MS"].field("reserved1").size == 12


def test_isa_facts_layouts() -> None:
    assert _offsets("CTRL_AL")["immediate"] == 24 and _offsets("CTRL_AL")["dst_hi"] == 21
    br = _offsets("CTRL_BR")
    assert (br["cmp_immediate"], br["cmp_reg0"], br["target_reg_lo"], br["br_immediate"]) == (
        16, 0x20, 0x22, 0x30)
    es = _offsets("CTRL_ES")
    assert es["events_extended.sem_wait_value"] == 0x24
    assert es["events_extended.sem_update_value"] == 0x28
    tt = _offsets("S3S3D3_TT")
    assert (tt["src0.start_addr"], tt["src1.start_addr"], tt["dst.start_addr"]) == (16, 32, 48)
    assert tt["src0.num_elem"] == 26  # TENSOR3D: num[3] @10
    rs = _offsets("S2D2_RS")
    assert (rs["src.start_addr"], rs["bound1"], rs["dst.start_addr"]) == (24, 44, 48)
    stt = _offsets("S2S2D2_STT")
    assert (stt["src1.start_addr"], stt["in0_in1_dtype"], stt["imm0"]) == (24, 40, 60)
    assert _offsets("D1_RD")["dst.start_addr"] == 44 and _offsets("D4_MR")["set_value"] == 40
    assert _offsets("S3D3_TS")["imm1"] == 44
    assert _offsets("CTRL_TEST_ES")["threshold"] == 48


def test_structured_view_reads_raw_bytes() -> None:
    raw = np.zeros(64, np.uint8)
    raw[0], raw[32], raw[33] = 0x47, Dtype.BF16, Dtype.FP32
    raw[16:18] = np.array([-2], "<i2").view(np.uint8)
    rec = raw.view(STRUCTS["S4D4_TR"].dtype)[0]
    assert rec["in_dtype"] == 6 and rec["out_dtype"] == 10
    assert rec["src_mem_pattern.step_elem"][0] == -2


def test_fill_gaps_names_unclaimed_bytes_and_rejects_overlap() -> None:
    fields = fill_gaps([Field("header.opcode", 0, "u1"), Field("x", 10, "u4")])
    assert [(f.name, f.offset, f.size) for f in fields] == [
        ("header.opcode", 0, 1), ("rsvd1", 1, 9), ("x", 10, 4), ("rsvd14", 14, 50)]
    with pytest.raises(ValueError, match="overlaps"):
        fill_gaps([Field("a", 0, "u4"), Field("b", 2, "u1")])
    assert Struct("T", fields).dtype.itemsize == 64


def test_dtype_pair_nibbles() -> None:
    assert make_pair(Dtype.INT8, Dtype.FP32) == 0xA2
    assert (pair_lo(0xA2), pair_hi(0xA2)) == (2, 10)
    with pytest.raises(ValueError):
        make_pair(0x10, 0)


def test_tensor_operands() -> None:
    assert tensor_operands(STRUCTS["S4D4_TR"]) == ("src_mem_pattern", "dst_mem_pattern")
    assert tensor_operands(STRUCTS["S3S3D3_TT"]) == ("src0", "src1", "dst")


def test_opcode_table_counts_per_generation() -> None:
    # isa-facts §7: enumerator counts incl. the 0xff sentinel; the union is 172 names.
    assert len(OPCODES) == 172
    assert [len(opcodes_of(g)) for g in Gen] == [145, 150, 159, 165]
    assert opcode_by_name("copy").code == 0x46 and opcode_by_name("CAST").struct == "S4D4_TR"
    assert OPCODES[0xA7].struct == "CTRL_MV" and OPCODES[0xB2].struct == "CTRL_MS"
    assert OPCODES[0x72].engines == frozenset({"dve"})
    assert OPCODES[0xA7].engines == frozenset({"seq"})
    assert 0x8A in opcodes_of(Gen.SUNDA) and 0x8A not in opcodes_of(Gen.CAYMAN)
    assert 0x81 not in opcodes_of(Gen.SUNDA) and 0x81 in opcodes_of(Gen.CAYMAN)
    assert all(i.struct in STRUCTS for i in OPCODES.values())


def test_alu_op_counts_and_confidence() -> None:
    assert [len(alu_ops_of(g)) for g in Gen] == [33, 60, 64, 65]
    assert confidence(TensorSubdim, 2) == "HIGH" and confidence(TensorSubdim, 3) == "LOW"
    assert confidence(BrCmpOp, 3) == "MED" and confidence(BrCmpOp, 4) == "LOW"
    assert confidence(BrCmpOp, 200) == "LOW"
    assert BrCmpOp.EQ_IMM == 3 and BrCmpOp.GT_IMM == 6
