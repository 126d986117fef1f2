"""Hostile NEFF files, made cheaply: concatenated gzip members let a file inflate to
hundreds of MiB (or a million tar members) from a few KiB of repeated compressed blocks."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from neurondbg.machine.neff.container import pack_header
from neurondbg.machine.neff.writer import archive_members, gzip_bytes, header_for, pad, tar_bytes
from tests.neff.synth import vector_add

MIB = 1 << 20


def header_block(name: str, size: int = 0, kind: bytes = tarfile.REGTYPE,
                 link: str = "") -> bytes:
    info = tarfile.TarInfo("x")
    info.name, info.size, info.type, info.linkname = name, size, kind, link
    return info.tobuf(format=tarfile.USTAR_FORMAT)


def wrap(payload: bytes) -> bytes:
    """A NEFF file around a gzip payload (header with its MD5, padded)."""
    payload = pad(payload)
    return pack_header(header_for(payload, 1, "sunda", "h.neff")) + payload


def with_members(*blocks: bytes) -> bytes:
    """A NEFF whose tar is the good vector add's members, then `blocks`, then the end."""
    good = tar_bytes(archive_members([vector_add()], "sunda", "h.neff", "t"))
    return wrap(gzip_bytes(_strip_end(good) + b"".join(blocks) + bytes(1024)))


def _strip_end(tar: bytes) -> bytes:
    """A tar archive without its trailing zero blocks."""
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.getmembers()  # read to the end: offset is then just past the last member's data
        end = t.offset
    return tar[:end]


def repeated(block: bytes, times: int) -> bytes:
    """gzip members inflating to `block` x `times`, compressed once."""
    return gzip_bytes(block) * times


def gzip_bomb() -> bytes:
    """Two 200 MiB members of zeros: 400 MiB inflated, over the unpacked limit."""
    chunk = bytes(MIB)
    parts = [gzip_bytes(header_block("sg00/a.bin", 200 * MIB)), repeated(chunk, 200),
             gzip_bytes(header_block("sg00/b.bin", 200 * MIB)), repeated(chunk, 200),
             gzip_bytes(bytes(1024))]
    return wrap(b"".join(parts))


def million_members() -> bytes:
    """10^6 empty members: 4,100 distinct names, then one block of 2,000 repeated."""
    first = b"".join(header_block(f"sg00/f{i}") for i in range(4100))
    rest = header_block("sg00/same") * 2000
    return wrap(gzip_bytes(first) + repeated(rest, (10**6 - 4100) // 2000)
                + gzip_bytes(bytes(1024)))


def big_json() -> bytes:
    """A 100 MB `def.json` of spaces."""
    size = 100 * 10**6
    return wrap(gzip_bytes(header_block("sg00/def.json", size)) + repeated(b" " * MIB, 95)
                + gzip_bytes(b" " * (size - 95 * MIB) + bytes(-size % 512) + bytes(1024)))


def lying_sizes(data: bytes, header_size: int | None = None,
                data_size: int | None = None) -> bytes:
    out = bytearray(data)
    if header_size is not None:
        out[8:16] = header_size.to_bytes(8, "little")
    if data_size is not None:
        out[16:24] = data_size.to_bytes(8, "little")
    return bytes(out)


def write(tmp: Path, name: str, data: bytes) -> Path:
    path = tmp / name
    path.write_bytes(data)
    return path

