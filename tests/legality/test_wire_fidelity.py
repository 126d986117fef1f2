"""Review P6 fidelity fixes: Copy/Cast take only the plain dtypes (ref 000 §4 NOTE,
§6.2); INDIRECT_REG ADDR4 words (isa-facts §2.2) and the register-mode fix hints;
the INT_ALUOP class size decision (isa-facts §3.3)."""

from __future__ import annotations

import pytest

from neurondbg.machine.dtypes import Dtype, Gen, dtypes_of
from neurondbg.machine.isa.enums import AluOp
from neurondbg.machine.legality.explain import explain, validate
from neurondbg.machine.legality.wire.dve import INT_ALUOP
from neurondbg.machine.legality.wire.samples import example

EXTENDED = range(0x10, 0x20)
IN_CLAUSE, OUT_CLAUSE = "is_valid_dtype(in_dtype)", "is_valid_dtype(out_dtype)"
SRC_ADDR = "tensor4d_valid(src)"  # tensor_start_addr_valid is inside it (isa-facts §2.3)
RULE = "tensor4d_valid(src) › tensor_start_addr_valid › "


def src_clause(gen: Gen) -> str:
    """S4D4_TR's src is a MEM_PATTERN4D from mariana on: mem4d_valid (isa-facts §2.1, §2.3)."""
    return SRC_ADDR if gen < Gen.MARIANA else "mem4d_valid(src)"


def _failed(raw: bytes, gen: Gen) -> tuple[str, ...]:
    """The failed clauses, checked to agree between explain and the bulk path."""
    v = explain(raw, gen)
    assert validate(raw, gen).failed_of(0) == list(v.failed)
    return v.failed


@pytest.mark.parametrize("gen", list(Gen), ids=lambda g: g.label)
def test_cast_rejects_every_extended_code(gen: Gen) -> None:
    """ref 000 §1 fact 7: in ∈ 12 plain, out ∈ 12 + FP32R, on every generation."""
    for code in EXTENDED:
        raw_in = example("is_valid_cast", in_dtype=code, out_dtype=Dtype.FP32)
        assert _failed(raw_in, gen) == (IN_CLAUSE,), (gen, code)
        raw_out = example("is_valid_cast", in_dtype=Dtype.FP32, out_dtype=code)
        assert _failed(raw_out, gen) == (OUT_CLAUSE,), (gen, code)
        copy = example("is_valid_copy", in_dtype=code, out_dtype=code)
        assert _failed(copy, gen) == (IN_CLAUSE, OUT_CLAUSE), (gen, code)


def test_cast_extended_message_and_fix_cite_ref_000() -> None:
    # /tmp/p6/t1.asm: CAST in_dtype=CPTC3 was reported valid on mariana
    v = explain(example("is_valid_cast", in_dtype=0x1B, out_dtype=Dtype.FP32), "mariana")
    cl = v.clause(IN_CLAUSE)
    assert not cl.passed
    assert "CPTC3 (0x1B)" in cl.message and "never reach Copy/Cast" in cl.message
    assert "ref 000 §1 fact 7, §4 NOTE, §6.2" in cl.message
    assert "plain dtype" in cl.fix
    # a plain failure keeps its own advice and no extended-code sentence
    fp32r = explain(example("is_valid_cast", in_dtype=Dtype.FP32R), "mariana").clause(IN_CLAUSE)
    assert "never reach" not in fp32r.message and "output-only" in fp32r.fix


def test_other_predicates_keep_the_isa_facts_gate() -> None:
    """Only Copy/Cast narrow: Reciprocal still admits FP8_EXP2 / CPTC (isa-facts §8.1)."""
    for gen in Gen:
        for code in (0x11, 0x19, 0x1F):
            raw = example("is_valid_reciprocal", in_dtype=code, out_dtype=code)
            assert explain(raw, gen).valid == (code in dtypes_of(gen)), (gen, code)


# -- ADDR4 register modes (isa-facts §2.2) ------------------------------------------------

