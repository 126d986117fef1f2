"""The reader accepts what real NEFFs vary in (neff-facts §1.2, §2.5, §8), and words a
malformed value by its JSON path."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from neurondbg.machine.neff.container import NeffError
from neurondbg.machine.neff.reader import open_neff
from neurondbg.machine.neff.writer import (
    archive_members,
    gzip_bytes,
    neff_from_members,
    tar_bytes,
)
from tests.neff import hostile
from tests.neff.synth import vector_add


def members() -> dict[str, bytes]:
    return archive_members([vector_add()], "sunda", "k.neff", "t")


def opened(tmp_path: Path, data: bytes):
    path = tmp_path / "k.neff"
    path.write_bytes(data)
    return open_neff(path)


def test_member_order_and_optional_members(tmp_path: Path) -> None:
    m = members()
    for name in ("info.json", "neff.json", "sg00/tensor_map.json"):
        del m[name]
    shuffled = dict(reversed(list(m.items())))
    neff = opened(tmp_path, neff_from_members(shuffled))
    sub = neff.subgraphs[0]
    assert neff.info.tool_version is None and sub.tensors == {}
    assert sub.queues == vector_add().queues and sub.streams.keys() == vector_add().streams.keys()


def test_unknown_keys_missing_tiling_and_transposes(tmp_path: Path) -> None:
    m = members()
    sp = json.loads(m["sg00/SP.json"])
    sp["future_key"] = {"x": [1, 2]}
    d = sp["dma"][0]["desc"][0]
    del d["num_tiling_dimensions"], d["op"]
    d.update(transpose_op="WZXY", transpose_shape=[1, 2, 3, 4], transpose_element_size=2,
             num_tiling_dimensions=2, extra=True)
    del sp["dma"][1]["desc"][0]["num_tiling_dimensions"]
    m["sg00/SP.json"] = json.dumps(sp).encode()
    definition = json.loads(m["sg00/def.json"])
    definition.update(cc_streams={"num_streams": 0}, neff_features=["neff_feature_vnc"])
    for key in [k for k in definition if k.endswith("_instr") or k in ("act", "sp")]:
        del definition[key]  # the compiler's default file names are used
    m["sg00/def.json"] = json.dumps(definition).encode()
    sub = opened(tmp_path, neff_from_members(m)).subgraphs[0]
    first = sub.engine_entries(sub.queues["qSPIO0"].owner)[0].descriptors[0]
    assert (first.op, first.transpose_op, first.transpose_shape, first.num_tiling_dimensions) \
        == (None, "WZXY", (1, 2, 3, 4), 2)
    assert sub.engine_entries(sub.queues["qSPIO0"].owner)[1].descriptors[0] \
        .num_tiling_dimensions is None
    assert len(sub.streams[next(iter(sub.streams))]) == 1


def test_directories_long_names_and_no_end_blocks(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        d = tarfile.TarInfo("sg00")
        d.type = tarfile.DIRTYPE
        tar.addfile(d)
        for name, data in members().items():
            info = tarfile.TarInfo("./" + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        long = tarfile.TarInfo("sg00/" + "n" * 150 + ".npy")
        long.size = 3
        tar.addfile(long, io.BytesIO(b"abc"))
    raw = buf.getvalue()
    end = raw.rfind(b"abc") + 512  # the last member's data block: cut the end blocks off
    neff = opened(tmp_path, hostile.wrap(gzip_bytes(raw[:end])))
    assert neff.subgraphs[0] == vector_add()
    assert neff.member_count == len(members()) + 1


def test_concatenated_gzip_members(tmp_path: Path) -> None:
    raw = tar_bytes(members())
    half = len(raw) // 2
    neff = opened(tmp_path, hostile.wrap(gzip_bytes(raw[:half]) + gzip_bytes(raw[half:])))
    assert neff.subgraphs[0] == vector_add()


def test_bytes_after_the_payload_are_a_warning(tmp_path: Path) -> None:
    neff = opened(tmp_path, neff_from_members(members()) + b"extra")
    assert neff.warnings[-1].endswith("5 bytes after the payload's data_size are ignored")


@pytest.mark.parametrize(("edit", "said"), [
    (lambda sp: sp["dma"][0]["desc"][0].update(from_sizes="abc"),
     "sg00/SP.json: dma[0].desc[0].from_sizes: 'abc'; expected a list of integers >= 0"),
    (lambda sp: sp["dma"][0]["desc"][0].update(to_steps=[1]),
     "sg00/SP.json: dma[0].desc[0]: to_sizes has 2 dimensions, to_steps 1; expected the "
     "same number"),
    (lambda sp: sp["dma"][1].update(id=-1),
     "sg00/SP.json: dma[1].id: -1; expected an integer >= 0"),
    (lambda sp: sp["dma"][1].update(id=0),
     "sg00/SP.json: dma[1]: a second entry qSPIO0#0; each (queue, id) names one entry"),
    (lambda sp: sp["dma"][0]["desc"][0].pop("from"),
     "sg00/SP.json: dma[0].desc[0]: missing key 'from'"),
    (lambda sp: sp.update(dma={"a": 1}), "sg00/SP.json: dma: {'a': 1}; expected a list"),
])
def test_malformed_values_are_named_by_their_json_path(tmp_path: Path, edit, said: str) -> None:
    m = members()
    sp = json.loads(m["sg00/SP.json"])
    edit(sp)
    m["sg00/SP.json"] = json.dumps(sp).encode()
    with pytest.raises(NeffError) as e:
        opened(tmp_path, neff_from_members(m))
    assert str(e.value) == f"{tmp_path / 'k.neff'}: {said}"


@pytest.mark.parametrize(("member", "data", "said"), [
    ("kelf-0.json", b'{"graphs": []', "kelf-0.json:1:14: invalid JSON"),
    ("kelf-0.json", b'{"graphs": [], "target": "sunda"}', "graphs: an empty list"),
    ("sg00/PE.bin", b"x" * 65, "member 'sg00/PE.bin': 65 bytes is not a whole number of "
                               "64-byte records"),
    ("sg00/def.json", b'{"dma_queue": {"q": {"owner": "dma", "semaphore_set": [8]}}}',
     "dma_queue.q.owner: 'dma'; expected an engine: act, dve, pe, pool, sp"),
])
def test_malformed_members(tmp_path: Path, member: str, data: bytes, said: str) -> None:
    m = members()
    m[member] = data
    with pytest.raises(NeffError) as e:
        opened(tmp_path, neff_from_members(m))
    assert said in str(e.value) and "\n" not in str(e.value)


def test_a_missing_required_member(tmp_path: Path) -> None:
    m = members()
    del m["sg00/DVE.bin"]
    with pytest.raises(NeffError) as e:
        opened(tmp_path, neff_from_members(m))
    assert str(e.value).endswith("no member 'sg00/DVE.bin' in the archive")


def test_a_gnu_tar_with_long_names(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, data in [*members().items(), ("sg00/" + "g" * 120 + ".json", b"{}")]:
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 1_700_000_000
            tar.addfile(info, io.BytesIO(data))
    neff = opened(tmp_path, hostile.wrap(gzip_bytes(buf.getvalue())))
    assert neff.subgraphs[0] == vector_add() and neff.member_count == len(members()) + 1


def test_a_bad_tar_checksum(tmp_path: Path) -> None:
    raw = bytearray(tar_bytes(members()))
    raw[0] ^= 1  # the first member's name
    with pytest.raises(NeffError) as e:
        opened(tmp_path, hostile.wrap(gzip_bytes(bytes(raw))))
    assert str(e.value).endswith("tar header 1 has a bad checksum: the payload is not a tar "
                                 "archive")
