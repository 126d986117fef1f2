"""The instruction <-> intrinsic bridge: table, fields -> args, disagreements."""

from __future__ import annotations

from typing import Any

import pytest

from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.isa import codec
from neurondbg.machine.isa.addr import encode_address
from neurondbg.machine.isa.enums import AccumCmd, AluOp, ReduceOp
from neurondbg.machine.isa.opcodes import OPCODES
from neurondbg.machine.isa.structs import STRUCTS, make_pair
from neurondbg.machine.legality.nki import (
    CATALOG,
    CORRESPONDENCE,
    DISAGREEMENTS,
    ReduceCmd,
    args_from_fields,
    check_fields,
    disagreements,
    intrinsic_for_opcode,
)
from neurondbg.machine.legality.nki.bridge import ACCUM_TO_REDUCE_CMD


@pytest.mark.parametrize(("opcode", "intrinsic"), [
    (0xBC, "range_select"), (0xEA, "select_reduce"), (0x72, "tensor_copy_predicated"),
    (0x9A, "tensor_scalar_reduce"), (0xE6, "tensor_scalar_cumulative"), (0x6C, "max8"),
    (0xBD, "dma_transpose"), (0xF1, "dma_transpose"), (0x49, "memset"),
])
def test_correspondence_by_opcode_number(opcode: int, intrinsic: str) -> None:
    corr = intrinsic_for_opcode(opcode)
    assert corr is not None and corr.intrinsic == intrinsic
    assert corr.mnemonic == OPCODES[opcode].name


def test_correspondence_table_is_consistent() -> None:
    assert intrinsic_for_opcode(0x46 + 0x100) is None
    for code, corr in CORRESPONDENCE.items():
        assert code == corr.opcode and code in OPCODES
        assert corr.confidence in ("HIGH", "MED", "LOW")
        assert corr.modelled == (corr.intrinsic in CATALOG)
    assert not CORRESPONDENCE[0x9A].modelled  # compute half: no rules in ref 004
    assert {c.intrinsic for c in CORRESPONDENCE.values() if c.modelled} == set(CATALOG) - {
        "tensor_copy_dynamic_src", "tensor_copy_dynamic_dst", "dma_copy", "builtin_custom_op",
        "activation"}  # its reduce_cmd gate only: no wire opcode is paired with it


def test_accum_cmd_maps_by_name() -> None:
    assert {a.name: r.name for a, r in ACCUM_TO_REDUCE_CMD.items()} == {
        "IDLE": "idle", "ZERO": "reset", "ACCUMULATE": "reduce",
        "ZERO_ACCUMULATE": "reset_reduce", "LOAD_ACCUMULATE": "load_reduce"}


def _decode(struct: str, opcode: int, **fields: Any) -> codec.Instruction:
    values = {"header.opcode": opcode, "header.inst_word_len": 16, **fields}
    return codec.decode(codec.encode(STRUCTS[struct], values))


def _range_select(cmd: int = AccumCmd.IDLE, **fields: Any) -> codec.Instruction:
    base = {"nac": 128, "in_out_dtype": make_pair(Dtype.BF16, Dtype.BF16), "reduce_cmd": cmd,
            "reduce_op": ReduceOp.MAX, "fill_val": 0xFF7FFFFF, "comp_op0": AluOp.IS_GE,
            "comp_op1": AluOp.IS_LT, "src.num_elem": [64, 1], "dst.num_elem": [64, 1]}
    return _decode("S2D2_RS", 0xBC, **{**base, **fields})


def test_range_select_fields_to_args() -> None:
    inst = _range_select(AccumCmd.ZERO_ACCUMULATE, base=100)
    args = args_from_fields(inst.opcode, inst.fields, Gen.CAYMAN)
    assert args["reduce_cmd"] is ReduceCmd.reset_reduce
    assert (args["comp_op0"], args["comp_op1"], args["reduce_op"]) == ("greater_equal", "less",
                                                                        "max")
    assert args["on_true_tile"].shape == (128, 64) and args["on_true_tile"].dtype.name == "bfloat16"
    assert args["range_start"] == 100
    assert args["on_false_value"].value == pytest.approx(-3.4028234663852886e38)
    verdict = check_fields(inst.opcode, inst.fields, Gen.CAYMAN)
    assert verdict.valid and verdict.level == "nki"
    assert "signature" not in [c.name for c in verdict.clauses]  # partial: wire has no kwargs


