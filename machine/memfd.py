"""Machine memory with a second mapping, so a bulk CAST can write straight into it.

numpy guards a copy between arrays whose byte BOUNDS overlap (np.copyto ->
solve_may_share_memory(..., bounds)) by casting through a temporary, and two views of
one SBUF always overlap in bounds, even when their regions are disjoint. The same bytes
seen at other addresses do not: one memfd mapped twice. A cast whose source and
destination are disjoint by region arithmetic (Region.overlaps) writes through the second
mapping, straight in (MachineState.write_alias); everything else reads and writes the
first, an ordinary writeable ndarray (np.frombuffer of the mapping).

Decisions:
- Lazy (MachineState.write_alias): a state starts with np.zeros memory, and its first
  disjoint cast of machine.engines.tensor.MOVE_MIN_BYTES or more moves it here (~5 ms
  for the default SBUF: the non-zero pages are copied). Only machines that bulk-cast pay
  what memfd pages cost (measured, 4 KiB pages, no huge pages for tmpfs here): tmpfs has
  no zero page, so reading an untouched page allocates it and a full read (a checkpoint,
  `digest`) makes all of the memory resident (30 MiB for the default SBUF, ~15 ms the
  first time); the first write of a page costs a fault per mapping (~0.6 ms more per
  fresh MiB than np.zeros' huge pages). Untouched np.zeros memory reads as the zero page.
- The memfd is closed once mapped; Python 3.11's mmap keeps a dup of it per mapping, so
  one memory (a lone state, or every engine of a core) holds 2 file descriptors, freed
  with its arrays.
- The pages are MAP_SHARED: a forked child writing them would change the parent's
  memory. Nothing forks with a live state (the one os.fork, in a test, exits at once;
  `subprocess` execs).
- No memfd (not Linux), or the system refusing one (EMFILE, ENOMEM): `alias_memory` gives
  None and the state keeps plain memory and the scratch path. A supported path (tested
  to give the same bits), not a stub.
"""

from __future__ import annotations

import mmap
import os
from dataclasses import dataclass

import numpy as np

PAGE = mmap.PAGESIZE


@dataclass(frozen=True, eq=False)
class MemoryAlias:
    """SBUF and PSUM in one memfd: the arrays a state uses, and the same bytes at other
    addresses. Valid only while the state's `sbuf` / `psum` ARE these arrays (code and
    tests may assign others): MachineState.write_alias checks identity at every use."""

    sbuf: np.ndarray
    psum: np.ndarray
    sbuf_alias: np.ndarray
    psum_alias: np.ndarray


def available() -> bool:
    """Whether this platform has memfd (Linux); asked at each use, so a test can take it away."""
    return hasattr(os, "memfd_create")


def alias_memory(sbuf: np.ndarray, psum: np.ndarray) -> MemoryAlias | None:
    """New memfd memory holding the bytes of C-contiguous uint8 `sbuf` and `psum`, mapped
    twice; None where memfd is missing or refused. Only the pages of the inputs holding a
    non-zero byte are written (the others stay unallocated: see the module docstring)."""
    n_sb, n_ps = sbuf.size, psum.size
    off = -(-n_sb // PAGE) * PAGE  # PSUM starts on a page of its own
    maps = _map_twice(off + n_ps) if available() else None
    if maps is None:
        return None
    a, b = (np.frombuffer(m, np.uint8) for m in maps)
    _copy_pages(sbuf.reshape(-1), a[:n_sb])
    _copy_pages(psum.reshape(-1), a[off:off + n_ps])
    return MemoryAlias(a[:n_sb].reshape(sbuf.shape), a[off:off + n_ps].reshape(psum.shape),
                       b[:n_sb].reshape(sbuf.shape), b[off:off + n_ps].reshape(psum.shape))


def _map_twice(nbytes: int) -> tuple[mmap.mmap, mmap.mmap] | None:
    """Two shared mappings of one new zero-filled memfd of `nbytes`; None if refused."""
    try:
        fd = os.memfd_create("neurondbg-memory", os.MFD_CLOEXEC)
    except OSError:
        return None
    try:
        os.ftruncate(fd, nbytes)
        return mmap.mmap(fd, nbytes), mmap.mmap(fd, nbytes)
    except OSError:
        return None  # a first mapping made is unmapped as it is dropped
    finally:
        os.close(fd)


def _copy_pages(src: np.ndarray, dst: np.ndarray) -> None:
    """dst[...] = src for 1-D uint8 arrays, `dst` all zero and starting on a page: only its
    pages that get a non-zero byte are written."""
    n = src.size // PAGE * PAGE
    if n:
        pages = src[:n].reshape(-1, PAGE)
        hit = pages.view(np.uint64).any(axis=1)
        dst[:n].reshape(-1, PAGE)[hit] = pages[hit]
    dst[n:] = src[n:]
