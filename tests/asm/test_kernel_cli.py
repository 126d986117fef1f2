"""`neurondbg asm` / `disasm` of kernels: manifest + one stream per engine, `.engine` text."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.asm import to_json
from neurondbg.machine.core.kernel import load_kernel

DATA = Path(__file__).parent.parent / "core" / "data"
TWO = DATA / "two_engines.asm"


def _run(*args: str):
    return CliRunner().invoke(cli, list(args))


def _memory(kernel) -> dict:
    """The initial SBUF/PSUM bytes the kernel's data makes (later inits win)."""
    out: dict = {}
    for d in kernel.data:
        for i, row in enumerate(d.data):
            for j, b in enumerate(row.tolist()):
                out[(d.space, d.partitions[0] + i, d.offset + j)] = b
    return out


def test_asm_of_engine_sections_writes_a_manifest_and_a_stream_per_engine(tmp_path: Path):
    out = tmp_path / "k.toml"
    r = _run("asm", str(TWO), "-o", str(out))
    assert r.exit_code == 0, r.output
    assert "records per engine: pool 3, dve 4" in r.output
    doc = tomllib.loads(out.read_text())
    assert doc == {"kernel": {"gen": "cayman"},
                   "engines": {"pool": "k.pool.bin", "dve": "k.dve.bin"}}
    assert (tmp_path / "k.pool.bin.data.npz").exists()  # the kernel-wide + pool's data
    assert not (tmp_path / "k.dve.bin.data.npz").exists()
    src, built = load_kernel(TWO), load_kernel(out)
    assert built.engines == src.engines
    for e in src.engines:
        assert built.queue(e).digest == src.queue(e).digest
    assert _memory(built) == _memory(src)


def test_disasm_of_a_manifest_reassembles_to_identical_streams(tmp_path: Path):
    out = tmp_path / "k.toml"
    assert _run("asm", str(TWO), "-o", str(out)).exit_code == 0
    np.save(tmp_path / "img.npy", np.full((2, 4), 7, dtype=np.uint8))
    with out.open("a") as fh:
        fh.write('\n[data]\npsum = "img.npy"\n')
    r = _run("disasm", str(out))
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0] == ".bytes psum[p0:p2, 0x0] 0x07070707"  # the image: kernel-wide data
    assert lines.index(".engine pool") < lines.index(".engine dve")
    back = tmp_path / "back.asm"
    back.write_text(r.output)
    assert _run("asm", str(back), "-o", str(tmp_path / "b.toml")).exit_code == 0
    for e in ("pool", "dve"):
        assert (tmp_path / f"b.{e}.bin").read_bytes() == (tmp_path / f"k.{e}.bin").read_bytes()
    assert _memory(load_kernel(tmp_path / "b.toml")) == _memory(load_kernel(out))


def test_disasm_of_an_engine_file_and_its_gen(tmp_path: Path):
    src = tmp_path / "m.asm"
    src.write_text(TWO.read_text().replace(".gen cayman", ".gen maverick"))
    r = _run("disasm", str(src))
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == ".gen maverick"
    again = tmp_path / "again.asm"
    again.write_text(r.output)
    k1, k2 = load_kernel(src), load_kernel(again)
    assert [q.digest for q in k1.queues] == [q.digest for q in k2.queues]


def test_disasm_json_of_a_kernel_keeps_the_one_queue_shape_per_engine():
    r = _run("disasm", str(TWO), "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    k = load_kernel(TWO)
    assert list(doc) == ["schema", "engines"] and list(doc["engines"]) == ["pool", "dve"]
    for e in ("pool", "dve"):
        assert doc["engines"][e] == to_json(k.queue(e).program.program)
    assert doc["engines"]["dve"][0]["mnemonic"] == "NOP"


def test_asm_of_a_kernel_needs_a_toml_output(tmp_path: Path):
    r = _run("asm", str(TWO), "-o", str(tmp_path / "k.bin"))
    assert r.exit_code == 2
    assert "has .engine sections, so -o names the kernel manifest to write and must end " \
           "in .toml" in r.output
    assert list(tmp_path.iterdir()) == []


def test_asm_of_a_kernel_never_writes_over_its_source(tmp_path: Path):
    src = tmp_path / "k.pool.bin"  # a source named like the pool stream it would make
    src.write_text(TWO.read_text())
    r = _run("asm", str(src), "-o", str(tmp_path / "k.toml"))
    assert r.exit_code == 2
    assert "the pool stream of -o would overwrite the source" in r.output
    assert src.read_text() == TWO.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.pool.bin"]


def test_asm_of_a_kernel_removes_a_stale_sidecar(tmp_path: Path):
    out = tmp_path / "k.toml"
    with_data = tmp_path / "w.asm"
    with_data.write_text(".engine dve\n.data sb[0, 0] int8 1\nHALT\n")
    assert _run("asm", str(with_data), "-o", str(out)).exit_code == 0
    assert (tmp_path / "k.dve.bin.data.npz").exists()
    without = tmp_path / "wo.asm"
    without.write_text(".engine dve\nHALT\n")
    assert _run("asm", str(without), "-o", str(out)).exit_code == 0
    assert not (tmp_path / "k.dve.bin.data.npz").exists()
    assert load_kernel(out).data == ()


def test_asm_of_a_bad_kernel_is_an_error_at_its_line(tmp_path: Path):
    src = tmp_path / "bad.asm"
    src.write_text("HALT\n.engine pool\n")
    r = _run("asm", str(src), "-o", str(tmp_path / "k.toml"))
    assert r.exit_code == 2
    assert r.output.startswith(f"neurondbg: error: {src}:1:1: instruction before the first "
                               ".engine")
    assert not (tmp_path / "k.toml").exists()


def test_disasm_shows_a_manifests_machine_settings_as_comments(tmp_path: Path):
    out = tmp_path / "k.toml"
    assert _run("asm", str(TWO), "-o", str(out)).exit_code == 0
    with out.open("a") as fh:
        fh.write("\n[machine]\nsbuf_bytes = 4096\nfp8_sat = true\n")
    r = _run("disasm", str(out))
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[:2] == ["# [machine] sbuf_bytes = 4096",
                                         "# [machine] fp8_sat = true"]
