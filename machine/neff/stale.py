"""Stale memory: where values may differ from the hardware's because an instruction the
model cannot compute may have written there.

LDWEIGHTS, MATMUL and ACTIVATE have no field layout in the references (neff-facts §6.2):
the model applies their semaphore events and nothing else, so after one has run, the
memory it may write holds what was there before, not what the hardware would hold. A
DMA transpose (layout not known, neff-facts §11) is the same for its destination.
Every view of that memory (memory panes, `x`, `--dump-sbuf`, `--output`) must say so:
`stale_note(state, "psum")` gives the one line to show, naming the first instruction
that made it stale.

The marks live in a dict shared by every engine state of a core (`state.stale`, keyed
by "sbuf", "psum" or a DRAM variable's name), written through `write_scalar`, so a step
that marks memory stale is undone with the step (reverse, replay).
"""

from __future__ import annotations

from typing import Literal

from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.state import MachineState

Space = Literal["sbuf", "psum"]
SPACES: tuple[Space, ...] = ("sbuf", "psum")

# What each opaque opcode may write (neff-facts §6.3 reads MATMUL's destination as PSUM
# and ACTIVATE's as SBUF, both [LOW]: the layouts are guesses, so both spaces are marked;
# LDWEIGHTS loads the PE array's weights, which the model does not hold).
MAY_WRITE: dict[int, tuple[Space, ...]] = {
    Opcode.LDWEIGHTS: (),
    Opcode.MATMUL: SPACES,
    Opcode.ACTIVATE: SPACES,
}


def marks(state: MachineState) -> dict[str, str | None]:
    """The shared stale marks of `state`'s core, made (all clear) on first use and
    handed to every engine state of the core."""
    got: dict[str, str | None] | None = getattr(state, "stale", None)
    if got is None:
        got = {s: None for s in SPACES}
        for st in (state.peers or {state.config.engine: state}).values():
            st.stale = got  # type: ignore[attr-defined]
        state.stale = got  # type: ignore[attr-defined]
    return got


def mark(state: MachineState, where: str, who: str) -> None:
    """Mark `where` ("sbuf", "psum", a DRAM variable) stale by `who` ("MATMUL at pe
    0x40"); the first instruction that made it stale stays the one named."""
    m = marks(state)
    if m.get(where) is None:
        if where not in m:
            m[where] = None  # write_scalar needs the key to journal its old value
        state.write_scalar("stale", where, who)


def stale_note(state: MachineState, where: str) -> str | None:
    """"values may be stale: MATMUL at pe 0x40 wrote psum and is not modelled", or None
    when every value of `where` is modelled."""
    m: dict[str, str | None] | None = getattr(state, "stale", None)
    who = None if m is None else m.get(where)
    if who is None:
        return None
    return f"values may be stale: {who} may have written {where} and is not modelled"
