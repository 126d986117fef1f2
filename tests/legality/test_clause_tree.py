"""The reference's clause tree: each predicate's top-level clauses are the
conjunction the reference writes, sub-predicates are children, a parent fails iff a
child does, and every offered fix is checked (applied, the whole predicate passes)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.legality.explain import explain, validate
from neurondbg.machine.legality.result import ClauseResult
from neurondbg.machine.legality.wire.registry import BY_NAME, predicate_for
from neurondbg.machine.legality.wire.repair import apply
from neurondbg.machine.legality.wire.samples import EXAMPLES, example

PSUM = 0x2000000


def names(pred: str, gen: Gen = Gen.CAYMAN) -> list[str]:
    return [c.name for c in BY_NAME[pred].clauses_for(gen) if not c.informational]


# -- one test per reference predicate: its clause names, in the reference's order --------

COPY_CONJUNCTION = [  # ref 000 §3.3, is_valid_copy verbatim
    "has_valid_neuron_header", "has_valid_neuron_events", "has_copy_opcode",
    "s4d4_tr_reserved_zero", "mask_enable_zero", "is_valid_dtype(in_dtype)",
    "is_valid_dtype(out_dtype)", "is_valid_enum(op)", "is_zero_subdim(op_dim)",
    "has_valid_active_channel_range", "start_addr_active_channels(src)",
    "start_addr_active_channels(dst)", "tensor4d_valid(src)", "tensor4d_valid(dst)",
    "s4d4_tr_same_src_dst_count", "s4d4_tr_op_bypass", "s4d4_tr_same_src_dst_type",
    "has_zero_negated_field"]


def test_is_valid_copy_clauses() -> None:
    assert names("is_valid_copy") == COPY_CONJUNCTION


def test_is_valid_cast_clauses() -> None:
    """ref 000 §3.3: byte-identical to is_valid_copy except it omits same_src_dst_type."""
    expected = [("has_cast_opcode" if n == "has_copy_opcode" else n) for n in COPY_CONJUNCTION
                if n != "s4d4_tr_same_src_dst_type"]
    assert names("is_valid_cast") == expected


def test_is_valid_ctrl_mv_clauses() -> None:
    """ref 001 §3.3 (has_tile_idx_zero on maverick only), then the two header notes."""
    body = ["has_move_opcode", "ctrl_mv_valid_num", "ctrl_mv_reserved_zero",
            "ctrl_mv_has_valid_dtype", "is_valid_enum(move_source)",
            *(f"ctrl_mv_valid_register({i})" for i in range(8)),
            "ctrl_mv_unique_dst_registers", "ctrl_mv_dst_not_in_src_registers"]
    head = ["has_valid_neuron_header", "has_valid_neuron_events"]
    assert names("is_valid_ctrl_mv", Gen.CAYMAN) == head + body
    assert names("is_valid_ctrl_mv", Gen.MAVERICK) == [*head, "has_tile_idx_zero", *body]
    notes = [c.name for c in BY_NAME["is_valid_ctrl_mv"].clauses if c.note]
    assert notes == body[-2:]


def test_is_valid_copy_cast_predicated_clauses() -> None:
    """isa-facts §5.2 items 1-9, in order."""
    assert names("is_valid_copy_cast_predicated") == [
        "has_valid_neuron_header", "has_valid_neuron_events",  # 1
        "is_valid_dtype(out_dtype)", "is_valid_dtype(dtype_lo)", "is_valid_dtype(dtype_hi)",
        "is_valid_int_dtype_datapath(dtype_lo)",  # 3
        "is_cast_predicated_or_same_dtype", "op_bypass",  # 4, 5
        "check_active_channels", "start_addr_active_channels(src0)",
        "start_addr_active_channels(src1)", "start_addr_active_channels(dst)",  # 6
        "tensor3d_valid(src0)", "tensor3d_valid(src1)", "tensor3d_valid(dst)",  # 7
        "tt_same_element_count", "tt_valid_partitions(src0, src1)"]  # 8, 9


def test_is_valid_range_select_is_a_conjunction_of_21_checks() -> None:
    """isa-facts §6.4: 21 checks, including start_addr_active_channels of src and dst."""
    got = names("is_valid_range_select")
    assert len(got) == 21
    assert {"start_addr_active_channels(src)", "start_addr_active_channels(dst)",
            "has_valid_nc_rs", "range_select_valid_reduce_cmd"} <= set(got)


def test_tensor_nd_valid_and_tensor_start_addr_valid_children() -> None:
    """isa-facts §2.3: tensorNd_valid = every num >= 1 && tensor_start_addr_valid, whose
    rules 1-4 (then the MEM_PATTERN rule) are its children; the register encoding, which
    §2.3 skips in register mode, is beside it."""
    top = BY_NAME["is_valid_copy"].clauses
    t4 = next(c for c in top if c.name == "tensor4d_valid(dst)")
    assert [c.name for c in t4.children] == ["num_elem_valid", "tensor_start_addr_valid",
                                             "addr_register_encoding"]
    assert [c.name for c in t4.children[1].children] == [
        "addr_aligned_dtype", "addr_on_chip", "allow_psum", "allow_sbuf",
        "psum_write_4byte_dtype", "indirect_mem_pattern"]
    assert "tensor_start_addr_valid(dst)" not in {c.name for c in top}  # not a sibling


@pytest.mark.parametrize(("gen", "name"), [(Gen.SUNDA, "tensor4d_valid"),
                                           (Gen.CAYMAN, "tensor4d_valid"),
                                           (Gen.MARIANA, "mem4d_valid"),
                                           (Gen.MAVERICK, "mem4d_valid")])
def test_a_mem_pattern_operand_is_named_as_the_reference_names_it(gen: Gen, name: str) -> None:
    """S4D4_TR's operands are MEM_PATTERN4D from mariana on (isa-facts §2.1): memNd_valid,
    the MEM_PATTERN version of tensorNd_valid (§2.3), on those generations only."""
    got = [n for n in names("is_valid_copy", gen) if n.endswith("d_valid(src)")
           or n.endswith("d_valid(dst)")]
    assert got == [f"{name}(src)", f"{name}(dst)"]


def test_the_register_encoding_is_not_a_rule_of_the_start_address() -> None:
    """A register-mode word with a bad encoding fails addr_register_encoding, beside a
    passing tensor_start_addr_valid (skipped in register mode, isa-facts §2.3)."""
    v = explain(example("is_valid_copy", src_mem_pattern__start_addr=0x80000041), "cayman")
    assert v.failing_paths() == ["tensor4d_valid(src) › addr_register_encoding"]
    assert v.node("tensor4d_valid(src) › tensor_start_addr_valid").passed
    assert "skipped" in v.node("tensor4d_valid(src) › tensor_start_addr_valid").message


def test_ctrl_mv_valid_register_nests_the_read_and_write_rules() -> None:
    """ref 001 §3.3: ctrl_mv_valid_register(i) = unused-and-zero || (is_valid_register_read
    (src) && is_valid_register_write(dst)); exhaustive over one slot's source and
    destination bytes, used and unused."""
    pred = BY_NAME["is_valid_ctrl_mv"]
    slot = next(c for c in pred.clauses if c.name == "ctrl_mv_valid_register(2)")
    assert [c.name for c in slot.children] == ["is_valid_register_read(src_registers[2])",
                                               "is_valid_register_write(dst_registers[2])"]
    struct = STRUCTS["CTRL_MV"]
    base = np.frombuffer(example("is_valid_ctrl_mv"), dtype=struct.dtype)
    grid = [(n, s, d) for n in (1, 3) for s in range(256) for d in range(256)]
    recs = np.repeat(base, len(grid))
    recs["num_mov"] = [n for n, _, _ in grid]
    recs["src_registers"][:, 2] = [s for _, s, _ in grid]
    recs["dst_registers"][:, 2] = [d for _, _, d in grid]
    from neurondbg.machine.legality.wire.clause import Ctx, Rows
    rows = Rows(recs, Ctx(Gen.CAYMAN))
    legal = set(range(64)) | {128, 129}
    want = [(n <= 2 and s == 0) or (s in legal and d in legal) for n, s, d in grid]
    assert slot.check(rows).tolist() == want
    read, write = (ch.check(rows).tolist() for ch in slot.children)
    assert read == [(n <= 2 and s == 0) or s in legal for n, s, _ in grid]
    assert write == [(n <= 2 and s == 0) or d in legal for n, s, d in grid]


@pytest.mark.parametrize(("clause", "children"), [
    ("has_valid_neuron_header", ["is_valid_enum(opcode)", "has_inst_word_len_16"]),
    ("has_valid_neuron_events", ["is_valid_enum(wait_mode)", "is_valid_enum(update_mode)"]),
])
def test_header_and_events_nest_their_rules(clause: str, children: list[str]) -> None:
    """isa-facts §1.1-1.2: each lists its rules; a parent fails exactly when one does."""
    top = next(c for c in BY_NAME["is_valid_copy"].clauses if c.name == clause)
    assert [c.name for c in top.children] == children
    bad = {"has_valid_neuron_header": {"header__inst_word_len": 15},
           "has_valid_neuron_events": {"events__update_mode": 0x06}}[clause]
    v = explain(example("is_valid_copy", **bad), "cayman")
    assert v.failing_paths() == [f"{clause} › {children[-1]}"]


@pytest.mark.parametrize(("gen", "subs"), [
    (Gen.SUNDA, []),  # no 4-bit or scale codes: the gate is one rule
    (Gen.CAYMAN, []),
    (Gen.MARIANA, ["dtype_base_check", "dtype_4bit_illegal_check"]),
    (Gen.MAVERICK, ["dtype_base_check", "dtype_4bit_illegal_check",
                    "dtype_scale_illegal_check"]),
])
def test_is_valid_dtype_nests_its_sub_rules_where_the_generation_has_them(
        gen: Gen, subs: list[str]) -> None:
    """ref 000 §4 NOTE: the gate rejects the 4-bit and scale dtypes by two named checks;
    they appear on the generations whose enum has such codes (with the gate's other rules
    as `dtype_base_check` beside them)."""
    v = explain(example("is_valid_tensor_tensor_arith"), gen, fixes=False)
    node = v.node("is_valid_dtype(out_dtype)")
    assert [c.name for c in node.children] == subs


@pytest.mark.parametrize(("code", "leaf"), [(Dtype.FP4_EXP2, "dtype_4bit_illegal_check"),
                                            (Dtype.INT4, "dtype_4bit_illegal_check"),
                                            (Dtype.SFP8_E8, "dtype_scale_illegal_check"),
                                            (Dtype.INVALID, "dtype_base_check"),
                                            (Dtype.UINT64, "dtype_base_check")])
def test_a_rejected_dtype_fails_its_sub_rule(code: int, leaf: str) -> None:
    """Exactly the sub-rule that names the code fails (maverick has every one)."""
    raw = example("is_valid_tensor_scalar", out_dtype=code)
    v = explain(raw, Gen.MAVERICK, fixes=False)
    paths = [p for p in v.failing_paths() if p.startswith("is_valid_dtype(out_dtype)")]
    assert paths == [f"is_valid_dtype(out_dtype) › {leaf}"]


def test_the_dtype_gate_is_its_sub_rules_conjunction() -> None:
    """Exhaustive over every code and generation: the composite's verdict is the gate's."""
    from neurondbg.machine.legality.wire import gates
    from neurondbg.machine.legality.wire.clause import Ctx, Rows
    from neurondbg.machine.legality.wire.common import dtype_clause
    from neurondbg.machine.legality.wire.operands import DtypeRef
    struct = STRUCTS["S3D3_TS"]
    recs = np.repeat(np.frombuffer(example("is_valid_tensor_scalar"), dtype=struct.dtype), 256)
    recs["out_dtype"] = np.arange(256)
    for gen in Gen:
        for fp32r, b64, plain in ((False, False, False), (True, False, False),
                                  (False, True, False), (False, False, True)):
            cl = dtype_clause(DtypeRef("out_dtype"), fp32r, b64, plain=plain)
            got = cl.check(Rows(recs, Ctx(gen)))
            assert got.tolist() == gates.dtype_gate(gen, fp32r, b64, plain).tolist()


# -- the tree ------------------------------------------------------------------------------

def test_unaligned_address_fails_tensor4d_valid_through_the_path() -> None:
    """An unaligned dst fails tensor4d_valid(dst), down to addr_aligned_dtype."""
    v = explain(example("is_valid_copy", dst_mem_pattern__start_addr=0x401), "cayman")
    assert v.failed == ("tensor4d_valid(dst)",)
    assert v.failing_paths() == [
        "tensor4d_valid(dst) › tensor_start_addr_valid › addr_aligned_dtype"]
    assert not v.clause("tensor4d_valid(dst)").passed
    assert validate(example("is_valid_copy", dst_mem_pattern__start_addr=0x401),
                    "cayman").clauses_of(0)["tensor4d_valid(dst)"] is False


def test_count_clause_is_evaluated_even_when_a_count_is_zero() -> None:
    """s4d4_tr_same_src_dst_count fails when one operand has a zero count."""
    raw = example("is_valid_copy", dst_mem_pattern__num_elem=(0, 1, 1, 1))
    v = explain(raw, "cayman")
    assert v.failed == ("tensor4d_valid(dst)", "s4d4_tr_same_src_dst_count")
    assert v.clause("s4d4_tr_same_src_dst_count").message == \
        "element counts src 4, dst 0: must be equal"
    assert validate(raw, "cayman").failed_of(0) == list(v.failed)


def test_tree_dict_shape() -> None:
    v = explain(example("is_valid_copy", dst_mem_pattern__start_addr=0x401), "cayman")
    node = next(n for n in v.tree() if n["name"] == "tensor4d_valid(dst)")
    assert set(node) == {"name", "ok", "message", "fix", "provenance", "children"}
    assert node["ok"] is False
    tsav = node["children"][1]
    assert tsav["name"] == "tensor_start_addr_valid" and tsav["ok"] is False
    aligned = tsav["children"][0]
    assert aligned["name"] == "addr_aligned_dtype" and aligned["children"] == []
    assert aligned["fix"]["fields"] == {"dst_mem_pattern.start_addr": 0x400}
    assert aligned["provenance"] == {"ref": "isa-facts",
                                     "section": "§2.3 tensor_start_addr_valid rule 1",
                                     "confidence": "HIGH"}


# -- property: tree agrees with clauses, parent iff child, fixes pass ----------------------

def _walk(c: ClauseResult):
    yield c
    for ch in c.children:
        yield from _walk(ch)


def _applied(raw: bytes, fields) -> bytes:
    struct = STRUCTS[predicate_for(raw[0]).struct]
    rec = np.frombuffer(raw, dtype=struct.dtype).copy()
    return apply(struct, rec, fields).tobytes()


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(sorted(EXAMPLES)), data=st.data(),
       gen=st.sampled_from([Gen.CAYMAN, Gen.MARIANA, Gen.SUNDA]))
def test_tree_agrees_with_clauses_and_fixes_pass(name: str, data, gen: Gen) -> None:
    raw = bytearray(example(name))
    for _ in range(data.draw(st.integers(1, 3))):  # a few random bytes past the opcode
        raw[data.draw(st.integers(1, 63))] = data.draw(st.integers(0, 255))
    raw = bytes(raw)
    v = explain(raw, gen)
    bulk = validate(raw, gen)
    assert {c.name: c.passed for c in v.clauses} == bulk.clauses_of(0)
    for top in v.clauses:
        for node in _walk(top):
            if node.children:
                assert node.passed == all(ch.passed for ch in node.children), node.name
    offered = [v.fix_fields, v.partial_fix] + [n.fix_fields for top in v.clauses
                                               for n in _walk(top)]
    for fields in offered:
        if fields is not None:
            fixed = explain(_applied(raw, fields), gen)
            if v.partial_fix is None:
                assert fixed.valid, (fields, fixed.failed)
            else:  # some clause has no fix: the others' fixes leave only such clauses
                assert set(fixed.failed) < set(v.failed), (fields, fixed.failed)
    if not v.valid:
        assert v.fix_fields is not None or v.no_fix
    if v.partial_fix is not None:
        assert v.fix_fields is None and v.no_fix and "cannot be fixed" in v.no_fix


def test_several_failures_get_one_smallest_combined_fix() -> None:
    raw = example("is_valid_copy", out_dtype=Dtype.BF16, dst_mem_pattern__start_addr=PSUM + 1)
    v = explain(raw, "cayman")
    assert v.failed == ("tensor4d_valid(dst)", "s4d4_tr_same_src_dst_type")
    # one dtype edit fixes same-type and the PSUM write; the address needs aligning
    assert v.fix_fields == {"dst_mem_pattern.start_addr": PSUM, "out_dtype": Dtype.FP32}
    assert explain(_applied(raw, v.fix_fields), "cayman").valid


def test_has_valid_immediates_children() -> None:
    """isa-facts §6.4: POINTER -> tpb_addr_active_channels && addr_aligned_dtype;
    REG_PTR -> is_valid_imm_reg; each a child of has_valid_immediates(<slot>)."""
    top = next(c for c in BY_NAME["is_valid_tensor_scalar"].clauses
               if c.name == "has_valid_immediates(imm0)")
    assert [c.name for c in top.children] == [
        "tpb_addr_active_channels", "addr_aligned_dtype", "is_valid_imm_reg"]
    raw = example("is_valid_tensor_scalar", imm0_src=1, imm0=0x2)  # a misaligned pointer
    v = explain(raw, "cayman")
    assert v.failing_paths() == ["has_valid_immediates(imm0) › addr_aligned_dtype"]
    assert v.fix_fields == {"imm0": 0x0}


def test_pane_shows_the_failing_branch_and_folds_the_rest() -> None:
    from neurondbg.views.legality import verdict_lines

    v = explain(example("is_valid_copy", dst_mem_pattern__start_addr=0x401), "cayman")
    text = [line.plain for line in verdict_lines(v, "wire")]
    assert text[0] == "wire is_valid_copy  INVALID  1 of 18 clauses fail"
    assert text[1] == ("  fix (checked: the whole predicate passes): "
                       "set dst_mem_pattern.start_addr = 0x00000400")
    assert text[2] == " ✗ tensor4d_valid(dst)"
    assert "   ✗ tensor_start_addr_valid" in text
    assert "     ✗ addr_aligned_dtype" in text
    assert "     · 5 more pass: addr_on_chip, allow_psum, allow_sbuf, psum_write_4byte_dtype, " \
        "indirect_mem_pattern" in text
    assert "   · 2 more pass: num_elem_valid, addr_register_encoding" in text
    full = [line.plain for line in verdict_lines(v, "wire", expand=True)]
    assert any(line.startswith("     ✓ addr_on_chip") for line in full)
    assert not any("more pass" in line for line in full)
