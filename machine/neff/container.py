"""The NEFF container: its 1024-byte header and the gzip'd tar it carries, read in memory.

A `.neff` file (neff-facts §1) is a header followed by `data_size` bytes of payload:
one gzip stream of a POSIX ustar archive, zero-padded to a multiple of 10240 bytes.
`read_archive(path)` checks the header, inflates the payload a block at a time and
walks the tar headers itself, so nothing is ever extracted to disk and every size is
bounded before it is trusted:

- the file (MAX_NEFF_BYTES), the header's `header_size` and `data_size` (each must fit
  in the file);
- the bytes inflated in all (MAX_UNPACKED_BYTES: a gzip bomb stops there), the number
  of members (MAX_MEMBERS), one member (MAX_MEMBER_BYTES; MAX_JSON_MEMBER_BYTES for a
  `.json`) and the nesting of JSON (machine.neff.jsonlimits);
- member names: `..`, absolute paths and NULs are refused, and so are links, devices,
  FIFOs and anything but regular files and directories, each by one line naming the
  member.

The header hash is checked as neff-facts §1.1 says: when its first 16 bytes are the
MD5 of the payload the archive is verified (with packaging_version 1, which KLR calls
"tgz+sha256", a SHA-256 of the payload in all 32 bytes verifies it too); otherwise it
is a warning (newer compilers hash something not known), never an error. Liberal
where the corpus varies: member order, a missing `metrics.json`, several concatenated
gzip members, a tar that ends with one zero block or none. Debug members (`*.dbg`)
are inflated through and dropped: nothing reads them.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from neurondbg.machine.files import GIB, MIB, InputFileError, open_input, size_text
from neurondbg.machine.neff.sniff import GZIP_MAGIC, HEADER_BYTES, MAX_HEADER_BYTES, looks_like_neff

MAX_NEFF_BYTES = 1 * GIB
MAX_UNPACKED_BYTES = 256 * MIB
MAX_MEMBERS = 4096  # the corpus has 32 to 67
MAX_MEMBER_BYTES = 256 * MIB  # a stream of 4M records
MAX_JSON_MEMBER_BYTES = 64 * MIB  # about 200,000 DMA descriptors
PAD_MULTIPLE = 10240  # the tar record size; data_size is a multiple of it
BLOCK = 512
INFLATE_CHUNK = 1 * MIB
DROPPED_SUFFIXES = (".dbg",)  # debug info (neff-facts §2.9): never needed, never kept


class NeffError(ValueError):
    """A NEFF that cannot be read: one line naming the file and what was expected."""


@dataclass(frozen=True)
class Limits:
    """The bounds read_archive enforces (module docstring); tests pass small ones."""

    file_bytes: int = MAX_NEFF_BYTES
    unpacked_bytes: int = MAX_UNPACKED_BYTES
    members: int = MAX_MEMBERS
    member_bytes: int = MAX_MEMBER_BYTES
    json_member_bytes: int = MAX_JSON_MEMBER_BYTES


DEFAULT_LIMITS = Limits()


class HashCheck(Enum):
    """What the header's hash says of the payload (neff-facts §1.1)."""

    VERIFIED = "MD5 verified"  # its first 16 bytes are the payload's MD5
    SHA256 = "SHA-256 verified"  # packaging_version 1 (KLR: tgz+sha256): its 32 bytes
    UNKNOWN = "not verified"  # something else: what newer compilers hash is not known

    @property
    def verified(self) -> bool:
        return self is not HashCheck.UNKNOWN


@dataclass(frozen=True)
class NeffHeader:
    """The fields of the 1024-byte header (neff-facts §1.1; names after KLR)."""

    packaging_version: int
    header_size: int
    data_size: int
    kelp_version_major: int
    kelp_version_minor: int
    num_tpb: int
    hash: bytes  # 32 bytes
    uuid: bytes  # 16 bytes
    name: str
    requested_tpb_count: int
    subgraph_count: int  # u64 @0x228: equals the number of subgraphs in the corpus


_HEADER = struct.Struct("<QQQQQ")  # packaging_version .. kelp_version_minor at 0x000
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")


def parse_header(data: bytes, where: str) -> NeffHeader:
    """The header at the start of `data` (at least HEADER_BYTES long)."""
    pv, hs, ds, major, minor = _HEADER.unpack_from(data, 0)
    name = data[0xDC:0x1DC].split(b"\0", 1)[0].decode("ascii", "replace")
    return NeffHeader(pv, hs, ds, major, minor, _U32.unpack_from(data, 0xA8)[0],
                      bytes(data[0xAC:0xCC]), bytes(data[0xCC:0xDC]), name,
                      _U32.unpack_from(data, 0x1DC)[0], _U64.unpack_from(data, 0x228)[0])


