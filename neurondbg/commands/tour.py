"""`neurondbg tour [NAME]`: list the guided tours, or open one in the TUI.

Without NAME: one tour per line, its name, then a one-line description.
With NAME: the debugger layout on the tour's session (its machine at step 0,
its breakpoints) plus the tour pane, whose note follows the step. A kernel tour
(a kernel session, e.g. `semaphores`) opens the NeuronCore layout; n is then one
scheduler step (S) and the notes count global steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import click
from click.shell_completion import CompletionItem

from neurondbg.errors import InputError

if TYPE_CHECKING:
    from neurondbg.app import NeurondbgApp


def tour_app(name: str) -> NeurondbgApp:
    """The TUI App for tour `name` (SessionError if there is none); run it with `.run()`.

    The App opens the tour's session file like any session (its machine, breakpoints
    and notes load off the UI thread), and adds the tour pane, whose note follows the
    step: n steps forward (to the tour's last note), N steps back, from whichever pane
    has the focus (in the tour pane → / ← and p too). Moving through a tour is reading,
    not work: quitting after it asks nothing unless breakpoints or values were changed.
    """
    from textual.binding import Binding, BindingType

    from neurondbg.app import NeurondbgApp
    from neurondbg.sessions.tours import TourGuide, find_tour
    from neurondbg.views.tour_pane import TourPane

    info = find_tour(name)

    class TourApp(NeurondbgApp):
        """The debugger App on the tour's session, with a tour pane."""

        BINDINGS: ClassVar[list[BindingType]] = [
            Binding("n", "tour(1)", "tour: next", id="tour.app.next"),
            Binding("N", "tour(-1)", "tour: back", id="tour.app.back"),
        ]
        position_is_work = False

        def __init__(self) -> None:
            super().__init__(info.path)
            self.sub_title = info.title

        @property
        def guide(self) -> TourGuide | None:
            if self.session is None:
                return None
            # a program's one queue or a kernel's: notes count the core's global steps
            return TourGuide(self.session.core, self.session.notes)

        def debugger_ready(self) -> None:
            screen = self._debugger()
            if screen is not None and not screen.query(TourPane):
                screen.mount_note(TourPane(info.title, id="tour"))
            super().debugger_ready()

        def refresh_views(self) -> None:
            super().refresh_views()
            guide = self.guide
            for pane in self.query(TourPane):
                if guide is None:
                    pane.show(None, "loading…")
                else:
                    pane.show(guide.note, guide.position(), guide.at_end)

        def on_tour_pane_navigate(self, event: TourPane.Navigate) -> None:
            self.action_tour(event.delta)

        def action_tour(self, delta: int) -> None:
            guide = self.guide
            if delta > 0:
                if guide is not None and guide.at_end:
                    self.say("end of the tour", "dim")
                    self.refresh_views()
                    return
                if self.core_mode:
                    self.action_step_core()
                else:
                    self.action_step()
            else:
                self.action_reverse()

    return TourApp()


def _shipped() -> list[tuple[str, str]] | None:
    """(name, description) of each shipped tour, sorted by name, read straight from the
    tours folder's `[tour]` tables (tomllib; the folder found without importing
    `sessions.tours`, whose session loader imports the model): listing and completing
    names need no numpy. None when a tour file does not parse or its `[tour]`
    table's values are not strings."""
    import tomllib
    from importlib.util import find_spec
    from pathlib import Path

    spec = find_spec("neurondbg.sessions.tours")
    assert spec is not None and spec.submodule_search_locations is not None  # ships with us
    folder = Path(next(iter(spec.submodule_search_locations)))
    tours: list[tuple[str, str]] = []
    try:
        for p in sorted(folder.glob("*.toml")):
            with p.open("rb") as fh:
                table = tomllib.load(fh).get("tour", {})
            if not isinstance(table, dict):
                return None
            name = table.get("name", p.stem)
            desc = table.get("description", "")
            if not isinstance(name, str) or not isinstance(desc, str):
                return None
            tours.append((name, desc))
    except (OSError, ValueError):  # tomllib.TOMLDecodeError is a ValueError
        return None
    return sorted(tours, key=lambda t: t[0])


def tour_lines() -> list[str]:
    """The listing, `name  description` per tour sorted by name, as `list_tours` gives it
    (read by `_shipped`; should a tour file not parse, `list_tours` itself reads them
    all and reports the error)."""
    tours = _shipped()
    if tours is None:
        from neurondbg.sessions.tours import list_tours

        return [f"{t.name}  {t.description}" for t in list_tours()]
    return [f"{name}  {desc}" for name, desc in tours]


def complete_names(ctx: click.Context, param: click.Parameter, incomplete: str
                   ) -> list[CompletionItem]:
    """The tour names that start with `incomplete`, each with its description (click's
    shell completion: `eval "$(_NEURONDBG_COMPLETE=bash_source neurondbg)"`). Nothing
    when the tours cannot be read: a completion never prints an error into the shell."""
    return [CompletionItem(name, help=desc) for name, desc in _shipped() or ()
            if name.startswith(incomplete)]


@click.command("tour")
@click.argument("name", required=False, shell_complete=complete_names)
def command(name: str | None) -> None:
    """List the guided tours, or open tour NAME in the TUI."""
    from neurondbg.sessions.errors import SessionError

    try:
        if name is None:
            for line in tour_lines():
                click.echo(line)
            return
        app = tour_app(name)
    except SessionError as e:
        raise InputError(str(e)) from None
    from neurondbg.commands.tui import run_app

    run_app(app)
