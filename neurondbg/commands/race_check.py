"""`run KERNEL --races on|off|explore[:N]`: the option, what a verdict covers, and the
report of an exploration (machine/core/scope.py, machine/core/explore.py).

Decisions:
- `--races` takes on/off (and click's boolean words, as before) or `explore[:N]`
  (N schedules, 1..100000, default 16). `explore` implies `on`: the run asked for
  goes first and is reported as before; the exploration follows it.
- Every kernel run with races on says what its verdict covers, in the text (a
  `races:` line) and in `--json` (`race_check`): the schedule(s) checked, whether the
  verdict holds for every schedule and why (or why not).
- `explore` reports every distinct race over the schedules tried, each with the
  `--schedule` that shows it (a `seq:` text reruns that interleaving exactly); exit 1
  when any is found. It explores the kernel from its start, so a kernel session (which
  continues from a saved step) is refused with one line.
- Ctrl+C while exploring: one line saying how many schedules were tried, exit 130.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

import click

from neurondbg.params import _NamedType
from neurondbg.params_core import parse_switch

if TYPE_CHECKING:
    from neurondbg.machine.core.core import Core
    from neurondbg.machine.core.explore import Exploration
    from neurondbg.machine.stops import Stop
    from neurondbg.sessions.cli_support import OpenedKernel

DEFAULT_SCHEDULES = 16  # machine.core.explore.DEFAULT_SCHEDULES (not imported: numpy)
MAX_SCHEDULES = 100_000


@dataclass(frozen=True)
class RaceMode:
    """What `--races` asked for: checking on or off; `explore`: schedules to try."""

    check: bool
    explore: int | None = None

    @property
    def text(self) -> str:
        if self.explore is not None:
            return f"explore:{self.explore}"
        return "on" if self.check else "off"


def parse_races(value: str) -> RaceMode:
    """`on`, `off` (or a boolean word), `explore` or `explore:N`; ValueError otherwise."""
    word, colon, count = value.strip().lower().partition(":")
    if word == "explore":
        if not colon:
            return RaceMode(True, DEFAULT_SCHEDULES)
        try:
            n = int(count)
        except ValueError:
            n = 0
        if not 1 <= n <= MAX_SCHEDULES:
            raise ValueError(f"explore:N takes N = 1..{MAX_SCHEDULES} schedules, found "
                             f"{count!r}")
        return RaceMode(True, n)
    try:
        return RaceMode(parse_switch(value))
    except ValueError:
        raise ValueError(f"expected on, off or explore[:N], found {value!r}") from None


class RacesType(_NamedType[RaceMode]):
    """`--races on|off|explore[:N]`: a RaceMode."""

    name = "races"
    parse = staticmethod(parse_races)

    def _choices(self) -> tuple[str, ...]:
        return ("on", "off", "explore", "explore:")

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return "[on|off|explore[:N]]"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, RaceMode):
            return value
        if isinstance(value, bool):
            return RaceMode(value)
        return super().convert(value, param, ctx)


RACES = RacesType()


class ScopeJson(TypedDict):
    """`race_check` of a run (`run --json`): the schedules checked, and whether the
    verdict holds for every schedule, and why (machine.core.scope.Scope)."""

    schedules: list[str]
    every_schedule: bool
    reason: str


def scope_json(core: Core) -> ScopeJson:
    """`race_check` of a run: the schedule checked and what the verdict covers."""
    from neurondbg.machine.core.scope import scope_of

    s = scope_of(core)
    return {"schedules": [core.schedule], "every_schedule": s.every_schedule,
            "reason": s.reason}


def scope_line(core: Core, exploring: bool = False) -> str | None:
    """The `races:` line of a run's text (None with race checking off)."""
    if core.detector is None:
        return None
    from neurondbg.machine.core.scope import scope_of

    s = scope_of(core)
    if s.every_schedule:
        return f"races: checked under {core.schedule}; the verdict holds for every " \
               f"schedule ({s.reason})"
    return (f"races: checked under {core.schedule} only; the verdict may depend on the "
            f"schedule ({s.reason})" + ("" if exploring else ": --races explore tries more"))


