"""Widgets that hand back the lines they drew last while nothing about them changed.

Textual keeps a widget's rendered lines (its styles cache) and redraws only the dirty
ones, but each `render_lines` call still walks the DOM for the widget's region, its
background (every ancestor's), its opacity and the theme before it reads that cache:
about a tenth of a millisecond a widget. The screen asks every widget under a repainted
region for its lines (a pane's frame and its band under a view that changed; all of
them after a new layout), so on a kernel's screen of thirty-odd widgets that walk cost
more than the lines that changed at a core step.

`KeptPaint` keeps the strips of its last `render_lines(crop)` and returns them again
for the same crop and size while the widget was neither marked dirty (every repaint,
scroll, resize and hover of a link goes through `Widget._set_dirty`) nor restyled
(`notify_style_update`: a focus, class or theme change, a CSS reload). Those are the
events that invalidate Textual's own cache of the same lines. A repaint of some rows
(a pane's title row, the lines of a view that changed) draws those rows alone again.
"""

from __future__ import annotations

from textual.containers import Horizontal, Vertical
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget


class KeptPaint(Widget):
    """See the module docstring. Mixed in last (`class View(Base, KeptPaint)`): Textual
    takes a widget's CSS type names from its first base alone."""

    # (crop, size, line filters, strips) of the last render_lines; None: draw again
    _kept_paint: tuple[Region, Size, tuple[object, ...], list[Strip]] | None = None
    # rows repainted since, content-relative as the regions given (the content offset
    # is a walk of the styles: added once a paint, not once a repaint)
    _kept_dirty: frozenset[int] = frozenset()

    def _set_dirty(self, *regions: Region) -> None:
        if regions and self._kept_paint is not None:  # some rows: draw those again
            self._kept_dirty = self._kept_dirty.union(
                *(range(r.y, r.bottom) for r in regions))
        else:
            self._kept_paint = None
        super()._set_dirty(*regions)

    def notify_style_update(self) -> None:
        self._kept_paint = None
        super().notify_style_update()

    def render_lines(self, crop: Region) -> list[Strip]:
        kept = self._kept_paint
        filters = tuple(self.get_line_filters())  # a filter turned on recolours each line
        if kept is None or kept[0] != crop or kept[1] != self._size or kept[2] != filters:
            strips = self.draw_lines(crop)
        else:
            strips = kept[3]
            dy = self.content_offset.y if self._kept_dirty else 0  # to the widget's rows
            rows = [y + dy for y in self._kept_dirty if crop.y <= y + dy < crop.bottom]
            if rows:  # the rows repainted since, from the first to the last, drawn anew
                top, bottom = min(rows), max(rows) + 1
                strips = strips.copy()
                strips[top - crop.y:bottom - crop.y] = self.draw_lines(
                    Region(crop.x, top, crop.width, bottom - top))
        self._kept_paint = (crop, self._size, filters, strips)
        self._kept_dirty = frozenset()
        return list(strips)

    def draw_lines(self, crop: Region) -> list[Strip]:
        """Render the lines anew (what `render_lines` does without this class)."""
        return super().render_lines(crop)


class Row(Horizontal, KeptPaint):
    """A row of panes (a band of the screen's layout), or of a pane's views."""


class Column(Vertical, KeptPaint):
    """A column of panes in a band."""
