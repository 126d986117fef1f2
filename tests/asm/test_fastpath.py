"""The assembler's fast path gives exactly what the full parser + builder give."""

from __future__ import annotations

from contextlib import contextmanager
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.asm import AsmError, Assembly, assemble, disassemble_lines
from neurondbg.machine.asm import assembler as asm_mod
from neurondbg.machine.asm.fastpath import FastPath, line_split, shape_lines, split_args, split_line
from neurondbg.machine.asm.parser import Atom, Bracket, ListValue, parse_line, parse_value
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.codec import decode_bytes, struct_for
from neurondbg.machine.isa.opcodes import OPCODES

CODES = sorted(OPCODES)


@contextmanager
def full_path_only():
    """Every line through the full parser and builder (the reference behaviour)."""
    with mock.patch.object(asm_mod, "line_split", lambda shape: None):
        yield


def assemble_full(text: str, gen: Gen = Gen.CAYMAN) -> bytes:
    with full_path_only():
        return asm_mod.assemble(text, "t.asm", gen).records


def _records(recs: list[tuple[int, bytes]], sparse: bool) -> bytes:
    raw = np.frombuffer(b"".join(bytes([c]) + r for c, r in recs), np.uint8).reshape(-1, 64)
    if sparse:  # mostly-default records exercise the operand / relative-step shorthands
        raw = raw.copy()
        raw[:, 1:] &= (raw[:, 1:] % 7 == 0).astype(np.uint8) * 0xFF
    return raw.tobytes()


@settings(deadline=None, max_examples=120)
@given(st.lists(st.tuples(st.sampled_from(CODES), st.binary(min_size=63, max_size=63)),
                min_size=1, max_size=10),
       st.booleans(), st.sampled_from(list(Gen)))
def test_disasm_lines_take_the_fast_path_and_match_the_full_path(
        recs: list[tuple[int, bytes]], sparse: bool, gen: Gen) -> None:
    data = _records(recs, sparse)
    lines = disassemble_lines(decode_bytes(data), gen)
    fast = FastPath()
    for i, line in enumerate(lines):
        split = split_line(line)
        assert split is not None, line
        label, head, rest = split
        assert label is None and head is not None
        rec = fast.record(head, rest, gen, {}, i * 64)
        assert rec == data[i * 64:(i + 1) * 64], line  # never declined, never different
    assert assemble("\n".join(lines), "t.asm", gen).records == data == assemble_full(
        "\n".join(lines), gen)


SOURCES = [
    "COPY src=sb[3, 0x100] step=[1,0,0,-1] num=[64,1,1,1] dst=psum[2, 8] dst.num=[2,2,1,1] "
    "in_dtype=bf16 out_dtype=BFLOAT16 nac=128",
    "loop: CAST events.wait_mode=EVT_SET update_mode=0x03 semaphore_value=-1 op=ADD op_dim=X "
    "reserved1=[1,2,3,4,5] header.debug_cmd=START  # comment",
    "TENSOR_SCALAR_ARITH_OP imm0=1.5 imm1=0x3f800000 op0=MULT src=sb[0,0] num=[4,1,1]",
    "CAST_PREDICATED in0_dtype=INT8 in1_dtype=FP32 out_dtype=FP16",
    "RANGE_SELECT in_dtype=FP16 out_dtype=FP32\nCAST_PREDICATED in0_in1_dtype=0x33",
    "MOVE R3=5 R4=-1 R5=1.0\nALU_OP op=ADD dst=R1 src0=R1 src1=7",
    "top:\nNOP\nCOMPARE_BRANCH cmp_op=GT_IMM br_immediate=top\nCOMPARE_BRANCH br_immediate=top\n"
    "COMPARE_BRANCH target=top",
    ".gen sunda\nCOPY dst=psum[1, 0]\n.gen mariana\nCOPY dst=psum[1, 0]",
    "OP_5A header.inst_word_len=3 header.opcode=7\n.raw 0x" + "ab" * 64 + "\n.RAW 0x" + "01" * 64,
    ".data sb[0:4, 0] fp32 1 2 3\nHALT\n.fill sb[0, 0x40] int8 count=4 start=1",
    "COPY src=SB[p7, 10] dst=Psum[007, 010] nac=010 step=[ 1, -1 ,0x2,0b11 ] num=[1_0,2,3,4]",
    "COPY src=sbuf[P1,0X10] dst=reg[R5] in_dtype=7 events.semaphore_value=1.5",
    "MOVE num_mov=1 dst_registers=[R3,R4,R0,R0,R0,R0,R0,PC_HI] immediate=[5,7,0,0,0,0,0,1.5]",
    # same field names and texts in different structs (values are cached per struct)
    "MOVE immediate=[1,2,3,4,5,6,7,8]\nALU_OP immediate=[1,2]\nMOVE immediate=[1,2,3,4,5,6,7,8]",
    "TENSOR_SCALAR_ARITH_OP dst.num=[1,2,3]\nMEMSET dst.num=[1,2,3,4]\n"
    "TENSOR_SCALAR_ARITH_OP dst.num=[1,2,3]",
]


