"""Convert trace pane: the lanes of the last conversion with their flags, and
the selected lane's step-by-step bit trace (traced lazily, on selection).

`o` opens the selected lane in the Convert Lab on the set-up the machine used for
it (profile, mode, saturation, generation, FP8 configuration: `lane_setup`), so the
Lab's first side shows the lane's own result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from neurondbg.debug.lab_model import LabSetup
from neurondbg.debug.snapshot import Snapshot
from neurondbg.machine.convert.formats import Format, parse_format
from neurondbg.views.lineview import LineView
from neurondbg.views.trace_text import FLAG_STYLES, steps_text, summary_text

if TYPE_CHECKING:
    from neurondbg.machine.engines.record import Lanes

LANE_FLAGS: tuple[str, ...] = ("inexact", "tie", "saturated", "nan", "inf")


def lane_flag_arrays(lanes: Lanes) -> dict[str, np.ndarray]:
    """The lanes' flag arrays (Lanes.flags), as 2-D (partitions, elements)."""
    out: dict[str, np.ndarray] = {}
    for name in LANE_FLAGS:
        arr = lanes.flags.get(name)
        if arr is not None:
            a = np.asarray(arr, bool)
            out[name] = a.reshape(a.shape[0], -1) if a.ndim else a.reshape(1, 1)
    return out


def as_format(f: Format | str) -> Format:
    """A Format from a descriptor or a format name."""
    return parse_format(f) if isinstance(f, str) else f


FP8_EXP4_FORMATS = ("fp8_e4m3", "fp8_e4m3fn")  # what FP8_EXP4 can mean (machine.dtypes)


def lane_setup(lanes: Lanes, gen: str | None = None, origin: str = "") -> LabSetup:
    """How the machine converted these lanes (machine.engines.record.Lanes: profile, sat;
    its Cast always rounds `rint`, as Lanes.trace does). FP8_EXP4's meaning is named when
    the conversion uses an e4m3 format, the only formats the FP8 configuration chooses."""
    names = (as_format(lanes.src).name, as_format(lanes.dst).name)
    fp8 = next((n for n in names if n in FP8_EXP4_FORMATS), None)
    return LabSetup(mode="rint", profile=lanes.profile, sat=bool(lanes.sat), gen=gen,
                    fp8_exp4=fp8, origin=origin)


