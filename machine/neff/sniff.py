"""Telling a NEFF file from other input by its first bytes.

Imported by `validate` and `disasm` for every input before they know what it is, so it
imports nothing beyond `struct` (a plain program's start-up pays nothing for NEFFs).
"""

from __future__ import annotations

import struct

HEADER_BYTES = 1024
MAX_HEADER_BYTES = 1 << 20  # a header_size past this is not a NEFF header
GZIP_MAGIC = b"\x1f\x8b"


def looks_like_neff(head: bytes) -> bool:
    """Whether the first bytes of a file are a NEFF header: a packaging version of 1 or
    2, a header size of at least 1024 (its high bytes zero) and, when `head` reaches it,
    the gzip magic where the payload starts. An instruction record cannot look like
    this: its byte 1 (`inst_word_len`) is 16."""
    if len(head) < 16:
        return False
    pv, hs = struct.unpack_from("<QQ", head, 0)
    if pv not in (1, 2) or not HEADER_BYTES <= hs <= MAX_HEADER_BYTES:
        return False
    return len(head) < hs + 2 or head[hs:hs + 2] == GZIP_MAGIC


def is_neff_file(path: str) -> bool:
    """Whether `path` names a regular file that starts like a NEFF (looks_like_neff);
    False for anything unreadable or not a regular file (its command then says why)."""
    import os
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as f:
            return looks_like_neff(f.read(HEADER_BYTES + 2))
    except (OSError, ValueError):
        return False