@pytest.mark.parametrize("src", SOURCES)
def test_sources_assemble_alike(src: str) -> None:
    a = assemble(src, "t.asm")
    with full_path_only():
        b = asm_mod.assemble(src, "t.asm")
    assert a.records == b.records and a.labels == b.labels and a.lines == b.lines
    assert [d.raw for d in a.data] == [d.raw for d in b.data]


def test_leading_zero_decimals_are_decimal() -> None:
    f = assemble("COPY nac=010 src=sb[0, 010]").program().instruction(0).fields
    assert f["num_active_channels"] == 10 and f["src_mem_pattern.start_addr"] == 10


def test_label_values_follow_the_line_offset() -> None:
    a = assemble("top: NOP\nCOMPARE_BRANCH br_immediate=top\nCOMPARE_BRANCH br_immediate=top")
    prog = a.program()
    assert prog.instruction(1).fields["br_immediate"] == -64
    assert prog.instruction(2).fields["br_immediate"] == -128


def test_generation_changes_addresses_of_a_repeated_line() -> None:
    a = assemble("COPY dst=psum[1, 0]\n.gen sunda\nCOPY dst=psum[1, 0]").program()
    assert a.instruction(0).fields["dst_mem_pattern.start_addr"] == 0x2000000 + 16384
    assert a.instruction(1).fields["dst_mem_pattern.start_addr"] == 0x2000000 + 32768


BAD = [
    "COPY src=sb[999, 0]",
    "COPY nac=1 nac=2",
    "COPY foo=1",
    "COPY step=[1,0,0,0]",
    "COPY src=sb[0, 0] step=[1,0,0]",
    "COPY in_dtype=FP32 in_dtype=BF16",
    "CAST_PREDICATED in0_in1_dtype=0x33 in0_dtype=FP32",
    "CAST_PREDICATED in0_dtype=[1,2]",
    "COPY num_active_channels=0x1ffff",
    "COPY in_dtype=1.5",
    "COMPARE_BRANCH br_immediate=nowhere",
    "FOO x=1",
    "HALT 5",
    ".raw 0x00",
    "a: NOP\na: NOP",
    "COPY src=sb[0, 0] src=sb[1, 0]",
    "COPY a=1b=2",
    "COPY src=sb[0, 0x4000000]",
    "COPY src=sb[128, 0]",
    "COPY src=sb[0, 0x10",
    "MOVE dst_registers=[R1,R2]",
    "MOVE dst_registers=[R1,R2,R3,R4,R5,R6,R7,X]",
    "MOVE dst_registers=[R1,R2,R3,R4,R5,R6,R7,]",
    "MOVE immediate=[1,2,3,4,5,6,7,0x1ffffffff]",
    ".gen maverick\nCOPY dst=psum[1, 0]",
    "TENSOR_SCALAR_ARITH_OP dst.num=[1,2,3]\nMEMSET dst.num=[1,2,3]",
    "COPY src=sb[0, 0x40]\n.gen sunda\nCOPY src=sb[0, 0x40]\nCOPY src=sb[0, 0x10000000]",
]


@pytest.mark.parametrize("src", BAD)
def test_errors_are_the_full_paths_errors(src: str) -> None:
    with pytest.raises(AsmError) as fast_err:
        assemble(src, "t.asm")
    with full_path_only(), pytest.raises(AsmError) as full_err:
        asm_mod.assemble(src, "t.asm")
    assert str(fast_err.value) == str(full_err.value)
    assert fast_err.value.column >= 1


def _norm(value: object) -> object:
    if isinstance(value, Atom):
        return value.text
    if isinstance(value, ListValue):
        return tuple(a.text for a in value.items)
    assert isinstance(value, Bracket)
    return (value.name.text, tuple((a.text, b.text if b else None) for a, b in value.items))


@settings(deadline=None, max_examples=400)
@given(st.text(alphabet="ab R1.0x9:=[], _#-", max_size=30))
def test_split_line_agrees_with_the_parser(line: str) -> None:
    split = split_line(line)
    if split is None:
        return
    st_ = parse_line(line, "t.asm", 1)  # the full parser accepts what the split accepts
    label, head, rest = split
    assert label == (st_.label.text if st_.label else None)
    assert head == (st_.head.text if st_.head else None)
    pairs = split_args(rest)
    values = [parse_value(t) for _, t in pairs]
    if all(v is not None for v in values):  # otherwise the fast path declines the line
        assert [(a.key.text if a.key else None, _norm(a.value)) for a in st_.args] == [
            (k, _norm(v)) for (k, _), v in zip(pairs, values, strict=True)]


