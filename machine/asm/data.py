"""Data a program carries for SBUF/PSUM: the initialisations, their element types, the sidecar file.

A `DataInit` writes `data[i]` (bytes) at `offset` of partition `partitions[0] + i`.
`neurondbg asm X -o OUT.bin` stores them next to the binary in `OUT.bin.data.npz`
(`data_path`); `load_any` reads that file back when present.
"""

from __future__ import annotations

import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np

from neurondbg.machine.dtypes import DEFAULT_GEN, Gen, dtype_format, parse_dtype
from neurondbg.machine.files import (
    MAX_DATA_BYTES,
    InputFileError,
    open_input,
    read_npy,
    size_text,
)
from neurondbg.machine.isa.addr import geometry
from neurondbg.machine.spaces import Space

# Element types a data directive accepts, by machine.convert format name.
DATA_FORMATS: dict[str, np.dtype] = {
    "fp32": np.dtype(np.float32), "fp32r": np.dtype(np.float32), "fp16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16), "fp8_e3m4": np.dtype(ml_dtypes.float8_e3m4),
    "fp8_e4m3": np.dtype(ml_dtypes.float8_e4m3), "fp8_e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
    "fp8_e5m2": np.dtype(ml_dtypes.float8_e5m2), "fp8_e8m0": np.dtype(ml_dtypes.float8_e8m0fnu),
    **{f"{s}int{w}": np.dtype(f"{'u' if s else 'i'}{w // 8}")
       for s in ("", "u") for w in (8, 16, 32, 64)},
}
SPACES = tuple(Space)


@dataclass(frozen=True)
class DataInit:
    """Bytes to place in memory before the program runs."""

    space: str  # "sbuf" | "psum"
    partitions: tuple[int, int]  # [start, stop)
    offset: int  # byte offset within each partition
    data: np.ndarray  # uint8, shape (stop - start, nbytes): one row per partition
    fmt: str = ""  # element format the directive named (for display)
    line: int = 0

    @property
    def nbytes(self) -> int:
        return int(self.data.shape[1])

    @property
    def raw(self) -> bytes:
        return self.data.tobytes()


def data_format(name: str, gen: Gen = DEFAULT_GEN) -> tuple[str, np.dtype]:
    """(format name, numpy dtype) of a Neuron dtype or format name; ValueError if unknown."""
    key = name.strip().lower()
    if key not in DATA_FORMATS:
        try:
            fmt = dtype_format(parse_dtype(name), gen)
        except ValueError:
            fmt = None
        if fmt not in DATA_FORMATS:
            raise ValueError(f"unknown data type {name!r}; expected one of: "
                             f"{', '.join(DATA_FORMATS)} or a Neuron dtype name like FP32")
        key = fmt
    return key, DATA_FORMATS[key]


