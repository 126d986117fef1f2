"""Scheduler policies: which runnable engine issues the next instruction.

Every policy is a pure function of (runnable engines, the engine that took the last
step, the global step number), so the schedule needs no state of its own to undo:
reverse and replay recompute exactly the choices made (DESIGN.md "Scheduling").

- `rr` (default): round robin, the next runnable engine after the last one in kernel
  order (ENGINE_ORDER), starting with the first.
- `in-order`: the last engine again while it can run, then the next runnable one
  (one engine runs until it blocks or halts).
- `random:SEED`: a runnable engine picked by a hash of (SEED, step) (splitmix64), so a
  seed names one interleaving for good, on any machine.
- `seq:PICKS`: the engine (an index in kernel order: 0 is the first queue) of each
  global step from step 0, `I*K` for K steps of engine I (`seq:1,0*3,1`), then `rr`
  from the last one; a step whose listed engine cannot run takes the `rr` pick. It
  names any interleaving exactly, so a schedule `--races explore` found can be rerun.

`batch` extends a schedule over a stretch where only SEQ fast steps happen: no
semaphore or memory changes, so the runnable set stays fixed and each engine's fast
steps commute with everyone else's (its credit: steps it has run ahead). An engine's
runnability can change only where its credit runs out, so a batch makes every pick over
the set the one-step-at-a-time path would see: the same schedule whatever turns the
fast path off (`--trace`, an `if:` breakpoint) or where a run stopped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

POLICIES = ("rr", "in-order", "random:SEED", "seq:PICKS")
_M64 = (1 << 64) - 1
MAX_SEQ = 1 << 24  # steps a seq: schedule may list (its picks are held as bytes)
MAX_ACTORS = 256  # an index of seq: is one byte


@dataclass(frozen=True)
class Policy:
    kind: Literal["rr", "in-order", "random", "seq"]
    seed: int = 0
    picks: bytes = b""  # seq: the engine of each step from step 0

    @property
    def text(self) -> str:
        if self.kind == "seq":
            return "seq:" + seq_text(self.picks)
        return f"random:{self.seed}" if self.kind == "random" else self.kind

    def choose(self, runnable: Sequence[int], last: int, step: int) -> int:
        """The engine (index) that takes global step `step`; `runnable` ascending, not
        empty; `last` the engine of the previous step (-1 before the first)."""
        if self.kind == "random":
            return runnable[_mix(self.seed, step) % len(runnable)]
        if self.kind == "seq" and step < len(self.picks) and self.picks[step] in runnable:
            return self.picks[step]
        if self.kind == "in-order" and last in runnable:
            return last
        for e in runnable:
            if e > last:
                return e
        return runnable[0]

    def batch(self, runnable: Sequence[int], credit: list[int], last: int, step: int,
              limit: int) -> bytes:
        """The longest schedule (<= `limit` steps, engine indices as bytes) from `step`
        in which every engine chosen has credit left; stops before the first choice of an
        engine without credit. `runnable` is fixed over the stretch."""
        if limit <= 0:
            return b""
        if self.kind == "random":
            return self._random_batch(runnable, credit, step, limit)
        if self.kind == "seq" and step < len(self.picks):
            return self._stepwise_batch(runnable, credit, last, step,
                                        min(limit, len(self.picks) - step))
        if self.kind == "in-order":
            e = self.choose(runnable, last, step)
            return bytes([e]) * min(credit[e], limit)
        start = self.choose(runnable, last, step)
        k = runnable.index(start)
        order = list(runnable[k:]) + list(runnable[:k])
        rounds = min(min(credit[e] for e in order), limit // len(order))
        out = bytes(order) * rounds
        for e in order:  # the partial round: up to the first engine out of credit
            if len(out) >= limit or credit[e] <= rounds:
                break
            out += bytes([e])
        return out

    def _stepwise_batch(self, runnable: Sequence[int], credit: list[int], last: int,
                        step: int, limit: int) -> bytes:
        """`choose` step by step: stops before a pick of an engine with no credit, and
        right after an engine's last credited step (it may be blocked after it, and a
        pick over a smaller runnable set can differ)."""
        left = list(credit)
        out = bytearray()
        for s in range(step, step + limit):
            e = self.choose(runnable, last, s)
            if left[e] <= 0:
                break
            out.append(e)
            left[e] -= 1
            last = e
            if left[e] == 0:
                break
        return bytes(out)

    def _random_batch(self, runnable: Sequence[int], credit: list[int], step: int,
                      limit: int) -> bytes:
        n = min(limit, sum(credit[e] for e in runnable) + 1)
        picks = np.asarray(runnable, np.uint8)[_mix_array(self.seed, step, n)
                                               % np.uint64(len(runnable))]
        # An engine whose credit runs out may be blocked after its last fast step, and a
        # pick over a smaller runnable set is another engine: the batch ends right after
        # that step (or before the first pick of an engine with no credit), so every pick
        # is made over the set the slow path would see (same seed, same schedule).
        cut = n
        for e in runnable:
            hits = np.flatnonzero(picks == e)
            c = credit[e]
            if len(hits) >= c and len(hits):
                cut = min(cut, int(hits[c - 1]) + 1 if c else int(hits[0]))
        return picks[:cut].tobytes()


def parse_policy(text: str) -> Policy:
    """`rr`, `in-order`, `random:SEED` (SEED an integer >= 0) or `seq:PICKS`;
    ValueError otherwise."""
    t = text.strip().lower()
    if t == "rr":
        return Policy("rr")
    if t == "in-order":
        return Policy("in-order")
    kind, colon, seed = t.partition(":")
    if kind == "seq" and colon:
        return Policy("seq", picks=parse_seq(seed, text.strip()))
    if kind == "random" and colon:
        try:
            value = int(seed, 0)
        except ValueError:
            value = -1
        if 0 <= value <= _M64:
            return Policy("random", value)
        raise ValueError(f"schedule {text.strip()!r}: expected random:SEED with SEED an "
                         "integer 0 .. 2**64-1")
    raise ValueError(f"schedule {text.strip()!r}: expected one of {', '.join(POLICIES)}")


def seq_text(picks: bytes) -> str:
    """Run-length text of a seq: schedule's picks: b"\\x01\\x00\\x00\\x00" -> "1,0*3"."""
    out: list[str] = []
    i = 0
    while i < len(picks):
        j = i
        while j < len(picks) and picks[j] == picks[i]:
            j += 1
        out.append(str(picks[i]) if j - i == 1 else f"{picks[i]}*{j - i}")
        i = j
    return ",".join(out)


