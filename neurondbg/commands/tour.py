"""`neurondbg tour [NAME]`: list the guided tours, or open one in the TUI.

Without NAME: one tour per line, its name, then a one-line description.
With NAME: the debugger layout on the tour's session (its machine at step 0,
its breakpoints) plus the tour pane, whose note follows the step.
"""

from __future__ import annotations

from typing import Any

import click

from neurondbg.errors import InputError


def tour_app(name: str) -> Any:
    """The TUI App for tour `name` (SessionError if there is none); run it with `.run()`."""
    from textual.widgets import Footer

    from neurondbg.app import NeurondbgApp
    from sessions.tours import TourGuide, find_tour, load_tour
    from views.tour_pane import TourPane

    info = find_tour(name)
    loaded = load_tour(name)
    guide = TourGuide(loaded)

    class TourApp(NeurondbgApp):
        """The debugger App with a tour pane (no App hook exists yet: see the report)."""

        def __init__(self) -> None:
            cfg = loaded.machine.config
            super().__init__(loaded.program_path, gen=cfg.gen.label, engine=cfg.engine)
            self.guide = guide
            if self.session is not None:  # drive the tour's machine: its config, breakpoints
                self.session.dbg = loaded.machine
            self.sub_title = info.title

        def debugger_ready(self) -> None:
            screen = self._debugger()
            if screen is not None and not screen.query(TourPane):
                screen.mount(TourPane(info.title, id="tour"), before=screen.query_one(Footer))
            super().debugger_ready()
            for w in loaded.warnings:
                self.say(f"warning: {w}", "yellow")
            focus = loaded.layout.get("focus")
            if isinstance(focus, str) and focus and screen is not None:
                hits = screen.query(f"#{focus}")
                if hits:
                    hits.first().focus()

        def refresh_views(self) -> None:
            super().refresh_views()
            for pane in self.query(TourPane):
                pane.show(self.guide.note, self.guide.position(), self.guide.at_end)

        def on_tour_pane_navigate(self, event: TourPane.Navigate) -> None:
            if event.delta > 0:
                if self.guide.at_end:
                    self.say("end of the tour", "dim")
                    self.refresh_views()
                    return
                self.action_step()
            else:
                self.action_reverse()

    return TourApp()


@click.command("tour")
@click.argument("name", required=False)
def command(name: str | None) -> None:
    """List the guided tours, or open tour NAME in the TUI."""
    from sessions.errors import SessionError
    from sessions.tours import list_tours

    try:
        if name is None:
            for t in list_tours():
                click.echo(f"{t.name}  {t.description}")
            return
        app = tour_app(name)
    except SessionError as e:
        raise InputError(str(e)) from None
    app.run()
