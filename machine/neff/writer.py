"""Writing synthetic NEFFs from the typed model (the inverse of machine.neff.reader).

    data = neff_bytes([Subgraph("sg00", streams={Engine.SP: records}, ...)], target="sunda")
    write_neff("k.neff", subgraphs, target="sunda")   # refuses an existing file

The layout follows neff-facts §1: a 1024-byte header whose hash is the payload's MD5
(then 16 zero bytes), one gzip member (OS byte 3 = Unix), zero padding to a multiple
of 10240, and a POSIX ustar archive of regular files (mode 0664, uid/gid 1000, uname
"nobody", mtime 0) holding `info.json`, `kelf-0.json`, `neff.json` and per subgraph
`def.json`, the five `.bin` streams, the five engine `.json` files and
`tensor_map.json`. Tests build every NEFF they use with it: no bytes of a real NEFF are
ever needed.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import struct
import tarfile
import uuid as uuidlib
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from neurondbg.machine.neff.container import HEADER_BYTES, PAD_MULTIPLE, NeffHeader, pack_header
from neurondbg.machine.neff.model import ENGINES, Descriptor, DmaEntry, Subgraph, Tensor, Var

TOOL_VERSION = "neurondbg-synthetic"
KELP_MAJOR = {"sunda": 1, "cayman": 2}  # header 0x18 per target (neff-facts §1.1)


def _descriptor(d: Descriptor) -> dict[str, Any]:
    out: dict[str, Any] = {
        "from": d.src, "from_dtype": d.src_dtype, "from_off": d.src_off,
        "from_sizes": list(d.src_sizes), "from_steps": list(d.src_steps),
        "to": d.dst, "to_dtype": d.dst_dtype, "to_off": d.dst_off,
        "to_sizes": list(d.dst_sizes), "to_steps": list(d.dst_steps)}
    if d.op is not None:
        out["op"] = d.op
    if d.num_tiling_dimensions is not None:
        out["num_tiling_dimensions"] = d.num_tiling_dimensions
    if d.transpose_op is not None:
        out["transpose_op"] = d.transpose_op
    if d.transpose_shape is not None:
        out["transpose_shape"] = list(d.transpose_shape)
    if d.transpose_element_size is not None:
        out["transpose_element_size"] = d.transpose_element_size
    return out


def entry_json(e: DmaEntry) -> dict[str, Any]:
    """An entry as the engine JSON `dma` list spells it."""
    return {"#comment": e.comment, "desc": [_descriptor(d) for d in e.descriptors],
            "id": e.id, "queue": e.queue, "semaphore": e.semaphore}


def _var(v: Var) -> dict[str, Any]:
    out: dict[str, Any] = {"type": v.type}
    for key, value in (("var_id", v.var_id), ("size", v.size), ("file_name", v.file_name),
                       ("backing_variable_off", v.backing_variable_off)):
        if value is not None:
            out[key] = value
    if v.type in ("input", "output", "virtual"):
        out["ops"] = []
    return out


def _tensor(t: Tensor) -> dict[str, Any]:
    out: dict[str, Any] = {"dtype": t.dtype, "is_const": t.is_const, "layer_name": t.name,
                           "tf_shape": list(t.shape), "sim_shape": list(t.shape)}
    for key, value in (("kind", t.kind), ("tf_format", t.format), ("tf_file", t.file)):
        if value is not None:
            out[key] = value
    return out


def subgraph_members(sub: Subgraph) -> dict[str, bytes]:
    """The files of one subgraph, by path inside the archive."""
    d: dict[str, Any] = {"version": "0.6", "name": "definition"}
    files: dict[str, bytes] = {}
    for e in ENGINES:
        d[e.value] = f"{e.file_stem}.json"
        d[f"{e.value}_instr"] = f"{e.file_stem}.bin"
        files[f"{sub.name}/{e.file_stem}.bin"] = sub.stream(e).tobytes()
        files[f"{sub.name}/{e.file_stem}.json"] = _dumps(
            {"name": f"{e.file_stem}.json", "instr": f"{e.file_stem}.bin",
             "dma": [entry_json(x) for x in sub.engine_entries(e)]})
    d["dma_queue"] = {q.name: {"owner": q.owner.value, "type": q.type,
                               "num_queues": q.num_queues,
                               "semaphore_set": list(q.semaphore_set),
                               "fabric_path": q.fabric_path} for q in sub.queues.values()}
    d["var"] = {name: _var(v) for name, v in sub.vars.items()}
    d["runtime_semaphore_count"] = sub.runtime_semaphore_count
    d["runtime_event_count"] = 12
    files[f"{sub.name}/def.json"] = _dumps(d)
    files[f"{sub.name}/tensor_map.json"] = _dumps(
        {name: _tensor(t) for name, t in sub.tensors.items()})
    for name, data in sub.files.items():
        v = sub.vars.get(name)
        if v is None or v.file_name is None:
            raise ValueError(f"a file for {name!r}, which is not a var with a file_name")
        files[f"{sub.name}/{v.file_name}"] = bytes(data)
    return files


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _neff_json(subgraphs: Sequence[Subgraph]) -> dict[str, Any]:
    """A minimal TVM-graph `neff.json` (neff-facts §2.3) naming the first subgraph's
    inputs and outputs."""
    tensors = list(subgraphs[0].tensors.values()) if subgraphs else []
    inputs = [t for t in tensors if t.kind == "input"]
    outputs = [t for t in tensors if t.kind == "output"]
    nodes: list[dict[str, Any]] = [{"op": "null", "name": t.name, "inputs": []} for t in inputs]
    nodes.append({"op": "tvm_op", "name": "kelf", "inputs": [[i, 0, 0] for i in
                                                             range(len(inputs))],
                  "attrs": {"func_name": "__kelf", "kelf": "kelf-0.json",
                            "num_inputs": str(len(inputs)), "num_outputs": str(len(outputs)),
                            "flatten_data": "0"},
                  "output_names": [t.name for t in outputs]})
    return {"nodes": nodes, "arg_nodes": list(range(len(inputs))),
            "heads": [[len(inputs), k, 0] for k in range(len(outputs))],
            "attrs": {"shape": ["list_shape", [list(t.shape) for t in inputs + outputs]],
                      "dltype": ["list_str", [t.dtype for t in inputs + outputs]]}}


def tar_bytes(members: Mapping[str, bytes]) -> bytes:
    """A POSIX ustar archive of regular files, in the order given."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o664
            info.uid = info.gid = 1000
            info.uname = info.gname = "nobody"
            info.mtime = 0
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def gzip_bytes(data: bytes, level: int = 6) -> bytes:
    """One gzip member: FLG 0, MTIME 0, XFL 4, OS 3 (Unix), as the compiler writes."""
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush()
    return (b"\x1f\x8b\x08\x00" + struct.pack("<I", 0) + b"\x04\x03" + body
            + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF))


