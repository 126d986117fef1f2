"""Failures that each get a checked fix (or say why none exists), and rulings that follow
references 000, 001, 004 and isa-facts where they are easy to get wrong."""

from __future__ import annotations

import numpy as np
import pytest

from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.isa.enums import AccumCmd
from neurondbg.machine.isa.opcodes import Opcode, opcodes_of
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.legality.explain import explain
from neurondbg.machine.legality.nki.check import check_call
from neurondbg.machine.legality.nki.vocab import NKI_DTYPES, parse_nki_dtype
from neurondbg.machine.legality.result import Verdict
from neurondbg.machine.legality.wire import common
from neurondbg.machine.legality.wire.bulk import evaluate
from neurondbg.machine.legality.wire.clause import Ctx, Predicate, Rows
from neurondbg.machine.legality.wire.operands import DtypeRef, Tensor
from neurondbg.machine.legality.wire.registry import predicate_for
from neurondbg.machine.legality.wire.repair import apply
from neurondbg.machine.legality.wire.samples import example
from neurondbg.machine.legality.wire.tensors import tensor_valid

DST = "tensor4d_valid(dst) › tensor_start_addr_valid › "
PSUM = 0x2000000


def _fixed(raw: bytes, fields) -> bytes:
    struct = STRUCTS[predicate_for(raw[0]).struct]
    return apply(struct, np.frombuffer(raw, dtype=struct.dtype).copy(), fields).tobytes()


def _checked(raw: bytes, path: str, gen: str = "cayman") -> Verdict:
    """`path` fails; its fix is offered, and applying it makes the predicate pass."""
    v = explain(raw, gen)
    assert path in v.failing_paths(), v.failing_paths()
    node = v.node(path)
    assert node.fix_fields is not None, node.fix
    assert explain(_fixed(raw, node.fix_fields), gen).valid, node.fix_fields
    return v


# -- failures that get a checked fix -------------------------------------------------------

def test_off_chip_address_gets_a_fix() -> None:
    _checked(example("is_valid_copy", dst_mem_pattern__start_addr=0x3000000),
             DST + "addr_on_chip")


def test_psum_write_needing_a_4_byte_dtype_gets_a_fix() -> None:
    v = _checked(example("is_valid_cast", dst_mem_pattern__start_addr=PSUM),
                 DST + "psum_write_4byte_dtype")
    assert v.fix_fields == {"out_dtype": Dtype.FP32}


def test_address_beyond_the_active_bytes_gets_a_fix() -> None:
    v = _checked(example("is_valid_copy", dst_mem_pattern__start_addr=200 * 1024),
                 DST + "addr_on_chip", gen="sunda")
    assert v.fix_fields == {"dst_mem_pattern.start_addr": 0}  # the partition's start


def test_count_mismatch_gets_a_fix() -> None:
    v = _checked(example("is_valid_copy", dst_mem_pattern__num_elem=(8, 1, 1, 1)),
                 "s4d4_tr_same_src_dst_count")
    assert v.fix_fields == {"dst_mem_pattern.num_elem": (4, 1, 1, 1)}


def test_is_valid_enum_op_gets_a_fix() -> None:
    v = _checked(example("is_valid_tensor_reduce", op=0x30), "is_valid_enum(op)")
    assert v.node("is_valid_enum(op)").fix.startswith("set op = ")


def test_is_valid_comp_op_gets_a_fix() -> None:
    _checked(example("is_valid_range_select", comp_op0=0x18), "is_valid_comp_op(comp_op0)")


def test_range_select_reduce_cmd_gets_the_nearest_command() -> None:
    """reset (ZERO) is refused; reset_reduce (ZERO_ACCUMULATE) is the nearest command."""
    v = _checked(example("is_valid_range_select", reduce_cmd=AccumCmd.ZERO),
                 "range_select_valid_reduce_cmd")
    assert v.fix_fields == {"reduce_cmd": AccumCmd.ZERO_ACCUMULATE}
    assert "ZERO_ACCUMULATE (3)" in v.node("range_select_valid_reduce_cmd").fix


def test_is_valid_dtype_invalid_gets_a_fix() -> None:
    _checked(example("is_valid_cast", out_dtype=Dtype.INVALID),
             "is_valid_dtype(out_dtype)")


def test_copy_dtype_mismatch_keeps_the_destination_dtype() -> None:
    v = _checked(example("is_valid_copy", out_dtype=Dtype.BF16), "s4d4_tr_same_src_dst_type")
    assert v.fix_fields == {"out_dtype": Dtype.FP32}  # out = in, as the hint says


def test_no_fix_says_why_for_an_engine_without_the_opcode() -> None:
    v = explain(example("is_valid_copy_cast_predicated"), "cayman", "pe")
    assert v.failed == ("engine_has_opcode(pe)",)
    assert v.fix_fields is None
    assert "engine_has_opcode(pe) cannot be fixed within the record" in v.no_fix
    assert "run the program on an engine that has this opcode" in v.clause(
        "engine_has_opcode(pe)").fix


def test_no_fix_says_why_for_an_opcode_missing_from_the_generation() -> None:
    v = explain(example("is_valid_range_select"), "sunda")
    assert v.fix_fields is None and "has_valid_nc_rs" in v.no_fix


def test_select_reduce_load_reduce_fix_does_not_talk_about_reset() -> None:
    call = {"op": "select_reduce", "gen": "trn2", "args": {
        "dst": {"dtype": "float32", "shape": [128, 64]},
        "predicate": {"dtype": "uint8", "shape": [128, 64]},
        "on_true": {"dtype": "float32", "shape": [128, 64]}, "on_false": 0.0,
        "reduce_cmd": "load_reduce"}}
    v = check_call(call)
    fix = v.clause("_check_select_reduce_supported_reduce_cmd").fix
    assert "for load_reduce use reduce" in fix and "instead of reset" not in fix


