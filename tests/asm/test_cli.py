"""`neurondbg asm` / `neurondbg disasm` and load_any."""

import json

from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.asm import load_any

SRC = """\
.data sb[p0:p4, 0] fp32 1.0 2.0
start: COPY src=sb[0, 0] num=[2,1,1,1] dst=sb[0, 0x40] dst.num=[2,1,1,1] in_dtype=FP32 \
out_dtype=FP32 nac=4
  MOVE R1=7
  HALT
"""


def test_asm_then_disasm(tmp_path) -> None:
    src = tmp_path / "p.asm"
    src.write_text(SRC)
    out = tmp_path / "p.bin"
    r = CliRunner().invoke(cli, ["asm", str(src), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert out.stat().st_size == 3 * 64
    assert (tmp_path / "p.bin.data.npz").exists()
    prog, data = load_any(out)
    assert len(prog) == 3 and data[0].partitions == (0, 4)
    r = CliRunner().invoke(cli, ["disasm", str(out)])
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert lines[0] == ".bytes sb[p0:p4, 0x0] 0x0000803f00000040"
    assert lines[-1] == "HALT"
    (tmp_path / "back.asm").write_text(r.output)
    r2 = CliRunner().invoke(cli, ["asm", str(tmp_path / "back.asm"), "-o", str(tmp_path / "b.bin")])
    assert r2.exit_code == 0 and (tmp_path / "b.bin").read_bytes() == out.read_bytes()


def test_disasm_json_shape_and_text_input(tmp_path) -> None:
    src = tmp_path / "p.asm"
    src.write_text(SRC)
    r = CliRunner().invoke(cli, ["disasm", str(src), "--json"])
    assert r.exit_code == 0
    doc = json.loads(r.output)
    assert [d["mnemonic"] for d in doc] == ["COPY", "MOVE", "HALT"]
    first = doc[0]
    assert (first["index"], first["offset"], first["opcode"]) == (0, 0, 0x46)
    assert first["fields"]["num_active_channels"] == 4
    assert first["fields"]["src_mem_pattern.num_elem"] == [2, 1, 1, 1]
    assert doc[1]["offset"] == 64 and doc[1]["fields"]["dst_registers"][0] == 1


def test_errors_exit_2_without_traceback(tmp_path) -> None:
    bad = tmp_path / "bad.asm"
    bad.write_text("HALT\nCOPY in_dtype=NOPE\n")
    r = CliRunner().invoke(cli, ["asm", str(bad), "-o", str(tmp_path / "o.bin")])
    assert r.exit_code == 2
    lines = r.output.splitlines()
    assert lines[0].startswith(f"neurondbg: error: {bad}:2:15: expected a Dtype name")
    assert lines[2].endswith("^") and "Traceback" not in r.output
    short = tmp_path / "short.bin"
    short.write_bytes(bytes(70))
    r = CliRunner().invoke(cli, ["disasm", str(short)])
    assert r.exit_code == 2
    assert r.output.strip() == (f"neurondbg: error: {short}: size 70 bytes is not a multiple "
                                "of 64: offset 64: partial record of 6 bytes")
    r = CliRunner().invoke(cli, ["disasm", str(bad)])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    r = CliRunner().invoke(cli, ["disasm", str(tmp_path / "missing.bin")])
    assert r.exit_code == 2 and "cannot read" in r.output


def test_kernels_are_found_in_any_spelling_and_comments_are_no_sections(tmp_path) -> None:
    # the command looks for the word before the exact `.engine` line pattern
    src = tmp_path / "k.asm"
    src.write_text("  .EnGiNe pool\nNOP\n.engine dve  # queue two\nHALT\n")
    r = CliRunner().invoke(cli, ["asm", str(src), "-o", str(tmp_path / "k.toml")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "k.pool.bin").stat().st_size == 64
    assert (tmp_path / "k.dve.bin").stat().st_size == 64
    plain = tmp_path / "p.asm"
    plain.write_text("NOP  # not an .engine line\n# .engine pool\nHALT\n")
    r = CliRunner().invoke(cli, ["asm", str(plain), "-o", str(tmp_path / "p.bin")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "p.bin").stat().st_size == 128


def test_a_kernel_needs_a_toml_output_and_nothing_is_written(tmp_path) -> None:
    src = tmp_path / "k.asm"
    src.write_text(".engine pool\nNOP\n")
    r = CliRunner().invoke(cli, ["asm", str(src), "-o", str(tmp_path / "k.bin")])
    assert r.exit_code == 2 and "must end in .toml" in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.asm"]
