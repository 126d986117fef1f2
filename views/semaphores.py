"""The Semaphores pane: the non-zero (or waited-on) semaphores, who last updated each
and who waits on it; above them, after a race or deadlock stop, the stop's view: both
instructions of the race (listing lines) or the wait-for cycle, and the fix in words.
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from neurondbg.debug.snapshot import Snapshot
from neurondbg.views.kept import KeptPaint


def stop_lines(snap: Snapshot) -> list[Text]:
    """The race / deadlock view of a stop ([] for any other stop)."""
    out: list[Text] = []
    for n, r in enumerate(snap.races, start=1):
        out.append(Text(f"RACE #{n} on {r.space}[{r.partitions[0]}:{r.partitions[1]}, "
                        f"{r.bytes[0]:#x}:{r.bytes[1]:#x}]", style="bold red"))
        out.append(Text(f" 1st {r.a_line}"))
        out.append(Text(f" 2nd {r.b_line}"))
    if snap.deadlock:
        out.append(Text("DEADLOCK: nothing can run", style="bold red"))
        out += [Text(f"  {line}") for line in snap.deadlock]
    if snap.advice:
        out.append(Text(snap.advice, style="bold yellow"))
    return out


def semaphore_lines(snap: Snapshot) -> list[Text]:
    if not snap.semaphores:
        return [Text("every semaphore is 0; nobody waits", style="dim")]
    out = []
    for s in snap.semaphores:
        line = Text.assemble((f"sem[{s.index}]", "bold"),
                             (f" {s.role}" if s.role else "", "magenta"), f" = {s.value}")
        if s.updated_by:
            line.append(f"  by {s.updated_by}", style="cyan")
        for w in s.waiters:
            line.append(f"  ⏳ {w}", style="yellow")
        out.append(line)
    return out


class SemaphoresView(Static, KeptPaint):
    """Read-only text (its pane scrolls it); `who sem[N]` in the console says the same
    for one semaphore."""

    _shown: str | None = None

    def show(self, snap: Snapshot) -> None:
        text = Text("\n").join(stop_lines(snap) + semaphore_lines(snap))
        if text.markup != self._shown:  # unchanged text: no new layout
            self._shown = text.markup
            self.update(text)


class SemaphoresScroll(VerticalScroll, KeptPaint):
    """What scrolls the Semaphores view (its own lines kept: views.kept)."""


def scrolled(id: str) -> Widget:
    """The Semaphores pane's widget: the view (`id`) in a scroll that takes the focus."""
    return SemaphoresScroll(SemaphoresView(id=id), can_focus=True)
