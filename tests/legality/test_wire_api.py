"""explain / validate: reference coverage, generation differences, messages, engines,
and bulk-vs-single agreement on random records (hypothesis)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.isa import addr as isa_addr
from neurondbg.machine.isa.codec import decode
from neurondbg.machine.isa.opcodes import OPCODES
from neurondbg.machine.legality.explain import explain, validate
from neurondbg.machine.legality.wire.operands import decode_words
from neurondbg.machine.legality.wire.registry import ALL_PREDICATES, predicate_for
from neurondbg.machine.legality.wire.samples import example

REFERENCE = Path("/work/shared/reference")
PSUM = 0x2000000


def all_clause_names() -> set[str]:
    names = {p.name for p in ALL_PREDICATES}
    for p in ALL_PREDICATES:
        names |= {c.name.split("(")[0] for c in p.clauses}
        names |= {c.name for c in p.clauses}
    return names


REF_000_001 = (
    "is_valid_copy is_valid_cast has_valid_neuron_header has_valid_neuron_events "
    "has_copy_opcode s4d4_tr_reserved_zero mask_enable_zero is_valid_dtype is_valid_enum "
    "is_zero_subdim has_valid_active_channel_range start_addr_active_channels tensor4d_valid "
    "s4d4_tr_same_src_dst_count s4d4_tr_op_bypass s4d4_tr_same_src_dst_type "
    "has_zero_negated_field has_multiple_32_channels is_valid_dtype_64 is_valid_ctrl_mv "
    "has_tile_idx_zero has_move_opcode ctrl_mv_valid_num ctrl_mv_reserved_zero "
    "ctrl_mv_has_valid_dtype ctrl_mv_valid_register is_valid_register_read "
    "is_valid_register_write").split()


def test_every_predicate_of_references_000_and_001_is_covered_by_name() -> None:
    assert set(REF_000_001) <= all_clause_names(), set(REF_000_001) - all_clause_names()


@pytest.mark.skipif(not REFERENCE.exists(), reason="reference documents not present")
def test_reference_predicate_names_are_all_listed() -> None:
    """The list above is what the reference texts name (so it cannot silently shrink)."""
    pat = re.compile(r"\b((?:is_valid|has|ctrl_mv|s4d4_tr|tensor\dd|start_addr|mask)_[a-z0-9_]+)")
    found = set()
    for ref in ("000_316fd55e9131fc67.txt", "001_e3017e7425baf063.txt"):
        found |= set(pat.findall((REFERENCE / ref).read_text()))
    found.discard("mask_enable")  # a field, not a predicate
    assert found <= set(REF_000_001), found - set(REF_000_001)


def test_worked_example_message() -> None:
    v = explain(example("is_valid_copy", out_dtype=Dtype.BF16), "cayman")
    c = v.clause("s4d4_tr_same_src_dst_type")
    assert c.message == ("out_dtype BF16 (0x6) != in_dtype FP32 (0xA): Copy keeps the dtype; "
                         "Cast (0x47) converts")
    assert c.fix and "CAST" in c.fix
    assert str(c.provenance) == "ref 000 §3.3 (HIGH)"
    assert v.predicate == "is_valid_copy" and v.level == "wire" and not v.valid


def test_explain_accepts_decoded_instructions() -> None:
    inst = decode(example("is_valid_cast"), offset=64, index=1)
    assert explain(inst, Gen.CAYMAN).valid
    assert predicate_for(inst.opcode).name == "is_valid_cast"


def test_cast_matrix_12_in_13_out() -> None:
    """ref 000 §6.2: any of 12 inputs to any of 12 + FP32R outputs; no 64-bit, no FP32R in."""
    ins = [d for d in Dtype if d <= 0xF and d not in (0, 1, 0xB, 0xC)]
    assert len(ins) == 12
    for i in range(16):
        for o in range(16):
            raw = example("is_valid_cast", in_dtype=i, out_dtype=o,
                          src_mem_pattern__start_addr=0, dst_mem_pattern__start_addr=0x800)
            ok = explain(raw, "cayman").valid
            assert ok == (i in ins and (o in ins or o == Dtype.FP32R)), (i, o)
            copy = example("is_valid_copy", in_dtype=i, out_dtype=o,
                           dst_mem_pattern__start_addr=0x800)
            assert explain(copy, "cayman").valid == (ok and i == o), (i, o)


def test_move_dtype_gate_and_register_specifiers() -> None:
    for d in range(32):
        v = explain(example("is_valid_ctrl_mv", dtype=d), "cayman")
        assert v.valid == (d in (0x8, 0x9, 0xA)), d
    # 128/129 read the PC; writes to them are legal and ignored (DESIGN gaps)
    pc = example("is_valid_ctrl_mv", src_registers=(128, 129, 0, 0, 0, 0, 0, 0),
                 dst_registers=(5, 129, 0, 0, 0, 0, 0, 0))
    assert explain(pc, "cayman").valid
    bad = example("is_valid_ctrl_mv", dst_registers=(3, 130, 0, 0, 0, 0, 0, 0))
    assert explain(bad, "cayman").failed == ("ctrl_mv_valid_register(1)",)


def test_move_header_notes_are_notes() -> None:
    v = explain(example("is_valid_ctrl_mv", dst_registers=(1, 1, 0, 0, 0, 0, 0, 0)), "cayman")
    assert v.valid
    assert set(v.notes) == {"ctrl_mv_unique_dst_registers", "ctrl_mv_dst_not_in_src_registers"}
    assert all(c.note for c in v.clauses if c.name in v.notes)
    # an immediate move reads no registers: only uniqueness applies
    imm = example("is_valid_ctrl_mv", move_source=1, dst_registers=(1, 2, 0, 0, 0, 0, 0, 0))
    assert explain(imm, "cayman").notes == ()


def test_psum_write_needs_a_four_byte_dtype() -> None:
    psum_dst = {"dst_mem_pattern__start_addr": PSUM + 0x100}
    v = explain(example("is_valid_cast", **psum_dst), "cayman")
    assert v.failed == ("tensor4d_valid(dst)",)
    rule = "tensor4d_valid(dst) › tensor_start_addr_valid › psum_write_4byte_dtype"
    assert v.failing_paths() == [rule]
    assert "written to PSUM, which needs a 4-byte dtype" in v.node(rule).message
    assert v.node(rule).fix_fields == {"out_dtype": Dtype.FP32}
    assert explain(example("is_valid_cast", out_dtype=Dtype.FP32, **psum_dst), "cayman").valid
    # reading a 2-byte dtype from PSUM is fine
    src = example("is_valid_cast", in_dtype=Dtype.BF16, src_mem_pattern__start_addr=PSUM)
    assert explain(src, "cayman").valid


def test_generation_memory_geometry() -> None:
    # byte 200 KiB of partition 0: backed on cayman (224 KiB), not on sunda (192 KiB)
    raw = example("is_valid_copy", dst_mem_pattern__start_addr=200 * 1024)
    assert explain(raw, "cayman").valid
    sunda = explain(raw, "sunda")
    assert sunda.failed == ("tensor4d_valid(dst)",)
    on_chip = "tensor4d_valid(dst) › tensor_start_addr_valid › addr_on_chip"
    assert sunda.failing_paths() == [on_chip]
    assert "SBUF partition 0 byte 204800, beyond the 196608 active SBUF bytes per " \
        "partition on sunda" in sunda.node(on_chip).message
    # maverick has no PSUM (PSUM_BUF_SZ = 0): 0x2000000 is SBUF partition 32 there
    psum = example("is_valid_copy", dst_mem_pattern__start_addr=PSUM)
    assert explain(psum, "cayman").valid
    v = explain(psum, "maverick")
    assert "SBUF partition 32" in v.clause("mem4d_valid(dst)").children[1].message
    assert v.failed == ("start_addr_active_channels(dst)",)  # 32 + 128 channels > 128
    # start partition 100 + 128 channels overflows the array everywhere
    far = example("is_valid_copy", dst_mem_pattern__start_addr=100 * 0x40000)
    assert explain(far, "cayman").failed == ("start_addr_active_channels(dst)",)


def test_generation_dtype_sets() -> None:
    # extension codes: FP8_EXP2 (0x11) exists on maverick only; CPTC (0x19..) from mariana;
    # the 4-bit and scale types are rejected by is_valid_dtype everywhere (isa-facts §8.1)
    def ok(code: int, gen: str, pred: str = "is_valid_reciprocal") -> bool:
        raw = example(pred, in_dtype=code, out_dtype=code)
        return explain(raw, gen).valid

    assert [ok(0x11, g.label) for g in Gen] == [False, False, False, True]
    assert [ok(0x19, g.label) for g in Gen] == [False, False, True, True]
    for code in (0x10, 0x12, 0x13, 0x16):
        assert not any(ok(code, g.label) for g in Gen)
    # Copy/Cast never take an extended code (ref 000 §4 NOTE, §6.2)
    for code in (0x11, 0x19):
        assert not any(ok(code, g.label, "is_valid_copy") for g in Gen)
    # is_valid_dtype_64 adds the 64-bit types (TensorReduce)
    red = example("is_valid_tensor_reduce", in_dtype=Dtype.INT64, out_dtype=Dtype.UINT64)
    assert explain(red, "cayman").valid
    assert not explain(example("is_valid_copy", in_dtype=Dtype.INT64, out_dtype=Dtype.INT64),
                       "cayman").valid


def test_generation_opcode_presence() -> None:
    jpeg = bytes([0x81, 16]) + bytes(62)  # JPEG_DECODE: +v3, no documented predicate
    assert explain(jpeg, "sunda").failed == ("has_valid_neuron_header",)
    v = explain(jpeg, "cayman")
    assert v.valid and v.predicate == "header_and_events_only"
    assert "no documented predicate" in {c.name for c in v.clauses}
    sunda_only = bytes([0x8A, 16]) + bytes(62)
    assert explain(sunda_only, "sunda").valid and not explain(sunda_only, "cayman").valid
    assert not explain(bytes([0xFF, 16]) + bytes(62), "cayman").valid  # the INVALID sentinel


def test_range_select_reduce_cmd_wire_set() -> None:
    # isa-facts §6.3: {IDLE, ACCUMULATE, ZERO_ACCUMULATE}; ZERO (NKI `reset`) is rejected
    for cmd in range(6):
        v = explain(example("is_valid_range_select", reduce_cmd=cmd), "cayman")
        assert v.valid == (cmd in (0, 2, 3)), cmd
    for cmd in range(6):
        v = explain(example("is_valid_select_reduce", accumulator_cmd=cmd), "cayman")
        assert v.valid == (cmd in (0, 2, 3)), cmd
        v = explain(example("is_valid_tensor_scalar_cache_reduce", accumulator_cmd=cmd), "cayman")
        assert v.valid == (cmd in (2, 3, 4)), cmd
        v = explain(example("is_valid_tensor_scalar", accumulator_cmd=cmd), "cayman")
        assert v.valid == (cmd == 0), cmd


def test_engine_dispatch_clause() -> None:
    copy, pred, move = (example(n) for n in
                        ("is_valid_copy", "is_valid_copy_cast_predicated", "is_valid_ctrl_mv"))
    assert explain(copy, "cayman", engine="pool").valid
    v = explain(pred, "cayman", engine="pool")
    assert v.failed == ("engine_has_opcode(pool)",)
    assert explain(pred, "cayman", engine="dve").valid
    for eng in ("pool", "dve", "act", "pe", "sp"):
        assert explain(move, "cayman", engine=eng).valid  # SEQ control runs everywhere
    assert validate(copy + pred, "cayman", engine="pool").failures == \
        {"engine_has_opcode(pool)": 1}
    with pytest.raises(ValueError):
        validate(copy, "cayman", engine="gpu")


@settings(deadline=None, max_examples=60)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=64),
       st.sampled_from(list(Gen)))
def test_fast_addr_decode_matches_isa(words: list[int], gen: Gen) -> None:
    w = np.array(words, dtype=np.uint32)
    ref = isa_addr.decode_addr4_array(w, gen)
    mine = decode_words(w, gen)
    np.testing.assert_array_equal(mine.register, ref.is_register)
    np.testing.assert_array_equal(mine.shape, ref.is_shape)
    np.testing.assert_array_equal(mine.indirect, ref.is_indirect)
    np.testing.assert_array_equal(mine.space, ref.space)
    np.testing.assert_array_equal(mine.partition, ref.partition)
    np.testing.assert_array_equal(mine.offset, ref.offset)


KNOWN = sorted(OPCODES)


@st.composite
def records(draw) -> bytes:
    """Random records near validity: a valid example with a few random bytes."""
    p = draw(st.sampled_from(ALL_PREDICATES))
    base = bytearray(example(p.name))
    for _ in range(draw(st.integers(0, 4))):
        pos = draw(st.integers(0, 63))
        base[pos] = draw(st.integers(0, 255))
    if draw(st.booleans()):
        base[0] = draw(st.sampled_from(KNOWN))
    return bytes(base)


@settings(deadline=None, max_examples=40)
@given(st.lists(records(), min_size=1, max_size=12), st.sampled_from(list(Gen)),
       st.sampled_from([None, "pool", "dve"]))
def test_validate_agrees_with_explain(recs: list[bytes], gen: Gen, engine: str | None) -> None:
    bulk = validate(b"".join(recs), gen, engine)
    assert bulk.count == len(recs)
    for i, raw in enumerate(recs):
        v = explain(raw, gen, engine)
        assert bulk.clauses_of(i) == {c.name: c.passed for c in v.clauses}
        assert bool(bulk.valid[i]) == v.valid
        assert bulk.failed_of(i) == list(v.failed)
        assert bulk.predicate_of(i).name == v.predicate
    assert bulk.invalid == int((~bulk.valid).sum())
    assert sum(bulk.failures.values()) >= bulk.invalid


def test_messages_never_raise_on_random_bytes() -> None:
    rng = np.random.default_rng(4)
    raw = rng.integers(0, 256, (300, 64), dtype=np.uint8)
    raw[:, 0] = rng.choice(KNOWN, 300)
    for gen in Gen:
        for row in raw:
            v = explain(row.tobytes(), gen)
            assert all(c.message for c in v.clauses)
    # any predicate forced on any bytes: still a verdict, never an exception
    for p in ALL_PREDICATES:
        for row in raw[:5]:
            v = explain(row.tobytes(), "maverick", "act", predicate=p.name)
            assert v.predicate == p.name and all(c.message for c in v.clauses)


def test_validate_inputs() -> None:
    raw = example("is_valid_copy") * 2
    arr = np.frombuffer(raw, dtype=np.uint8)
    assert validate(arr, "cayman").count == 2
    assert validate(arr.reshape(2, 64), "cayman").count == 2
    assert validate(b"", "cayman").count == 0
    with pytest.raises(ValueError):
        validate(raw[:70], "cayman")


def test_levels_show_where_wire_and_nki_disagree() -> None:
    from neurondbg.machine.legality.explain import explain_levels
    # reduce_cmd reset: legal for the range_select intrinsic, ACCUM_CMD ZERO illegal on the wire
    lv = explain_levels(example("is_valid_range_select", reduce_cmd=AccumCmdZero), "cayman")
    assert lv.intrinsic == "range_select"
    assert lv.wire.failed == ("range_select_valid_reduce_cmd",)
    assert lv.nki is not None and lv.nki.valid and lv.nki.level == "nki"
    assert [d.topic for d in lv.disagreements] == ["reduce_cmd reset"]
    ok = explain_levels(example("is_valid_range_select"), "cayman")
    assert ok.wire.valid and ok.disagreements == ()
    # a signed predicate: legal on the wire, not for tensor_copy_predicated
    signed = example("is_valid_copy_cast_predicated",
                     in0_in1_dtype=Dtype.INT8 | (Dtype.FP32 << 4))
    lv = explain_levels(signed, "cayman")
    assert lv.wire.valid and lv.nki is not None and not lv.nki.valid
    assert "signed predicate dtype" in [d.topic for d in lv.disagreements]
    # MOVE corresponds to no intrinsic
    mv = explain_levels(example("is_valid_ctrl_mv"), "cayman")
    assert (mv.intrinsic, mv.nki, mv.disagreements) == (None, None, ())
    assert set(mv.to_dict()) == {"wire", "intrinsic", "nki", "disagreements"}


AccumCmdZero = 1  # ACCUM_CMD ZERO (isa-facts §6.1) = NKI reduce_cmd `reset` by name