def explore_kernel(opened: OpenedKernel, n: int, max_steps: int,
                   stopping: threading.Event) -> Exploration:
    """Explore `opened`'s kernel from its start over up to `n` schedules."""
    from neurondbg.machine.core.explore import explore
    from neurondbg.sessions.cli_support import make_core

    def make(schedule: str) -> Core:
        return make_core(opened.kernel, opened.config, schedule=schedule, races=True,
                         journal_budget=0, images=opened.images).core

    return explore(make, n, max_steps=max_steps, interrupt=stopping)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def explore_lines(opened: OpenedKernel, ex: Exploration) -> list[str]:
    """The text of an exploration: what was tried, then each race and its schedule."""
    from neurondbg.commands.run_report import race_line

    cover = ("every order of the semaphore steps, so every schedule is covered"
             if ex.complete else
             "not every order of the semaphore steps: a larger N in --races explore:N "
             "tries more")
    lines = [f"explore: {_plural(len(ex.tried), 'schedule')} tried ({cover}): "
             f"{_plural(len(ex.found), 'race')}"]
    for k, f in enumerate(ex.found, 1):
        lines.append(race_line(opened, k, f.race))
        lines.append(f"  shown by --schedule {f.schedule}")
    return lines


def explore_json(opened: OpenedKernel, ex: Exploration, scope: ScopeJson
                 ) -> dict[str, object]:
    """`race_check` of an exploration (`run --json`): `scope` (the run's) extended."""
    races = []
    for f in ex.found:
        d = f.race.to_dict()
        for side, acc in (("a", f.race.a), ("b", f.race.b)):
            src = opened.where(acc.engine, acc.pc)
            if src is not None:
                d[side] = {**acc.to_dict(), "source": src}
        races.append({**d, "schedule": f.schedule})
    every = scope["every_schedule"] or ex.complete
    names = dict.fromkeys([scope["schedules"][0], *(t.schedule for t in ex.tried)])
    return {"schedules": list(names),
            "every_schedule": every,
            "reason": ("every order of the semaphore steps was tried" if ex.complete
                       else scope["reason"]),
            "complete": ex.complete, "interrupted": ex.interrupted,
            "tried": [t.to_dict() for t in ex.tried], "races": races}


def check_explore(opened: OpenedKernel, mode: RaceMode) -> None:
    """InputError when `explore` cannot apply: a session continues from a saved step."""
    if mode.explore is not None and opened.session is not None:
        from neurondbg.errors import InputError

        raise InputError(f"{opened.path}: --races {mode.text}: explores a kernel from its "
                         "start; give the kernel source, not a session")


def explore_races(opened: OpenedKernel, mode: RaceMode, max_steps: int,
                  stopping: threading.Event, stop: Stop) -> Exploration | None:
    """The exploration `mode` asks for after the run that ended at `stop` (None: none
    asked, or the run was interrupted)."""
    if mode.explore is None or stop.reason == "interrupt":
        return None
    return explore_kernel(opened, mode.explore, max_steps, stopping)


def race_check_json(opened: OpenedKernel, ex: Exploration | None) -> dict[str, object]:
    """The `race_check` key of `run --json` ({} with race checking off)."""
    core = opened.core
    if core.detector is None:
        return {}
    scope = scope_json(core)
    return {"race_check": scope if ex is None else explore_json(opened, ex, scope)}


def race_check_lines(opened: OpenedKernel, ex: Exploration | None) -> list[str]:
    """The lines after a run's summary: what the verdict covers, and an exploration."""
    line = scope_line(opened.core, exploring=ex is not None)
    out = [] if line is None else [line]
    if ex is not None:
        out += explore_lines(opened, ex)
    return out