class LaneTable(LineView):
    """One line per lane (all lanes, or only flagged ones: `f`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "toggle_filter", "flagged only", id="lanes.filter"),
        Binding("o", "open_lab", "lane in lab", id="lanes.lab"),
    ]

    class OpenInLab(Message):
        """Explore this lane's input in the Convert Lab, on the lane's own set-up."""

        def __init__(self, value: str, src: str, dst: str, setup: LabSetup | None = None
                     ) -> None:
            super().__init__()
            self.value, self.src, self.dst = value, src, dst
            self.setup = setup

    def action_open_lab(self) -> None:
        request = self.lab_request(self.cursor)
        if request is not None:
            self.post_message(request)

    def lab_request(self, index: int) -> OpenInLab | None:
        """The Lab request for the lane on line `index`: its input bits, formats, set-up."""
        lane = self.lane_at(index)
        if lane is None or self.lanes is None:
            return None
        p, e = lane
        code = int(self.lanes.in_bits[p - self.lanes.p0, e])
        src = as_format(self.lanes.src)
        step = f" of step {self.step}" if self.step is not None else ""
        setup = lane_setup(self.lanes, self.gen, f"lane p{p} e{e}{step}")
        return self.OpenInLab(f"0x{code:0{(src.bits + 3) // 4}x}", src.name,
                              as_format(self.lanes.dst).name, setup)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lanes: Lanes | None = None
        self.gen: str | None = None  # the generation that ran the conversion (Snapshot.gen)
        self.step: int | None = None  # the step that made it
        self.flags: dict[str, np.ndarray] = {}
        self.order = np.zeros(0, np.int64)
        self.flagged_only = True
        self.shape = (0, 0)

    def show(self, lanes: Lanes | None) -> None:
        self.lanes = lanes
        self.flags = lane_flag_arrays(lanes) if lanes is not None else {}
        shape = next(iter(self.flags.values())).shape if self.flags else (0, 0)
        self.shape = shape
        self._order()
        self.update_size()

    def _order(self) -> None:
        total = self.shape[0] * self.shape[1]
        if self.flagged_only and self.flags:
            anyflag = np.zeros(self.shape, bool)
            for a in self.flags.values():
                anyflag |= a
            self.order = np.flatnonzero(anyflag.ravel())
            if self.order.size == 0:
                self.order = np.arange(total)
        else:
            self.order = np.arange(total)

    def action_toggle_filter(self) -> None:
        self.flagged_only = not self.flagged_only
        self._order()
        self.cursor = 0
        self.update_size()

    def lane_at(self, index: int) -> tuple[int, int] | None:
        if not 0 <= index < self.order.size:
            return None
        p, e = divmod(int(self.order[index]), self.shape[1])
        return p + (self.lanes.p0 if self.lanes is not None else 0), e

    def line_count(self) -> int:
        return int(self.order.size)

    def line_text(self, index: int) -> Text:
        lane = self.lane_at(index)
        if lane is None or self.lanes is None:
            return Text()
        p, e = lane
        row = p - self.lanes.p0
        text = Text(f"p{p:<3} e{e:<5}", style="dim")
        x, y = self.lanes.in_bits, self.lanes.out_bits
        text.append(f" {int(x[row, e]):#06x} → {int(y[row, e]):#06x}")
        for name, arr in self.flags.items():
            if arr[row, e]:
                text.append(f" {name}", style=FLAG_STYLES.get(name, ""))
        return text


class LanesView(Vertical):
    """Lane table on top, selected lane's trace below."""

    DEFAULT_CSS = """
    LanesView { height: 1fr; }
    LanesView LaneTable { height: 1fr; }
    LanesView #lane-head { height: 1; }
    LanesView VerticalScroll { height: 2fr; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._shown: tuple[Lanes | None] | None = None  # the lanes on show; None: nothing yet

    def compose(self) -> ComposeResult:
        yield Static(id="lane-head")
        yield LaneTable(id="lane-table")
        with VerticalScroll(id="lane-trace-scroll"):
            yield Static(id="lane-trace")

    def show(self, snap: Snapshot) -> None:
        lanes = snap.lanes
        if self._shown is not None and self._shown[0] is lanes:
            return  # the same conversion as before (or still none)
        self._shown = (lanes,)
        table = self.query_one(LaneTable)
        table.gen, table.step = snap.gen, snap.lanes_step
        table.show(lanes)
        head = self.query_one("#lane-head", Static)
        if lanes is None:
            head.update(Text("no conversion in the last step", style="dim"))
            self.query_one("#lane-trace", Static).update("")
            return
        counts = "  ".join(f"{n} {int(a.sum())}" for n, a in table.flags.items())
        src, dst = lanes.src, lanes.dst
        step = snap.lanes_step
        head.update(Text.assemble((f"{src} → {dst}", "bold"),
                                  f"  {table.shape[0]}x{table.shape[1]} lanes",
                                  (f" (step {step})" if step is not None else "", "dim"),
                                  "  ", (counts, "dim")))
        table.cursor = 0
        self.show_lane(0)

    def show_lane(self, index: int) -> None:
        table = self.query_one(LaneTable)
        target = self.query_one("#lane-trace", Static)
        lane = table.lane_at(index)
        if lane is None or table.lanes is None:
            target.update("")
            return
        try:
            t = table.lanes.trace(*lane)
        except Exception as exc:  # a lane trace must never take the UI down
            target.update(Text(f"cannot trace lane {lane}: {exc}", style="red"))
            return
        try:
            src, dst = as_format(t.src), as_format(t.dst)
            head = summary_text(t, src, dst)
        except (AttributeError, ValueError):
            head = Text(f"out 0x{int(t.output_bits):x}")
        text = Text(f"lane p{lane[0]} e{lane[1]}\n", style="bold")
        text.append_text(head)
        text.append("\n")
        text.append_text(steps_text(t))
        target.update(text)

    @on(LineView.Selected, "#lane-table")
    def _selected(self, event: LineView.Selected) -> None:
        self.show_lane(event.index)