@pytest.mark.parametrize(("fields", "clause"), [
    ({"comp_op0": AluOp.IS_NE}, "comp_op(comp_op0)"),
    ({"reduce_op": ReduceOp.ADD}, "reduce_op(reduce_op)"),
    ({"fill_val": 0xFF800000}, "on_false_value_fp32_min"),
    ({"reduce_cmd": AccumCmd.LOAD_ACCUMULATE}, "_check_range_select_supported_reduce_cmd"),
    ({"in_out_dtype": make_pair(Dtype.INT32, Dtype.FP32)},
     "_check_range_select_tiles(on_true_tile)"),
])
def test_range_select_wire_values_judged_at_nki_level(fields: dict[str, int],
                                                      clause: str) -> None:
    inst = _range_select(**fields)
    assert check_fields(inst.opcode, inst.fields, Gen.CAYMAN).failed == (clause,)


def test_range_select_on_sunda_fails_availability() -> None:
    inst = _range_select()
    assert check_fields(inst.opcode, inst.fields, Gen.SUNDA).failed == (
        "range_select_availability",)


def test_disagreement_reset_on_range_select() -> None:
    """NKI range_select accepts reset; wire RANGE_SELECT rejects ACCUM_CMD ZERO (1)."""
    inst = _range_select(AccumCmd.ZERO)
    verdict = check_fields(inst.opcode, inst.fields, Gen.CAYMAN)
    assert verdict.valid
    found = disagreements(inst.opcode, inst.fields, Gen.CAYMAN)
    assert [d.topic for d in found] == ["reduce_cmd reset"]
    assert "ZERO (1)" in found[0].wire and "reset is legal" in found[0].nki
    assert disagreements(_range_select(AccumCmd.ACCUMULATE).opcode,
                         _range_select(AccumCmd.ACCUMULATE).fields, Gen.CAYMAN) == []


def test_disagreement_range_start_edge() -> None:
    inst = _range_select(base=2 ** 24 - 63)  # base + 64 = 2^24 + 1: wire-illegal, NKI-legal
    assert check_fields(inst.opcode, inst.fields, Gen.CAYMAN).valid
    assert [d.topic for d in disagreements(inst.opcode, inst.fields, Gen.CAYMAN)] == [
        "index range edge"]


def _copy_predicated(pred: Dtype, src: Dtype, out: Dtype, psum: bool = False) -> codec.Instruction:
    addr = encode_address("psum", 0, 0, Gen.CAYMAN) if psum else 0
    return _decode("S3S3D3_TT", 0x72, in0_in1_dtype=make_pair(pred, src), out_dtype=out,
                   num_active_channels=128, **{"src0.num_elem": [64, 1, 1],
                                               "src1.num_elem": [64, 1, 1],
                                               "dst.num_elem": [64, 1, 1],
                                               "src0.start_addr": addr, "src1.start_addr": addr})


def test_copy_predicated_signed_predicate_disagreement() -> None:
    inst = _copy_predicated(Dtype.INT8, Dtype.FP32, Dtype.FP32)
    verdict = check_fields(inst.opcode, inst.fields, Gen.CAYMAN)
    assert verdict.failed == ("predicate_integer_tile",)
    assert [d.topic for d in disagreements(inst.opcode, inst.fields, Gen.CAYMAN)] == [
        "signed predicate dtype"]
    legal = _copy_predicated(Dtype.UINT8, Dtype.FP32, Dtype.FP32)
    assert check_fields(legal.opcode, legal.fields, Gen.CAYMAN).valid
    assert disagreements(legal.opcode, legal.fields, Gen.CAYMAN) == []


def test_copy_predicated_convert_fails_same_dtype() -> None:
    """COPY_PREDICATED may not convert; the NKI rule says so on src/dst dtypes.

    dst_dtype_matches_output reads `dtype`, which the wire does not encode: skipped.
    """
    inst = _copy_predicated(Dtype.UINT8, Dtype.BF16, Dtype.FP32)
    verdict = check_fields(inst.opcode, inst.fields, Gen.CAYMAN)
    assert verdict.failed == ("src_dst_same_dtype",)
    assert "dst_dtype_matches_output" not in [c.name for c in verdict.clauses]


def test_copy_predicated_both_psum_the_levels_agree() -> None:
    """No disagreement is claimed: the wire level has the limit too, as
    tt_valid_partitions (isa-facts §5.2 item 9) fails on the same record."""
    from neurondbg.machine.legality.explain import explain_levels

    inst = _copy_predicated(Dtype.UINT8, Dtype.FP32, Dtype.FP32, psum=True)
    assert check_fields(inst.opcode, inst.fields, Gen.CAYMAN).failed == (
        "memory(src, predicate)",)
    levels = explain_levels(inst.raw, Gen.CAYMAN)
    assert "tt_valid_partitions(src0, src1)" in levels.wire.failed
    assert levels.disagreements == ()
    assert disagreements(inst.opcode, inst.fields, Gen.CAYMAN) == []


