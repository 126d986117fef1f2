"""The example NEFF `neurondbg examples --copy DIR` writes, built by neurondbg's own
NEFF writer from instruction text and DMA entries (no byte of a compiler's NEFF).

    files()   # {"vector_add.neff": ..., "a.npy": ..., "b.npy": ...}: the same bytes every call

`vector_add()` is out = a + b on 128 partitions x 16 fp32: SP triggers two loads on
qSPIO0 (a, then b, into SB), DVE waits for the second (FIFO: the first is done too),
adds and signals its completion semaphore, Pool waits for that, stores `out` over
qPoolIO0 and ends on a NOP waiting for the store. Its helpers (records from text, a
whole-tensor load and store, semaphore events) are also what the NEFF tests build
their kernels with (tests/neff/kernels.py): one definition of each.
"""

from __future__ import annotations

import io
import uuid

import numpy as np

from neurondbg.machine.asm import assemble
from neurondbg.machine.neff.model import (
    SB,
    SB_PARTITION_STEP,
    Descriptor,
    DmaEntry,
    DmaQueue,
    Engine,
    Subgraph,
    Tensor,
    Var,
)
from neurondbg.machine.neff.triggers import trigger_record
from neurondbg.machine.neff.writer import neff_bytes

TARGET = "sunda"  # Trn1: one subgraph, as the compiler writes for it
NAME = "vector_add.neff"
# A fixed header uuid, so that every copy of the example has the same bytes (a file
# already in the way is then "the same", not "other contents").
UUID = uuid.uuid5(uuid.NAMESPACE_URL, "neurondbg:examples/neff/vector_add").bytes

SP_Q, POOL_Q = "qSPIO0", "qPoolIO0"
SP_SEMS, POOL_SEMS = tuple(range(8, 24)), tuple(range(24, 40))
DVE_DONE = 6  # DVE's completion semaphore ("DVE done", neff-facts §5.1)
PARTS, COLS = 128, 16  # each tensor: 128 partitions x 16 fp32 (64 bytes a partition)
ROW = COLS * 4


def asm(text: str) -> bytes:
    """The records of `text` (one instruction a line)."""
    return bytes(np.asarray(assemble(text, "<example>", TARGET).program().raw).tobytes())


def wait(idx: int, value: int) -> str:
    """The operands of a wait for sem[idx] >= value."""
    return f"events.wait_mode=SEM_GE_IMM events.wait_idx={idx} events.semaphore_value={value}"


def inc(idx: int) -> str:
    """The operands of sem[idx] += 1 once the instruction completes."""
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
                      (1, ROW), (1, SB_PARTITION_STEP))


def store(sb: int, var: str) -> Descriptor:
    """SB bytes sb.. of every partition (64 a partition) into all of `var`."""
    return Descriptor(SB, var, "float32", "float32", sb, 0, (ROW, PARTS), (ROW, PARTS),
                      (1, SB_PARTITION_STEP), (1, ROW))


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
    stores (qPoolIO0 entry 0, sem 24) and ends on a NOP waiting for the store.
    `dve` / `sp` replace those engines' lines and `extra_sp` adds SP entries: the
    tests' variants (a missing wait, another trigger) of the same kernel."""
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
            f"EVENT_SEMAPHORE {wait(SP_SEMS[1], 16)}\n"
            f"{tt_add(0, ROW, 2 * ROW, inc(DVE_DONE))}"),
        "pool": f"TRIGGER {POOL_Q} 0 {DVE_DONE} 1\nNOP {wait(POOL_SEMS[0], 16)}",
    }
    queues = {SP_Q: DmaQueue(SP_Q, Engine.SP, SP_SEMS),
              POOL_Q: DmaQueue(POOL_Q, Engine.POOL, POOL_SEMS)}
    return Subgraph("sg00", streams(**text), queues,
                    {Engine.SP: sp_entries, Engine.POOL: pool_entries}, variables, tensors)


def inputs() -> dict[str, np.ndarray]:
    """The example's inputs, chosen to be read at a glance: a[p, c] = p + c/16 (the
    partition, then the column in sixteenths), b = 0.5 everywhere."""
    p = np.arange(PARTS, dtype=np.float32)[:, None]
    c = np.arange(COLS, dtype=np.float32)[None, :]
    return {"a": (p + c / 16).astype(np.float32),
            "b": np.full((PARTS, COLS), 0.5, dtype=np.float32)}


def npy_bytes(array: np.ndarray) -> bytes:
    """`array` as the bytes of a .npy file (what np.save writes)."""
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def files() -> dict[str, bytes]:
    """The example's files by name: the NEFF, then one .npy per input."""
    out = {NAME: neff_bytes([vector_add()], target=TARGET, name=NAME, uuid=UUID)}
    out.update({f"{name}.npy": npy_bytes(a) for name, a in inputs().items()})
    return out