def pack_header(h: NeffHeader) -> bytes:
    """The 1024 bytes of `h` (the inverse of parse_header); tpb_per_node is 1, 0, 0, ..."""
    out = bytearray(HEADER_BYTES)
    _HEADER.pack_into(out, 0, h.packaging_version, h.header_size, h.data_size,
                      h.kelp_version_major, h.kelp_version_minor)
    _U32.pack_into(out, 0xA8, h.num_tpb)
    out[0xAC:0xCC] = h.hash.ljust(32, b"\0")[:32]
    out[0xCC:0xDC] = h.uuid.ljust(16, b"\0")[:16]
    out[0xDC:0x1DC] = h.name.encode("ascii").ljust(256, b"\0")[:256]
    _U32.pack_into(out, 0x1DC, h.requested_tpb_count)
    out[0x1E0] = 1
    _U64.pack_into(out, 0x228, h.subgraph_count)
    return bytes(out)


@dataclass
class Archive:
    """A NEFF read in memory: its header, the kept members by path, and what was seen."""

    header: NeffHeader
    members: dict[str, bytes | bytearray]  # a large member is a bytearray: never change it
    hash_check: HashCheck
    names: list[str] = field(default_factory=list)  # every member, in archive order
    dropped: list[str] = field(default_factory=list)  # read through, not kept (debug)
    unpacked_bytes: int = 0
    warnings: list[str] = field(default_factory=list)


class _Inflater:
    """The payload's gzip member(s), inflated on demand a bounded block at a time."""

    def __init__(self, payload: memoryview, where: str, limit: int,
                 warnings: list[str]) -> None:
        self.payload = payload
        self.where = where
        self.limit = limit
        self.warnings = warnings
        self.pos = 0  # next payload byte to feed
        self.total = 0  # bytes inflated so far
        self.buf = bytearray()
        self.d: zlib._Decompress | None = None
        self.ended = False
        self._start_member()

    def _start_member(self) -> None:
        if bytes(self.payload[self.pos:self.pos + 2]) != GZIP_MAGIC:
            raise NeffError(f"{self.where}: payload offset {self.pos}: expected a gzip "
                            "stream (1f 8b)")
        self.d = zlib.decompressobj(31)

    def _more(self) -> bool:
        """Inflate one more chunk into buf; False at the end of the data."""
        chunk = self._chunk()
        if chunk is None:
            return False
        self.buf += chunk
        return True

    def _chunk(self) -> bytes | None:
        """The next chunk inflated (at most INFLATE_CHUNK bytes); None at the end of the
        data."""
        while not self.ended:
            assert self.d is not None
            if self.d.eof:
                self._after_member()
                continue
            if self.d.unconsumed_tail:
                src = self.d.unconsumed_tail
            else:
                src = bytes(self.payload[self.pos:self.pos + INFLATE_CHUNK])
                self.pos += len(src)
                if not src:
                    raise NeffError(f"{self.where}: the gzip stream is truncated (it ends "
                                    f"after {self.total:,} inflated bytes)")
            try:
                out = self.d.decompress(src, INFLATE_CHUNK)
            except zlib.error as e:
                raise NeffError(f"{self.where}: corrupt gzip data ({e})") from None
            if _ended(self.d):  # what followed the member was fed too: take it back
                self.pos -= len(self.d.unused_data)
            if out:
                self.total += len(out)
                if self.total > self.limit:
                    raise NeffError(f"{self.where}: the payload inflates to more than "
                                    f"{size_text(self.limit)} (the limit for a NEFF's "
                                    "unpacked contents)")
                return out
        return None

    def _after_member(self) -> None:
        """At the end of a gzip member: another member, or zero padding to the end."""
        rest = self.payload[self.pos:]
        if bytes(rest[:2]) == GZIP_MAGIC:
            self._start_member()
            return
        self.ended = True
        if any(bytes(rest)):  # padding should be zeros (neff-facts §1.2)
            self.warnings.append(f"{self.where}: {len(rest):,} bytes after the gzip stream "
                                 "are not zero padding; ignored")

    def read(self, n: int) -> bytes | bytearray:
        """Exactly `n` bytes, or fewer at the end of the data. A large read is filled in
        place, each chunk copied once as it is inflated, so a member is held once, not
        once per copy."""
        if n > INFLATE_CHUNK:
            out = bytearray(n)
            with memoryview(out) as view:
                got = min(n, len(self.buf))
                view[:got] = self.buf[:got]
                del self.buf[:got]
                while got < n:
                    chunk = self._chunk()
                    if chunk is None:
                        break
                    k = min(n - got, len(chunk))
                    if k < len(chunk):  # the member ends inside the chunk
                        view[got:got + k] = chunk[:k]
                        self.buf += chunk[k:]
                    else:
                        view[got:got + k] = chunk
                    got += k
            return out if got == n else bytes(out[:got])
        while len(self.buf) < n and self._more():
            pass
        out_small = bytes(self.buf[:n])
        del self.buf[:n]
        return out_small

    def skip(self, n: int) -> int:
        """Drop `n` bytes without keeping them; how many there were."""
        left = n
        while left:
            if not self.buf and not self._more():
                break
            k = min(left, len(self.buf))
            del self.buf[:k]
            left -= k
        return n - left