def parse_seq(body: str, whole: str) -> bytes:
    """The picks of `seq:BODY` (`I` or `I*K` items, comma-separated); ValueError naming
    the first bad item."""
    picks = bytearray()
    for n, item in enumerate(body.split(","), 1):
        idx, star, count = item.strip().partition("*")
        try:
            e, k = int(idx), int(count) if star else 1
        except ValueError:
            e, k = -1, 0
        if not (0 <= e < MAX_ACTORS and k >= 1):
            raise ValueError(f"schedule {whole!r}: item {n} ({item.strip()!r}): expected "
                             f"ENGINE or ENGINE*COUNT, ENGINE an index 0..{MAX_ACTORS - 1} "
                             "in kernel order and COUNT >= 1")
        if len(picks) + k > MAX_SEQ:
            raise ValueError(f"schedule {whole!r}: more than {MAX_SEQ} steps listed")
        picks += bytes([e]) * k
    return bytes(picks)


def _mix(seed: int, step: int) -> int:
    """splitmix64 of seed + step (the scalar twin of `_mix_array`)."""
    z = (seed + (step + 1) * 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def _mix_array(seed: int, step: int, n: int) -> np.ndarray:
    """`_mix(seed, s)` for s in step .. step + n - 1, as uint64 (wrapping arithmetic)."""
    s = np.arange(step + 1, step + n + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed & _M64) + s * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))
