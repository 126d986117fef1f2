"""`?`: keys and console commands in a modal (Escape or ? closes).

The key list is made from the BINDINGS of the App (including a tour's), the
debugger screen and each pane's widget, and the command list from the console's
command registry (neurondbg.console.REGISTRY), so neither can drift from what the
keys and commands do; a binding's `tooltip`, where it has one, is the longer
explanation.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.keys import format_key
from textual.screen import ModalScreen
from textual.widgets import Static

from neurondbg.console import REGISTRY
from neurondbg.panes import CORE_PANES, PANES, SPECS, Layout

NOT_BINDINGS: tuple[tuple[str, str], ...] = (  # keys Textual itself handles
    ("Tab / Shift+Tab", "next / previous pane"),
    ("Ctrl+P", "command palette: every action by name"),
)


GENERIC = (
    "textual",
    "neurondbg.views.lineview",
)  # bases whose keys NOT_BINDINGS / listing_keys give


def key_name(key: str) -> str:
    """'question_mark' -> '?', 'ctrl+c' -> 'Ctrl+C', 'escape' -> 'Esc', 'right' -> '→'."""
    *mods, last = key.split("+")
    name = {"escape": "Esc", "right": "→", "left": "←", "up": "↑", "down": "↓",
            "space": "Space", "tab": "Tab"}.get(last, format_key(last))
    return "+".join([m.capitalize() for m in mods] + [name.upper() if mods else name])


def listing_keys() -> list[tuple[str, str]]:
    """(keys, what) of every listing's cursor keys, from LineView's BINDINGS (their one
    declaration): each pane built on it shares them, so they are listed once here."""
    from neurondbg.views.lineview import LineView

    rows: list[tuple[str, str]] = []
    for b in LineView.BINDINGS:
        binding = b if isinstance(b, Binding) else Binding(*b)
        keys = " ".join(key_name(k.strip()) for k in binding.key.split(","))
        rows.append((keys, f"listing: {binding.description}"))
    return rows


def bindings_of(classes: Iterable[type]) -> list[tuple[str, str]]:
    """(keys, what) for the Bindings `classes` and their own bases declare (not Textual's
    or the generic cursor keys); a subclass's key overrides its base's; keys of one action
    share a line."""
    seen: set[str] = set()
    by_action: dict[str, tuple[list[str], str]] = {}
    for cls in classes:
        for base in cls.__mro__:
            if base.__module__.startswith(GENERIC):
                continue
            for b in base.__dict__.get("BINDINGS", ()):
                binding = b if isinstance(b, Binding) else Binding(*b)
                keys = [k.strip() for k in binding.key.split(",") if k.strip() not in seen]
                seen.update(keys)
                if keys:
                    entry = by_action.setdefault(
                        binding.action, ([], binding.tooltip or binding.description))
                    entry[0].extend(keys)
    return [(" / ".join(key_name(k) for k in keys), what)
            for keys, what in by_action.values()]


def pane_keys(layout: Layout) -> list[tuple[str, str]]:
    """(digit, "pane TITLE") of each pane of `layout` (neurondbg.panes, their one
    declaration)."""
    from neurondbg.panes import digit, panes_of

    return [(digit(i), f"pane {title}") for i, title in enumerate(panes_of(layout).values(),
                                                                  start=1)]


def pane_sections(names: Iterable[str]) -> list[tuple[str, Sequence[tuple[str, str]]]]:
    """(title, keys) of each pane of `names`: the keys its widget declares (neurondbg.panes:
    the pane's `keys` class, else its widget's)."""
    out: list[tuple[str, Sequence[tuple[str, str]]]] = []
    for name in names:
        spec = SPECS[name]
        module, _, attr = (spec.keys or spec.view).partition(":")
        cls = getattr(importlib.import_module(module), attr)
        out.append((spec.title, bindings_of([cls]) if isinstance(cls, type) else []))
    return out


def key_summary() -> str:
    """'s step · c continue · …': the keys the App's footer shows (its BINDINGS with
    show on), for the console's `help`."""
    from neurondbg.app import NeurondbgApp

    keys = [f"{key_name(b.key)} {b.description}" for b in NeurondbgApp.BINDINGS
            if isinstance(b, Binding) and b.show]
    return " · ".join([*keys, "Ctrl+P palette"])


