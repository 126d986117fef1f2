"""Errors that lead to the cause: an undefined label names the nearest one, a register
past R63 says so, a misspelt mnemonic, directive or field gets a did-you-mean, and
`asm` of a source without instructions says "empty program". Each is one line
`file:line:col: message` (then the source line and a caret), from the fast path and
the full path alike."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.asm import AsmError, assemble
from neurondbg.machine.asm.errors import did_you_mean
from neurondbg.machine.asm.keys import known_keys
from neurondbg.machine.asm.values import REGISTER_NAMES, register_range_error
from neurondbg.machine.isa.structs import STRUCTS
from tests.asm.test_fastpath import full_path_only


def error_of(src: str) -> AsmError:
    """The error of `src`, checked to be the full path's too."""
    with pytest.raises(AsmError) as fast:
        assemble(src, "prog.asm")
    with full_path_only(), pytest.raises(AsmError) as full:
        assemble(src, "prog.asm")
    assert str(fast.value) == str(full.value)
    return fast.value


LOOP = "loop: NOP\nouter: NOP\n"

HINTS = [
    # undefined labels, with the nearest defined one
    (LOOP + "COMPARE_BRANCH cmp_op=GT_IMM target=lop", 3, 37,
     "undefined label 'lop'; did you mean 'loop'?"),
    (LOOP + "COMPARE_BRANCH br_immediate=outr", 3, 29,
     "undefined label 'outr'; did you mean 'outer'?"),
    (LOOP + "COMPARE_BRANCH target=zzz", 3, 23, "undefined label 'zzz'; expected a label of "
     "this program (of its .engine section in a kernel) or a number"),
    ("COMPARE_BRANCH target=start", 1, 23, "undefined label 'start'; expected a label of "
     "this program (of its .engine section in a kernel) or a number"),
    # registers past R63
    ("MOVE R64=1", 1, 6, "register R64 is out of range (R0..R63)"),
    ("MOVE R3=5 r99=1", 1, 11, "register r99 is out of range (R0..R63)"),
    ("MOVE R3=R64", 1, 9, "register R64 is out of range (R0..R63)"),
    ("ALU_OP op=ADD dst=R64 src0=R1 src1=1", 1, 19, "register R64 is out of range (R0..R63)"),
    ("ALU_OP op=ADD dst=R1 src0=R1 src1=R70", 1, 35, "register R70 is out of range (R0..R63)"),
    ("COMPARE_BRANCH cmp_reg0=R64", 1, 25, "register R64 is out of range (R0..R63)"),
    ("COPY src=reg[R128]", 1, 14, "register R128 is out of range (R0..R63)"),
    # misspelt mnemonics, directives and fields
    ("COPPY nac=1", 1, 1, "unknown mnemonic 'COPPY'; did you mean 'COPY'?"),
    ("  HLT", 1, 3, "unknown mnemonic 'HLT'; did you mean 'HALT'?"),
    (".dat sb[0, 0] fp32 1", 1, 1, "unknown directive '.dat'; did you mean '.data'?"),
    ("COPY in_dtyp=FP32", 1, 6, "unknown field 'in_dtyp' for S4D4_TR; did you mean 'in_dtype'?"),
    ("COPY src=sb[0, 0] srcc.num=[1,1,1,1]", 1, 19,
     "unknown field 'srcc.num' for S4D4_TR; did you mean 'src.num'?"),
    ("ALU_OP op=ADD dts=R1", 1, 15, "unknown field 'dts' for CTRL_AL; did you mean 'dst'?"),
    ("CAST wiat=sem[1]>=1", 1, 6, "did you mean 'wait'?"),
]


@pytest.mark.parametrize(("src", "line", "column", "message"), HINTS)
def test_errors_lead_to_the_cause(src: str, line: int, column: int, message: str) -> None:
    err = error_of(src)
    assert (err.line, err.column) == (line, column)
    assert err.message.endswith(message) if "did you mean" in message else (
        err.message == message)
    assert str(err).splitlines()[0] == f"prog.asm:{line}:{column}: {err.message}"


def test_a_name_far_from_every_known_one_keeps_the_list_of_expected_ones() -> None:
    assert error_of("XYZZY").message.endswith("or a directive (.gen, .raw, .data, .bytes, "
                                              ".fill, .random)")
    assert "; expected one of: header.inst_word_len," in error_of("COPY qqqqqqq=1").message
    assert error_of(".qqqq").message == ("unknown directive '.qqqq'; expected one of: .gen, "
                                         ".raw, .data, .bytes, .fill, .random")


def test_registers_r0_to_r63_are_in_range_and_every_later_one_is_out() -> None:
    for n in range(256):
        message = register_range_error(f"R{n}")
        assert (message is None) == (n < 64)
        assert message is None or message == f"register R{n} is out of range (R0..R63)"
        assert (f"R{n}" in REGISTER_NAMES) == (n < 64)
    assert register_range_error("PC_LO") is None and register_range_error("RX") is None


@pytest.mark.parametrize("n", [0, 17, 63])
def test_move_of_any_register_in_range_assembles(n: int) -> None:
    fields = assemble(f"MOVE R{n}=1").program().instruction(0).fields
    assert fields["dst_registers"][0] == n and fields["immediate"][0] == 1


def test_every_known_key_of_every_struct_is_accepted_by_itself() -> None:
    """The hints suggest only keys the assembler reads (it would be a poor hint
    otherwise): each known key, a hint for itself, resolves to something."""
    from neurondbg.machine.asm.keys import Kind, resolve_key

    for s in STRUCTS.values():
        for key in known_keys(s):
            assert resolve_key(s.name, key).kind is not Kind.ERROR, (s.name, key)
            assert did_you_mean(key, known_keys(s)) == f"; did you mean {key!r}?"


def test_did_you_mean_ignores_case_and_stays_quiet_when_nothing_is_close() -> None:
    assert did_you_mean("copy", ["COPY", "CAST"]) == "; did you mean 'COPY'?"
    assert did_you_mean("zzz", ["COPY", "CAST"]) == ""
    assert did_you_mean("a", []) == ""


@pytest.mark.parametrize("text", ["", "# only a comment\n\n", "top:\n", ".data sb[0, 0] fp32 1\n"])
def test_asm_of_a_source_without_instructions_is_an_empty_program(tmp_path, text: str) -> None:
    src = tmp_path / "e.asm"
    src.write_text(text)
    out = tmp_path / "e.bin"
    r = CliRunner().invoke(cli, ["asm", str(src), "-o", str(out)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.output.splitlines() == [
        f"neurondbg: error: {src}:1:1: empty program: no instruction or .raw record "
        "(comments, labels and data directives alone make none)"]
    assert not out.exists() and not (tmp_path / "e.bin.data.npz").exists()


def test_asm_of_a_kernel_without_instructions_is_an_empty_program(tmp_path) -> None:
    src = tmp_path / "k.asm"
    src.write_text(".engine pool\n# nothing yet\n.engine dve\n")
    r = CliRunner().invoke(cli, ["asm", str(src), "-o", str(tmp_path / "k.toml")])
    assert r.exit_code == 2
    assert r.output == (f"neurondbg: error: {src}:1:1: empty program: no .engine section "
                        "holds an instruction\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.asm"]
