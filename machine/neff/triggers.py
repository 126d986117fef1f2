"""PSEUDO_DMATRIGGER records: their payload, and the DMA entry each one starts.

Payload (neff-facts §5.3): bytes 12..47 the queue name (ASCII, NUL-padded), a u32 at 48
the entry `id`. A trigger names an entry of the **issuing engine's** JSON `dma` list;
`resolve_triggers` pairs every trigger with its entry, vectorised over the stream (the
distinct names are decoded once), and refuses a trigger naming a queue or id that list
lacks: a NEFF whose triggers dangle cannot be run or shown, so it is bad input, not a
validation finding.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.isa.spec import RECORD_BYTES
from neurondbg.machine.neff.container import NeffError
from neurondbg.machine.neff.model import ENGINES, DmaEntry, Engine, Subgraph

QUEUE_NAME = slice(12, 48)
QUEUE_NAME_BYTES = 36
ENTRY_ID = 48


@dataclass(frozen=True)
class Trigger:
    """One trigger record and the entry it starts."""

    engine: Engine
    index: int  # record index in the engine's stream
    entry: DmaEntry


def trigger_rows(stream: np.ndarray) -> np.ndarray:
    """Indices of the PSEUDO_DMATRIGGER records of a (N, 64) stream."""
    return np.flatnonzero(stream[:, 0] == Opcode.PSEUDO_DMATRIGGER)


def trigger_targets(stream: np.ndarray, rows: np.ndarray) -> tuple[list[str], list[int]]:
    """(queue name, id) of each trigger at `rows`."""
    if not len(rows):
        return [], []
    names = np.ascontiguousarray(stream[rows, QUEUE_NAME]).view(f"S{QUEUE_NAME_BYTES}")
    uniq, inv = np.unique(names.reshape(-1), return_inverse=True)
    text = [u.split(b"\0", 1)[0].decode("ascii", "replace") for u in uniq.tolist()]
    ids = np.ascontiguousarray(stream[rows, ENTRY_ID:ENTRY_ID + 4]).view("<u4").reshape(-1)
    return [text[k] for k in inv.reshape(-1).tolist()], ids.tolist()


def resolve_triggers(sub: Subgraph, where: str) -> dict[Engine, list[Trigger]]:
    """Every engine's triggers with their entries; NeffError for one that dangles."""
    out: dict[Engine, list[Trigger]] = {}
    for e in ENGINES:
        stream = sub.stream(e)
        rows = trigger_rows(stream)
        entries = {(x.queue, x.id): x for x in sub.engine_entries(e)}
        queues = {x.queue for x in sub.engine_entries(e)}
        found: list[Trigger] = []
        names, ids = trigger_targets(stream, rows)
        for i, q, n in zip(rows.tolist(), names, ids, strict=True):
            entry = entries.get((q, n))
            if entry is None:
                file = f"{sub.name}/{e.file_stem}"
                what = (f"id {n} of queue {q!r}, which has no such entry" if q in queues
                        else f"queue {q!r}, which the engine's dma list does not name")
                raise NeffError(f"{where}: {file}.bin record #{i} (offset "
                                f"0x{i * RECORD_BYTES:x}): PSEUDO_DMATRIGGER names {what} "
                                f"in {file}.json")
            found.append(Trigger(e, i, entry))
        out[e] = found
    return out


def trigger_record(queue: str, entry_id: int, wait: tuple[int, int] | None = None) -> bytes:
    """A PSEUDO_DMATRIGGER record for (queue, id), optionally waiting sem[idx] >= value."""
    rec = bytearray(RECORD_BYTES)
    rec[0], rec[1] = Opcode.PSEUDO_DMATRIGGER, 16
    if wait is not None:
        rec[4], rec[5] = 0x05, wait[0]  # SEM_GE_IMM
        struct.pack_into("<I", rec, 8, wait[1])
    name = queue.encode("ascii")
    if len(name) > QUEUE_NAME_BYTES:
        raise ValueError(f"queue name {queue!r} is longer than {QUEUE_NAME_BYTES} bytes")
    rec[QUEUE_NAME.start:QUEUE_NAME.start + len(name)] = name
    struct.pack_into("<I", rec, ENTRY_ID, entry_id)
    return bytes(rec)
