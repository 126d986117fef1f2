"""Reading `.npy` inputs: the `--sbuf IN.npy` image of `run` / `replay`, and the header
judge every `.npy` a command reads goes through first (`diagnose`, `convert --input`)."""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import IO

import numpy as np

from neurondbg.errors import InputError
from neurondbg.machine.asm.data import memory_bound
from neurondbg.machine.files import (
    MAX_DATA_BYTES,
    MAX_NPY_HEADER,
    InputFileError,
    open_stream,
    read_npy,
)

_READERS = {(1, 0): np.lib.format.read_array_header_1_0,
            (2, 0): np.lib.format.read_array_header_2_0}


def judge_npy_header(fh: IO[bytes], where: str, what: str,
                     max_shape: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """The shape in the header of the `.npy` stream `fh` (read from offset 0, left at 0),
    judged before anything is allocated: every dimension a non-negative integer, and the
    data it promises (elements x item size) held by the file. InputFileError (one line
    naming the file) otherwise.

    machine.files.read_npy bounds each dimension and then allocates the array before it
    reads the data, so a negative dimension reached numpy's allocator (a traceback) and a
    huge one a gigabyte-sized buffer for a 100-byte file. A header numpy cannot read, and
    a shape beyond `max_shape` (the bounds the caller gives read_npy), are left to
    read_npy, which words those errors."""
    try:
        read = _READERS.get(np.lib.format.read_magic(fh))
        if read is None:
            fh.seek(0)
            return ()
        shape, _fortran, dtype = read(fh, max_header_size=MAX_NPY_HEADER)
    except InputFileError:
        raise
    except (ValueError, EOFError):
        fh.seek(0)
        return ()
    shape = tuple(shape)
    if any(n < 0 for n in shape):
        raise InputFileError(f"{where}: the .npy header gives shape {shape}, with a negative "
                             f"dimension; expected {what}")
    if max_shape is not None and (len(shape) != len(max_shape) or any(
            n > m for n, m in zip(shape, max_shape, strict=True))):
        fh.seek(0)
        return shape
    start = fh.tell()
    held = fh.seek(0, io.SEEK_END) - start
    promised = math.prod(shape) * dtype.itemsize
    if promised > held:
        raise InputFileError(f"{where}: truncated: the header promises {promised} bytes of array "
                             f"data, the file holds {held}")  # read_npy's words, said earlier
    fh.seek(0)
    return shape


def load_sbuf(path: str | Path) -> np.ndarray:
    """A uint8 (partitions, bytes) array from a .npy file; InputError (one line) otherwise.

    The file must be a regular file, and its header is judged before the array is
    allocated: uint8 only, no pickles, and no larger than the largest SBUF of any
    generation (machine.asm.data.memory_bound); the machine then checks its own size.
    Opening and reading it fail as machine.files.open_stream words them."""
    what = "a uint8 array of shape (partitions, bytes)"
    try:
        with open_stream(path, what=".npy image", max_bytes=MAX_DATA_BYTES) as fh:
            bound = memory_bound("sbuf")
            judge_npy_header(fh, str(path), what, bound)
            return read_npy(fh, str(path), what=what, dtypes=(np.dtype(np.uint8),),
                            max_shape=bound)
    except InputFileError as e:
        raise InputError(str(e)) from None
