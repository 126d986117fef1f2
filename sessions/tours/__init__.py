"""Shipped guided tours: session files (+ assembly) with per-step notes.

    list_tours()               -> [TourInfo(name, title, description, path)]
    load_tour("cast-rounding") -> LoadedSession (its .notes, its core at step 0)
    TourGuide(core, notes)     -> forward / back / the note for the current step
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from neurondbg.machine.core.core import Core
from neurondbg.machine.engines.record import StepRecord
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.schema import Note
from neurondbg.sessions.store import LoadedSession, load_session, read_session

TOURS_DIR = Path(str(resources.files(__name__)))  # package data (see pyproject)


@dataclass(frozen=True)
class TourInfo:
    name: str
    title: str
    description: str
    path: Path


def list_tours() -> list[TourInfo]:
    """Every shipped tour, sorted by name."""
    out = []
    for p in sorted(TOURS_DIR.glob("*.toml")):
        spec = read_session(p)
        t = spec.tour
        out.append(TourInfo(t.get("name", p.stem), t.get("title", ""),
                            t.get("description", ""), p))
    return sorted(out, key=lambda t: t.name)


def find_tour(name: str) -> TourInfo:
    """The tour called `name`; SessionError listing the tours when there is none."""
    tours = list_tours()
    for t in tours:
        if t.name == name:
            return t
    raise SessionError(f"unknown tour {name!r}; tours: {', '.join(t.name for t in tours)}")


def load_tour(name: str) -> LoadedSession:
    return load_session(find_tour(name).path)


def note_at(notes: list[Note], step: int) -> Note | None:
    """The note shown at `step`: the last one whose step is <= it."""
    i = bisect.bisect_right([n.step for n in notes], step)
    return notes[i - 1] if i else None


class TourGuide:
    """Steps a tour's core forward and back (a program's one queue or a kernel's
    engines); the note follows the core's global step count."""

    def __init__(self, core: Core, notes: list[Note]) -> None:
        self.core = core
        self.notes = notes

    @property
    def step(self) -> int:
        return self.core.steps

    @property
    def last_step(self) -> int:
        """The step of the last note (the tour's end)."""
        return self.notes[-1].step if self.notes else 0

    @property
    def note(self) -> Note | None:
        return note_at(self.notes, self.step)

    @property
    def at_end(self) -> bool:
        return self.step >= self.last_step or all(
            self.core.status(e) == "halted" for e in self.core.engines)

    def forward(self) -> StepRecord | None:
        """One step (it executes even when legality fails if the session allows it);
        None at the end of the tour."""
        if self.at_end:
            return None
        return self.core.step().record

    def back(self) -> bool:
        return self.core.reverse_step()

    def position(self) -> str:
        return f"step {self.step} of {self.last_step}"
