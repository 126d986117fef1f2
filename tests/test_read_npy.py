"""machine.files.read_npy reads the array data in place from a stream that has readinto
and by read-and-copy from one that has only read: the same array either way, and the
same one-line refusal of data cut short."""

from __future__ import annotations

import io

import numpy as np
import pytest

from neurondbg.machine.files import InputFileError, read_npy


class _ReadOnly:
    """A binary stream with read alone (no readinto), as some IO[bytes] objects are."""

    def __init__(self, data: bytes, step: int) -> None:
        self._data, self._pos, self._step = data, 0, step

    def read(self, n: int = -1) -> bytes:
        n = len(self._data) - self._pos if n < 0 else min(n, self._step)
        out = self._data[self._pos:self._pos + n]
        self._pos += len(out)
        return out


def _npy(arr: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, arr)
    return out.getvalue()


DTYPES = (np.uint8, np.int16, np.float32)
ARRAYS = [np.arange(n, dtype=dt).reshape(shape) * 3 % 251
          for dt in DTYPES for n, shape in ((0, (0, 4)), (8, (2, 4)), (60, (3, 20)))]


@pytest.mark.parametrize("arr", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
@pytest.mark.parametrize("step", [1, 7, 1 << 20])
def test_in_place_and_copied_reads_give_the_array(arr: np.ndarray, step: int) -> None:
    data = _npy(arr)
    kw = {"what": "an array", "dtypes": tuple(np.dtype(d) for d in DTYPES),
          "max_shape": (4, 64)}
    for fh in (io.BytesIO(data), _ReadOnly(data, step)):
        got = read_npy(fh, "in.npy", **kw)
        assert got.dtype == arr.dtype and got.shape == arr.shape
        assert np.array_equal(got, arr)


@pytest.mark.parametrize("cut", [1, 5, 16])
def test_truncated_data_is_one_line_either_way(cut: int) -> None:
    arr = np.arange(32, dtype=np.uint8).reshape(2, 16)
    data = _npy(arr)[:-cut]
    for fh in (io.BytesIO(data), _ReadOnly(data, 3)):
        with pytest.raises(InputFileError) as e:
            read_npy(fh, "in.npy", what="an array", dtypes=(np.dtype(np.uint8),),
                     max_shape=(4, 64))
        assert str(e.value) == (f"in.npy: truncated: the header promises 32 bytes of array "
                                f"data, the file holds {32 - cut}")
