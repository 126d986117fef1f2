"""The screens' title bar and key bar, each one widget drawing one line.

`KeyFooter` looks like Textual's `Footer` (the same component colours, paddings and the
command palette's key at the right) and acts like it (a key is clicked with the mouse, a
disabled one rings the bell, the hovered key is highlighted and shows its tooltip), but
it is one widget instead of one per key and it repaints instead of recomposing when the
bindings change. `TitleBar` is Textual's `Header` (icon, title and sub-title centred)
the same way, one widget instead of four. The screen is rendered widget by widget at
every step; a dozen widgets fewer is a third of that work on a kernel's screen.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar, NamedTuple

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.reactive import reactive

from neurondbg.views.kept import KeptPaint
from neurondbg.views.textlines import TextLines


class FooterItem(NamedTuple):
    """One key of the bar: where it is drawn (columns start..end) and what it does."""

    key: str
    display: str
    description: str
    enabled: bool
    tooltip: str
    start: int = 0
    end: int = 0


class KeyFooter(KeptPaint, can_focus=False):
    """The shown keys of the screen's bindings on one line (see the module docstring)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "footer-key--key", "footer-key--description", "footer-key--hover",
        "footer-key--separator"}
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        text-wrap: nowrap;
        .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .footer-key--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        .footer-key--separator { color: $foreground 20%; }
    }
    """

    compact = reactive(False)
    """Less whitespace: Textual's `Footer.compact`."""
    hovered: reactive[int | None] = reactive(None)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.items: list[FooterItem] = []  # as drawn last, with their columns

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: object) -> None:
        self.refresh()

    def shown(self) -> tuple[list[FooterItem], FooterItem | None]:
        """The keys to show, left to right (one per action, as Textual's Footer), and the
        command palette's key (None when the app has no palette)."""
        active = self.screen.active_bindings
        keys: dict[str, FooterItem] = {}
        for _node, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in keys:
                keys[binding.action] = self._item(binding, enabled, tooltip)
        palette = None
        found = active.get(self.app.COMMAND_PALETTE_BINDING)
        if self.app.ENABLE_COMMAND_PALETTE and found is not None:
            _node, binding, enabled, _tip = found
            palette = self._item(binding, enabled, binding.tooltip or binding.description)
        return list(keys.values()), palette

    def _item(self, binding: Binding, enabled: bool, tooltip: str) -> FooterItem:
        return FooterItem(binding.key, self.app.get_key_display(binding), binding.description,
                          enabled, tooltip)

    def _pieces(self, item: FooterItem, hover: bool, compact: bool
                ) -> Iterator[tuple[str, Style]]:
        """The text and style of one key as a FooterKey draws it."""
        key = self.get_component_rich_style("footer-key--key")
        text = self.get_component_rich_style("footer-key--description")
        if hover:
            over = self.get_component_rich_style("footer-key--hover")
            key, text = key + Style(bgcolor=over.bgcolor), text + over
        if not item.enabled:
            key, text = key + Style(dim=True), text + Style(dim=True)
        if compact:
            yield item.display, key
            yield f" {item.description}", text
        else:
            yield f" {item.display} ", key
            yield f"{item.description} ", text

    def render(self) -> Text:
        width = self.size.width
        keys, palette = self.shown()
        line = Text(no_wrap=True, end="")
        drawn: list[FooterItem] = []
        room = width
        tail = Text(no_wrap=True, end="")
        if palette is not None:
            tail.append("▏", self.get_component_rich_style("footer-key--separator"))
            for text, style in self._pieces(palette, self.hovered == len(keys), True):
                tail.append(text, style)
            tail.append(" ")  # Footer's palette key is always compact, one space after
            room = max(0, width - tail.cell_len)
        for i, item in enumerate(keys):
            start = line.cell_len
            for text, style in self._pieces(item, self.hovered == i, self.compact):
                line.append(text, style)
            drawn.append(item._replace(start=start, end=min(line.cell_len, room)))
            if self.compact:
                line.append(" ")
        line.truncate(room, pad=True)
        if palette is not None:
            start = line.cell_len
            line.append_text(tail)
            drawn.append(palette._replace(start=start + 1, end=line.cell_len))
        self.items = [item for item in drawn if item.end > item.start]
        return line

    def item_at(self, x: int) -> int | None:
        """The index in `items` of the key drawn at column `x`."""
        return next((i for i, item in enumerate(self.items) if item.start <= x < item.end), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        at = self.item_at(event.x)
        if at != self.hovered:
            self.hovered = at
            self.tooltip = self.items[at].tooltip or None if at is not None else None

    def on_leave(self) -> None:
        self.hovered = None

    def watch_hovered(self) -> None:
        self.refresh()

    def watch_compact(self) -> None:
        self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        at = self.item_at(event.x)
        if at is None:
            return
        if self.items[at].enabled:
            self.app.simulate_key(self.items[at].key)
        else:
            self.app.bell()


class TitleBar(TextLines):
    """Textual's `Header` as one widget: the icon (a click opens the command palette)
    and the screen's title and sub-title centred; a click elsewhere makes it taller.
    The sub-title changes at every step: drawn as one line of segments (TextLines), not
    through Textual's Content layout."""

    ICON = "⭘"
    ICON_WIDTH = 8  # Header's icon cell, padding included
    CLOCK_WIDTH = 10  # the space Header keeps for its clock at the right
    DEFAULT_CSS = """
    TitleBar {
        dock: top;
        width: 100%;
        background: $panel;
        color: $foreground;
        height: 1;
    }
    TitleBar.-tall { height: 3; }
    """

    def on_mount(self) -> None:
        for node in (self.app, self.screen):
            self.watch(node, "title", self._retitle, init=False)
            self.watch(node, "sub_title", self._retitle, init=False)

    def _retitle(self) -> None:
        self.refresh()

    def title_text(self) -> Text:
        """`title — sub-title` (the sub-title dim), as App.format_title."""
        screen, app = self.screen, self.app
        title = screen.title if screen.title is not None else app.title
        sub = screen.sub_title if screen.sub_title is not None else app.sub_title
        return Text.assemble(title, (" — ", "dim"), (sub, "dim")) if sub else Text(title)

    def text(self) -> Text:
        middle = max(0, self.size.width - self.ICON_WIDTH - self.CLOCK_WIDTH)
        title = self.title_text()
        if title.cell_len > middle:
            title.truncate(middle, overflow="ellipsis")
        line = Text(f" {self.ICON}".ljust(self.ICON_WIDTH) + " " * ((middle - title.cell_len) // 2),
                    no_wrap=True, end="")
        line.append_text(title)
        return Text("\n").join([Text(), line]) if self.has_class("-tall") else line

    def line_count(self) -> int:
        return 1

    async def on_click(self, event: events.Click) -> None:
        if event.x < self.ICON_WIDTH and self.app.ENABLE_COMMAND_PALETTE:
            await self.run_action("app.command_palette")
        else:
            self.toggle_class("-tall")
            self.refresh()
