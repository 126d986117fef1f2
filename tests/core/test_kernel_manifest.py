"""machine.core.manifest: kernel manifests (TOML) and their one-line errors."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from neurondbg.machine.asm import assemble, save_data
from neurondbg.machine.asm.data import data_path
from neurondbg.machine.core.kernel import KernelError, is_kernel_source, load_kernel
from neurondbg.machine.core.manifest import MACHINE_KEYS, looks_like_manifest
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen

DATA = Path(__file__).parent / "data"


@pytest.fixture
def streams(tmp_path: Path) -> Path:
    """pool.bin (with a data sidecar), dve.asm (with a .data line) and img.npy."""
    asm = assemble((DATA / "pool_part.asm").read_text() + ".data sb[0, 0] int8 5 6\n", "p")
    (tmp_path / "pool.bin").write_bytes(asm.records)
    save_data(data_path(tmp_path / "pool.bin"), asm.data)
    (tmp_path / "dve.asm").write_text((DATA / "dve_part.asm").read_text()
                                      + ".data sb[1, 0] int8 9\n")
    np.save(tmp_path / "img.npy", np.arange(6, dtype=np.uint8).reshape(2, 3))
    return tmp_path


def _manifest(d: Path, text: str, name: str = "k.toml") -> Path:
    p = d / name
    p.write_text(text)
    return p


def _error(path: Path, gen: Gen | None = None) -> str:
    with pytest.raises(KernelError) as e:
        load_kernel(path, gen)
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_a_manifest_loads_each_stream_through_the_one_loader(streams: Path) -> None:
    m = _manifest(streams, '[kernel]\ngen = "mariana"\n[engines]\ndve = "dve.asm"\n'
                  'pool = "pool.bin"\n[machine]\nsbuf_bytes = 4096\nfp8_sat = true\n')
    k = load_kernel(m)
    assert k.path == m and k.gen == Gen.MARIANA and k.engines == ("pool", "dve")
    assert k.queue("pool").path == streams / "pool.bin"
    assert k.queue("dve").program.where(1) == f"{streams / 'dve.asm'}:3:5"
    assert k.queue("dve").program.labels == {"loop": 64}
    assert dict(k.machine) == {"sbuf_bytes": 4096, "fp8_sat": True}
    # the streams' own data (the sidecar, the .data line) in ENGINE_ORDER
    assert [(d.partitions, d.data.tolist()) for d in k.data] == [((0, 1), [[5, 6]]),
                                                                 ((1, 2), [[9]])]


def test_explicit_gen_wins_over_the_manifest(streams: Path) -> None:
    m = _manifest(streams, '[kernel]\ngen = "trn2"\n[engines]\npool = "pool.bin"\n')
    assert load_kernel(m).gen == Gen.CAYMAN  # a product name, as --gen takes
    assert load_kernel(m, Gen.SUNDA).gen == Gen.SUNDA
    m2 = _manifest(streams, '[engines]\npool = "pool.bin"\n', "nogen.toml")
    assert load_kernel(m2).gen == DEFAULT_GEN


def test_data_images_come_after_the_streams_data(streams: Path) -> None:
    m = _manifest(streams, '[engines]\npool = "pool.bin"\n[data]\nsbuf = "img.npy"\n'
                  'psum = "img.npy"\n')
    k = load_kernel(m)
    assert [(d.space, d.partitions, d.offset) for d in k.data] == [
        ("sbuf", (0, 1), 0), ("sbuf", (0, 2), 0), ("psum", (0, 2), 0)]
    assert k.data[1].data.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_data_tables_place_an_image(streams: Path) -> None:
    sub = streams / "img"
    sub.mkdir()
    os.replace(streams / "img.npy", sub / "w.npy")
    m = _manifest(streams, '[engines]\npool = "pool.bin"\n[[data]]\nspace = "sbuf"\n'
                  'file = "img/w.npy"\npartition = 3\noffset = 0x40\n[[data]]\n'
                  'space = "psum"\nfile = "img/w.npy"\n')
    k = load_kernel(m)
    assert [(d.space, d.partitions, d.offset) for d in k.data[1:]] == [
        ("sbuf", (3, 5), 64), ("psum", (0, 2), 0)]


@pytest.mark.parametrize("text, want", [
    ('[engines]\npool = "pool.bin"\n[kernel\n',
     ":3:8: invalid TOML: Expected ']' at the end of a table declaration"),
    ('[engines]\n', ": [engines]: names no engine"),
    ('[kernel]\ngen = "cayman"\n', ": no [engines] table"),
    ('[engines]\ngpsimd = "pool.bin"\n', ":2:1: [engines] gpsimd: unknown engine; expected "
     "one of pool, dve, act, pe, sp"),
    ('[engines]\npool = 3\n', ":2:1: [engines] pool: expected a file path string, found 3"),
    ('[engines]\npool = "pool.bin"\ndve = "nothere.bin"\n',
     ":3:1: [engines] dve: {d}/nothere.bin: no such file"),
    ('[engines]\npool = "k.toml"\n', ": a stream is one engine's program"),
    ('engines = 3\n', ":1:1: [engines]: expected a table"),
    ('[kernel]\ngen = "cuda"\n[engines]\npool = "pool.bin"\n',
     ":2:1: [kernel] gen: unknown generation 'cuda'"),
    ('[kernel]\nname = "x"\n[engines]\npool = "pool.bin"\n',
     ":2:1: [kernel] name: unknown key; [kernel] takes: gen"),
    ('[engines]\npool = "pool.bin"\n[extras]\n', ":3:1: unknown table or key 'extras'"),
    ('[engines]\npool = "pool.bin"\n[machine]\nsbuf_byte = 1\n',
     ":4:1: [machine] sbuf_byte: unknown key; [machine] takes: partitions, sbuf_bytes"),
    ('[engines]\npool = "pool.bin"\n[machine]\nengine = "dve"\n',
     ":4:1: [machine] engine: a kernel sets this elsewhere"),
    ('[engines]\npool = "pool.bin"\n[machine]\npartitions = 129\n',
     ":4:1: [machine] partitions: expected an integer 0..128, found 129"),
    ('[engines]\npool = "pool.bin"\n[machine]\nbase = true\n',
     ":4:1: [machine] base: expected an integer"),
    ('[engines]\npool = "pool.bin"\n[machine]\nfp8_sat = 1\n',
     ":4:1: [machine] fp8_sat: expected true or false, found 1"),
    ('[engines]\npool = "pool.bin"\n[machine]\nfp8_exp4 = "e4m3"\n',
     ":4:1: [machine] fp8_exp4: expected 'fp8_e4m3' or 'fp8_e4m3fn', found 'e4m3'"),
    ('[engines]\npool = "pool.bin"\n[data]\nsbuf = "gone.npy"\n',
     ":4:1: [data] sbuf: {d}/gone.npy: no such file"),
    ('[engines]\npool = "pool.bin"\n[data]\nregs = "img.npy"\n', ":4:1: [data] regs: unknown key"),
    ('[engines]\npool = "pool.bin"\n[data]\nsbuf = "pool.bin"\n',
     ":4:1: [data] sbuf: {d}/pool.bin: expected a .npy file holding a uint8 array"),
    ('[engines]\npool = "pool.bin"\n[[data]]\nspace = "dram"\nfile = "img.npy"\n',
     ":4:1: [[data]] 0 space: expected one of sbuf, psum, found 'dram'"),
    ('[engines]\npool = "pool.bin"\n[[data]]\nspace = "sbuf"\nfile = "img.npy"\n[[data]]\n'
     'space = "sbuf"\nfile = "img.npy"\npartition = 127\n',
     ":8:1: [[data]] 1 file: {d}/img.npy: shape (2, 3) is larger than any machine holds"),
    ('[engines]\npool = "pool.bin"\n[[data]]\nspace = "sbuf"\nfile = "img.npy"\nbyte = 4\n',
     ":6:1: [[data]] 0 byte: unknown key; [[data]] takes: space, file, partition, offset"),
    ('[engines]\npool = "pool.bin"\n[[data]]\nspace = "sbuf"\noffset = -1\nfile = "img.npy"\n',
     ":5:1: [[data]] 0 offset: expected an integer 0..1048575, found -1"),
    ('data = 5\n[engines]\npool = "pool.bin"\n',
     ":1:1: [data]: expected a table or [[data]] tables"),
])
def test_bad_manifests_are_one_line_errors_naming_file_and_key(
        streams: Path, text: str, want: str) -> None:
    m = _manifest(streams, text)
    msg = _error(m)
    assert msg.startswith(str(m)), msg
    assert want.format(d=streams) in msg, msg


def test_an_empty_image_is_refused(streams: Path) -> None:
    np.save(streams / "e.npy", np.zeros((0, 4), dtype=np.uint8))
    m = _manifest(streams, '[engines]\npool = "pool.bin"\n[data]\nsbuf = "e.npy"\n')
    assert "an empty image (0, 4)" in _error(m)


def test_a_missing_or_unreadable_manifest(tmp_path: Path) -> None:
    assert _error(tmp_path / "none.toml") == f"{tmp_path / 'none.toml'}: no such kernel manifest"
    (tmp_path / "dir.toml").mkdir()
    assert "is a directory" in _error(tmp_path / "dir.toml")
    big = tmp_path / "big.toml"
    big.write_text("#" * (1024 * 1024 + 1))
    assert "over the 1 MiB limit for a kernel manifest" in _error(big)
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"[engines]\npool = '\xff'\n")
    assert _error(bad) == f"{bad}: offset 18: expected UTF-8 TOML text"


def test_stream_errors_name_the_stream(streams: Path) -> None:
    (streams / "bad.asm").write_text("HALT\nNOPE\n")
    m = _manifest(streams, '[engines]\npool = "bad.asm"\n')
    from neurondbg.machine.asm import AsmError
    with pytest.raises(AsmError) as e:
        load_kernel(m)
    assert e.value.one_line.startswith(f"{streams / 'bad.asm'}:2:1: unknown mnemonic 'NOPE'")


def test_machine_keys_are_machineconfig_fields_but_gen_and_engine() -> None:
    assert MACHINE_KEYS == ("partitions", "sbuf_bytes", "psum_bytes", "fp8_exp4", "fp8_sat",
                            "base", "execute_invalid")


def test_a_manifest_is_a_kernel_source_and_a_session_is_not(streams: Path) -> None:
    m = _manifest(streams, '[engines]\npool = "pool.bin"\n')
    assert is_kernel_source(m)
    assert is_kernel_source(_manifest(streams, "[engines\npool = 1\n", "broken.toml")) is False
    assert is_kernel_source(_manifest(streams, "x = [\n[engines]\n", "broken2.toml"))
    session = _manifest(streams, 'schema = 1\n[program]\npath = "pool.bin"\n', "s.toml")
    assert not is_kernel_source(session)
    assert not is_kernel_source(streams / "gone.toml")
    assert looks_like_manifest(b'[kernel]\ngen = "cayman"\n')
    assert not looks_like_manifest(b'schema = 1\n[kernel]\npath = "k.toml"\n')


def test_a_refused_stream_names_the_manifest_key_and_the_stream(streams: Path) -> None:
    (streams / "sub.bin").mkdir()
    (streams / "odd.bin").write_bytes(bytes(65))
    m = _manifest(streams, '[engines]\npool = "sub.bin"\n')
    assert _error(m) == (f"{m}:2:1: [engines] pool: {streams / 'sub.bin'}: is a directory; "
                         "expected a regular file holding a program")
    m = _manifest(streams, '[engines]\npool = "pool.bin"\ndve = "odd.bin"\n')
    assert _error(m).startswith(f"{m}:3:1: [engines] dve: {streams / 'odd.bin'}: size 65 bytes"
                                " is not a multiple of 64")


def test_paths_are_relative_to_the_manifests_real_folder(streams: Path, tmp_path_factory):
    m = _manifest(streams, '[engines]\npool = "pool.bin"\n')
    elsewhere = tmp_path_factory.mktemp("links") / "link.toml"
    elsewhere.symlink_to(m)
    k = load_kernel(elsewhere)
    assert k.path == elsewhere and k.queue("pool").path == streams / "pool.bin"


def test_the_kernels_data_is_held_to_the_data_limit(streams: Path, monkeypatch) -> None:
    import neurondbg.machine.core.manifest as manifest
    np.save(streams / "b.npy", np.zeros((2, 100), dtype=np.uint8))  # a 328-byte file
    monkeypatch.setattr(manifest, "MAX_DATA_BYTES", 328)  # each file fits, both do not
    m = _manifest(streams, '[engines]\npool = "pool.bin"\n[[data]]\nspace = "sbuf"\n'
                  'file = "b.npy"\n[[data]]\nspace = "psum"\nfile = "b.npy"\n')
    assert _error(m) == f"{m}:3:1: [data]: the kernel's data would hold 402 bytes; at most " \
                        "328 bytes in all"
    monkeypatch.setattr(manifest, "MAX_DATA_BYTES", 1)
    assert _error(m) == (f"{m}:2:1: [engines] pool: the streams' data is over the 1 byte "
                         "limit for a kernel's data")


def test_kernels_compare_by_identity_not_by_numpy_arrays(streams: Path) -> None:
    m = _manifest(streams, '[engines]\npool = "pool.bin"\n')
    a, b = load_kernel(m), load_kernel(m)
    assert a == a and a != b and len({a, b}) == 2
    assert a.queue("pool").digest == b.queue("pool").digest


def test_inputs_are_every_file_the_kernel_was_read_from(streams: Path) -> None:
    m = _manifest(streams, '[engines]\npool = "pool.bin"\ndve = "dve.asm"\nsp = "pool.bin"\n'
                  '[data]\nsbuf = "img.npy"\npsum = "img.npy"\n')
    assert load_kernel(m).inputs == (m, streams / "pool.bin",
                                     streams / "pool.bin.data.npz", streams / "dve.asm",
                                     streams / "img.npy")
    assert load_kernel(streams / "dve.asm").inputs == (streams / "dve.asm",)
    assert load_kernel(streams / "pool.bin").inputs == (streams / "pool.bin",
                                                        streams / "pool.bin.data.npz")


def test_a_broken_session_file_is_not_taken_for_a_manifest() -> None:
    assert not looks_like_manifest(b'schema = 1\n[kernel]\npath = "k.toml\n')
    assert looks_like_manifest(b'[kernel]\npath = "k.toml\n')


def test_an_assembly_streams_stray_sidecar_is_not_an_input(tmp_path: Path) -> None:
    src = tmp_path / "p.asm"
    src.write_text("HALT\n")
    save_data(data_path(src), [])  # never read for assembly
    assert load_kernel(src).inputs == (src,)
