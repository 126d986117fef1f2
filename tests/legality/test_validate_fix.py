"""`neurondbg validate PROGRAM --fix OUT`: every edit listed, OUT in the input's
form, written atomically and never over PROGRAM; the repaired program validates."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.dtypes import Dtype
from neurondbg.machine.legality.wire.samples import example

GOOD = example("is_valid_copy")
BAD_TYPE = example("is_valid_copy", out_dtype=Dtype.BF16)
BAD_ADDR = example("is_valid_copy", dst_mem_pattern__start_addr=0x401)


def run(*args: str):
    return CliRunner().invoke(cli, ["validate", *args])


def test_binary_fix_lists_every_edit_and_validates(tmp_path: Path) -> None:
    prog, out = tmp_path / "p.bin", tmp_path / "fixed.bin"
    prog.write_bytes(GOOD + BAD_TYPE + BAD_ADDR)
    r = run(str(prog), "--fix", str(out))
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == [
        "#1 @0x000040: set out_dtype = FP32 (0xA)",
        "#2 @0x000080: set dst_mem_pattern.start_addr = 0x00000400",
        f"3 instructions, 2 fixed, 0 without a fix; wrote {out}"]
    assert out.read_bytes() == GOOD * 3
    assert prog.read_bytes() == GOOD + BAD_TYPE + BAD_ADDR  # the input is untouched
    assert run(str(out)).exit_code == 0


def test_assembly_fix_keeps_labels_and_comments(tmp_path: Path) -> None:
    src = tmp_path / "p.bin"
    src.write_bytes(GOOD + BAD_TYPE)
    text = CliRunner().invoke(cli, ["disasm", str(src)]).output.splitlines()
    prog = tmp_path / "p.asm"
    prog.write_text(f"# header comment\nstart: {text[0]}\n{text[1]}  # keep me\n")
    out = tmp_path / "fixed.asm"
    r = run(str(prog), "--fix", str(out))
    assert r.exit_code == 0, r.output
    lines = out.read_text().splitlines()
    assert lines[0] == "# header comment"
    assert lines[1] == f"start: {text[0]}"  # valid lines are kept as written
    assert lines[2].endswith("# keep me; fixed: set out_dtype = FP32 (0xA)")
    assert "out_dtype=FP32" in lines[2]
    assert run(str(out)).exit_code == 0


def test_no_fix_is_listed_and_exit_1(tmp_path: Path) -> None:
    prog, out = tmp_path / "p.bin", tmp_path / "o.bin"
    prog.write_bytes(example("is_valid_copy_cast_predicated"))
    r = run(str(prog), "--engine", "pe", "--fix", str(out))
    assert r.exit_code == 1
    first = r.output.splitlines()[0]
    assert first.startswith("#0 @0x000000: no fix: no edit of this record's fields makes ")
    assert "engine_has_opcode(pe) cannot be fixed within the record" in first
    assert out.read_bytes() == prog.read_bytes()


def test_fix_refuses_to_overwrite_the_program(tmp_path: Path) -> None:
    prog = tmp_path / "p.bin"
    prog.write_bytes(BAD_TYPE)
    r = run(str(prog), "--fix", str(prog))
    assert r.exit_code == 2
    assert "would overwrite the program" in r.output
    assert prog.read_bytes() == BAD_TYPE


def test_fix_is_not_json(tmp_path: Path) -> None:
    prog = tmp_path / "p.bin"
    prog.write_bytes(GOOD)
    r = run(str(prog), "--json", "--fix", str(tmp_path / "o.bin"))
    assert r.exit_code == 2 and "--fix" in r.output
    assert not (tmp_path / "o.bin").exists()
