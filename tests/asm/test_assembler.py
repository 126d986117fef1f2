"""Assembler shorthands, directives and error messages."""

import numpy as np
import pytest

from neurondbg.machine.asm import AsmError, assemble
from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.isa.codec import decode
from neurondbg.machine.isa.enums import AluOp, BrTargetMode, DataSrc, WaitMode


def one(src: str, gen: Gen = Gen.CAYMAN) -> dict:
    a = assemble(src, "t.asm", gen)
    assert len(a.records) == 64
    return decode(a.records).fields


def test_defaults_opcode_and_word_len() -> None:
    f = one("HALT")
    assert f["header.opcode"] == 0xA1 and f["header.inst_word_len"] == 16
    assert one("nop")["header.opcode"] == 0xA4  # case-insensitive mnemonics
    assert one("OP_5A")["header.opcode"] == 0x5A


def test_tensor_operand_shorthands() -> None:
    f = one("COPY src=sb[3, 0x100] step=[1,0,0,-1] num=[64,1,1,1] dst=psum[2, 8] "
            "dst.num=[2,2,1,1] in_dtype=bf16 out_dtype=BFLOAT16 nac=128")
    assert f["src_mem_pattern.start_addr"] == 3 * 256 * 1024 + 0x100
    assert f["src_mem_pattern.step_elem"] == (1, 0, 0, -1)
    assert f["src_mem_pattern.num_elem"] == (64, 1, 1, 1)
    assert f["dst_mem_pattern.start_addr"] == 0x2000000 + 2 * 16384 + 8
    assert f["dst_mem_pattern.num_elem"] == (2, 2, 1, 1)
    assert f["in_dtype"] == f["out_dtype"] == Dtype.BF16
    assert f["num_active_channels"] == 128
    assert one("COPY src=reg[R5]")["src_mem_pattern.start_addr"] == 0x80000005
    assert one("COPY src=sb[1, 0]", Gen.MAVERICK)["src_mem_pattern.start_addr"] == 1 << 20
    assert one(".gen sunda\nCOPY dst=psum[1, 0]")["dst_mem_pattern.start_addr"] == (
        0x2000000 + 32768)


def test_field_names_values_and_suffixes() -> None:
    f = one("CAST events.wait_mode=EVT_SET update_mode=0x03 semaphore_value=-1 op=ADD "
            "op_dim=X reserved1=[1,2,3,4,5] header.debug_cmd=START")
    assert f["events.wait_mode"] == WaitMode.EVT_SET and f["events.update_mode"] == 3
    assert f["events.semaphore_value"] == 0xFFFFFFFF
    assert f["op"] == AluOp.ADD and f["op_dim"] == 2 and f["reserved1"] == (1, 2, 3, 4, 5)
    assert f["header.debug_cmd"] == 3
    f = one("TENSOR_SCALAR_ARITH_OP imm0=1.5 imm1=0x3f800000 op0=MULT src=sb[0,0] num=[4,1,1]")
    assert f["imm0"] == 0x3FC00000 and f["imm1"] == 0x3F800000 and f["src.num_elem"] == (4, 1, 1)


def test_dtype_pair_nibbles() -> None:
    f = one("CAST_PREDICATED in0_dtype=INT8 in1_dtype=FP32 out_dtype=FP16")
    assert f["in0_in1_dtype"] == 0xA2
    assert one("RANGE_SELECT in_dtype=FP16 out_dtype=FP32")["in_out_dtype"] == 0xA7
    assert one("CAST_PREDICATED in0_in1_dtype=0x33")["in0_in1_dtype"] == 0x33


def test_move_shorthand() -> None:
    f = one("MOVE R3=5 R4=-1 R5=1.0")
    assert f["num_mov"] == 3 and f["move_source"] == DataSrc.IMMEDIATE
    assert f["dtype"] == Dtype.INT32
    assert f["dst_registers"] == (3, 4, 5, 0, 0, 0, 0, 0)
    assert f["immediate"][:3] == (5, 0xFFFFFFFF, 0x3F800000)
    f = one("MOVE R1=R2 R7=PC_LO dtype=FP32")
    assert f["move_source"] == DataSrc.REGISTER and f["src_registers"][:2] == (2, 128)
    assert f["dtype"] == Dtype.FP32


def test_alu_and_branch_shorthands_and_labels() -> None:
    src = """
    top:            # loop head
      ALU_OP op=ADD dtype=INT32 dst=R1 src0=R1 src1=1
      ALU_OP op=SUBTRACT dst=R2 src0=R2 src1=R3
      COMPARE_BRANCH cmp_op=GT_IMM cmp_reg0=R1 cmp_immediate=10 target=top
      COMPARE_BRANCH br_immediate=end target_mode=REGISTER
    end: HALT
    """
    a = assemble(src)
    assert a.labels == {"top": 0, "end": 256}
    p = a.program()
    add, sub, br, br2 = (p.instruction(i).fields for i in range(4))
    assert add["src1_datasrc"] == DataSrc.IMMEDIATE and add["immediate"] == (1, 0)
    assert add["dst_lo"] == 1 and add["src0_lo"] == 1
    assert sub["src1_datasrc"] == DataSrc.REGISTER and sub["src1_lo"] == 3
    assert br["br_immediate"] == -128 and br["target_mode"] == BrTargetMode.REL_IMM
    assert br["header.debug_hint"] == 2
    assert br2["br_immediate"] == 256 - 192 and br2["target_mode"] == BrTargetMode.REGISTER
    assert one("ALU_OP src1=-2")["immediate"] == (0xFFFFFFFE, 0xFFFFFFFF)


