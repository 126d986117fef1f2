"""`neurondbg explain TEXT` (issue 12): clause / predicate names and compiler messages."""

from __future__ import annotations

from click.testing import CliRunner

from machine.asm.assembler import assemble
from machine.legality.explain import explain
from machine.legality.lookup import SITES, failing_example, lookup
from neurondbg.cli import cli


def run(*args: str):
    return CliRunner().invoke(cli, ["explain", *args])


def _value(out: str, label: str) -> str:
    line = next(ln for ln in out.splitlines() if ln.strip().startswith(label))
    return line.split(":", 1)[1].strip() if label.endswith(":") else line.split(": ", 1)[1]


def test_clause_name_rule_provenance_fields_and_both_forms() -> None:
    r = run("s4d4_tr_same_src_dst_type")
    assert r.exit_code == 0, r.output
    out = r.output
    assert out.startswith("s4d4_tr_same_src_dst_type  [wire clause of is_valid_copy]")
    assert "provenance: ref 000 §3.3 (HIGH) — confidence HIGH" in out
    assert "reads:      in_dtype, out_dtype" in out
    assert "engines act, dve, pool" in out
    bad, good = _value(out, "fails (cayman)"), _value(out, "fixed:")
    # both re-assemble; the first fails exactly that clause, the second is valid
    bad_raw = assemble(bad, "<t>", "cayman").records
    assert explain(bad_raw, "cayman").failed == ("s4d4_tr_same_src_dst_type",)
    assert explain(assemble(good, "<t>", "cayman").records, "cayman").valid


def test_compiler_assertion_message_names_the_clause() -> None:
    r = run("inst failed assertion check: 'start_addr_active_channels'")
    assert r.exit_code == 0
    assert "start_addr_active_channels(src)  [wire clause of is_valid_copy]" in r.output
    assert "start_addr_active_channels(dst)  [wire clause of is_valid_copy]" in r.output
    assert "DESIGN.md Gaps decided here (isa-facts §10) (LOW) — confidence LOW" in r.output
    assert "'start_addr_active_channels' also appears in: is_valid_cast" in r.output


def test_ncc_line_names_the_instruction_predicate() -> None:
    r = run("NCC_IINAR001 ISA validation failed: Copy; ...")
    assert r.exit_code == 0
    assert r.output.startswith("is_valid_copy  [wire predicate over S4D4_TR: COPY (0x46)]")
    assert "clauses:    has_valid_neuron_header" in r.output


def test_unknown_name_says_so_with_nearest_names() -> None:
    r = run("s4d4_pl_dtype_check")
    assert r.exit_code == 1
    assert r.output.startswith("'s4d4_pl_dtype_check' is not a name the references document; "
                               "nearest known: ")
    assert "is_valid_dtype" in r.output


def test_sub_clause_shows_its_path() -> None:
    r = run("addr_aligned_dtype")
    assert r.exit_code == 0
    assert r.output.startswith("tensor4d_valid(src) › tensor_start_addr_valid › "
                               "addr_aligned_dtype  [wire clause of is_valid_copy]")
    assert "isa-facts §2.3 tensor_start_addr_valid rule 1" in r.output


def test_nki_rule_name() -> None:
    r = run("_check_select_reduce_supported_reduce_cmd")
    assert r.exit_code == 0
    assert "[NKI rule of select_reduce]" in r.output and "ref 004" in r.output


def test_empty_text_is_a_usage_error() -> None:
    r = run("")
    assert r.exit_code == 2


def test_lookup_operand_name_is_exact() -> None:
    found = lookup("tensor4d_valid(dst)")
    assert {s.path[-1] for s in found.sites["tensor4d_valid(dst)"]} == {"tensor4d_valid(dst)"}


def test_every_failing_example_fails_its_clause() -> None:
    """The minimal instruction of every top-level clause of the copy predicate fails it."""
    for site in [s for s in SITES if s.predicate.name == "is_valid_copy" and len(s.path) == 1]:
        fail = failing_example(site)
        if site.path[0] == "has_copy_opcode":
            assert fail is None  # only a forced predicate on another opcode fails it
            continue
        assert fail is not None, site.path_text
        v = explain(fail.raw, fail.gen)
        assert site.path[0] in v.failed, (site.path_text, v.failed)


def test_engine_clause_is_known() -> None:
    r = run("engine_has_opcode(pe)")
    assert r.exit_code == 0
    assert r.output.startswith("engine_has_opcode(pe)  [neurondbg clause")
    assert "no field edit fixes it" in r.output
