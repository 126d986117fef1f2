"""The records of a NEFF whose effect no reference gives: every PSEUDO_* record but
PSEUDO_DMATRIGGER and PSEUDO_BRANCH_LABEL, the two neff-facts §5.2 and §5.3 describe.

Newer compilers emit others (PSEUDO_DMA_DIRECT2D and PSEUDO_TENSOR_LOAD with DMA queues
of `type` "dynamic" and empty engine `dma` lists, PSEUDO_EXTENSION after some of them).
Their payloads and what they move or raise are not in the references, so:

- `run` stops at the first one it reaches (a fault saying it is not modelled) instead of
  running past it with made-up semantics (machine.engines.neff.not_modelled);
- `validate`'s `wait_reachable` does not fail a wait such records might satisfy: it
  notes it as not checked (machine.neff.checks);
- the lowering (machine.neff.lower) notes up front how many there are.

`backing_note(sub)` is the one note for `def.json` vars that carry a
`backing_variable_off` the model ignores: a non-zero one, or one several vars share
(two vars at the same offset seem to share one buffer; docs/neff.md). Each var has
storage of its own in the model, so a value saved through one var and read back through
another reads as that var's own bytes.

    not_modelled(stream)        # {"PSEUDO_DMA_DIRECT2D": 13, ...} for one (N, 64) stream
    backing_note(sub)           # "def.json var 'x' has backing_variable_off 0x4000 ..."
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import numpy as np

from neurondbg.machine.isa.opcodes import OPCODES, Opcode, mnemonic
from neurondbg.machine.neff.model import Subgraph

DESCRIBED = frozenset({Opcode.PSEUDO_DMATRIGGER, Opcode.PSEUDO_BRANCH_LABEL})


def _table() -> np.ndarray:
    t = np.zeros(256, dtype=bool)
    for code, info in OPCODES.items():
        t[code] = info.pseudo and code not in DESCRIBED
    return t


NOT_MODELLED = _table()  # by opcode byte
CODES = frozenset(int(c) for c in np.flatnonzero(NOT_MODELLED).tolist())
HEADER_BYTE1 = 16  # isa-facts §1.1: byte 1 of every hardware instruction


def headerless(stream: np.ndarray) -> np.ndarray:
    """Per record: an undescribed PSEUDO record whose byte 1 is not 16 (PSEUDO_EXTENSION
    has 0 there and carries what look like its predecessor's operands in bytes 4..11),
    so its bytes 4..11 are not read as a header wait and update."""
    if not len(stream):
        return np.zeros(0, dtype=bool)
    out: np.ndarray = NOT_MODELLED[stream[:, 0]] & (stream[:, 1] != HEADER_BYTE1)
    return out


def not_modelled(stream: np.ndarray) -> dict[str, int]:
    """Mnemonic -> count of the records of `stream` whose effect is not modelled."""
    if not len(stream):
        return {}
    ops = stream[:, 0]
    hit = ops[NOT_MODELLED[ops]]
    codes, counts = np.unique(hit, return_counts=True)
    return {mnemonic(int(c)): int(n) for c, n in zip(codes.tolist(), counts.tolist(),
                                                    strict=True)}


def tally(streams: Iterable[np.ndarray]) -> dict[str, int]:
    """not_modelled over several streams, summed, by mnemonic."""
    out: dict[str, int] = {}
    for s in streams:
        for k, n in not_modelled(s).items():
            out[k] = out.get(k, 0) + n
    return dict(sorted(out.items()))


def describe(counts: dict[str, int]) -> str:
    """"13 PSEUDO_DMA_DIRECT2D, 2 PSEUDO_TENSOR_LOAD" (empty for none)."""
    return ", ".join(f"{n} {k}" for k, n in counts.items())


def backing_note(sub: Subgraph) -> str | None:
    """One line naming the first var whose `backing_variable_off` matters (non-zero, or
    the same as another var's) and how many more there are; None when none does."""
    given = [(name, v.backing_variable_off) for name, v in sub.vars.items()
             if v.backing_variable_off is not None]
    shared = Counter(off for _, off in given)  # one pass: def.json may list many vars
    named = sorted(((name, off) for name, off in given if off != 0 or shared[off] > 1),
                   key=lambda no: no[1] == 0)  # a non-zero one first, else file order
    if not named:
        return None
    name, off = named[0]
    more = f" (and {len(named) - 1} more var{'s' if len(named) > 2 else ''})" \
        if len(named) > 1 else ""
    return (f"def.json var {name!r} has backing_variable_off {off:#x}{more}: not modelled "
            "(each var has storage of its own; a value saved through one var and read "
            "back through another that shares its buffer reads as that var's own bytes, "
            "so values may be stale)")
