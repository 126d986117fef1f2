"""A pane's view that is built after the first frame (first frame goal: <= 0.5 s).

The SBUF, accumulator, convert-trace and plot views import numpy, the conversion
model or textual_plotext (~0.2 s together), and before a program is loaded they show
nothing that those imports compute. A screen composes a `Deferred` in such a view's
place; `build_deferred` (the App calls it once the first frame is painted, and whatever
needs one of those views calls it first) imports each view's module and mounts the view
where its placeholder stood, so the built layout is the one a direct compose gives.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.dom import DOMNode
from textual.widget import Widget


class Deferred(Widget):
    """Holds a view's place until `build()` makes the view with `make()`."""

    DEFAULT_CSS = "Deferred { height: 1fr; width: 1fr; }"

    def __init__(self, make: Callable[[], Widget]) -> None:
        super().__init__()
        self.make = make

    def build(self) -> Widget:
        """The view, mounted in this placeholder's place (which is removed)."""
        parent = self.parent
        assert isinstance(parent, Widget)
        view = self.make()
        parent.mount(view, before=self)
        self.remove()
        return view


def build_deferred(node: DOMNode) -> list[Widget]:
    """Build every Deferred view under `node` (none left: nothing to do)."""
    return [d.build() for d in list(node.query(Deferred))]
