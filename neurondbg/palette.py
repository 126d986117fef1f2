"""The command palette (Ctrl+P): entries read from the console registry and the keys.

Three sources, none declaring a command twice:
- every console command, once: as its declaration's `Palette` says (neurondbg.console),
  else derived from the registry (title from the name, help from its help line; a
  command that takes arguments is typed into the console for the user to finish, so
  that a pick never runs a default the user did not see);
- the keys with no console command (KEY_ENTRIES: stop, zoom, help, the SBUF pane's
  keys), whose help is the binding's own text and key;
- `DynamicCommands`, a `textual.command.Provider` over what the session holds now:
  go to a label, delete a breakpoint, open a tour, open a recent file.
Each `Entry` dispatches as a console line or as its binding's action (App.run_entry).
None is offered when the App is the Convert Lab alone (`neurondbg tui --lab`).
Textual's own "Keys", "Maximize" and "Quit" give way to ours (the help screen, `z`, and
`quit`, which asks about unsaved work); its "Theme" and "Screenshot" stay.

Decided where the specification is silent: "go to a label" moves the Program cursor to the
label's record (an editor's "go to symbol"; `b` or `until` then act on it), it does
not run there; "recent files" are the files opened in this App run (newest first),
kept in memory only: neurondbg writes no file the user did not ask for.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

from neurondbg.console import REGISTRY
from neurondbg.panes import PANES
from neurondbg.registry import Command

if TYPE_CHECKING:
    from neurondbg.app import NeurondbgApp

RECENT_MAX = 10  # recent files the palette offers


@dataclass(frozen=True)
class Entry:
    """One palette entry: a console `line` (ending in a space: typed into the console
    for the user to finish), or a binding's `action` on `target` ("" = the App, else a
    CSS selector on the debugger screen)."""

    title: str
    help: str
    line: str = ""
    action: str = ""
    target: str = ""


# Textual's system commands that an entry of ours replaces (module docstring)
REPLACED = frozenset({"Keys", "Maximize", "Quit"})

# keys with no console command: (palette title, binding id, the node that binds it)
KEY_ENTRIES: tuple[tuple[str, str, str], ...] = (
    ("Stop", "app.stop", ""),
    ("Maximise / restore pane", "app.zoom", ""),
    ("Help screen", "app.help", ""),
    ("SBUF: next dtype", "mem.dtype", "#memory"),
    ("SBUF: heatmap", "mem.heatmap", "#memory"),
    ("SBUF / PSUM", "mem.space", "#memory"),
)


def find_binding(classes: Iterable[type], ident: str) -> Binding:
    """The Binding with id `ident` among what `classes` (and their bases) declare."""
    for cls in classes:
        for base in cls.__mro__:
            for b in base.__dict__.get("BINDINGS", ()):
                if isinstance(b, Binding) and b.id == ident:
                    return b
    raise LookupError(f"no key binding {ident!r}")


def _panes(app: NeurondbgApp) -> dict[str, str]:
    """The panes of the App's layout (a kernel's differ from a program's)."""
    screen = app._debugger() if hasattr(app, "_debugger") else None
    return screen.panes if screen is not None else PANES


def command_entry(cmd: Command) -> Entry:
    """The entry of a console command declared without a `Palette`: titled by its name
    ("x", one letter, by its usage), its help line as help; run at once when it takes
    no argument, else typed into the console ("fix ") for the user to finish."""
    title = cmd.usage if len(cmd.name) == 1 else cmd.name.replace("-", " ").capitalize()
    takes_arguments = cmd.usage.split()[0] != cmd.name or len(cmd.usage.split()) > 1
    return Entry(title, f"{cmd.text} (console: {cmd.usage})",
                 line=f"{cmd.name} " if takes_arguments else cmd.name)