def test_copy_and_cast_correspond_to_tensor_copy() -> None:
    """ref 000 §8: tensor_copy lowers to COPY when the dtypes match, CAST when they differ;
    on POOL (gpsimd) a PSUM source fails at the NKI level (ref 000 §3.3 GOTCHA)."""
    from neurondbg.machine.legality.explain import explain_levels
    from neurondbg.machine.legality.wire.samples import example

    assert intrinsic_for_opcode(0x47).intrinsic == "tensor_copy"
    cast = example("is_valid_cast", src_mem_pattern__start_addr=0x2000000)
    pool = explain_levels(cast, Gen.CAYMAN, "pool")
    assert pool.wire.valid  # the struct allows PSUM (AllowedInPSUM::True)
    assert pool.nki is not None and pool.nki.failed == ("gpsimd_no_psum(src)",)
    assert [d.topic for d in pool.disagreements] == ["GpSimd and PSUM"]
    act = explain_levels(cast, Gen.CAYMAN, "act")
    assert act.nki.valid and act.disagreements == ()


@pytest.mark.parametrize("name", ["is_valid_copy", "is_valid_cast"])
def test_a_psum_destination_on_pool_is_a_disagreement_as_a_psum_source_is(name: str) -> None:
    """ref 000 §3.3 GOTCHA / §8: the GpSimd path is SBUF-only, output included; the wire
    struct allows PSUM for dst as for src."""
    from neurondbg.machine.legality.explain import explain_levels
    from neurondbg.machine.legality.wire.samples import example

    raw = example(name, dst_mem_pattern__start_addr=0x2000000, out_dtype=Dtype.FP32,
                  in_dtype=Dtype.FP32)  # a PSUM write needs a 4-byte dtype
    pool = explain_levels(raw, Gen.CAYMAN, "pool")
    assert pool.wire.valid
    assert [d.topic for d in pool.disagreements] == ["GpSimd and PSUM (dst)"]
    assert "output may not be in PSUM" in pool.disagreements[0].nki
    assert explain_levels(raw, Gen.CAYMAN, "dve").disagreements == ()
    both = example(name, dst_mem_pattern__start_addr=0x2000000, out_dtype=Dtype.FP32,
                   in_dtype=Dtype.FP32, src_mem_pattern__start_addr=0x2000400)
    assert [d.topic for d in explain_levels(both, Gen.CAYMAN, "pool").disagreements] == [
        "GpSimd and PSUM", "GpSimd and PSUM (dst)"]


def test_select_reduce_fields() -> None:
    inst = _decode("S2S2D2_STT", 0xEA, in0_in1_dtype=make_pair(Dtype.UINT8, Dtype.FP32),
                   out_dtype=Dtype.FP32, nac=128, op1=AluOp.MAX, imm0_dtype=Dtype.FP32,
                   accumulator_cmd=AccumCmd.ZERO, **{"src0.num_elem": [64, 1],
                                                     "src1.num_elem": [64, 1],
                                                     "dst.num_elem": [64, 1]})
    verdict = check_fields(inst.opcode, inst.fields, Gen.CAYMAN)
    assert verdict.failed == ("_check_select_reduce_supported_reduce_cmd",)
    assert verdict.clause("on_false_scalar_float32").passed


def test_cumulative_fields() -> None:
    inst = _decode("S3D3_TS", 0xE6, accumulator_cmd=AccumCmd.LOAD_ACCUMULATE)
    assert check_fields(inst.opcode, inst.fields, Gen.CAYMAN).valid
    idle = _decode("S3D3_TS", 0xE6, accumulator_cmd=AccumCmd.IDLE)
    assert check_fields(idle.opcode, idle.fields, Gen.CAYMAN).failed == (
        "_check_supported_reduce_cmd",)


def test_no_mapping_for_unmapped_or_foreign_fields() -> None:
    assert args_from_fields(0x6C, {}, Gen.CAYMAN) is None  # MAX8: no documented layout
    assert check_fields(0x46, {}, Gen.CAYMAN) is None
    assert args_from_fields(0xBC, {"nac": 1}, Gen.CAYMAN) is None  # fields of another struct
    assert disagreements(0xBC, {}, Gen.CAYMAN) == []


def test_disagreements_are_data() -> None:
    for d in DISAGREEMENTS:
        assert d.opcode in CORRESPONDENCE and CORRESPONDENCE[d.opcode].intrinsic == d.intrinsic
        assert d.wire and d.nki and d.provenance
        assert set(d.to_dict()) == {"opcode", "intrinsic", "topic", "wire", "nki", "provenance"}
