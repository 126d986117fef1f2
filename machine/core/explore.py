"""`--races explore[:N]`: the race verdict over up to N schedules, each one rerunnable.

Why orders of *sync steps* are enough: a sync step is an instruction that waits on,
updates or reads a semaphore. The detector's happens-before edges come from which
release each satisfied wait joins (machine/core/races.py), which depends only on the
order of the sync steps; any other instruction touches only its own registers and
memory, and its accesses are checked against every unordered one whichever comes first.
So two interleavings with the same order of sync steps give the same races, and the
exploration tries orders of sync steps, not interleavings.

How they are chosen (a deviation-bounded search from `rr`, breadth first):
- the first schedule is `rr`; a *decision* is a step where `rr` picks a sync step while
  another actor could run;
- a schedule with one more deviation takes, at one decision after its parent's last
  deviation, another actor instead, and runs that actor alone until it has made its
  next sync step (its plain steps before it commute with everything), then goes on
  under `rr`;
- schedules with fewer deviations come first; a schedule whose order of sync steps was
  already tried counts but is not expanded. When the queue runs dry every order of sync
  steps has been tried (`complete`), which any order of them reachable by some
  interleaving is, as each is reached by taking its next sync step at each decision.

Each schedule tried is named by a policy text that reruns it exactly (`--schedule`):
`rr`, or `seq:PICKS` (machine/core/schedule.py) listing the steps up to its last
deviation, `rr` after them. A race found is reported once (by its pair of
instructions and space) with the first schedule that showed it.

Bounds: N schedules, each at most `max_steps` global steps; memory is one byte per step
of the schedule being run, and at most N decisions and N queued schedules. `interrupt`
(Ctrl+C) is checked at every step; an interrupted exploration reports what it tried.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from neurondbg.machine.core.actor import EngineQueue
from neurondbg.machine.core.core import Core
from neurondbg.machine.core.races import Race
from neurondbg.machine.core.schedule import Policy, seq_text

DEFAULT_SCHEDULES = 16
MAX_SCHEDULES = 100_000
End = Literal["halt", "deadlock", "fault", "invalid", "max-steps", "interrupt"]
_RR = Policy("rr")


@dataclass(frozen=True)
class Tried:
    """One schedule run: the text that reruns it, how it ended, its steps and races."""

    schedule: str
    end: End
    steps: int
    races: int

    def to_dict(self) -> dict[str, object]:
        return {"schedule": self.schedule, "end": self.end, "steps": self.steps,
                "races": self.races}


@dataclass(frozen=True)
class Finding:
    """A race, and the first schedule tried that showed it."""

    race: Race
    schedule: str


@dataclass
class Exploration:
    tried: list[Tried] = field(default_factory=list)
    found: list[Finding] = field(default_factory=list)
    complete: bool = False  # every order of sync steps was tried
    interrupted: bool = False


def race_key(r: Race) -> tuple[str, frozenset[tuple[str, int, str]]]:
    """A race as a pair of instructions and a space (the order they ran in aside)."""
    return r.space, frozenset({(r.a.engine, r.a.pc, r.a.kind), (r.b.engine, r.b.pc,
                                                                 r.b.kind)})


def is_sync(core: Core, i: int) -> bool:
    """Does actor i's next step wait on, update or read a semaphore? (Any actor that is
    not an engine queue counts as one: its steps are not known ahead.)"""
    a = core.actors[i]
    if not isinstance(a, EngineQueue):
        return True
    p = a.plan()
    return bool(p.waits or p.events or p.reads)


@dataclass
class _Run:
    picks: bytearray
    decisions: list[tuple[int, tuple[int, ...]]]  # (step, other actors that could run)
    missed: int  # decisions not noted (no room left for their schedules)
    end: End
    deviated_to: int  # steps [0, deviated_to) hold every forced choice
    sync_order: bytes
    races: list[Race]


def _drive(core: Core, forced: dict[int, int], after: int, room: int, max_steps: int,
           interrupt: threading.Event) -> _Run:
    """Run `core` (fresh) under `rr` with the deviations `forced` (step -> actor), noting
    the decisions at steps > `after` (at most `room` of them)."""
    names = core.names
    picks = bytearray()
    sync = bytearray()
    decisions: list[tuple[int, tuple[int, ...]]] = []
    missed = 0
    chase = -1  # the actor a deviation runs alone until its next sync step
    end: End = "max-steps"
    dev_end = 0
    while len(picks) < max_steps:
        if interrupt.is_set():
            end = "interrupt"
            break
        run = core.runnable()
        if not run:
            end = "halt" if all(a.rest() is not None for a in core.actors) else "deadlock"
            break
        step = len(picks)
        last = picks[-1] if picks else -1
        default = _RR.choose(run, last, step)
        if chase in run:
            i = chase
        else:
            chase = -1
            i = default
            if step in forced and forced[step] in run:
                i = chase = forced[step]
            elif step > after and len(run) > 1 and is_sync(core, default):
                if len(decisions) < room:
                    decisions.append((step, tuple(j for j in run if j != default)))
                else:
                    missed += 1
        was_sync = is_sync(core, i)
        rec = core.step(names[i]).record
        if rec is None or not rec.executed:
            end = "invalid" if rec is not None and rec.invalid else "fault"
            break
        picks.append(i)
        if chase >= 0:
            dev_end = len(picks)
            if was_sync:
                chase = -1
        if was_sync:
            sync.append(i)
    return _Run(picks, decisions, missed, end, dev_end, bytes(sync), core.races)


def explore(make: Callable[[str], Core], n: int = DEFAULT_SCHEDULES, *,
            max_steps: int, interrupt: threading.Event,
            on_tried: Callable[[Tried], None] | None = None) -> Exploration:
    """Try up to `n` schedules of the kernel `make(schedule)` builds (a fresh Core with
    race checking on each time), breadth first from `rr` (see the module docstring)."""
    if not 1 <= n <= MAX_SCHEDULES:
        raise ValueError(f"explore: the number of schedules must be 1..{MAX_SCHEDULES}, "
                         f"not {n}")
    out = Exploration()
    seen_races: set[tuple[str, frozenset[tuple[str, int, str]]]] = set()
    seen_orders: set[bytes] = set()
    queue: deque[dict[int, int]] = deque([{}])
    truncated = False
    while queue and len(out.tried) < n:
        forced = queue.popleft()
        after = max(forced, default=-1)
        room = n - len(out.tried) - 1 - len(queue)
        run = _drive(make("rr"), forced, after, max(room, 0), max_steps, interrupt)
        text = "rr" if not run.deviated_to else "seq:" + seq_text(bytes(
            run.picks[:run.deviated_to]))
        tried = Tried(text, run.end, len(run.picks), len(run.races))
        out.tried.append(tried)
        for r in run.races:
            k = race_key(r)
            if k not in seen_races:
                seen_races.add(k)
                out.found.append(Finding(r, text))
        if on_tried is not None:
            on_tried(tried)
        if run.end == "interrupt":
            out.interrupted = True
            return out
        if run.end == "max-steps":
            truncated = True  # sync steps past the budget were not ordered
        if run.sync_order in seen_orders:
            continue
        seen_orders.add(run.sync_order)
        if run.missed:
            truncated = True
        for step, others in run.decisions:
            for j in others:
                if len(out.tried) + len(queue) >= n:
                    truncated = True
                    break
                queue.append({**forced, step: j})
    out.complete = not queue and not truncated
    return out

