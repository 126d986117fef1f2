"""The instructions a NEFF holds that have no arithmetic to model (neff-facts §5.2).

- SET_ORDERING_MODE, PSEUDO_BRANCH_LABEL, ACTIVATION_TABLE_LOAD: no-ops (their
  payloads are all zero in every NEFF seen; the runtime removes the label).
- LDWEIGHTS, MATMUL, ACTIVATE (opaque: no field layout in the references): their header
  events are applied (machine.engines.execute) and nothing else; the memory they may
  write is marked stale (machine.neff.stale), so no view shows it as modelled.
- PSEUDO_DMATRIGGER: puts the DMA entry it names (queue name at 12..47, u32 id at 48,
  struct DMA_TRIGGER) at the back of its queue (machine.neff.dma). It runs only where
  the state carries a NEFF's DMA queues; elsewhere it faults, naming why.
- Every other PSEUDO_* record (PSEUDO_DMA_DIRECT2D, PSEUDO_TENSOR_LOAD, ... of newer
  compilers): no reference says what it does, so it faults saying it is not modelled
  (machine.neff.unmodelled) rather than running with guessed semantics.

NOP's header wait and EVENT_SEMAPHORE's second wait at 0x20 are machine.engines.seq's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from neurondbg.machine.engines.context import Context, Fields
from neurondbg.machine.engines.record import Fault
from neurondbg.machine.engines.seq import Handler
from neurondbg.machine.isa.opcodes import Opcode as Op
from neurondbg.machine.neff.stale import MAY_WRITE, mark
from neurondbg.machine.neff.unmodelled import CODES

if TYPE_CHECKING:
    from neurondbg.machine.isa.codec import Instruction

# opcodes that run on whichever engine's stream holds them (a NEFF places the pseudo
# ones on the engines of neff-facts §0.3, which no dispatch table lists)
ANY_ENGINE: frozenset[int] = frozenset({Op.PSEUDO_DMATRIGGER, Op.PSEUDO_BRANCH_LABEL})


def no_op(ctx: Context, inst: Instruction) -> None:
    """Nothing beyond the header's events (neff-facts §5.2)."""
    return None


def opaque(ctx: Context, inst: Instruction) -> None:
    """The header's events only; what the instruction may write becomes stale."""
    for space in MAY_WRITE.get(inst.opcode, ()):
        mark(ctx.state, space, f"{inst.mnemonic} at {ctx.engine} {ctx.pc:#x}")


def dma_trigger(ctx: Context, inst: Instruction) -> None:
    """Enqueue the entry (queue, id) of the issuing engine's dma list."""
    from neurondbg.machine.neff.model import Engine

    dma = getattr(ctx.state, "dma", None)
    if dma is None:
        raise Fault("PSEUDO_DMATRIGGER starts a NEFF's DMA entry; this program has no DMA "
                    "queues (open the .neff to run it)")
    f: Fields = inst.fields
    raw = f["queue"]
    name = bytes(raw).split(b"\0", 1)[0].decode("ascii", "replace")
    try:
        engine = Engine(ctx.engine)
    except ValueError:
        raise Fault(f"PSEUDO_DMATRIGGER on {ctx.engine!r}, not a NEFF engine") from None
    dma.trigger(ctx.state, engine, name, int(f["id"]))


def not_modelled(ctx: Context, inst: Instruction) -> None:
    """A PSEUDO_* record whose effect no reference gives: stop here, saying so."""
    raise Fault(f"{inst.mnemonic} is not modelled: no reference gives its payload or what "
                "it moves or raises (a record the runtime lowers), so the run cannot go "
                "past it")


HANDLERS: dict[Op, Handler] = {
    Op.SET_ORDERING_MODE: no_op, Op.PSEUDO_BRANCH_LABEL: no_op,
    Op.ACTIVATION_TABLE_LOAD: no_op,
    Op.LDWEIGHTS: opaque, Op.MATMUL: opaque, Op.ACTIVATE: opaque,
    Op.PSEUDO_DMATRIGGER: dma_trigger,
    **{Op(c): not_modelled for c in sorted(CODES)},
}