def system_commands(app: NeurondbgApp, inherited: Iterable[SystemCommand]
                    ) -> Iterator[SystemCommand]:
    """Textual's system commands less those ours replace (REPLACED), then ours; in the
    Convert Lab alone, Textual's only."""
    if app.lab_only:
        yield from inherited
        return
    yield from (c for c in inherited if c.title not in REPLACED)
    for entry in static_entries(app):
        yield SystemCommand(entry.title, entry.help, partial(app.run_entry, entry))


def static_entries(app: NeurondbgApp) -> list[Entry]:
    """The entries that do not depend on the session: commands, keys, panes."""
    from neurondbg.screens.help import key_name
    from neurondbg.views.memory import MemoryView

    def keys(ident: str) -> str:
        b = find_binding([type(app), MemoryView], ident)
        return " / ".join(key_name(k.strip()) for k in b.key.split(","))

    out = []
    for cmd in REGISTRY:
        if (p := cmd.palette) is not None:
            out.append(Entry(p.title, f"{p.help} ({keys(p.key)})" if p.key else p.help,
                             line=p.line))
        else:
            out.append(command_entry(cmd))
    for title, ident, target in KEY_ENTRIES:
        b = find_binding([type(app), MemoryView], ident)
        out.append(Entry(title, f"{b.tooltip or b.description} ({keys(ident)})",
                         action=b.action, target=target))
    out += [Entry(f"Pane: {title}", f"Maximise the {title} pane", line=f"pane {name}")
            for name, title in _panes(app).items()]
    return out


def dynamic_entries(app: NeurondbgApp) -> list[Entry]:
    """Entries from what the App holds now: labels, breakpoints, tours, recent files."""
    from neurondbg.sessions.tours import list_tours

    out: list[Entry] = []
    if app.lab_only:
        return out
    session = app.session
    if session is not None and not app.running and not app.loading:
        for name, offset in sorted(session.labels.items(), key=lambda kv: kv[1]):
            out.append(Entry(f"Go to label: {name}", f"the program cursor to offset {offset:#x}",
                             action=f"goto_label({name!r})"))
        for bp in session.breakpoints():
            out.append(Entry(f"Delete breakpoint {bp.describe()}", f"delete {bp.id}",
                             line=f"delete {bp.id}"))
        if session.has_schedule:  # a kernel: the core's own commands
            out.append(Entry("Step core", "one scheduler step (S)", line="step core"))
            for e in session.engines:
                out.append(Entry(f"Focus engine: {e}", f"focus {e} (e / E cycle)",
                                 line=f"focus {e}"))
            for policy in ("rr", "in-order", "random:0"):
                out.append(Entry(f"Schedule: {policy}", f"schedule {policy} (restarts at "
                                 "step 0)", line=f"schedule {policy}"))
    for tour in list_tours():
        out.append(Entry(f"Tour: {tour.title}", f"tour {tour.name}", line=f"tour {tour.name}"))
    current = Path(session.path).resolve() if session is not None else None
    for path in app.recent:
        if Path(path).resolve() != current:
            out.append(Entry(f"Open recent: {Path(path).name}", str(path), line=f"open {path}"))
    return out


class DynamicCommands(Provider):
    """The palette's entries that change with the session (see the module docstring)."""

    @property
    def _app(self) -> NeurondbgApp:
        from neurondbg.app import NeurondbgApp

        assert isinstance(self.app, NeurondbgApp)  # the palette opens on ours
        return self.app

    def _entries(self) -> Iterator[Entry]:
        yield from dynamic_entries(self._app)

    async def discover(self) -> Hits:
        for entry in self._entries():
            if not entry.title.startswith("Go to label"):  # there may be hundreds
                yield DiscoveryHit(entry.title, partial(self._app.run_entry, entry),
                                   help=entry.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for entry in self._entries():
            if (score := matcher.match(entry.title)) > 0:
                yield Hit(score, matcher.highlight(entry.title),
                          partial(self._app.run_entry, entry), help=entry.help)