def pad(payload: bytes) -> bytes:
    """Zero padding up to a multiple of PAD_MULTIPLE (10240)."""
    return payload + bytes(-len(payload) % PAD_MULTIPLE)


def archive_members(subgraphs: Sequence[Subgraph], target: str, name: str,
                    tool_version: str) -> dict[str, bytes]:
    """Every file of the NEFF's tar, sorted by path as the compiler mostly does."""
    members: dict[str, bytes] = {
        "info.json": _dumps({"tool_version": tool_version, "kelp_version": "Dynamic",
                             "name": name, "num_tpb": 1, "num_tpb_requested": 1,
                             "num_tpb_per_node": [1] + [0] * 63}),
        "kelf-0.json": _dumps({"graphs": [{"definition": f"{s.name}/def.json",
                                           "name": s.name} for s in subgraphs],
                               "version": "0.5", "target": target}),
        "neff.json": _dumps(_neff_json(subgraphs)),
    }
    for s in subgraphs:
        members.update(subgraph_members(s))
    return dict(sorted(members.items()))


def header_for(payload: bytes, subgraph_count: int, target: str, name: str,
               uuid: bytes | None = None) -> NeffHeader:
    return NeffHeader(packaging_version=2, header_size=HEADER_BYTES, data_size=len(payload),
                      kelp_version_major=KELP_MAJOR.get(target, 1), kelp_version_minor=0,
                      num_tpb=1, hash=hashlib.md5(payload).digest() + bytes(16),
                      uuid=uuid if uuid is not None else uuidlib.uuid4().bytes, name=name,
                      requested_tpb_count=1, subgraph_count=subgraph_count)


def neff_from_members(members: Mapping[str, bytes], subgraph_count: int = 1,
                      target: str = "sunda", name: str = "file.neff",
                      uuid: bytes | None = None) -> bytes:
    """A whole NEFF file around the archive of `members` (tests use it to build NEFFs
    whose contents the model could not express)."""
    payload = pad(gzip_bytes(tar_bytes(members)))
    return pack_header(header_for(payload, subgraph_count, target, name, uuid)) + payload


def neff_bytes(subgraphs: Sequence[Subgraph], target: str = "sunda", name: str = "file.neff",
               tool_version: str = TOOL_VERSION, uuid: bytes | None = None) -> bytes:
    """The bytes of a NEFF holding `subgraphs` for `target` ("sunda", "cayman", ...)."""
    if not subgraphs:
        raise ValueError("a NEFF holds at least one subgraph")
    return neff_from_members(archive_members(subgraphs, target, name, tool_version),
                             len(subgraphs), target, name, uuid)


def write_neff(path: str | Path, subgraphs: Sequence[Subgraph], target: str = "sunda",
               name: str = "file.neff", tool_version: str = TOOL_VERSION) -> None:
    """Write a NEFF to `path`, which must not exist (nothing of a user's is replaced):
    the file is created exclusively and filled in one write."""
    data = neff_bytes(subgraphs, target, name, tool_version)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
