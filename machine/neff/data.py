"""The DRAM tensors of a NEFF run: constants from the archive, inputs the user gives,
outputs read back (neff-facts §2.4, §2.6, §2.7).

A tensor of `tensor_map.json` lives in the `def.json` var of the same name; its dtype
and shape come from tensor_map (`tf_shape`). An input the user does not give starts as
zeros, and `load_inputs` says so; a constant (var type "file") starts as the `.npy`
member it names. Every size is checked against the var's before a byte is copied.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from pathlib import Path

import ml_dtypes
import numpy as np

from neurondbg.machine.neff.dma import DmaModel
from neurondbg.machine.neff.model import Subgraph, Tensor

# tensor_map dtype names (neff-facts §2.6, §2.7 see float32, float16, int8)
TENSOR_DTYPES: dict[str, np.dtype] = {
    "float32": np.dtype("<f4"), "float16": np.dtype("<f2"),
    "bfloat16": np.dtype(ml_dtypes.bfloat16), "int8": np.dtype("i1"),
    "uint8": np.dtype("u1"), "int16": np.dtype("<i2"), "int32": np.dtype("<i4"),
    "uint32": np.dtype("<u4"), "int64": np.dtype("<i8"), "float64": np.dtype("<f8"),
}


MAX_INPUT_BYTES = 1 << 30  # one input tensor's file


class TensorError(ValueError):
    """An input or output that does not fit its tensor (one line, naming it)."""


def tensor_dtype(t: Tensor) -> np.dtype:
    dt = TENSOR_DTYPES.get(t.dtype)
    if dt is None:
        raise TensorError(f"tensor {t.name!r}: dtype {t.dtype!r} is not one the model "
                          "reads (" + ", ".join(TENSOR_DTYPES) + ")")
    return dt


def inputs_of(sub: Subgraph) -> list[str]:
    """Names of the subgraph's input tensors that live in DRAM, in tensor_map order."""
    return [n for n, t in sub.tensors.items() if t.kind == "input" and n in sub.vars]


def outputs_of(sub: Subgraph) -> list[str]:
    return [n for n, t in sub.tensors.items() if t.kind == "output" and n in sub.vars]


def load_constants(dma: DmaModel, sub: Subgraph) -> list[str]:
    """Put each constant's `.npy` bytes into its var; notes for those that do not fit."""
    notes = []
    for name, data in sub.files.items():
        if name not in dma.base:
            continue
        try:
            arr = np.load(io.BytesIO(data), allow_pickle=False)
        except (ValueError, OSError, EOFError) as e:
            notes.append(f"constant {name}: not a readable .npy ({e}); it starts as zeros")
            continue
        raw = np.ascontiguousarray(arr).view(np.uint8).reshape(-1)
        if raw.size != dma.size[name]:
            notes.append(f"constant {name}: {raw.size:,} bytes for a var of "
                         f"{dma.size[name]:,}; it starts as zeros")
            continue
        dma.load(name, raw)
    return notes


def check_input(sub: Subgraph, dma: DmaModel, name: str, arr: np.ndarray) -> np.ndarray:
    """`arr` as the bytes of input `name`, its shape and dtype checked; TensorError."""
    t = sub.tensors.get(name)
    if t is None or t.kind != "input":
        known = ", ".join(inputs_of(sub)) or "none"
        raise TensorError(f"no input tensor {name!r} (inputs: {known})")
    dt = tensor_dtype(t)
    if tuple(arr.shape) != tuple(t.shape) or arr.dtype != dt:
        raise TensorError(f"input {name}: {arr.dtype} {tuple(arr.shape)} given; expected "
                          f"{t.dtype} {tuple(t.shape)}")
    if name not in dma.base or arr.nbytes != dma.size[name]:
        raise TensorError(f"input {name}: {arr.nbytes:,} bytes, but its var holds "
                          f"{dma.size.get(name, 0):,}")
    return arr


def read_input(sub: Subgraph, name: str, path: str | Path) -> np.ndarray:
    """Input `name` of `sub` read from the `.npy` file at `path`, its dtype and shape
    those tensor_map gives (the file's header is judged before anything is allocated);
    TensorError, one line naming the file or the input, otherwise."""
    from neurondbg.machine.files import InputFileError, open_stream, read_npy

    t = sub.tensors.get(name)
    if t is None or t.kind != "input":
        known = ", ".join(n for n, x in sub.tensors.items() if x.kind == "input") or "none"
        raise TensorError(f"--input {name}={path}: no input tensor {name!r} (inputs: {known})")
    try:
        dt = tensor_dtype(t)
        with open_stream(path, what="an input tensor", max_bytes=MAX_INPUT_BYTES) as fh:
            arr = read_npy(fh, str(path), what=f"{t.dtype} {tuple(t.shape)}", dtypes=(dt,),
                           max_shape=tuple(max(n, 1) for n in t.shape))
    except InputFileError as e:
        raise TensorError(str(e)) from None
    if tuple(arr.shape) != tuple(t.shape):
        raise TensorError(f"{path}: shape {tuple(arr.shape)}; input {name} is {t.dtype} "
                          f"{tuple(t.shape)}")
    return arr


def load_inputs(dma: DmaModel, sub: Subgraph, given: Mapping[str, np.ndarray]) -> list[str]:
    """Load the given inputs (each checked); a note naming the inputs left as zeros."""
    for name, arr in given.items():
        dma.load(name, check_input(sub, dma, name, arr))
    missing = [n for n in inputs_of(sub) if n not in given]
    if not missing:
        return []
    verb = "they start" if len(missing) > 1 else "it starts"
    return [f"input {', '.join(missing)} not given: {verb} as zeros"]


def read_output(dma: DmaModel, sub: Subgraph, name: str) -> np.ndarray:
    """Output (or any DRAM tensor) `name` as an array of its tensor_map dtype and shape."""
    t = sub.tensors.get(name)
    if t is None or name not in dma.base:
        known = ", ".join(outputs_of(sub)) or "none"
        raise TensorError(f"no output tensor {name!r} (outputs: {known})")
    dt = tensor_dtype(t)
    raw = dma.var_bytes(name)
    if math.prod(t.shape) * dt.itemsize != raw.size:
        raise TensorError(f"output {name}: {t.dtype} {tuple(t.shape)} does not fill its var "
                          f"of {raw.size:,} bytes")
    return raw.copy().view(dt).reshape(t.shape)
