"""Data a program carries for SBUF/PSUM: the initialisations, their element types, the sidecar file.

A `DataInit` writes `data[i]` (bytes) at `offset` of partition `partitions[0] + i`.
`neurondbg asm X -o OUT.bin` stores them next to the binary in `OUT.bin.data.npz`
(`data_path`); `load_any` reads that file back when present.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np

from machine.dtypes import DEFAULT_GEN, Gen, dtype_format, parse_dtype

# Element types a data directive accepts, by machine.convert format name.
DATA_FORMATS: dict[str, np.dtype] = {
    "fp32": np.dtype(np.float32), "fp32r": np.dtype(np.float32), "fp16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16), "fp8_e3m4": np.dtype(ml_dtypes.float8_e3m4),
    "fp8_e4m3": np.dtype(ml_dtypes.float8_e4m3), "fp8_e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
    "fp8_e5m2": np.dtype(ml_dtypes.float8_e5m2), "fp8_e8m0": np.dtype(ml_dtypes.float8_e8m0fnu),
    **{f"{s}int{w}": np.dtype(f"{'u' if s else 'i'}{w // 8}")
       for s in ("", "u") for w in (8, 16, 32, 64)},
}
SPACES = ("sbuf", "psum")


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
    """Values (float64 or int) as little-endian bytes of `dt`; ValueError if an int overflows."""
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = np.asarray(values)
        if v.dtype.kind == "f":
            if not np.all(np.isfinite(v)) or np.any(v != np.trunc(v)):
                raise ValueError(f"{dt.name} values must be integers")
            v = v.astype(object)
        bad = [x for x in np.ravel(v).tolist() if not info.min <= int(x) <= info.max]
        if bad:
            raise ValueError(f"{bad[0]} does not fit {dt.name} ({info.min}..{info.max})")
        arr = np.asarray(np.ravel(v).tolist(), dtype=dt).reshape(np.shape(v))
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
    with open(path, "wb") as fh:
        np.savez(fh, meta=meta, fmts=fmts, **arrays)


def load_data(path: str | Path) -> list[DataInit]:
    """Read inits written by save_data; ValueError naming the file when malformed."""
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = z["meta"]
            fmts = z["fmts"]
            out = []
            for i, (space, p0, p1, off, line) in enumerate(meta.tolist()):
                data = np.asarray(z[f"data{i}"], dtype=np.uint8)
                if data.ndim != 2 or data.shape[0] != p1 - p0:
                    raise ValueError(f"data{i} has shape {data.shape}")
                out.append(DataInit(SPACES[space], (p0, p1), off, data, str(fmts[i]), line))
            return out
    except (OSError, KeyError, IndexError, ValueError) as e:
        raise ValueError(f"{path}: not a neurondbg data file: {e}") from None
