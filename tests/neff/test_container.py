"""The NEFF reader reads back exactly what the writer wrote (machine.neff)."""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.machine.neff.container import (
    HEADER_BYTES,
    PAD_MULTIPLE,
    HashCheck,
    parse_header,
    read_archive,
)
from neurondbg.machine.neff.model import SB, Descriptor, DmaEntry, DmaQueue, Engine, Subgraph, Var
from neurondbg.machine.neff.reader import open_neff
from neurondbg.machine.neff.sniff import looks_like_neff
from neurondbg.machine.neff.writer import neff_bytes, write_neff
from tests.neff.synth import vector_add


def test_layout_follows_the_facts(tmp_path: Path) -> None:
    data = neff_bytes([vector_add()], target="cayman", name="k.neff")
    h = parse_header(data, "k")
    assert (h.packaging_version, h.header_size, h.kelp_version_major) == (2, 1024, 2)
    assert h.data_size == len(data) - HEADER_BYTES and h.data_size % PAD_MULTIPLE == 0
    assert h.hash[:16] == hashlib.md5(data[HEADER_BYTES:]).digest() and h.hash[16:] == bytes(16)
    assert h.name == "k.neff" and h.subgraph_count == 1
    assert data[HEADER_BYTES:HEADER_BYTES + 2] == b"\x1f\x8b" and data[HEADER_BYTES + 9] == 3
    assert looks_like_neff(data[:HEADER_BYTES + 2])
    path = tmp_path / "k.neff"
    path.write_bytes(data)
    a = read_archive(path)
    assert a.hash_check is HashCheck.VERIFIED and a.warnings == []
    assert {"info.json", "kelf-0.json", "neff.json", "sg00/def.json", "sg00/SP.bin",
            "sg00/Activation.json", "sg00/tensor_map.json"} <= set(a.members)


def test_write_refuses_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "k.neff"
    path.write_bytes(b"mine")
    with pytest.raises(FileExistsError):
        write_neff(path, [vector_add()])
    assert path.read_bytes() == b"mine"


def test_a_hash_that_is_not_the_md5_is_a_warning(tmp_path: Path) -> None:
    data = bytearray(neff_bytes([vector_add()]))
    data[0xAC:0xBC] = bytes(range(16))
    path = tmp_path / "k.neff"
    path.write_bytes(bytes(data))
    neff = open_neff(path)
    assert neff.hash_check is HashCheck.UNKNOWN
    assert len(neff.warnings) == 1 and "not the payload's MD5" in neff.warnings[0]
    assert neff.subgraphs[0] == vector_add()


def test_packaging_version_1_verifies_a_sha256(tmp_path: Path) -> None:
    data = bytearray(neff_bytes([vector_add()]))
    data[0:8] = (1).to_bytes(8, "little")
    data[0xAC:0xCC] = hashlib.sha256(data[HEADER_BYTES:]).digest()
    path = tmp_path / "k.neff"
    path.write_bytes(bytes(data))
    neff = open_neff(path)
    assert neff.hash_check is HashCheck.SHA256 and neff.warnings == []
    data[0:8] = (2).to_bytes(8, "little")  # only version 1 names SHA-256
    path.write_bytes(bytes(data))
    assert open_neff(path).hash_check is HashCheck.UNKNOWN


def test_not_a_neff_is_not_taken_for_one() -> None:
    record = bytes([0x49, 16]) + bytes(62)
    assert not looks_like_neff(record * 20)
    assert not looks_like_neff(struct.pack("<QQ", 2, 1024) + bytes(1008) + b"PK")


names = st.text("abcdefghij_XYZ0123456789", min_size=1, max_size=12)
ints = st.integers(0, 2**40)
dims = st.integers(1, 4)


@st.composite
def descriptors(draw: st.DrawFn) -> Descriptor:
    n, m = draw(dims), draw(dims)
    return Descriptor(
        draw(st.sampled_from([SB, "X", "W"])), draw(st.sampled_from([SB, "out"])),
        draw(st.sampled_from(["float32", "float16", "int8"])),
        draw(st.sampled_from(["float32", "float16"])), draw(ints), draw(ints),
        tuple(draw(st.lists(ints, min_size=n, max_size=n))),
        tuple(draw(st.lists(ints, min_size=m, max_size=m))),
        tuple(draw(st.lists(st.integers(-2**31, 2**31), min_size=n, max_size=n))),
        tuple(draw(st.lists(st.integers(-2**31, 2**31), min_size=m, max_size=m))),
        op=draw(st.sampled_from(["copy", "cast", None])),
        num_tiling_dimensions=draw(st.sampled_from([1, 2, None])),
        transpose_op=draw(st.sampled_from([None, "WZXY"])),
        transpose_shape=draw(st.sampled_from([None, (2, 3, 4, 5)])),
        transpose_element_size=draw(st.sampled_from([None, 2, 4])))


@st.composite
def subgraphs(draw: st.DrawFn) -> Subgraph:
    queues = {}
    for i, q in enumerate(draw(st.lists(names, max_size=3, unique=True))):
        queues[q] = DmaQueue(q, draw(st.sampled_from(list(Engine))),
                             tuple(range(8 + 16 * i, 24 + 16 * i)),
                             draw(st.sampled_from(["in", "data"])))
    entries = {}
    for e in Engine:
        mine = [q for q in queues.values() if q.owner is e]
        if mine:
            picks = draw(st.lists(st.sampled_from(mine), max_size=4))
            counts: dict[str, int] = {}
            out = []
            for q in picks:
                k = counts.get(q.name, 0)
                counts[q.name] = k + 1
                out.append(DmaEntry(q.name, k, q.semaphore_set[k % 16],
                                    tuple(draw(st.lists(descriptors(), max_size=3))),
                                    draw(names)))
            entries[e] = tuple(out)
    streams = {e: np.frombuffer(draw(st.binary(min_size=0, max_size=4).map(
        lambda b: b * 64)), dtype=np.uint8).reshape(-1, 64) for e in Engine}
    variables = {n: Var(n, draw(st.sampled_from(["input", "output", "virtual"])),
                        draw(st.integers(0, 9)), draw(ints)) for n in draw(
        st.lists(names, max_size=3, unique=True))}
    return Subgraph(draw(st.sampled_from(["sg00", "sg01"])), streams, queues, entries,
                    variables, {}, draw(st.integers(0, 8)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(sub=subgraphs(), target=st.sampled_from(["sunda", "cayman"]))
def test_the_reader_reads_back_what_the_writer_wrote(tmp_path: Path, sub: Subgraph,
                                                     target: str) -> None:
    path = tmp_path / "p.neff"
    path.unlink(missing_ok=True)
    write_neff(path, [sub], target=target, name="p.neff", tool_version="t1")
    neff = open_neff(path)
    assert neff.subgraphs == [sub]
    assert (neff.info.target, neff.info.tool_version, neff.info.name) == (target, "t1", "p.neff")
    assert neff.hash_check is HashCheck.VERIFIED and neff.warnings == []
