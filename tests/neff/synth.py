"""Synthetic NEFF contents for the tests (machine.neff.writer makes the files)."""

from __future__ import annotations

import struct

import numpy as np

from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.legality.wire.samples import example
from neurondbg.machine.neff.model import (
    SB,
    Descriptor,
    DmaEntry,
    DmaQueue,
    Engine,
    Subgraph,
    Tensor,
    Var,
)
from neurondbg.machine.neff.triggers import trigger_record

QUEUE = "qSPIO0"
SEMS = tuple(range(8, 24))


def record(op: int, wait: tuple[int, int] | None = None, update: int | None = None,
           wait2: tuple[int, int] | None = None) -> bytes:
    """A 64-byte record: opcode (a MEMSET is the legality samples' valid one), header wait
    sem[i] >= v, SEM_INC_COMPLETE on `update`, and (EVENT_SEMAPHORE) a second wait at 0x20."""
    rec = bytearray(example("is_valid_d4_mr") if op == Opcode.MEMSET else bytes(64))
    rec[0], rec[1] = op, 16
    if wait is not None:
        rec[4], rec[5] = 0x05, wait[0]
        struct.pack_into("<I", rec, 8, wait[1])
    if update is not None:
        rec[6], rec[7] = 0x13, update
    if wait2 is not None:
        rec[0x20], rec[0x21] = 0x05, wait2[0]
        struct.pack_into("<I", rec, 0x24, wait2[1])
    return bytes(rec)


def stream(*records: bytes) -> np.ndarray:
    return np.frombuffer(b"".join(records), dtype=np.uint8).reshape(-1, 64)


def load(entry_id: int, size: int = 512) -> DmaEntry:
    """Entry `entry_id` of QUEUE: `size` bytes of input X into SB partition 0."""
    d = Descriptor("X", SB, "float32", "float32", entry_id * size, 0x40000 * 0 + entry_id
                   * size, (size,), (size, 1), (1,), (1, 0x40000))
    return DmaEntry(QUEUE, entry_id, SEMS[entry_id % 16], (d,), f"I-{entry_id}")


def vector_add(loads: int = 2) -> Subgraph:
    """SP loads `loads` entries; DVE waits for the last one (FIFO covers the others)
    then signals; Pool ends with a NOP on DVE's counter."""
    sp = [record(Opcode.SET_ORDERING_MODE)]
    sp += [trigger_record(QUEUE, i) for i in range(loads)]
    dve = [record(Opcode.SET_ORDERING_MODE),
           record(Opcode.EVENT_SEMAPHORE,
                  wait=(SEMS[(loads - 1) % 16], 16 * ((loads - 1) // 16 + 1))),
           record(Opcode.MEMSET, update=6)]
    pool = [record(Opcode.SET_ORDERING_MODE), record(Opcode.NOP, wait=(6, 1))]
    streams = {Engine.SP: stream(*sp), Engine.DVE: stream(*dve), Engine.POOL: stream(*pool),
               Engine.ACT: stream(record(Opcode.SET_ORDERING_MODE)),
               Engine.PE: stream(record(Opcode.SET_ORDERING_MODE))}
    return Subgraph("sg00", streams, {QUEUE: DmaQueue(QUEUE, Engine.SP, SEMS)},
                    {Engine.SP: tuple(load(i) for i in range(loads))},
                    {"SB": Var("SB", "state-buffer", 0), "X": Var("X", "input", 1, 4096)},
                    {"X": Tensor("X", "float32", (1024,), "input", False, "N", "value_X.npy")})
