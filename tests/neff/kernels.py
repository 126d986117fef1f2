"""Synthetic NEFF kernels with real data for the runner's tests (one per rule of
neff-facts §5): records assembled from text, DMA entries made here."""

from __future__ import annotations

import numpy as np

from neurondbg.machine.asm import assemble
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

SP_Q, POOL_Q = "qSPIO0", "qPoolIO0"
SP_SEMS, POOL_SEMS = tuple(range(8, 24)), tuple(range(24, 40))
PARTS, COLS = 128, 16  # each tensor: 128 partitions x 16 fp32 (64 bytes a partition)
ROW = COLS * 4


def asm(text: str) -> bytes:
    """The records of `text` (one instruction a line)."""
    return bytes(np.asarray(assemble(text, "<test>", "sunda").program().raw).tobytes())


def wait(idx: int, value: int) -> str:
    return f"events.wait_mode=SEM_GE_IMM events.wait_idx={idx} events.semaphore_value={value}"


def wait2(idx: int, value: int) -> str:
    """EVENT_SEMAPHORE's second wait (0x20)."""
    return (f"events_extended.wait_mode=SEM_GE_IMM events_extended.wait_idx={idx} "
            f"events_extended.sem_wait_value={value}")


def inc(idx: int) -> str:
    return f"events.update_mode=SEM_INC_COMPLETE events.update_idx={idx}"


def tt_add(src0: int, src1: int, dst: int, events: str = "") -> str:
    """DVE: dst = src0 + src1, 16 fp32 per partition on all 128 partitions."""
    def pat(name: str, off: int) -> str:
        return f"{name}=sb[0, {off:#x}] step=[1,0,0] num=[{COLS},1,1]"
    return (f"TENSOR_TENSOR_ARITH_OP in0_dtype=FP32 in1_dtype=FP32 out_dtype=FP32 op=ADD "
            f"nac={PARTS} {pat('src0', src0)} {pat('src1', src1)} {pat('dst', dst)} {events}")


def load(var: str, sb: int) -> Descriptor:
    """All of `var` (128 x 64 bytes) into SB bytes sb.. of every partition."""
    return Descriptor(var, SB, "float32", "float32", 0, sb, (ROW, PARTS), (ROW, PARTS),
                      (1, ROW), (1, 0x40000))


def store(sb: int, var: str) -> Descriptor:
    return Descriptor(SB, var, "float32", "float32", sb, 0, (ROW, PARTS), (ROW, PARTS),
                      (1, 0x40000), (1, ROW))


def streams(**text: str) -> dict[Engine, np.ndarray]:
    """Each engine's records: SET_ORDERING_MODE then its own lines (`text` by engine);
    PSEUDO_DMATRIGGER lines are written `TRIGGER queue id [wait_idx wait_value]`."""
    out = {}
    for e in Engine:
        recs = [asm("SET_ORDERING_MODE")]
        for line in text.get(e.value, "").strip().splitlines():
            parts = line.split()
            if parts and parts[0] == "TRIGGER":
                w = (int(parts[3]), int(parts[4])) if len(parts) > 3 else None
                recs.append(trigger_record(parts[1], int(parts[2]), w))
            elif parts:
                recs.append(asm(line))
        out[e] = np.frombuffer(b"".join(recs), dtype=np.uint8).reshape(-1, 64)
    return out


def vector_add(dve: str | None = None, sp: str | None = None,
               extra_sp: tuple[DmaEntry, ...] = ()) -> Subgraph:
    """out = a + b: SP loads a (entry 0, sem 8) and b (entry 1, sem 9); DVE waits for
    sem[9] >= 16 (FIFO: entry 0 is done too), adds, signals sem 6; Pool waits for it,
    stores (qPoolIO0 entry 0, sem 24) and ends on a NOP waiting for the store."""
    tensors = {n: Tensor(n, "float32", (PARTS, COLS), k, False, "NC", f"value_{n}.npy")
               for n, k in (("a", "input"), ("b", "input"), ("out", "output"))}
    variables = {"SB": Var("SB", "state-buffer", 0),
                 **{n: Var(n, t.kind or "", i + 1, PARTS * ROW)
                    for i, (n, t) in enumerate(tensors.items())}}
    sp_entries = (DmaEntry(SP_Q, 0, SP_SEMS[0], (load("a", 0x0),), "load a"),
                  DmaEntry(SP_Q, 1, SP_SEMS[1], (load("b", ROW),), "load b"), *extra_sp)
    pool_entries = (DmaEntry(POOL_Q, 0, POOL_SEMS[0], (store(2 * ROW, "out"),), "store"),)
    text = {
        "sp": sp if sp is not None else f"TRIGGER {SP_Q} 0\nTRIGGER {SP_Q} 1",
        "dve": dve if dve is not None else (
            f"EVENT_SEMAPHORE {wait(SP_SEMS[1], 16)}\n{tt_add(0, ROW, 2 * ROW, inc(6))}"),
        "pool": f"TRIGGER {POOL_Q} 0 6 1\nNOP {wait(POOL_SEMS[0], 16)}",
    }
    queues = {SP_Q: DmaQueue(SP_Q, Engine.SP, SP_SEMS),
              POOL_Q: DmaQueue(POOL_Q, Engine.POOL, POOL_SEMS)}
    return Subgraph("sg00", streams(**text), queues,
                    {Engine.SP: sp_entries, Engine.POOL: pool_entries}, variables, tensors)
