"""`neurondbg explain TEXT`: clause / predicate names and compiler messages."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.asm.assembler import assemble
from neurondbg.machine.legality.explain import explain
from neurondbg.machine.legality.lookup import SITES, failing_example, lookup


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


@pytest.mark.parametrize(("text", "code", "start", "parts"), [
    pytest.param("inst failed assertion check: 'start_addr_active_channels'", 0, "", [
        "start_addr_active_channels(src)  [wire clause of is_valid_copy]",
        "start_addr_active_channels(dst)  [wire clause of is_valid_copy]",
        "DESIGN.md Gaps decided here (isa-facts §10) (LOW) — confidence LOW",
        "'start_addr_active_channels' also appears in: is_valid_cast"],
        id="compiler_assertion_message_names_the_clause"),
    pytest.param("NCC_IINAR001 ISA validation failed: Copy; ...", 0,
                 "is_valid_copy  [wire predicate over S4D4_TR: COPY (0x46)]",
                 ["clauses:    has_valid_neuron_header"],
                 id="ncc_line_names_the_instruction_predicate"),
    pytest.param("s4d4_pl_dtype_check", 1,
                 "'s4d4_pl_dtype_check' is not a name the references document; nearest known: ",
                 ["is_valid_dtype"], id="unknown_name_says_so_with_nearest_names"),
    pytest.param("addr_aligned_dtype", 0,
                 "tensor4d_valid(src) › tensor_start_addr_valid › "
                 "addr_aligned_dtype  [wire clause of is_valid_copy]",
                 ["isa-facts §2.3 tensor_start_addr_valid rule 1"], id="sub_clause_shows_its_path"),
    pytest.param("_check_select_reduce_supported_reduce_cmd", 0, "",
                 ["[NKI rule of select_reduce]", "ref 004"], id="nki_rule_name"),
    pytest.param("", 2, "", [], id="empty_text_is_a_usage_error"),
    pytest.param("engine_has_opcode(pe)", 0, "engine_has_opcode(pe)  [neurondbg clause",
                 ["no field edit fixes it"], id="engine_clause_is_known"),
])
def test_explain_text(text: str, code: int, start: str, parts: list[str]) -> None:
    """What `explain TEXT` answers: its exit code, how the answer starts, what it says."""
    r = run(text)
    assert r.exit_code == code
    assert r.output.startswith(start)
    for part in parts:
        assert part in r.output, part


def test_lookup_operand_name_is_exact() -> None:
    found = lookup("tensor4d_valid(dst)")
    assert {s.path[-1] for s in found.sites["tensor4d_valid(dst)"]} == {"tensor4d_valid(dst)"}
    # an array element as the operand: that slot's rule only
    name = "is_valid_register_read(src_registers[3])"
    assert [s.path_text for s in lookup(name).sites[name]] == [
        "ctrl_mv_valid_register(3) › " + name]


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