def test_raw_opcode_struct_is_used_for_undocumented_bytes() -> None:
    rec = FastPath().record("OP_5A", " header.inst_word_len=3", Gen.CAYMAN, {}, 0)
    assert rec is not None and rec[:2] == bytes([0x5A, 3]) and struct_for(0x5A).name == "RAW"


# -- hand-written lines: shorthands, labels, semaphores, and mistakes ------------------------
_REG = st.integers(0, 70).map(lambda n: f"R{n}")
_NUM = st.sampled_from(["0", "1", "7", "-1", "0x10", "0b101", "1.5", "4294967295", "1_000",
                        "99999999999999999999", "inf"])
_LABEL = st.sampled_from(["top", "loop", "lop", "end"])
_SEM = st.builds(lambda i, op, v, w: f"sem[{i}]{op}{v}{w}", st.sampled_from(["0", "3", "300"]),
                 st.sampled_from([">=", "==", "<", "++", "--", "+=", "=", "@"]),
                 st.sampled_from(["", "1", "70000"]),
                 st.sampled_from(["", "@read", "@complete", "@never"]))
_ADDR = st.builds(lambda s, p, o: f"{s}[{p}, {o}]", st.sampled_from(["sb", "psum", "SB", "foo"]),
                  st.sampled_from(["0", "3", "127", "128", "p2"]),
                  st.sampled_from(["0", "0x40", "0x100", "64", "0x4000000"]))
_LIST = st.lists(st.sampled_from(["0", "1", "4", "64", "-1", "R1", "x"]), min_size=1,
                 max_size=5).map(lambda xs: "[" + ",".join(xs) + "]")
_ARGS: dict[str, list[tuple[str, st.SearchStrategy[str]]]] = {
    "MOVE": [("R3", st.one_of(_REG, _NUM)), ("R4", st.one_of(_REG, _NUM)),
             ("R64", _NUM), ("dtype", st.sampled_from(["INT32", "FP32", "BOGUS"])),
             ("num_mov", st.sampled_from(["1", "2", "9"])), ("immediate", _LIST)],
    "ALU_OP": [("op", st.sampled_from(["ADD", "SUB", "NOPE"])), ("dst", _REG),
               ("src0", st.one_of(_REG, _NUM)), ("src1", st.one_of(_REG, _NUM)),
               ("dtype", st.sampled_from(["INT32", "FP32"])), ("immediate", _LIST),
               ("src1_datasrc", st.sampled_from(["0", "1"]))],
    "COMPARE_BRANCH": [("cmp_op", st.sampled_from(["GT_IMM", "EQ_IMM"])),
                       ("target", st.one_of(_LABEL, _NUM)), ("br_immediate", st.one_of(_LABEL,
                                                                                       _NUM)),
                       ("cmp_reg0", _REG), ("cmp_immediate", _NUM),
                       ("target_mode", st.sampled_from(["0", "1"]))],
    "CAST": [("src", _ADDR), ("dst", _ADDR), ("step", _LIST), ("num", _LIST),
             ("in_dtype", st.sampled_from(["FP32", "BF16", "17", "bogus"])),
             ("out_dtype", st.sampled_from(["FP8_EXP4", "INT8"])),
             ("in_out_dtype", st.sampled_from(["0x33", "1"])), ("nac", _NUM),
             ("wait", _SEM), ("signal", _SEM), ("semaphore_value", _NUM),
             ("wait_idx", _NUM), ("src.num", _LIST)],
}


@st.composite
def _line(draw: st.DrawFn) -> str:
    head = draw(st.sampled_from([*_ARGS, "NOP", "COPPY"]))
    pool = _ARGS.get(head, _ARGS["CAST"])
    picks = draw(st.lists(st.sampled_from(pool), max_size=6))
    args = " ".join(f"{k}={draw(v)}" for k, v in picks)
    label = draw(st.sampled_from(["", "", "top: ", "loop: ", "end: "]))
    return f"{label}{head} {args}".rstrip()