def to_bytes(values: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Values (float64 or int) as little-endian bytes of `dt`; ValueError if an int overflows.

    A numpy integer array is judged and converted as a whole; Python ints (an object
    array, as `.data` literals are) one by one, since they may exceed 64 bits."""
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = np.asarray(values)
        if v.dtype.kind == "f":
            if not np.all(np.isfinite(v)) or np.any(v != np.trunc(v)):
                raise ValueError(f"{dt.name} values must be integers")
            v = v.astype(object)
        if v.dtype.kind in "iu":
            bad = np.flatnonzero((v < info.min) | (v > info.max))
            if bad.size:
                raise ValueError(f"{v.reshape(-1)[bad[0]]} does not fit {dt.name} "
                                 f"({info.min}..{info.max})")
            arr = v.astype(dt)
        else:
            flat = np.ravel(v).tolist()
            outside = [x for x in flat if not info.min <= int(x) <= info.max]
            if outside:
                raise ValueError(f"{outside[0]} does not fit {dt.name} ({info.min}..{info.max})")
            arr = np.asarray(flat, dtype=dt).reshape(np.shape(v))
    else:
        arr = np.asarray(values, dtype=np.float64).astype(dt)
    return np.ascontiguousarray(arr).view(np.uint8).reshape(*np.shape(arr)[:-1], -1)


def data_path(program_path: str | Path) -> Path:
    """Where the data of `program_path` lives: `<program>.data.npz`."""
    p = Path(program_path)
    return p.with_name(p.name + ".data.npz")


def save_data(path: str | Path, inits: list[DataInit]) -> None:
    """Write inits to an .npz: `meta` rows (space, p0, p1, offset, line) + `data<i>` arrays."""
    meta = np.array([[SPACES.index(d.space), *d.partitions, d.offset, d.line] for d in inits],
                    dtype=np.int64).reshape(-1, 5)
    arrays = {f"data{i}": d.data for i, d in enumerate(inits)}
    fmts = np.array([d.fmt for d in inits], dtype=str)
    with open(path, "wb") as fh:  # arrays of numbers and strings: nothing to pickle
        np.savez(fh, allow_pickle=False, meta=meta, fmts=fmts, **arrays)


def memory_bound(space: str) -> tuple[int, int]:
    """(partitions, bytes per partition) that no generation's `space` exceeds: the largest
    address window (isa-facts §2.4). An image is judged by this before it is allocated;
    the machine then checks it against its own size."""
    gs = [geometry(g) for g in Gen]
    stride = max(g.sbuf_stride if space == "sbuf" else g.psum_stride for g in gs)
    return max(g.partitions for g in gs), stride


# the `fmts` member: format names as numpy writes a str array (<U1 for an empty one)
_FMT_DTYPES = tuple(np.dtype(f"<U{k}") for k in range(1, 33))
_META = (np.dtype("<i8"),)
_BYTES = (np.dtype(np.uint8),)


def _member(z: zipfile.ZipFile, name: str, where: str, what: str,
            dtypes: tuple[np.dtype, ...], max_shape: tuple[int, ...]) -> np.ndarray:
    try:
        info = z.getinfo(f"{name}.npy")
    except KeyError:
        raise InputFileError(f"{where}: not a neurondbg data file: no {name!r} member") from None
    with z.open(info) as fh:
        return read_npy(fh, f"{where}: member {name!r}", what=what, dtypes=dtypes,
                        max_shape=max_shape)


def load_data(path: str | Path) -> list[DataInit]:
    """Read inits written by save_data; InputFileError (a ValueError naming the file)
    when the file is not a regular file, is malformed, or claims more data than any
    machine holds (MAX_DATA_BYTES in all; each image within memory_bound), judged
    from each member's header before its data is allocated."""
    where = str(path)
    try:
        with (open_input(path, what="data file", max_bytes=MAX_DATA_BYTES) as raw,
              zipfile.ZipFile(raw) as z):
            meta = _member(z, "meta", where, "int64 rows (space, p0, p1, offset, line)", _META,
                           (len(z.infolist()), 5))
            fmts = _member(z, "fmts", where, "format names", _FMT_DTYPES, (meta.shape[0],))
            if fmts.shape[0] != meta.shape[0]:
                raise InputFileError(f"{where}: not a neurondbg data file: {meta.shape[0]} "
                                     f"initialisations but {fmts.shape[0]} format names")
            out = []
            total = 0
            for i, (space, p0, p1, off, line) in enumerate(meta.tolist()):
                row = f"{where}: initialisation {i}"
                if not 0 <= space < len(SPACES):
                    raise InputFileError(f"{row}: space code {space}; expected 0 (sbuf) or "
                                         "1 (psum)")
                parts, nbytes = memory_bound(SPACES[space])
                if not (0 <= p0 < p1 <= parts and 0 <= off < nbytes and line >= 0):
                    raise InputFileError(f"{row}: partitions {p0}:{p1}, offset {off}, line "
                                         f"{line}; expected 0 <= p0 < p1 <= {parts}, offset "
                                         f"0..{nbytes - 1}")
                data = _member(z, f"data{i}", where, "uint8 rows (partitions, bytes)", _BYTES,
                               (p1 - p0, nbytes - off))
                if data.shape[0] != p1 - p0:
                    raise InputFileError(f"{row}: data has shape {data.shape}; expected "
                                         f"{p1 - p0} rows (partitions {p0}:{p1})")
                total += data.size
                if total > MAX_DATA_BYTES:
                    raise InputFileError(f"{where}: more than the {size_text(MAX_DATA_BYTES)}"
                                         " limit for data in all")
                out.append(DataInit(SPACES[space], (p0, p1), off, data, str(fmts[i]), line))
            return out
    except InputFileError:
        raise
    # the ways zipfile and zlib report a damaged or foreign archive (an encrypted
    # member is a RuntimeError, an unknown compression method NotImplementedError)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as e:
        raise InputFileError(f"{where}: not a neurondbg data file: {e}") from None
