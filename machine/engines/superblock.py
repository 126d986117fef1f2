"""Superblocks: a straight run of SEQ fast records compiled into one function.

A block starts at record `entry` and covers the records after it up to and including the
first branch (or up to the last one before a record that is not fast, has a stop bit or
would make the block longer than MAX_BLOCK). Each record's `Inline` (machine/engines/seq.py,
declared next to its closure) gives the statements; the block runs them in order,
journals every register write in one `fromlist` and every step word in one `extend`, and, when
the block's exit comes back to its own entry (a loop), runs again, up to `most` times:

    run = superblock(entry, [(index, inline), ...], state)
    nxt, passes = run(most)      # passes * len(records) steps done, 1 <= passes <= most

The debugger uses a block only when the budget left holds at least one whole pass and no
record in it has a stop bit (the caller builds blocks against its stop table and drops
them when that table changes), so breakpoints, max-steps and the journal are exactly
those of running the records' closures one by one (tests/machine/test_superblock.py).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any, cast

from neurondbg.machine.engines.seq import Inline
from neurondbg.machine.state import MachineState

MAX_BLOCK = 64  # records per block: generated code stays small, compile time bounded
Block = Callable[[int], tuple[int, int]]


def superblock(entry: int, records: Sequence[tuple[int, Inline]], state: MachineState) -> Block:
    """The compiled block of `records` (consecutive indices from `entry`; only the last
    may branch) over `state`'s registers and journal."""
    env: dict[str, Any] = {}
    body: list[str] = []
    for index, form in records:
        p = f"r{index}_"
        env.update((p + name, value) for name, value in form.env)
        body += [line.replace("{p}", p) for line in form.code]
    regs = any("J(" in line for line in body)  # a block writing no register needs no list
    last_index, last = records[-1]
    nxt = last.exit.replace("{p}", f"r{last_index}_") if last.exit else f"{last_index + 1}"
    words = array("Q", [form.word for _, form in records])  # array * n, extend: memcpy
    names = ", ".join(env)
    lines = [f"def make(R, regs_fromlist, steps_extend, WORDS{', ' if names else ''}{names}):",
             "    def block(most):",
             "        n = 0"]
    if regs:
        lines += ["        out = []", "        J = out.append"]
    lines += ["        while True:"]
    lines += [f"            {line}" for line in body]
    lines += ["            n += 1",
              f"            nxt = {nxt}",
              f"            if nxt != {entry} or n >= most:",
              "                break"]
    if regs:
        lines += ["        regs_fromlist(out)"]
    lines += ["        steps_extend(WORDS * n)",
              "        return nxt, n",
              "    return block"]
    ns: dict[str, Any] = {}
    exec(compile("\n".join(lines), f"<superblock {entry}>", "exec"), ns)  # our own code only
    j = state.journal
    # `make`, as generated above, returns its `block`: a Block
    return cast(Block, ns["make"](state.R, j.regs.fromlist, j.steps.extend, words,
                                  *env.values()))
