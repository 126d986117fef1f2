"""The engine strip: one line per engine queue of a kernel (debug.snapshot rows).

`▶` marks the focused engine (the Program, Registers, Struct and Legality panes show
it); each line: name, PC, the instruction at the PC, status (running / waiting on
the condition / halted / faulted) and the engine's own step count. A NEFF's DMA queue
shows its entries completed / triggered ("2/3 done") where an engine shows its PC, and
the entry at its head.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from neurondbg.debug.snapshot import EngineRow
from neurondbg.views.textlines import TextLines

STATUS_STYLE = {"running": "green", "waiting": "yellow", "halted": "dim", "faulted": "bold red"}


PC_WIDTH = len("pc 0x0000")  # the PC column, at least (a DMA queue's "12/40 done")


def where_of(row: EngineRow) -> str:
    """The PC column of a row: `pc 0x0040`, or a DMA queue's `2/3 done`."""
    return row.progress or f"pc {row.pc:#06x}"


def engine_line(row: EngineRow, width: int = 60, name_width: int = 5,
                where_width: int = PC_WIDTH) -> Text:
    """One engine's line; the name padded to `name_width` (the longest queue name, so a
    NEFF's DMA queues such as qSPSpillReload0 keep the columns), the PC column to
    `where_width` (a DMA queue's progress may be longer), the instruction cut to `width`
    characters."""
    mark = ("▶ ", "bold reverse") if row.focused else ("  ", "")
    status = f"waiting on {row.waiting}" if row.status == "waiting" else row.status
    inst = row.instruction if len(row.instruction) <= width else row.instruction[:width - 1] + "…"
    return Text.assemble(mark, (f"{row.engine:<{name_width}}", "bold" if row.focused else ""),
                         f" {where_of(row):<{where_width}}  ", (f"{inst:<{width}}", ""), "  ",
                         (f"{status:<24}", STATUS_STYLE.get(row.status, "")),
                         (f" {row.steps:>7,} step{'s' if row.steps != 1 else ' '}", "dim"))


class EnginesView(TextLines, can_focus=True):
    """The engine strip (read-only: `e` / `E` or `focus ENGINE` change the focus). A step
    repaints it without a new layout: its height (the engine count) stays."""

    DEFAULT_CSS = "EnginesView { height: auto; }"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._rows: Sequence[EngineRow] = ()
        self._key: object = None
        # each row's line as last built, by position: a core step changes one or two rows
        self._built: list[tuple[EngineRow, Text]] = []

    def on_resize(self) -> None:
        self._key = None
        self.show(self._rows)

    def show(self, rows: Sequence[EngineRow]) -> None:
        names = max((len(r.engine) for r in rows), default=5)
        name_width = max(5, names)
        where_width = max((len(where_of(r)) for r in rows), default=PC_WIDTH)
        width = max(12, min(60, self.size.width - 57 - name_width
                            - (where_width - PC_WIDTH))) if self.size.width else 30
        columns = (width, name_width, where_width)
        key = (tuple(rows), columns)
        if key == self._key:
            return  # nothing changed: no repaint (a step usually moves one engine)
        if not isinstance(self._key, tuple) or self._key[1] != columns:
            self._built = []  # other columns: every line anew
        built = self._built
        lines: list[Text] = []
        for i, row in enumerate(rows):
            if i < len(built) and built[i][0] == row:
                lines.append(built[i][1])
                continue
            line = engine_line(row, *columns)
            line.no_wrap = True
            if i < len(built):
                built[i] = (row, line)
            else:
                built.append((row, line))
            lines.append(line)
        del built[len(rows):]
        self._rows, self._key = rows, key
        # the same columns: repaint only the rows that changed (a core step: the engine
        # that stepped and the focus mark, two or three of a NEFF's seven-odd rows)
        self.repaint_lines(lines or [Text("no kernel loaded", style="dim")])

    def lines(self) -> list[Text]:
        return [line for _, line in self._built] or [Text("no kernel loaded", style="dim")]

    def text(self) -> Text:
        text = Text("\n").join(self.lines())
        text.no_wrap = True
        return text

    def line_count(self) -> int:
        return max(1, len(self._rows))