# -- fidelity to the references ------------------------------------------------------------

def test_psum_window_beyond_the_geometry_is_beyond_psum_not_off_chip() -> None:
    """isa-facts §2.2: PSUM_BUF_SZ 0x400000 from 0x2000000; cayman backs 128 x 16 KiB."""
    v = explain(example("is_valid_cast", out_dtype=Dtype.FP32,
                        dst_mem_pattern__start_addr=0x2300000), "cayman")
    msg = v.node(DST + "addr_on_chip").message
    assert "beyond PSUM" in msg and "off-chip" not in msg
    assert "ends at 0x21FFFFF" in msg


def test_sbuf_beyond_the_active_bytes_says_so() -> None:
    v = explain(example("is_valid_copy", dst_mem_pattern__start_addr=229376), "cayman")
    msg = v.node(DST + "addr_on_chip").message
    assert "SBUF partition 0 byte 229376, beyond the 229376 active SBUF bytes" in msg
    assert "not in SBUF or PSUM" not in msg


def test_header_opcode_bitmask_matches_no_generation() -> None:
    """isa-facts §1.1's has_valid_neuron_header bitmask matches no generation's §7 opcode
    set (145 bits, like SUNDA's count, but 61 of them differ); presence comes from §7."""
    words = (0x400082F07FBFFFFF, 0x024BC3FFFFDF3F7F, 0x7FEFFFFFE08F7FFF, 0x1001E0000003E)
    mask = {64 * w + b for w, x in enumerate(words) for b in range(64) if x >> b & 1}
    assert len(mask) == 145
    for gen in Gen:
        table = common.opcode_table(gen)
        codes = {int(o) for o in opcodes_of(gen)}
        assert mask not in (codes, codes - {Opcode.INVALID}), gen
        assert set(np.flatnonzero(table).tolist()) == codes - {Opcode.INVALID}


def test_float8_e4m3fn_is_not_float8_e4m3() -> None:
    """isa-facts §8.2: e4m3fn is its own type, native on trn3+ only."""
    assert parse_nki_dtype("float8_e4m3fn", "x") is NKI_DTYPES["float8_e4m3fn"]
    assert parse_nki_dtype("float8_e4m3fn", "x") is not NKI_DTYPES["float8_e4m3"]
    call = {"op": "tensor_copy", "args": {"src": {"dtype": "float8_e4m3fn",
                                                  "shape": [128, 64]}}}
    assert check_call({**call, "gen": "trn2"}).failed == ("dtype_native_on_gen",)
    assert check_call({**call, "gen": "trn3"}).valid


def test_tensor_copy_on_gpsimd_with_a_psum_tile_fails() -> None:
    call = {"op": "tensor_copy", "args": {"engine": "gpsimd", "src": {
        "dtype": "float32", "shape": [128, 64], "buffer": "psum"}}}
    v = check_call(call)
    assert v.failed == ("gpsimd_no_psum(src)",)
    assert "GpSimd engine cannot access PSUM" in v.clause("gpsimd_no_psum(src)").message
    assert check_call({**call, "args": {**call["args"], "engine": "vector"}}).valid


def test_range_select_nibble_roles_are_marked_decided() -> None:
    v = explain(example("is_valid_range_select"), "cayman")
    for name in ("is_valid_fp_dtype_datapath(in_dtype)", "is_valid_fp_dtype_datapath(out_dtype)"):
        assert v.clause(name).provenance.confidence == "LOW"
        assert "decided by neurondbg" in v.clause(name).provenance.section


def test_copy_on_dve_is_marked_decided() -> None:
    v = explain(example("is_valid_copy"), "cayman", "dve")
    cl = v.clause("engine_has_opcode(dve)")
    assert cl.passed and "neurondbg decision (LOW)" in cl.message


def test_rule_3_fails_an_operand_that_may_not_be_in_psum() -> None:
    """tensor_start_addr_valid rule 3 with allow_psum False (no documented wire operand
    passes False: ref 000 §3.3 GOTCHA, isa-facts §5.2; the rule itself is evaluated)."""
    t = Tensor("dst", "dst_mem_pattern", 4, DtypeRef("out_dtype"), write=True,
               allow_psum=False)
    pred = Predicate("p", "S4D4_TR", (), (tensor_valid(t),), common.P_TENSOR)
    struct = STRUCTS["S4D4_TR"]
    rec = np.frombuffer(example("is_valid_cast", out_dtype=Dtype.FP32,
                                dst_mem_pattern__start_addr=PSUM), dtype=struct.dtype)
    clauses, passed = evaluate(pred, rec, Ctx(Gen.CAYMAN))
    assert not passed[0, 0]
    leaf = clauses[0].children[1].children[2]
    assert leaf.name == "allow_psum"
    assert not leaf.check(Rows(rec, Ctx(Gen.CAYMAN)))[0]


@pytest.mark.parametrize("gen", [Gen.CAYMAN, Gen.MARIANA])
def test_copy_predicated_both_psum_fails_tt_valid_partitions(gen: Gen) -> None:
    raw = example("is_valid_copy_cast_predicated", src0__start_addr=PSUM,
                  src1__start_addr=PSUM + 0x100)
    assert explain(raw, gen).failed == ("tt_valid_partitions(src0, src1)",)
