"""Reading the `--sbuf IN.npy` image shared by `run` and `replay`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from machine.asm.data import memory_bound
from machine.files import MAX_DATA_BYTES, InputFileError, open_stream, read_npy
from neurondbg.errors import InputError


def load_sbuf(path: str | Path) -> np.ndarray:
    """A uint8 (partitions, bytes) array from a .npy file; InputError (one line) otherwise.

    The file must be a regular file, and its header is judged before the array is
    allocated: uint8 only, no pickles, and no larger than the largest SBUF of any
    generation (machine.asm.data.memory_bound); the machine then checks its own size.
    Opening and reading it fail as machine.files.open_stream words them."""
    try:
        with open_stream(path, what=".npy image", max_bytes=MAX_DATA_BYTES) as fh:
            return read_npy(fh, str(path), what="a uint8 array of shape (partitions, bytes)",
                            dtypes=(np.dtype(np.uint8),), max_shape=memory_bound("sbuf"))
    except InputFileError as e:
        raise InputError(str(e)) from None