@settings(deadline=None, max_examples=300)
@given(st.lists(_line(), min_size=1, max_size=8), st.sampled_from(list(Gen)))
def test_hand_written_lines_give_the_full_paths_bytes_or_error(lines: list[str],
                                                               gen: Gen) -> None:
    """Shorthands (MOVE R3=, ALU_OP dst=, target=, wait= / signal=), labels and
    mistakes: the fast path gives the full path's bytes, or the full path's error."""
    text = "\n".join(lines)
    try:
        fast: Assembly | AsmError = assemble(text, "t.asm", gen)
    except AsmError as e:
        fast = e
    with full_path_only():
        try:
            full: Assembly | AsmError = asm_mod.assemble(text, "t.asm", gen)
        except AsmError as e:
            full = e
    if isinstance(full, AsmError):
        assert isinstance(fast, AsmError) and str(fast) == str(full)
    else:
        assert isinstance(fast, Assembly)
        assert (fast.records, fast.labels, fast.lines) == (full.records, full.labels, full.lines)


MIXED = """\
top: ALU_OP op=ADD dtype=INT32 dst=R1 src0=R1 src1=5
MOVE R3=5 R4=0x10
MOVE R5=R3 R6=R4 dtype=INT32
ALU_OP op=SUBTRACT dst=R2 src0=R2 src1=R3
COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=10 target=top
COPY in_dtype=FP32 out_dtype=FP32 nac=128 src=sb[3, 0x100] step=[1,0,0,0] num=[64,1,1,1] \
dst=sb[3, 0x400] step=[1,0,0,0] num=[64,1,1,1]  # a comment
CAST in_dtype=BF16 out_dtype=FP8_EXP4 nac=64 src=sb[0, 64] dst=psum[0, 0x800] \
wait=sem[4]>=1 signal=sem[2]++@complete
TENSOR_SCALAR_ARITH_OP op0=MULT imm0=2.5 in_dtype=FP32 out_dtype=FP32 src=sb[1, 0] \
src.num=[8,1,1] dst=sb[0, 0x100] dst.num=[8,1,1] signal=sem[1]+=2@read
COMPARE_BRANCH br_immediate=top

HALT
"""


def test_hand_written_shorthands_take_the_fast_path() -> None:
    """No line of an ordinary hand-written program needs the full parser (the
    shorthands once all did: a 1M-line source of them assembled at ~5k lines/s)."""
    with full_path_only():
        want = asm_mod.assemble(MIXED, "m.asm")
    with mock.patch.object(asm_mod, "parse_line", side_effect=AssertionError("full path")):
        got = asm_mod.assemble(MIXED, "m.asm")
    assert (got.records, got.labels, got.lines) == (want.records, want.labels, want.lines)
    assert len(got.records) == 10 * 64


def _by_shape(line: str) -> tuple[str | None, str | None, tuple[str, ...], tuple[str, ...],
                                  str] | None:
    """The split of `line` through its shape's LineSplit (None: the parser's line)."""
    split = line_split(shape_lines([line])[0])
    if split is None:
        return None
    label, head = split.head_of(line)
    keys, texts, rest = split.args(line)
    return label, head, keys, texts, rest


def _by_line(line: str) -> tuple[str | None, str | None, tuple[str, ...], tuple[str, ...],
                                 str] | None:
    got = split_line(line)
    if got is None:
        return None
    label, head, rest = got
    pairs = split_args(rest)
    keys = tuple(k for k, _ in pairs)
    texts = tuple(v for _, v in pairs)
    raw = rest if head is not None and head.lower() == ".raw" else ""
    return label, head, keys, texts, raw


@settings(deadline=None, max_examples=500)
@given(st.text(alphabet="aBxX R0123456789.:=[], _#-+>@", max_size=40),
       st.lists(st.sampled_from("0123456789"), min_size=40, max_size=40))
def test_a_line_splits_as_its_shape_says(line: str, digits: list[str]) -> None:
    """Digits 3..9 made 2 leave every pattern of the split matching alike: the spans
    of a shape cut each of its lines as split_line does, whatever its digits."""
    assert _by_shape(line) == _by_line(line)
    it = iter(digits)
    varied = "".join(next(it) if c.isdigit() else c for c in line)
    assert _by_shape(varied) == _by_line(varied)


@pytest.mark.parametrize("line", [
    "loop7: COPY src=sb[3, 0x1f0] num=[9,1,1,1] step=[1,0,0,0]  # c",
    "MOVE R3=5 R49=0b101 R7=-8", "x9: OP_5A header.inst_word_len=3", ".raw 0x" + "a5" * 64,
    "CAST wait=sem[9]>=7 signal=sem[8]+=3@read", "COPY nac=1e5 src.num=[1_0,2,3,4]",
    "COPY in_dtype=0b12", "COPY nac=1x1", "OP_93", "  ", "lbl2:", "TENSOR_TENSOR_ARITH_OP op=ADD",
])
def test_written_lines_split_as_their_shapes_say(line: str) -> None:
    assert _by_shape(line) == _by_line(line)
