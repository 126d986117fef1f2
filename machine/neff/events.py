"""The semaphore waits and updates of a stream, as arrays (isa-facts §1.2, neff-facts §4).

Every record carries a header wait (bytes 4, 5, u32 threshold at 8) and a header update
(bytes 6, 7); EVENT_SEMAPHORE adds a second wait at 0x20 (mode, index, u32 threshold at
0x24), and both waits must hold (neff-facts §5.2). `waits(stream)` and `updates(stream)`
read them for a whole stream at once. An undescribed PSEUDO record whose byte 1 is not
16 (machine.neff.unmodelled.headerless: PSEUDO_EXTENSION) has no such header: its bytes
4..11 are not read as events.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neurondbg.machine.isa.enums import UpdateMode, WaitMode
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.neff.unmodelled import headerless

SEM_WAITS = frozenset({WaitMode.SEM_EQ_IMM, WaitMode.SEM_LT_IMM, WaitMode.SEM_LE_IMM,
                       WaitMode.SEM_GT_IMM, WaitMode.SEM_GE_IMM})
INCREMENTS = frozenset({UpdateMode.SEM_INC_READ, UpdateMode.SEM_INC_COMPLETE})
ADDS = frozenset({UpdateMode.SEM_ADD_IMM_READ, UpdateMode.SEM_ADD_IMM_COMPLETE})
EVENT_UPDATES = frozenset({UpdateMode.EVT_SET_READ, UpdateMode.EVT_CLR_READ,
                           UpdateMode.EVT_SET_COMPLETE, UpdateMode.EVT_CLR_COMPLETE})


@dataclass(frozen=True)
class Waits:
    """The waits of one stream: one entry per (record, slot) whose mode is not NONE."""

    index: np.ndarray  # record index
    second: np.ndarray  # bool: the EVENT_SEMAPHORE wait at 0x20 (else the header's)
    mode: np.ndarray  # uint8 WaitMode
    sem: np.ndarray  # uint8 semaphore / event index
    value: np.ndarray  # uint32 threshold


@dataclass(frozen=True)
class Updates:
    """The header updates of one stream (mode not NONE)."""

    index: np.ndarray
    mode: np.ndarray  # uint8 UpdateMode
    sem: np.ndarray
    value: np.ndarray  # uint32 semaphore_value (the immediate of ADD/SUB/WR)


def _u32(stream: np.ndarray, at: int) -> np.ndarray:
    return np.ascontiguousarray(stream[:, at:at + 4]).view("<u4").reshape(-1)


def waits(stream: np.ndarray) -> Waits:
    """Header waits of every record and the second wait of every EVENT_SEMAPHORE."""
    head = np.flatnonzero((stream[:, 4] != WaitMode.NONE) & ~headerless(stream))
    es = np.flatnonzero((stream[:, 0] == Opcode.EVENT_SEMAPHORE) & (stream[:, 0x20] != 0))
    index = np.concatenate([head, es])
    second = np.concatenate([np.zeros(len(head), bool), np.ones(len(es), bool)])
    mode = np.concatenate([stream[head, 4], stream[es, 0x20]])
    sem = np.concatenate([stream[head, 5], stream[es, 0x21]])
    value = np.concatenate([_u32(stream[head], 8), _u32(stream[es], 0x24)])
    order = np.lexsort((second, index))
    return Waits(index[order], second[order], mode[order], sem[order], value[order])


def updates(stream: np.ndarray) -> Updates:
    """Header updates of every record."""
    rows = np.flatnonzero((stream[:, 6] != UpdateMode.NONE) & ~headerless(stream))
    return Updates(rows, stream[rows, 6], stream[rows, 7], _u32(stream[rows], 8))
