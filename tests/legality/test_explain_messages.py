"""`explain` finds the rule of every message and rule name the references quote.

QUOTED is every error or assert string the references 000, 001, 004 and isa-facts quote,
verbatim, with the rule that raises it; NAMES every rule name they use. The message
index is derived from the rules' own declarations (machine.legality.messages.quoting),
so a test also holds the declarations to QUOTED both ways.
"""

from __future__ import annotations

import pytest

from neurondbg.commands.explain import explain_text
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.explain import explain
from neurondbg.machine.legality.lookup import SITES, failing_example, lookup, message_index
from neurondbg.machine.legality.messages import MessagePattern, message, words

# (message as the reference quotes it, where, rules that raise it)
QUOTED: list[tuple[str, str, set[str]]] = [
    ("GpSimd engine cannot access PSUM", "000 §3.3", {"gpsimd_no_psum(src)"}),
    ("/opt/workspace/NeuronUcode/src/decode/move.cpp:41", "001 §1.1",
     {"ctrl_mv_has_valid_dtype"}),
    ("((ins.dtype == NEURON_ISA_TPB_DTYPE_UINT32) || (ins.dtype == NEURON_ISA_TPB_DTYPE_INT32)"
     "  || (ins.dtype == NEURON_ISA_TPB_DTYPE_FP32))", "001 §1.1", {"ctrl_mv_has_valid_dtype"}),
    ('"highest priority is full-register moves. TODO other dtypes"', "001 §1.1",
     {"ctrl_mv_has_valid_dtype"}),
    ("Each destination register must be unique (no duplicates)", "001 §3.3",
     {"ctrl_mv_unique_dst_registers"}),
    ("No register used in the destination register list can be used in source register "
     "list.", "001 §3.3", {"ctrl_mv_dst_not_in_src_registers"}),
    ("Reduction on partition axes is not supported", "004 tensor_reduce", {"_check_free_axis"}),
    ("Empty axis not supported", "004 tensor_reduce", {"_check_free_axis"}),
    ("on_false must be float32 when provided as a scalar, got ...", "004 select_reduce",
     {"on_false_scalar_float32", "on_false_value_float32"}),
    ("on_false's free dimension should be 1 (a vector), got ...", "004 select_reduce",
     {"on_false_vector_free_dim_1"}),
    ("dst dtype must match instruction ...", "004 select_reduce",
     {"dst_dtype_matches_output"}),
    ("`predicate` must be a boolean or integer tile", "004 tensor_copy_predicated",
     {"predicate_integer_tile"}),
    ("`src` and `dst` must have the same dtype", "004 tensor_copy_predicated",
     {"src_dst_same_dtype"}),
    ("Scalar `src` must be float if `dst` is float", "004 tensor_copy_predicated",
     {"scalar_src_float_if_dst_float"}),
    ("`reverse_pred` only supported if `src` is scalar input.", "004 tensor_copy_predicated",
     {"reverse_pred_scalar_src_only"}),
    ("<inst> is not supported on trn1 Scalar Engine.", "004 tensor_copy dynamic",
     {"_check_tensor_copy_dynamic_supported_engine"}),
    ("must have <=128 columns", "004 dma_transpose", {"hwdge_columns_multiple_of_128"}),
    ("F8E4M3FN not supported on TRN1/TRN2", "isa-facts §8.2", {"dtype_native_on_gen"}),
]

# What a user pastes instead: the variable parts filled in or cut off, inside a log line.
FILLED: list[tuple[str, str]] = [
    ("neuron_isa.py:1591: ERROR on_false must be float32 when provided as a scalar, got "
     "bfloat16", "on_false_scalar_float32"),
    ("on_false must be float32 when provided as a scalar", "on_false_scalar_float32"),
    ("[NKI] on_false's free dimension should be 1, got 4", "on_false_vector_free_dim_1"),
    ("tensor_copy_dynamic_src is not supported on trn1 Scalar Engine.",
     "_check_tensor_copy_dynamic_supported_engine"),
    ("is not supported on trn1 Scalar Engine", "_check_tensor_copy_dynamic_supported_engine"),
    ("AssertionError: dst dtype must match instruction output dtype float32",
     "dst_dtype_matches_output"),
    ("src and dst must have the same dtype", "src_dst_same_dtype"),
    ("move.cpp:41: Assertion `(ins.dtype == ...)` failed.", "ctrl_mv_has_valid_dtype"),
    ("highest priority is full-register moves", "ctrl_mv_has_valid_dtype"),
    ("src.shape[-1] must have <=128 columns for hwdge", "hwdge_columns_multiple_of_128"),
    ("NCC_ERROR 2026-12-01 F8E4M3FN not supported on TRN1/TRN2 (use float8_e4m3)",
     "dtype_native_on_gen"),
]