def _octal(field_: bytes | bytearray, where: str, what: str) -> int:
    if field_[:1] and field_[0] & 0x80:  # GNU base-256 for large values
        return int.from_bytes(field_[1:], "big")
    text = field_.split(b"\0", 1)[0].strip()
    try:
        return int(text, 8) if text else 0
    except ValueError:
        raise NeffError(f"{where}: tar header {what} {text!r} is not an octal "
                        "number") from None


_REFUSED_TYPES = {b"1": "a hard link", b"2": "a symbolic link", b"3": "a character device",
                  b"4": "a block device", b"6": "a FIFO", b"7": "a contiguous file"}


def _check_name(name: str, where: str) -> str:
    """The member path, normalised (leading `./` dropped); refused when it could name
    anything outside the archive's own tree."""
    if "\0" in name or "\\" in name:
        raise NeffError(f"{where}: member {name!r}: a name holding a NUL or backslash")
    if name.startswith("/"):
        raise NeffError(f"{where}: member {name!r}: an absolute path")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise NeffError(f"{where}: member {name!r}: a path with '..'")
    return "/".join(parts)


def _pax_path(data: bytes | bytearray) -> str | None:
    """The `path` record of a pax extended header, if any."""
    pos = 0
    while pos < len(data):
        sp = data.find(b" ", pos)
        if sp < 0:
            break
        try:
            length = int(data[pos:sp])
        except ValueError:
            break
        if length <= 0:
            break
        rec = data[sp + 1:pos + length - 1]
        key, _, value = rec.partition(b"=")
        if key == b"path":
            return value.decode("utf-8", "replace")
        pos += length
    return None


def _members(inf: _Inflater, where: str, limits: Limits
             ) -> Iterator[tuple[str, int, bool]]:
    """(name, size, is_file) per member; the caller reads or skips `size` bytes of a file
    before asking for the next (directories carry none). Stops at the end of the archive."""
    count = 0
    long_name: str | None = None
    while True:
        block = inf.read(BLOCK)
        if len(block) < BLOCK or not any(block):
            return  # two zero blocks end a tar; one, or none at the end, is tolerated
        stored = _octal(block[148:156], where, "checksum")
        summed = sum(block[:148]) + 8 * 32 + sum(block[156:])
        if stored != summed and stored != summed - 256 * sum(b > 127 for b in block):
            # (old tars summed the bytes as signed chars)
            raise NeffError(f"{where}: tar header {count + 1} has a bad checksum: the "
                            "payload is not a tar archive")
        size = _octal(block[124:136], where, "size")
        kind = block[156:157]
        if kind in (b"x", b"g", b"L"):  # pax / GNU long-name headers precede a member
            if size > 1 * MIB:
                raise NeffError(f"{where}: an extended tar header of {size_text(size)}")
            data = inf.read(size)
            inf.skip(-size % BLOCK)
            if kind == b"x":
                long_name = _pax_path(data)
            elif kind == b"L":
                long_name = data.split(b"\0", 1)[0].decode("utf-8", "replace")
            continue
        raw = block[0:100].split(b"\0", 1)[0]
        if block[257:263] == b"ustar\0" and block[345]:  # POSIX prefix (not GNU's times)
            raw = block[345:500].split(b"\0", 1)[0] + b"/" + raw
        name = long_name if long_name is not None else raw.decode("utf-8", "replace")
        long_name = None
        count += 1
        if count > limits.members:
            raise NeffError(f"{where}: more than {limits.members:,} members in the archive "
                            "(the limit for a NEFF)")
        if kind in _REFUSED_TYPES:
            raise NeffError(f"{where}: member {name!r} is {_REFUSED_TYPES[bytes(kind)]}; a NEFF "
                            "holds regular files only")
        if kind not in (b"0", b"\0", b"5"):
            raise NeffError(f"{where}: member {name!r} has tar type {kind!r}; a NEFF "
                            "holds regular files only")
        path = _check_name(name, where)
        if kind == b"5":
            yield path, 0, False
            continue
        limit = (limits.json_member_bytes if path.endswith(".json")
                 else limits.member_bytes)
        if size > limit:
            raise NeffError(f"{where}: member {path!r} is {size_text(size)}, over the "
                            f"{size_text(limit)} limit for a NEFF member"
                            + (" holding JSON" if path.endswith(".json") else ""))
        yield path, size, True
        inf.skip(-size % BLOCK)


