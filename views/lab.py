"""The Convert Lab: one value, any formats, two rounding set-ups side by side.

Type a value or a bit pattern, click bits to flip them, choose source / target
format and, per side, mode, saturation and profile; each side shows the result,
flags, error, the neighbouring representable values and the step-by-step trace
from machine.convert.trace.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Checkbox, Input, Label, Select, Static

from machine.convert.formats import FORMAT_NAMES, Format, parse_format
from machine.convert.options import MODES, PROFILES, resolve
from views.bits_editor import BitEditor
from views.lab_model import encoding_marks, fmt_value, neighbours, parse_input, value_of
from views.roles import role_legend
from views.trace_text import neighbours_text, steps_text, summary_text


def run_trace(bits: int, src: str, dst: str, mode: str, sat: bool, profile: str) -> Any:
    """machine.convert.trace for one lane; ValueError (bad combination) passes through."""
    resolve(src, dst, mode, sat, profile)  # the same one-line messages as the CLI
    try:
        # The submodule, not `machine.convert.trace`: once imported, the package
        # attribute of that name is the module, shadowing the lazy function.
        from machine.convert.trace import trace
    except ImportError as exc:  # the trace module has not landed in this build
        raise ValueError(f"per-lane traces are not available: {exc}") from None
    return trace(bits, src, dst, mode=mode, sat=sat, profile=profile)


class LabSide(Vertical):
    """Mode / saturation / profile pickers and the resulting trace for one side."""

    DEFAULT_CSS = """
    LabSide { width: 1fr; height: 1fr; border: round $primary-darken-1; padding: 0 1; }
    LabSide > Horizontal { height: 1; }
    LabSide Select { width: 16; margin-right: 1; }
    LabSide Checkbox { width: 10; }
    LabSide .lab-result { height: auto; }
    LabSide VerticalScroll { height: 1fr; }
    """

    def __init__(self, side: str, mode: str, profile: str, sat: bool) -> None:
        super().__init__(id=f"lab-side-{side}")
        self.side = side
        self._init = (mode, profile, sat)
        self.border_title = f"{side.upper()}"

    def compose(self) -> ComposeResult:
        mode, profile, sat = self._init
        with Horizontal():
            yield Label("mode ")
            yield Select([(m, m) for m in MODES], value=mode, allow_blank=False, compact=True,
                         id=f"mode-{self.side}")
            yield Label("profile ")
            yield Select([(p, p) for p in PROFILES], value=profile, allow_blank=False,
                         compact=True, id=f"profile-{self.side}")
            yield Checkbox("sat", value=sat, compact=True, id=f"sat-{self.side}")
        yield Static(id=f"result-{self.side}", classes="lab-result")
        with VerticalScroll():
            yield Static(id=f"steps-{self.side}")

    @property
    def options(self) -> tuple[str, str, bool]:
        mode = self.query_one(f"#mode-{self.side}", Select).value
        profile = self.query_one(f"#profile-{self.side}", Select).value
        sat = self.query_one(f"#sat-{self.side}", Checkbox).value
        return str(mode), str(profile), bool(sat)

    def show(self, bits: int, src: Format, dst: Format) -> None:
        mode, profile, sat = self.options
        result = self.query_one(f"#result-{self.side}", Static)
        steps = self.query_one(f"#steps-{self.side}", Static)
        self.border_subtitle = f"{profile} · {mode} · {'sat' if sat else 'nosat'}"
        try:
            t = run_trace(bits, src.name, dst.name, mode, sat, profile)
            x = value_of(src, bits)
            text = summary_text(t, src, dst)
            text.append("\n")
            text.append_text(neighbours_text(dst, int(t.output_bits), float(x),
                                             neighbours(dst, float(x))))
            trace_text = steps_text(t)
        except ValueError as exc:  # a combination the options refuse: the CLI's message
            self._error(f"error: {exc}")
            return
        except Exception as exc:  # a model bug must not take the lab down: say where
            self._error(f"internal error in machine.convert for {src.name} 0x{bits:x} -> "
                        f"{dst.name} ({profile}, {mode}): {type(exc).__name__}: {exc}")
            return
        self.trace = t
        result.update(text)
        steps.update(trace_text)

    def _error(self, message: str) -> None:
        self.query_one(f"#result-{self.side}", Static).update(Text(message, style="bold red"))
        self.query_one(f"#steps-{self.side}", Static).update("")
        self.trace = None


class ConvertLab(Vertical):
    """The whole lab: input row, bit editor, sides A and B."""

    DEFAULT_CSS = """
    ConvertLab { height: 1fr; }
    ConvertLab #lab-inputs { height: 1; }
    ConvertLab #lab-inputs Input { width: 30; margin-right: 2; }
    ConvertLab #lab-inputs Select { width: 18; margin-right: 2; }
    ConvertLab #lab-bits-row { height: 2; margin-top: 1; }
    ConvertLab #lab-value { height: 1; }
    ConvertLab #lab-message { height: 1; }
    ConvertLab #lab-sides { height: 1fr; }
    """

    def __init__(self, value: str = "1.00390625", src: str = "fp32", dst: str = "bf16",
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.src = parse_format(src)
        self.dst = parse_format(dst)
        self.bits = parse_input(value, self.src) if value else 0
        self._value = value

    def compose(self) -> ComposeResult:
        with Horizontal(id="lab-inputs"):
            yield Label("value ")
            yield Input(self._value, placeholder="1.5, -3e-2, inf, 0x3f80, 0b0101",
                        compact=True, id="lab-input")
            yield Label("from ")
            yield Select([(n, n) for n in FORMAT_NAMES], value=self.src.name, allow_blank=False,
                         compact=True, id="lab-src")
            yield Label("to ")
            yield Select([(n, n) for n in FORMAT_NAMES], value=self.dst.name, allow_blank=False,
                         compact=True, id="lab-dst")
        with Horizontal(id="lab-bits-row"):
            yield Label("bits  ")
            yield BitEditor(self.src.bits, encoding_marks(self.src), id="lab-bits")
        yield Static(id="lab-value")
        yield Static(id="lab-message")
        yield Static(role_legend(), id="lab-legend")
        with Horizontal(id="lab-sides"):
            yield LabSide("a", "rint", "ieee", False)
            yield LabSide("b", "round", "ascend", True)  # ties away: differs on a tie

    def on_mount(self) -> None:
        self.query_one(BitEditor).set_layout(self.src.bits, encoding_marks(self.src), self.bits)
        self.refresh_all()

    def set_input(self, text: str) -> bool:
        """Parse `text` in the source format; False (and a message) when it does not parse."""
        msg = self.query_one("#lab-message", Static)
        try:
            self.bits = parse_input(text, self.src)
        except ValueError as exc:
            msg.update(Text(f"error: {exc}", style="bold red"))
            return False
        msg.update("")
        self.query_one(BitEditor).bits = self.bits
        self.refresh_all()
        return True

    def refresh_all(self) -> None:
        x = value_of(self.src, self.bits)
        digits = (self.src.bits + 3) // 4
        self.query_one("#lab-value", Static).update(Text.assemble(
            ("input ", "bold"), f"{self.src.name} 0x{self.bits:0{digits}X} = ",
            (fmt_value(x), "bold yellow"), f"   →  {self.dst.name}"))
        for side in self.query(LabSide):
            side.show(self.bits, self.src, self.dst)

    @on(Input.Submitted, "#lab-input")
    def _typed(self, event: Input.Submitted) -> None:
        self.set_input(event.value)

    @on(BitEditor.Flipped)
    def _flipped(self, event: BitEditor.Flipped) -> None:
        self.bits = event.bits
        digits = (self.src.bits + 3) // 4
        self.query_one("#lab-input", Input).value = f"0x{self.bits:0{digits}X}"
        self.query_one("#lab-message", Static).update("")
        self.refresh_all()

    @on(Select.Changed, "#lab-src")
    def _src_changed(self, event: Select.Changed) -> None:
        new = parse_format(str(event.value))
        if new == self.src:
            return
        old_value = value_of(self.src, self.bits)
        self.src = new
        try:  # keep the value (rounded into the new format) rather than the bit pattern
            self.bits = parse_input(str(old_value), new)
        except ValueError:
            self.bits = 0
        self.query_one(BitEditor).set_layout(new.bits, encoding_marks(new), self.bits)
        self.query_one("#lab-input", Input).value = fmt_value(value_of(new, self.bits))
        self.refresh_all()

    @on(Select.Changed, "#lab-dst")
    def _dst_changed(self, event: Select.Changed) -> None:
        self.dst = parse_format(str(event.value))
        self.refresh_all()

    @on(Select.Changed, "LabSide Select")
    @on(Checkbox.Changed)
    def _side_changed(self, event: Select.Changed | Checkbox.Changed) -> None:
        if self.is_mounted:
            self.refresh_all()