# Every rule name the references use (000, 001, 004, isa-facts), bare or with an operand.
NAMES: list[str] = [
    "_check_activation_supported_reduce_cmd", "_check_activiation_supported_reduce_cmd",
    "_check_and_translate_free_axis", "_check_free_axis",
    "_check_range_select_supported_reduce_cmd", "_check_range_select_tiles",
    "_check_select_reduce_supported_reduce_cmd", "_check_supported_reduce_cmd",
    "_check_tensor_copy_dynamic_supported_engine", "_check_tensor_reduce_bitvec_types",
    "_check_tensor_reduce_supported_op", "addr_aligned_dtype", "assert_max_dimensions",
    "assert_not_none", "assert_same_shape", "assert_tile_has_expected_shape",
    "check_active_channels", "check_local_gather_shape", "ctrl_mv_has_valid_dtype",
    "ctrl_mv_reserved_zero", "ctrl_mv_valid_num", "ctrl_mv_valid_register",
    "dtype_4bit_illegal_check", "dtype_scale_illegal_check",
    "err_instruction_unsupported_dtypes", "err_instruction_unsupported_op",
    "err_min_arch_support_for_hwdge", "err_par_reduce_bitvec_op_invalid_dtype",
    "err_par_reduce_unsupported_op", "err_reduce_bitvec_op_invalid_dtype",
    "err_reduce_unsupported_negate", "has_copy_opcode", "has_move_opcode",
    "has_multiple_32_channels", "has_tile_idx_zero", "has_valid_active_channel_range",
    "has_valid_neuron_events", "has_valid_neuron_header", "has_zero_negated_field",
    "is_arith_op", "is_bitvec_op", "is_cptc", "is_general_arith_op", "is_general_bitvec_op",
    "is_update_semaphore", "is_valid_dtype", "is_valid_dtype_64", "is_valid_enum",
    "is_valid_fp_dtype_datapath", "is_valid_int_aluop", "is_valid_int_aluop_dve",
    "is_valid_int_dtype_datapath", "is_valid_mx_dtype", "is_valid_register_read",
    "is_valid_register_write", "is_zero_subdim", "mask_enable_zero", "mem3d_valid",
    "nki_assert", "s4d4_tr_op_bypass", "s4d4_tr_reserved_zero", "s4d4_tr_same_src_dst_count",
    "s4d4_tr_same_src_dst_type", "start_addr_active_channels", "tensorNd_valid",
    "tensor3d_valid", "tensor4d_valid", "tensor_start_addr_valid", "tpb_addr_active_channels",
    "tt_valid_partitions", "assert_not_none(data)", "tensor4d_valid(dst)",
    "_check_range_select_tiles(bound0)", "ctrl_mv_valid_register(3)",
]


def _rules(found) -> set[str]:
    return {s.path[-1] for h in found.messages for s in h.sites} | {
        r.spec.name for h in found.messages for r in h.nki}


@pytest.mark.parametrize(("text", "where", "rules"), QUOTED, ids=[q[0][:40] for q in QUOTED])
def test_every_quoted_message_finds_its_rule(text: str, where: str, rules: set[str]) -> None:
    found = lookup(text)
    assert _rules(found) == rules, where
    assert not found.unknown  # a message's quoted words are operands, not unknown names


@pytest.mark.parametrize(("text", "rule"), FILLED, ids=[f[0][:40] for f in FILLED])
def test_messages_are_found_filled_in_cut_off_or_inside_a_log_line(text: str,
                                                                  rule: str) -> None:
    assert rule in _rules(lookup(text))


