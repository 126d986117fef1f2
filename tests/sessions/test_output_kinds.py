"""Outputs never replace a file of another kind without --force (sessions.atomic)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.asm import save_data
from neurondbg.machine.asm.data import DataInit
from neurondbg.machine.neff.writer import write_neff
from neurondbg.sessions.atomic import (
    FileKind,
    KindMismatch,
    allow_replacing,
    kind_of,
    replacing_forced,
    sniff_kind,
    write_atomic,
)
from tests.neff.synth import vector_add

LOOP = ("MOVE R1=0 R2=10\nloop: ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 "
        "src0=R2 src1=1\nHALT\n")
KERNEL = ".engine pool\nMOVE R1=1\nHALT\n.engine dve\nMOVE R2=2\nHALT\n"


def run(*args: object) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, [str(a) for a in args])
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def files(tmp_path: Path) -> dict[FileKind, Path]:
    """One file of each kind, made by neurondbg's own writers where it has one."""
    src = tmp_path / "made" / "loop.asm"
    src.parent.mkdir()
    src.write_text(LOOP)
    made = src.parent
    assert run("asm", src, "-o", made / "loop.bin")[0] == 0
    assert run("run", src, "--save-session", made / "s.toml", "--trace", made / "t.jsonl",
               "--dump-sbuf", made / "sb.npy")[0] == 0
    (made / "k.asm").write_text(KERNEL)
    assert run("asm", made / "k.asm", "-o", made / "k.toml")[0] == 0
    save_data(made / "d.npz", [DataInit("sbuf", (0, 1), 0, np.ones((1, 4), np.uint8))])
    write_neff(made / "m.neff", [vector_add()], target="sunda")
    (made / "doc.json").write_text(json.dumps([{"index": 0}]))
    (made / "notes.txt").write_text("shopping list\n- milk\n")
    (made / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0" + bytes(61))
    return {FileKind.ASSEMBLY: src, FileKind.PROGRAM: made / "loop.bin",
            FileKind.SESSION: made / "s.toml", FileKind.TRACE: made / "t.jsonl",
            FileKind.SBUF_IMAGE: made / "sb.npy", FileKind.MANIFEST: made / "k.toml",
            FileKind.DATA: made / "d.npz", FileKind.NEFF: made / "m.neff",
            FileKind.JSON: made / "doc.json", FileKind.TEXT: made / "notes.txt",
            FileKind.OTHER: made / "photo.jpg"}


def test_every_kind_is_told_apart(files: dict[FileKind, Path]) -> None:
    assert {kind: sniff_kind(path) for kind, path in files.items()} == {k: k for k in files}
    assert set(files) == set(FileKind)


def test_no_kind_for_empty_missing_or_a_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").write_bytes(b"")
    assert sniff_kind(tmp_path / "empty") is None
    assert sniff_kind(tmp_path / "missing") is None
    assert sniff_kind(tmp_path) is None


@pytest.mark.parametrize(("head", "kind"), [
    (b"# comments first\n\n.gen sunda\nHALT\n", FileKind.ASSEMBLY),
    (b"top:\n  NOP\n", FileKind.ASSEMBLY),
    (b"halt\n", FileKind.ASSEMBLY),  # mnemonics in any case
    (b"# a session\nschema = 1\n[program]\npath = 'p.asm'\n", FileKind.SESSION),
    (b"[kernel]\ngen = 'sunda'\n[engines]\npool = 'k.pool.bin'\n", FileKind.MANIFEST),
    (b"# Title\n\nA README quoting a manifest:\n[kernel]\n", FileKind.TEXT),
    (b"[build-system]\nrequires = []\n", FileKind.TEXT),
    (b'{"neurondbg_trace":1,"gen":"cayman"}\n{"step":1}\n', FileKind.TRACE),
    (b'{"step":1}\n', FileKind.JSON),
    (b"[1, 2]\n", FileKind.JSON),
    (bytes(128), FileKind.PROGRAM),
    (bytes(100), FileKind.OTHER),  # not whole records
    (b"\xff\xfe bad utf-8 \x80", FileKind.OTHER),
])
def test_kind_of_heads(head: bytes, kind: FileKind) -> None:
    assert kind_of(head, len(head)) is kind


def test_a_multibyte_character_cut_by_the_sniffed_bytes_is_still_text() -> None:
    head = ("NOP  # é\n" * 10).encode()[:-3] + "é".encode()[:1]
    assert kind_of(head, len(head) + 100) is FileKind.ASSEMBLY


def test_write_atomic_refuses_another_kind_and_keeps_it(files: dict[FileKind, Path]) -> None:
    src = files[FileKind.ASSEMBLY]
    before = src.read_bytes()
    with pytest.raises(KindMismatch) as e:
        write_atomic(src, bytes(64))
    assert e.value.strerror == ("it holds an assembly source, not a program binary (64-byte "
                                "records): refusing to replace it (choose another file)")
    with allow_replacing(False), pytest.raises(KindMismatch) as e:  # a command with --force
        write_atomic(src, bytes(64))
    assert e.value.strerror.endswith("refusing to replace it (--force replaces it)")
    assert src.read_bytes() == before
    assert [p.name for p in src.parent.iterdir() if p.name.endswith(".tmp")] == []
    write_atomic(src, b"MOVE R1=4\nHALT\n")  # the same kind
    with allow_replacing():
        assert replacing_forced()
        write_atomic(src, bytes(64))
    assert not replacing_forced()
    assert src.read_bytes() == bytes(64)
    write_atomic(src, LOOP.encode(), force=True)
    assert src.read_text() == LOOP


# (command args with OUT, the kind that command writes to OUT)
WRITERS = [
    (("run", "{src}", "--save-session", "{out}"), FileKind.SESSION),
    (("run", "{src}", "--trace", "{out}"), FileKind.TRACE),
    (("run", "{src}", "--dump-sbuf", "{out}"), FileKind.SBUF_IMAGE),
    (("asm", "{src}", "-o", "{out}"), FileKind.PROGRAM),
    (("validate", "{src}", "--fix", "{out}"), FileKind.ASSEMBLY),
]


@pytest.mark.parametrize(("args", "writes"), WRITERS)
def test_each_writer_refuses_every_other_kind(files: dict[FileKind, Path], tmp_path: Path,
                                              args: tuple[str, ...], writes: FileKind) -> None:
    src = tmp_path / "p.asm"
    src.write_text(LOOP)
    for kind, made in files.items():
        out = tmp_path / f"out-{kind.name}{made.suffix}"
        out.write_bytes(made.read_bytes())
        before = out.read_bytes()
        code, _, err = run(*(a.format(src=src, out=out) for a in args))
        if kind is writes:  # an earlier output of this command: replaced
            assert code == 0, err
            continue
        assert code == 2
        assert err.count("\n") == 1 and err.startswith(f"neurondbg: error: {out}: cannot write")
        assert f"it holds {kind.value}, not {writes.value}" in err and "--force" in err
        assert out.read_bytes() == before
        code, _, err = run(*(a.format(src=src, out=out) for a in args), "--force")
        assert code == 0, err
        assert sniff_kind(out) is writes


def test_asm_kernel_refuses_a_session_where_the_manifest_goes(files: dict[FileKind, Path],
                                                                tmp_path: Path) -> None:
    src = tmp_path / "k.asm"
    src.write_text(KERNEL)
    out = tmp_path / "k.toml"
    out.write_bytes(files[FileKind.SESSION].read_bytes())
    code, _, err = run("asm", src, "-o", out)
    assert code == 2 and "it holds a session, not a kernel manifest" in err
    assert not (tmp_path / "k.pool.bin").exists()  # refused before any stream was written
    assert run("asm", src, "-o", out, "--force")[0] == 0
    assert sniff_kind(out) is FileKind.MANIFEST
    # a stream's name taken by a source
    (tmp_path / "k.dve.bin").write_text(LOOP)
    code, _, err = run("asm", src, "-o", out)
    assert code == 2 and "k.dve.bin: cannot write the dve stream of -o: it holds an " \
                         "assembly source" in err


def test_force_of_one_run_does_not_carry_to_the_next(tmp_path: Path) -> None:
    src = tmp_path / "p.asm"
    src.write_text(LOOP)
    other = tmp_path / "other.asm"
    other.write_text(LOOP)
    assert run("asm", src, "-o", other, "--force")[0] == 0
    other.write_text(LOOP)
    assert run("asm", src, "-o", other)[0] == 2
    assert other.read_text() == LOOP


def test_asm_removes_only_a_stale_sidecar_that_holds_data(tmp_path: Path) -> None:
    src = tmp_path / "p.asm"
    src.write_text(LOOP)
    side = tmp_path / "p.bin.data.npz"
    side.write_text("not data: a user's notes under that name\n")
    assert run("asm", src, "-o", tmp_path / "p.bin")[0] == 0
    assert side.read_text() == "not data: a user's notes under that name\n"
    save_data(side, [DataInit("sbuf", (0, 1), 0, np.ones((1, 4), np.uint8))])
    assert run("asm", src, "-o", tmp_path / "p.bin")[0] == 0
    assert not side.exists()


def test_asm_refuses_a_sidecar_name_taken_by_another_kind_when_it_has_data(
        tmp_path: Path) -> None:
    src = tmp_path / "p.asm"
    src.write_text(".data sb[p0:p1, 0] fp32 1.0\n" + LOOP)
    side = tmp_path / "p.bin.data.npz"
    side.write_text("notes\n")
    code, _, err = run("asm", src, "-o", tmp_path / "p.bin")
    assert code == 2 and "cannot write the data sidecar of -o: it holds a text file" in err
    assert side.read_text() == "notes\n" and not (tmp_path / "p.bin").exists()
