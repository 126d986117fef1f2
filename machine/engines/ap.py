"""Tensor operands: ADDR4 + step/num fields -> a Region of SBUF or PSUM, or a Fault.

isa-facts §2.1-2.3: steps are in elements, dimension 0 innermost; register mode
takes the address from a GP register; shape-register and indirect operands are
decoded but not modelled (fault). GPSIMD (POOL) cannot reach PSUM (ref 000 GOTCHA).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from machine.dtypes import dtype_bytes, dtype_name
from machine.engines.record import Fault
from machine.isa.addr import INDIRECT_BIT, REGISTER_BIT, SHAPE_BIT, decode_addr4
from machine.state import MachineState, Region

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
    a = decode_addr4(word, state.config.gen)
    if a.space is None:
        raise Fault(f"{what}: address {word & 0x1FFFFFFF:#x} is neither SBUF nor PSUM")
    return a.space, int(a.partition), int(a.offset)  # type: ignore[arg-type]


def operand(state: MachineState, fields: dict[str, Any], prefix: str, dtype: int, nac: int,
            engine: str, what: str | None = None) -> Region:
    """The Region of tensor operand `prefix` ("src_mem_pattern", "dst", ...)."""
    what = what or prefix
    space, p0, off = resolve_addr(int(fields[f"{prefix}.start_addr"]), state, what)
    if space == "psum" and engine == "pool":
        raise Fault(f"{what}: GPSIMD cannot access PSUM (ref 000: the POOL engine is SBUF-only)")
    steps = _tuple(fields[f"{prefix}.step_elem"])
    nums = _tuple(fields[f"{prefix}.num_elem"])
    if 0 in nums:
        raise Fault(f"{what}: num_elem {list(nums)} has a zero count (each must be >= 1)")
    size = elem_size(dtype)
    if not 1 <= nac:
        raise Fault(f"{what}: num_active_channels is 0 (must be 1..128)")
    parts = state.config.partitions
    if p0 + nac > parts:
        raise Fault(f"{what}: partitions {p0}..{p0 + nac - 1} exceed the {parts}-partition array")
    region = _region(space, p0, p0 + nac, off, size, steps, nums)
    lo, hi = region.bounds
    limit = state.memory(space).shape[1]
    if lo < 0 or hi > limit:
        raise Fault(f"{what}: bytes {lo}..{hi - 1} of each partition are outside {space} "
                    f"(0..{limit - 1})")
    if region.count > MAX_ELEMENTS:
        raise Fault(f"{what}: num_elem {list(nums)} gives {region.count:,} elements per "
                    f"partition; the model handles at most {MAX_ELEMENTS:,}")
    return region


@lru_cache(maxsize=32)
def _region(*key: Any) -> Region:
    """One Region per distinct pattern, so its index arrays are computed once."""
    return Region(*key)


def _tuple(v: Any) -> tuple[int, ...]:
    return tuple(int(x) for x in v) if isinstance(v, tuple | list | np.ndarray) else (int(v),)


def same_count(a: Region, b: Region, what: str) -> None:
    if a.count != b.count:
        raise Fault(f"{what}: element counts differ ({a.count} vs {b.count})")


def read_elems(state: MachineState, r: Region) -> np.ndarray:
    """(partitions, count) array of the element container type (uint8/16/32/64)."""
    raw = state.read_block(r)  # rows are contiguous: view them without a copy
    if raw.strides[-1] != 1:
        raw = np.ascontiguousarray(raw)
    return raw.view(f"<u{r.size}")


def write_elems(state: MachineState, r: Region, values: np.ndarray) -> None:
    """Write (partitions, count) values (container or any same-size dtype); broadcasts rows."""
    v = np.ascontiguousarray(np.broadcast_to(values, (r.p1 - r.p0, r.count)))
    state.write_block(r, v.view(np.uint8).reshape(r.p1 - r.p0, r.count * r.size))
