"""Memory cells as variables: an SBUF / PSUM range typed in a watch or the debug console
(`sb[0, 0:16]:fp32`) evaluates to one row per element, each named by its settable spelling
(`sb[0, 0x4]:fp32`) so the editor's setVariable stores into that cell.

    names = cell_names("sb[0, 0:16]:fp32", machine)   # None: not a range of cells

A group's rows are read afresh at every `variables` request; the adapter keeps the last
MAX_GROUPS groups (a variablesReference each), older ones are forgotten.
"""

from __future__ import annotations

from dataclasses import replace

from neurondbg.machine.debugger import Machine

MAX_CELLS = 1024  # elements one group shows (the console's `x` shows as many)
MAX_GROUPS = 64  # groups kept: each evaluate of a range makes one
CELLS_BASE = 1 << 20  # variablesReference of the first group: above every scope's


def cell_names(text: str, machine: Machine) -> list[str] | None:
    """The settable name of each element of the memory range `text`, partition by
    partition; None when `text` is no memory range (an expression, a register, a packed
    4-bit format). ValueError for a range out of bounds or one of more than MAX_CELLS
    elements."""
    from neurondbg.machine import edits
    from neurondbg.machine.expr import parse_target

    try:
        t = parse_target(text)
    except ValueError:
        return None
    if t.kind != "mem" or t.engine:
        return None
    width = edits.width(t)
    count = (t.p1 - t.index) * ((t.b1 - t.b0) // width) if width >= 1 else 0
    if count < 1:
        return None
    if count > MAX_CELLS:
        raise ValueError(f"{t.name}: {count} elements; at most {MAX_CELLS} as variables "
                         "(x/NF shows a range as text)")
    if count > 1:  # one cell is printed, and `print` says what is out of bounds
        machine.check(t)
    return [replace(t, index=p, p1=p + 1, b0=b, b1=b + width).settable
            for p in range(t.index, t.p1) for b in range(t.b0, t.b1 - width + 1, width)]