@pytest.mark.parametrize("field", ["src_mem_pattern__start_addr", "dst_mem_pattern__start_addr"])
def test_indirect_reg_word_follows_the_mem_pattern_rule(field: str) -> None:
    """0xA0 INDIRECT_REG: legal where S4D4_TR operands are MEM_PATTERN (MARIANA on, §2.1)."""
    raw = example("is_valid_cast", **{field: 0xA0000005})
    label = "src" if field.startswith("src") else "dst"
    clause = f"tensor4d_valid({label})"
    for gen in (Gen.MARIANA, Gen.MAVERICK):
        assert _failed(raw, gen) == (), gen
    for gen in (Gen.SUNDA, Gen.CAYMAN):
        assert _failed(raw, gen) == (clause,), gen
        v = explain(raw, gen)
        assert v.failing_paths() == [f"{clause} › tensor_start_addr_valid › "
                                     "indirect_mem_pattern"]
        cl = v.node(f"{clause} › tensor_start_addr_valid")
        assert "INDIRECT_REG (R5)" in cl.message and "not a MEM_PATTERN operand" in cl.message
        assert "align" not in cl.fix and "ADDR_REG (0x80)" in cl.fix
        assert cl.fix_fields == {f"{label}_mem_pattern.start_addr": 0x80000005}


@pytest.mark.parametrize(("word", "fix_part"), [
    (0x80000041, "R0..R63"),  # R65
    (0xA0000041, "R0..R63"),
    (0x80000105, "clear bits 8..28"),
    (0x81000005, "clear bits 8..28"),
    (0xE0000005, "marker 0x80"),  # indirect+register+shape is not a listed marker
])
def test_bad_register_words_get_register_advice(word: int, fix_part: str) -> None:
    raw = example("is_valid_cast", src_mem_pattern__start_addr=word)
    for gen in Gen:
        assert _failed(raw, gen) == (src_clause(gen),), (gen, hex(word))
    v = explain(raw, "mariana")
    encoding = "mem4d_valid(src) › addr_register_encoding"
    assert v.failing_paths() == [encoding]
    cl = v.node(encoding)
    assert fix_part in cl.fix and "align" not in cl.fix, cl.fix
    assert "only the encoding" in cl.message
    # tensor_start_addr_valid skips register mode (isa-facts §2.3): it passes
    assert v.node("mem4d_valid(src) › tensor_start_addr_valid").passed


@pytest.mark.parametrize("word", [0x80000000, 0x8000003F, 0xC0000005])
def test_good_register_words_pass_everywhere(word: int) -> None:
    raw = example("is_valid_cast", src_mem_pattern__start_addr=word)
    for gen in Gen:
        assert _failed(raw, gen) == (), (gen, hex(word))


def test_immediate_misalignment_still_advises_alignment() -> None:
    raw = example("is_valid_cast", in_dtype=Dtype.FP32, src_mem_pattern__start_addr=0x2)
    v = explain(raw, "mariana")
    rule = "mem4d_valid(src) › tensor_start_addr_valid › addr_aligned_dtype"
    assert v.failing_paths() == [rule]
    cl = v.node(rule)
    assert cl.fix_fields == {"src_mem_pattern.start_addr": 0x0}
    assert cl.fix == "set src_mem_pattern.start_addr = 0x00000000 " \
        "(align src_mem_pattern.start_addr to 4 bytes)"


def test_indirect_immediate_off_chip_advice() -> None:
    raw = example("is_valid_cast", src_mem_pattern__start_addr=0x20000000 | 0x3000000)
    assert _failed(raw, Gen.MARIANA) == ("mem4d_valid(src)",)
    v = explain(raw, "mariana")
    on_chip = "mem4d_valid(src) › tensor_start_addr_valid › addr_on_chip"
    assert v.failing_paths() == [on_chip]
    assert "off-chip" in v.node(on_chip).message
    assert v.fix_fields == {"src_mem_pattern.start_addr": 0x20000000 | 0x2000000}  # PSUM base
    assert "point src_mem_pattern.start_addr into SBUF or PSUM" in v.node(on_chip).fix
    cayman = explain(raw, "cayman")
    assert cayman.failing_paths() == [RULE + "addr_on_chip", RULE + "indirect_mem_pattern"]
    assert "no INDIRECT on cayman" in cayman.node(RULE + "indirect_mem_pattern").fix


def test_int_aluop_has_27_members() -> None:
    """isa-facts §3.3 says "(26)" but its rule names 27: the rule wins (see dve.py)."""
    band = {op for op in AluOp if 0xC4 <= op <= 0xE1}
    assert len(band) == 30
    argmax = {AluOp.ARGMAX_INT, AluOp.ARGMIN_INT, AluOp.ARGMAX_UINT, AluOp.ARGMIN_UINT}
    assert INT_ALUOP == frozenset(band - argmax) | {AluOp.MOD}
    assert len(INT_ALUOP) == 27
    # MOD reaches TENSOR_TENSOR_ARITH (0x41) only through int_aluop (general_arith drops it)
    raw = example("is_valid_tensor_tensor_arith", op=AluOp.MOD)
    assert explain(raw, "cayman").valid