def sections(app: Any, screen: Any = None) -> list[tuple[str, Sequence[tuple[str, str]]]]:
    """(heading, bindings) in the order the help shows them; for `screen`, the one the
    help was opened on: on the kernel screen its own digits come first and the program
    layout's (other panes under the same digits), Plot and Convert trace, which it does
    not have, are left out. Without a screen: every section."""
    from neurondbg.app import NeurondbgApp
    from neurondbg.screens.lab import LabScreen
    from neurondbg.screens.main import KERNEL_ACTIONS, DebuggerScreen
    from neurondbg.screens.quit import OpenScreen, QuitScreen
    from neurondbg.views.bits_editor import BitEditor
    from neurondbg.views.tour_pane import TourPane

    lab = ("Convert Lab", bindings_of([LabScreen, BitEditor]))
    if isinstance(screen, LabScreen):  # the Lab's own keys, not the debugger's
        return [lab, ("This help", bindings_of([HelpScreen]))]
    app_class = type(app) if isinstance(app, NeurondbgApp) else NeurondbgApp
    everything = bindings_of([app_class])
    tour = [b for b in everything if b[1].startswith("tour")]
    own = [b for b in everything if b not in tour]
    kernel = isinstance(screen, DebuggerScreen) and screen.kernel
    screen_keys = [(key_name(b.key), b.tooltip or b.description) for b in DebuggerScreen.BINDINGS
                   if isinstance(b, Binding) and b.action.split("(")[0] in KERNEL_ACTIONS]
    core = ("NeuronCore (a kernel: keys 1..9 and 0 pick its panes)",
            [*pane_keys(Layout.KERNEL), *screen_keys])
    single: list[tuple[str, Sequence[tuple[str, str]]]] = [] if kernel else [
        ("Panes (keys 1..9 focus one; in a small terminal they pick its tab)",
         pane_keys(Layout.PROGRAM))]
    shown = CORE_PANES if kernel else PANES  # the screen's panes, in its order
    out: list[tuple[str, Sequence[tuple[str, str]]]] = [
        ("Debugger", own),
        *([core] if kernel else single),
        *pane_sections(shown),
        *([] if kernel else [core, *pane_sections([p for p in CORE_PANES if p not in shown])]),
        ("Tour (while a tour is open; → ← p in the tour pane)",
         tour or bindings_of([TourPane])),
        lab,
        ("Quit with unsaved work (q asks)", bindings_of([QuitScreen])),
        ("Open with unsaved work (open, load, tour ask)", bindings_of([OpenScreen])),
        ("This help", bindings_of([HelpScreen])),
    ]
    return [(title, bs) for title, bs in out if bs]


def help_text(app: Any = None, screen: Any = None) -> Text:
    """The whole help: keys by where they act (for `app`'s class: a tour adds its
    keys; for `screen`, as `sections` says), then the console commands."""
    text = Text("Keys\n", style="bold underline")
    for title, bindings in sections(app, screen):
        text.append(f"{title}\n", style="bold")
        for keys, what in bindings:
            text.append(f"  {keys:<16}", style="bold yellow")
            text.append(f"{what}\n")
    text.append("Anywhere\n", style="bold")
    from neurondbg.screens.lab import LabScreen

    if isinstance(screen, LabScreen):  # no listing, no console in the Lab
        text.append(f"  {'Tab / Shift+Tab':<16}", style="bold yellow")
        text.append("next / previous control (value, bits, formats, each side's pickers)\n")
        return text
    for key, what in (*NOT_BINDINGS, *listing_keys()):
        text.append(f"  {key:<16}", style="bold yellow")
        text.append(f"{what}\n")
    text.append("\nConsole commands\n", style="bold underline")
    for cmd in REGISTRY:
        text.append(f"  {cmd.help_line}\n")
    aliases = " · ".join(f"{alias} {name}" for alias, name in REGISTRY.aliases.items())
    text.append(f"  aliases: {aliases}\n", style="dim")
    return text


class HelpScreen(ModalScreen[None]):
    """The help for `screen`, the screen it was opened on (None: every section)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "dismiss", "close", id="help.close"),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen VerticalScroll { width: 110; max-width: 100%; height: 40; max-height: 100%;
                                border: round $accent; background: $surface; padding: 0 1; }
    """

    def __init__(self, screen: Any = None) -> None:
        super().__init__()
        self.under = screen

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(help_text(self.app, self.under))