def test_raw_directive() -> None:
    rec = bytes(range(64))
    assert assemble(".raw 0x" + rec.hex()).records == rec
    assert assemble(".raw 0x" + rec[:32].hex() + " 0x" + rec[32:].hex()).records == rec


def test_data_directives() -> None:
    a = assemble("""
    .data sb[p0:p2, 0x10] fp32 1.0 -2.5 3
    .fill sb[p0:p3, 0] int16 count=3 start=1 step=2 pstep=100
    .random sb[5, 0] bf16 count=4 seed=7 low=0 high=1
    .bytes psum[1, 4] 0x0102
    .data sb[0, 0] uint8 255 0x10
    """)
    d = a.data
    assert len(d) == 5 and a.records == b""
    assert d[0].partitions == (0, 2) and d[0].offset == 16
    assert d[0].data[1].view(np.float32).tolist() == [1.0, -2.5, 3.0]
    assert d[1].data.view(np.int16).tolist() == [[1, 3, 5], [101, 103, 105], [201, 203, 205]]
    vals = d[2].data.view(np.uint16)
    assert d[2].data.shape == (1, 8) and vals.shape == (1, 4)
    again = assemble(".random sb[5, 0] bf16 count=4 seed=7 low=0 high=1").data[0].data
    assert (again == d[2].data).all()  # seeded: reproducible
    assert d[3].space == "psum" and d[3].data.tolist() == [[1, 2]]
    assert d[4].data.tolist() == [[255, 16]]


ERRORS = [
    ("FOO x=1", 1, "unknown mnemonic 'FOO'"),
    ("COPY in_dtype=FP99", 15, "expected a Dtype name"),
    ("COPY bogus=1", 6, "unknown field 'bogus' for S4D4_TR"),
    ("COPY in_dtype=300", 15, "300 does not fit in_dtype"),
    ("COPY src=sb[0 0]", 15, "expected ',' or ']', found '0'"),
    ("COPY src=sb[200, 0]", 10, "partition 200 out of range"),
    ("COPY src=sb[0, 0x40000]", 10, "offset 262144 out of range"),
    ("COPY src=foo[0, 0]", 10, "expected sb[partition, offset]"),
    ("COPY step=[1,0,0,0]", 6, "step= needs a tensor operand"),
    ("COPY src.step=[1,0]", 15, "expected 4 values for src_mem_pattern.step_elem, found 2"),
    ("COPY in_dtype=FP32 in_dtype=FP32", 20, "in_dtype is set twice"),
    ("COPY reserved1=3", 16, "expected a list of 5 values"),
    ("COPY in_dtype=1.5", 15, "float literals are allowed only in 4-byte fields"),
    ("COPY in_dtype=", 15, "expected a value"),
    ("COPY 5", 6, "expected field=value"),
    ("EVENT_SEMAPHORE wait_mode=1", 17, "ambiguous field 'wait_mode'"),
    ("MOVE R1=R2 R3=4", 9, "either registers or immediates"),
    ("COMPARE_BRANCH target=nowhere", 23, "undefined label 'nowhere'"),
    (".raw 0x00", 6, "expected 64 bytes"),
    (".raw 0x0", 6, "expected hex bytes"),
    (".frob 1", 1, "unknown directive '.frob'"),
    (".gen vax", 6, "unknown generation 'vax'"),
    (".data sb[0, 0] fp99 1", 16, "unknown data type 'fp99'"),
    (".data sb[0, 0] int8 300", 21, "300 does not fit int8"),
    (".data sb[0:0, 0] int8 1", 10, "partition range 0:0"),
    (".data sb[0, 0x37fff] fp32 1", 7, "overrun the 229376-byte sbuf partition"),
    (".fill sb[0, 0] fp32 start=1", 16, "expected count=N"),
    (".random sb[0, 0] fp32 count=2 seed=-1", 36, "seed must be a non-negative integer"),
    ("COPY src=sb[0, 0] @", 19, "unexpected character '@'"),
]


@pytest.mark.parametrize(("src", "column", "message"), ERRORS)
def test_errors_name_line_column_and_expectation(src: str, column: int, message: str) -> None:
    with pytest.raises(AsmError) as e:
        assemble("HALT\n" + src + "\n", "prog.asm")
    err = e.value
    assert (err.file, err.line, err.column) == ("prog.asm", 2, column)
    assert message in err.message
    lines = str(err).splitlines()
    assert lines[0] == f"prog.asm:2:{column}: {err.message}"
    assert lines[1] == "    " + src
    assert lines[2] == "    " + " " * (column - 1) + "^"


def test_duplicate_label() -> None:
    with pytest.raises(AsmError, match="label 'a' defined twice"):
        assemble("a: HALT\na: NOP")
