"""Vector clocks for the race detector (machine/core/races.py).

A clock is a plain list of ints, one per engine in the detector's engine order (plain
lists because the detector reads one component per stored access on every check, and
list indexing is the cheapest read Python has). Engine i's own component is its current
epoch: it starts at 1, others at 0, and each semaphore release advances it. An access
made at epoch e by engine i happens before everything an engine with ``clock[i] >= e``
does.
"""

from __future__ import annotations

Clock = list[int]


def fresh(n: int, own: int) -> Clock:
    """Engine `own`'s initial clock among `n` engines: its own epoch 1, nothing seen."""
    c = [0] * n
    c[own] = 1
    return c

