"""Synthetic NEFF kernels with real data for the runner's tests (one per rule of
neff-facts §5): `vector_add` and its helpers are the example NEFF's
(machine.neff.example), so what the tests run is what `neurondbg examples` gives a user;
only what no example needs is defined here."""

from __future__ import annotations

from neurondbg.machine.neff.example import (
    COLS,
    PARTS,
    POOL_Q,
    POOL_SEMS,
    ROW,
    SP_Q,
    SP_SEMS,
    asm,
    inc,
    load,
    store,
    streams,
    tt_add,
    vector_add,
    wait,
)

__all__ = ["COLS", "PARTS", "POOL_Q", "POOL_SEMS", "ROW", "SP_Q", "SP_SEMS", "asm", "inc",
           "load", "store", "streams", "tt_add", "vector_add", "wait", "wait2"]


def wait2(idx: int, value: int) -> str:
    """EVENT_SEMAPHORE's second wait (0x20)."""
    return (f"events_extended.wait_mode=SEM_GE_IMM events_extended.wait_idx={idx} "
            f"events_extended.sem_wait_value={value}")
