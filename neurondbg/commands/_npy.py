"""Reading the `--sbuf IN.npy` image shared by `run` and `replay`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from neurondbg.errors import InputError


def load_sbuf(path: str | Path) -> np.ndarray:
    """A uint8 (partitions, bytes) array from a .npy file; InputError (one line) otherwise."""
    try:
        a = np.load(path, allow_pickle=False)
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from None
    except (ValueError, EOFError):
        # numpy's own text suggests allow_pickle: not advice to give for an input image
        raise InputError(f"{path}: offset 0: expected a .npy file holding a uint8 array "
                         "(partitions, bytes); this is not NumPy's .npy array format") from None
    if not isinstance(a, np.ndarray) or a.dtype != np.uint8 or a.ndim != 2:
        found = f"{a.dtype} {a.shape}" if isinstance(a, np.ndarray) else type(a).__name__
        raise InputError(f"{path}: expected a uint8 array of shape (partitions, bytes), "
                         f"found {found}")
    return a
