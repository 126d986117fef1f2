"""Tensor operands: ADDR4 + step/num fields -> a Region of SBUF or PSUM, or a Fault.

isa-facts §2.1-2.3: steps are in elements, dimension 0 innermost; register mode
takes the address from a GP register; shape-register and indirect operands are
decoded but not modelled (fault). GPSIMD (POOL) cannot reach PSUM (ref 000 GOTCHA).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from neurondbg.machine.dtypes import Gen, dtype_bytes, dtype_name
from neurondbg.machine.engines.context import Fields
from neurondbg.machine.engines.record import Fault
from neurondbg.machine.isa.addr import INDIRECT_BIT, REGISTER_BIT, SHAPE_BIT, decode_addr4
from neurondbg.machine.state import MachineState, Region

# Broadcast patterns (step 0) can name far more elements than a partition holds; the
# model refuses beyond this many per partition instead of allocating without bound.
MAX_ELEMENTS = 1 << 20


def elem_size(dtype: int) -> int:
    size = dtype_bytes(dtype)
    if size is None or size < 1:
        raise Fault(f"dtype {dtype_name(dtype)} has no whole-byte element size "
                    "(4-bit and compressed dtypes are not modelled in access patterns)")
    return int(size)


def resolve_addr(word: int, state: MachineState, what: str) -> tuple[str, int, int]:
    """(space, partition, byte offset) of an ADDR4 word, reading GP registers in register mode."""
    if word & REGISTER_BIT:
        reg = word & 0xFF
        if reg >= 64:
            raise Fault(f"{what}: register-mode address names R{reg}; only R0..R63 hold addresses")
        if word & SHAPE_BIT:
            raise Fault(f"{what}: shape-register operands are not modelled")
        word = state.R[reg]
        if word & (REGISTER_BIT | SHAPE_BIT | INDIRECT_BIT):
            raise Fault(f"{what}: R{reg} = {word:#010x} is not a plain address")
    elif word & SHAPE_BIT:
        raise Fault(f"{what}: shape-register operands (marker 0x40) are not modelled")
    elif word & INDIRECT_BIT:
        raise Fault(f"{what}: indirect operands (marker 0x20) are not modelled")
    where = _locate(word, state.config.gen)
    if isinstance(where, str):
        raise Fault(f"{what}: {where}")
    return where


@lru_cache(maxsize=256)
def _locate(word: int, gen: Gen) -> tuple[str, int, int] | str:
    """(space, partition, offset) of a plain address word, or why it is neither space."""
    a = decode_addr4(word, gen)
    if a.space is None:
        return f"address {word & 0x1FFFFFFF:#x} is neither SBUF nor PSUM"
    return a.space, int(a.partition), int(a.offset)  # type: ignore[arg-type]


_KEYS: dict[str, tuple[str, str, str]] = {}
# An address word with any of these is not plain (its operand reads a register, or faults).
ADDR_MARKERS = REGISTER_BIT | SHAPE_BIT | INDIRECT_BIT


def operand(state: MachineState, fields: Fields, prefix: str, dtype: int, nac: int,
            engine: str, what: str | None = None) -> Region:
    """The Region of tensor operand `prefix` ("src_mem_pattern", "dst", ...)."""
    keys = _KEYS.get(prefix)
    if keys is None:
        keys = _KEYS[prefix] = (f"{prefix}.start_addr", f"{prefix}.step_elem",
                                f"{prefix}.num_elem")
    word = int(fields[keys[0]])
    c = state.config
    steps, nums = _tuple(fields[keys[1]]), _tuple(fields[keys[2]])
    if word & ADDR_MARKERS:  # register mode (or a refused marker): the register's word, checked
        space, p0, off = resolve_addr(word, state, what or prefix)
        region = _region(space, p0, off, dtype, nac, engine, steps, nums, c.partitions,
                         state.memory(space).shape[1])
    else:  # a plain word: decoded and checked in one cached call (two per tensor step)
        region = _plain_region(word, c.gen, dtype, nac, engine, steps, nums, c.partitions,
                               state.sbuf.shape[1], state.psum.shape[1])
    if isinstance(region, str):
        raise Fault(f"{what or prefix}: {region}")
    return region


@lru_cache(maxsize=64)
def _plain_region(word: int, gen: Gen, dtype: int, nac: int, engine: str,
                  steps: tuple[int, ...], nums: tuple[int, ...], parts: int, sbuf_limit: int,
                  psum_limit: int) -> Region | str:
    """`_region` of a plain address word (no marker bits), or what is wrong with either."""
    where = _locate(word, gen)
    if isinstance(where, str):
        return where
    space, p0, off = where
    return _region(space, p0, off, dtype, nac, engine, steps, nums, parts,
                   sbuf_limit if space == "sbuf" else psum_limit)


@lru_cache(maxsize=64)
def _region(space: str, p0: int, off: int, dtype: int, nac: int, engine: str,
            steps: tuple[int, ...], nums: tuple[int, ...], parts: int, limit: int
            ) -> Region | str:
    """One Region per distinct pattern (its index arrays are computed once), or what is wrong.

    Pure in its arguments, so repeated operands skip the checks; a dtype without a
    whole-byte size raises its Fault (exceptions are not cached).
    """
    steps, nums = tuple(map(int, steps)), tuple(map(int, nums))
    if space == "psum" and engine == "pool":
        return "GPSIMD cannot access PSUM (ref 000: the POOL engine is SBUF-only)"
    if 0 in nums:
        return f"num_elem {list(nums)} has a zero count (each must be >= 1)"
    size = elem_size(dtype)
    if not 1 <= nac:
        return "num_active_channels is 0 (must be 1..128)"
    if p0 + nac > parts:
        return f"partitions {p0}..{p0 + nac - 1} exceed the {parts}-partition array"
    region = Region(space, p0, p0 + nac, off, size, steps, nums)
    lo, hi = region.bounds
    if lo < 0 or hi > limit:
        return f"bytes {lo}..{hi - 1} of each partition are outside {space} (0..{limit - 1})"
    if region.count > MAX_ELEMENTS:
        return (f"num_elem {list(nums)} gives {region.count:,} elements per "
                f"partition; the model handles at most {MAX_ELEMENTS:,}")
    return region


def _tuple(v: Any) -> tuple[int, ...]:  # a field value: int, tuple, list or array
    """A hashable pattern key; `_region` normalizes the items to int once per pattern."""
    if type(v) is tuple:
        return v  # decoded fields are tuples already
    return tuple(int(x) for x in v) if isinstance(v, list | np.ndarray) else (int(v),)


def same_count(a: Region, b: Region, what: str) -> None:
    if a.count != b.count:
        raise Fault(f"{what}: element counts differ ({a.count} vs {b.count})")


_CONTAINERS = {n: np.dtype(f"<u{n}") for n in (1, 2, 4, 8)}


def read_elems(state: MachineState, r: Region) -> np.ndarray:
    """(partitions, count) array of the element container type (uint8/16/32/64)."""
    raw = state.read_block(r)  # rows are contiguous: view them without a copy
    if raw.strides[-1] != 1:
        raw = np.ascontiguousarray(raw)
    return raw.view(_CONTAINERS.get(r.size) or f"<u{r.size}")


def write_elems(state: MachineState, r: Region, values: np.ndarray) -> None:
    """Write (partitions, count) values (container or any same-size dtype); broadcasts rows."""
    shape = (r.p1 - r.p0, r.count)
    v = values
    if v.shape != shape or not v.flags.c_contiguous:  # a converted result is already both
        v = np.ascontiguousarray(np.broadcast_to(values, shape))
    state.write_block(r, v.view(np.uint8).reshape(shape[0], r.count * r.size))