def test_the_index_is_the_declarations_and_covers_every_quoted_message() -> None:
    """Every declared pattern is one the references quote (QUOTED), and every quoted
    message is found through a declared pattern (the test above): both ways."""
    index = message_index()
    declared_rules = {s.path[-1] for h in index for s in h.sites} | {
        r.spec.name for h in index for r in h.nki}
    assert declared_rules == set().union(*(r for _, _, r in QUOTED))
    for hit in index:  # each pattern matches some quoted text, and only its own rules
        texts = [q for q, _, rules in QUOTED if hit.pattern.matches(q)]
        assert texts, hit.pattern.text
    site_msgs = {id(m) for s in SITES for m in s.clause.messages}
    assert {id(h.pattern) for h in index if h.sites} <= site_msgs


@pytest.mark.parametrize("name", NAMES)
def test_every_reference_rule_name_is_found(name: str) -> None:
    found = lookup(name)
    assert not found.empty and not found.unknown, name


def test_text_matching_nothing_says_so_in_one_line_with_nearest() -> None:
    lines, found = explain_text("foo bar baz")
    assert not found and len(lines) == 1
    assert lines[0].startswith("no rule matches 'foo bar baz'; give a clause")
    lines, found = explain_text("cannot access psum on this engine")
    assert not found and lines == [
        "no rule matches 'cannot access psum on this engine'; nearest: "
        "'GpSimd engine cannot access PSUM'"]
    lines, found = explain_text("s4d4_tr_same_src_dst_typ")
    assert not found and len(lines) == 1 and "s4d4_tr_same_src_dst_type" in lines[0]


def test_explain_cli_exits_1_with_one_line_for_free_text() -> None:
    from click.testing import CliRunner

    from neurondbg.cli import cli

    r = CliRunner().invoke(cli, ["explain", "nothing", "here", "at", "all"])
    assert r.exit_code == 1 and r.output.count("\n") == 1


def test_a_composite_sub_clause_has_a_failing_and_a_fixed_example() -> None:
    """tensor_start_addr_valid: any of its rules may be the failing one."""
    site = next(s for s in SITES if s.predicate.name == "is_valid_copy"
                and s.path_text == "tensor4d_valid(src) › tensor_start_addr_valid")
    fail = failing_example(site)
    assert fail is not None and fail.gen is Gen.CAYMAN and not fail.also
    v = explain(fail.raw, fail.gen)
    assert v.failing_paths() and all(p.startswith(site.path_text) for p in v.failing_paths())
    assert v.fix_fields is not None


# -- the pattern language --------------------------------------------------------------------

@pytest.mark.parametrize(("pattern", "text", "hit"), [
    ("a b[, got …]", "x a b y", True),
    ("a b[, got …]", "a b, got c", True),
    ("a b[, got …]", "a c", False),
    ("<inst> is bad", "foo is bad", True),
    ("<inst> is bad", "is bad", True),
    ("x ... y", "x 1 2 3 y", True),
    ("x ... y", "y x", False),
    ("must have <=128 columns", "must have <= 128 columns", True),
    ("must have <=128 columns", "must have 128 columns", False),
    ("`src` and `dst`", "'src' and \"dst\"", True),
])
def test_pattern_marks(pattern: str, text: str, hit: bool) -> None:
    assert message(pattern, "t").matches(text) is hit


@pytest.mark.parametrize("bad", ["a [b", "a b]", "…", "<x>"])
def test_malformed_patterns_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        MessagePattern(bad, "t")


def test_words_ignore_punctuation_and_case() -> None:
    assert words("`Src`, and 'DST' <= x.py:41") == ["src", "and", "dst", "<=", "x", "py", "41"]


# -- every clause's example -----------------------------------------------------------------

def test_a_copy_source_dtype_fails_alone() -> None:
    """FP32R in both dtypes: only the source's gate fails (the destination allows it)."""
    site = next(s for s in SITES if s.predicate.name == "is_valid_copy"
                and s.path_text == "is_valid_dtype(in_dtype)")
    fail = failing_example(site)
    assert fail is not None and fail.also == ()
    assert explain(fail.raw, fail.gen).failed == ("is_valid_dtype(in_dtype)",)