def _check_header(h: NeffHeader, file_size: int, where: str, warnings: list[str]) -> None:
    if h.header_size < HEADER_BYTES or h.header_size > min(MAX_HEADER_BYTES, file_size):
        raise NeffError(f"{where}: offset 0x8: header_size {h.header_size} does not fit; "
                        f"expected {HEADER_BYTES} (the file holds {file_size:,} bytes)")
    after = file_size - h.header_size
    if h.data_size > after:
        raise NeffError(f"{where}: offset 0x10: data_size {h.data_size:,} is larger than "
                        f"the {after:,} bytes after the header")
    if h.data_size < after:
        warnings.append(f"{where}: {after - h.data_size:,} bytes after the payload's "
                        "data_size are ignored")
    if h.packaging_version not in (1, 2):
        raise NeffError(f"{where}: offset 0x0: packaging_version {h.packaging_version}; "
                        "expected 1 or 2")


def read_archive(path: str | Path, limits: Limits = DEFAULT_LIMITS) -> Archive:
    """The NEFF at `path` read in memory (module docstring); NeffError on anything wrong,
    one line naming the file, the offset or member, and what was expected."""
    where = os.fspath(path)
    try:
        with open_input(path, what="NEFF", max_bytes=limits.file_bytes) as f:
            size = os.fstat(f.fileno()).st_size
            if size < HEADER_BYTES:
                raise NeffError(f"{where}: {size} bytes is shorter than the "
                                f"{HEADER_BYTES}-byte NEFF header")
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except InputFileError as e:
        raise NeffError(str(e)) from None
    except FileNotFoundError:
        raise NeffError(f"{where}: no such NEFF") from None
    except OSError as e:
        raise NeffError(f"{where}: cannot read: {e.strerror or e}") from None
    try:
        return _read(memoryview(mapped), where, limits)
    finally:
        try:
            mapped.close()
        except BufferError:  # a traceback still holds a view of it: closed when collected
            pass


def _read(view: memoryview, where: str, limits: Limits) -> Archive:
    warnings: list[str] = []
    if not looks_like_neff(bytes(view[:HEADER_BYTES + 2])):
        raise NeffError(f"{where}: offset 0: not a NEFF header (expected packaging_version "
                        f"1 or 2 and header_size {HEADER_BYTES})")
    header = parse_header(bytes(view[:HEADER_BYTES]), where)
    _check_header(header, len(view), where, warnings)
    payload = view[header.header_size:header.header_size + header.data_size]
    check = HashCheck.UNKNOWN
    if header.hash[:16] == hashlib.md5(payload).digest():
        check = HashCheck.VERIFIED
    elif header.packaging_version == 1 and header.hash == hashlib.sha256(payload).digest():
        check = HashCheck.SHA256
    if check is HashCheck.UNKNOWN:
        warnings.append(f"{where}: the header hash is not the payload's MD5 (newer "
                        "compilers hash something not known): contents not verified")
    inf = _Inflater(payload, where, limits.unpacked_bytes, warnings)
    archive = Archive(header, {}, check, warnings=warnings)
    for name, size, is_file in _members(inf, where, limits):
        if not is_file:
            continue
        if name in archive.members or name in archive.dropped:
            raise NeffError(f"{where}: member {name!r} appears twice in the archive")
        archive.names.append(name)
        if name.endswith(DROPPED_SUFFIXES):
            got = inf.skip(size)
            archive.dropped.append(name)
        else:
            data = inf.read(size)
            got = len(data)
            archive.members[name] = data
        if got < size:
            raise NeffError(f"{where}: member {name!r} is truncated ({got:,} of "
                            f"{size:,} bytes)")
    archive.unpacked_bytes = inf.total
    return archive


def _ended(d: zlib._Decompress) -> bool:
    """Whether `d` has reached its member's end (a call, so that the type checker does not
    keep `d.eof` narrowed from a test made before `decompress` changed it)."""
    return d.eof
