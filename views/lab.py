"""The Convert Lab: one value, any formats, two rounding set-ups side by side.

Type a value or a bit pattern, click bits to flip them, choose source / target
format and, per side, mode, saturation and profile; each side shows the result,
flags, error, the neighbouring representable values and the step-by-step trace
from machine.convert.trace.

A typed number is read exactly by machine.convert.parse_value, the reader of
`neurondbg convert` (one rounding to the nearest source value, ties even); when it
was not exact, the message line says what it was read as. Opened from a lane
(`setup`), side A starts on the set-up the machine used for that lane and a line
names the lane, its profile / mode / saturation, generation and FP8 configuration;
side B keeps its comparison set-up.

The "ISS" kind swaps the formats and the two sides for one ISS primitive of
reference 003 (machine.convert.iss: float, trunc, narrow, sats, packvr, ...): pick
the primitive and its parameters; the input lane takes the primitive's input format
and the trace is rendered the same way (DESIGN "Conversion model").
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Checkbox, Input, Label, Select, Static

from neurondbg.debug.lab_model import (
    LabSetup,
    adjacent_code,
    carry_value,
    encoding_marks,
    fmt_value,
    input_note,
    iss_format,
    neighbours,
    read_input,
    side_b_default,
    value_of,
)
from neurondbg.machine.convert.formats import FORMAT_NAMES, Format, parse_format
from neurondbg.machine.convert.iss import ISS_PRIMITIVES, ROUND_MODES, IssParam, IssPrimitive
from neurondbg.machine.convert.options import MODES, PROFILES, resolve
from neurondbg.machine.convert.trace import trace
from neurondbg.views.bits_editor import BitEditor
from neurondbg.views.roles import role_legend
from neurondbg.views.trace_text import neighbours_text, steps_text, summary_text


def run_trace(bits: int, src: str, dst: str, mode: str, sat: bool, profile: str) -> Any:
    """machine.convert.trace for one lane; ValueError (bad combination) passes through."""
    resolve(src, dst, mode, sat, profile)  # the same one-line messages as the CLI
    return trace(bits, src, dst, mode=mode, sat=sat, profile=profile)


KINDS: tuple[tuple[str, str], ...] = (("convert", "convert"), ("ISS ref 003", "iss"))
DEFAULT_ISS = "narrow"  # fp32 -> fp16: the lab's default fp32 value carries over exactly
# Every parameter name any primitive has, with its first declaration (for the initial
# options of its picker; a primitive's own choices replace them when it is picked).
ISS_PARAMS: dict[str, IssParam] = {}
for _p in ISS_PRIMITIVES.values():
    for _q in _p.params:
        ISS_PARAMS.setdefault(_q.name, _q)


def iss_options(param: IssParam) -> list[tuple[str, Any]]:
    """(label, value) choices of a parameter picker; round-mode words show their rounding."""
    if param.name == "round_mode":
        return [(f"{c} {ROUND_MODES[c]}", c) for c in param.choices]
    return [(str(c), c) for c in param.choices]


def iss_formats(prim: IssPrimitive, params: dict[str, Any]) -> tuple[Format, Format]:
    src, dst = prim.formats(**params)
    return iss_format(src), iss_format(dst)


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

    def accepts(self, src: Format, dst: Format) -> bool:
        """Whether this side's set-up is one the options allow for src -> dst."""
        mode, profile, sat = self.options
        try:
            resolve(src, dst, mode, sat, profile)
        except ValueError:
            return False
        return True

    def set_up(self, setup: LabSetup) -> None:
        """Show `setup`'s mode, profile and saturation in the pickers."""
        self.query_one(f"#mode-{self.side}", Select).value = setup.mode
        self.query_one(f"#profile-{self.side}", Select).value = setup.profile
        self.query_one(f"#sat-{self.side}", Checkbox).value = setup.sat

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
            self._error(f"internal error in neurondbg.machine.convert for {src.name} 0x{bits:x} -> "
                        f"{dst.name} ({profile}, {mode}): {type(exc).__name__}: {exc}")
            return
        self.trace = t
        result.update(text)
        steps.update(trace_text)

    def _error(self, message: str) -> None:
        self.query_one(f"#result-{self.side}", Static).update(Text(message, style="bold red"))
        self.query_one(f"#steps-{self.side}", Static).update("")
        self.trace = None


class IssSide(Vertical):
    """One ISS primitive applied to the input lane: what it is, the result, the trace."""

    DEFAULT_CSS = """
    IssSide { width: 1fr; height: 1fr; border: round $accent; padding: 0 1; }
    IssSide .lab-result { height: auto; }
    IssSide VerticalScroll { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__(id="lab-iss-side")
        self.trace: Any = None

    def compose(self) -> ComposeResult:
        yield Static(id="iss-about", classes="lab-result")
        yield Static(id="result-iss", classes="lab-result")
        with VerticalScroll():
            yield Static(id="steps-iss")

    def show(self, bits: int, prim: IssPrimitive, params: dict[str, Any]) -> None:
        src, dst = iss_formats(prim, params)
        shown = ", ".join(f"{k}={v}" for k, v in params.items())
        self.border_title = f"ISS {prim.name}({shown})"
        self.border_subtitle = f"{prim.section} · {prim.confidence}"
        self.query_one("#iss-about", Static).update(Text.assemble(
            (f"{prim.name}: ", "bold"), prim.description, (f"   {src.name} -> {dst.name}",
                                                           "dim")))
        result = self.query_one("#result-iss", Static)
        try:
            t = prim.trace(bits, **params)
            text = summary_text(t, src, dst)
            x = _finite_or_nan(t.input_value)  # packvr*: the accumulator scaled by 2^-shift
            text.append("\n")
            text.append_text(neighbours_text(dst, int(t.output_bits), x, neighbours(dst, x)))
            steps = steps_text(t)
        except Exception as exc:  # a model bug must not take the lab down: say where
            result.update(Text(f"internal error in neurondbg.machine.convert.iss {prim.name} "
                               f"0x{bits:x} ({shown}): {type(exc).__name__}: {exc}",
                               style="bold red"))
            self.query_one("#steps-iss", Static).update("")
            self.trace = None
            return
        self.trace = t
        result.update(text)
        self.query_one("#steps-iss", Static).update(steps)


def _finite_or_nan(v: Any) -> float:
    x = float(v)
    return x if x == x else float("nan")


class ValueInput(Input):
    """The value field. It types every printable key but `?`: no number has one, so the
    key stays free for the Lab's key list (a binding an Input consumes never fires)."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character != "?" and super().check_consume_key(key, character)


class ConvertLab(Vertical):
    """The whole lab: input row, bit editor, sides A and B."""

    DEFAULT_CSS = """
    ConvertLab { height: 1fr; }
    ConvertLab #lab-inputs { height: 1; }
    ConvertLab #lab-inputs Input { width: 1fr; max-width: 30; min-width: 12; margin-right: 1; }
    ConvertLab #lab-inputs Select { width: 15; margin-right: 1; }
    ConvertLab #lab-inputs #lab-kind { width: 15; }
    ConvertLab #lab-formats { width: auto; }
    ConvertLab #lab-iss-row { height: 1; }
    ConvertLab #lab-iss-row Horizontal { width: auto; }
    ConvertLab #lab-iss-row Select { width: 14; margin-right: 2; }
    ConvertLab #lab-bits-row { height: 2; margin-top: 1; }
    ConvertLab #lab-value { height: 1; }
    ConvertLab #lab-message { height: 1; }
    ConvertLab #lab-origin { height: auto; }
    ConvertLab #lab-sides { height: 1fr; }
    """

    def __init__(self, value: str = "1.00390625", src: str = "fp32", dst: str = "bf16",
                 iss: str | None = None, setup: LabSetup | None = None, **kwargs) -> None:
        """`iss`: open on that ISS primitive (its default parameters) instead of src -> dst.
        `setup`: side A's mode / profile / saturation (a lane's: see LaneTable.OpenInLab)."""
        super().__init__(**kwargs)
        self.setup = setup
        self.src = parse_format(src)
        self.dst = parse_format(dst)
        self._conv = (self.src.name, self.dst.name)
        self.iss_mode = iss is not None
        self.iss_name = iss or DEFAULT_ISS
        self.iss_params = ISS_PRIMITIVES[self.iss_name].bind()
        if self.iss_mode:
            self.src, self.dst = iss_formats(self.prim, self.iss_params)
        self._value = value
        self._message = Text()
        self.bits = 0
        if value:
            try:  # a value that does not parse opens the lab on 0 and says why
                parsed = read_input(value, self.src)
            except ValueError as exc:
                self._message = Text(f"error: {exc}", style="bold red")
            else:
                self.bits = parsed.bits
                self._message = Text(input_note(value, self.src, parsed), style="yellow")

    @property
    def prim(self) -> IssPrimitive:
        return ISS_PRIMITIVES[self.iss_name]

    def compose(self) -> ComposeResult:
        src, dst = self._conv
        with Horizontal(id="lab-inputs"):
            yield Select(KINDS, value="iss" if self.iss_mode else "convert", allow_blank=False,
                         compact=True, id="lab-kind")
            yield Label("value ")
            yield ValueInput(self._value, placeholder="1.5, -3e-2, inf, 0x3f80, 0b0101",
                             compact=True, id="lab-input")
            with Horizontal(id="lab-formats"):
                yield Label("from ")
                yield Select([(n, n) for n in FORMAT_NAMES], value=src, allow_blank=False,
                             compact=True, id="lab-src")
                yield Label("to ")
                yield Select([(n, n) for n in FORMAT_NAMES], value=dst, allow_blank=False,
                             compact=True, id="lab-dst")
        with Horizontal(id="lab-iss-row"):
            yield Label("primitive ")
            yield Select([(n, n) for n in ISS_PRIMITIVES], value=self.iss_name,
                         allow_blank=False, compact=True, id="iss-prim")
            for name, param in ISS_PARAMS.items():
                with Horizontal(id=f"iss-box-{name}", classes="iss-param"):
                    yield Label(f"{name} ")
                    yield Select(iss_options(param), value=param.default, allow_blank=False,
                                 compact=True, id=f"iss-{name}")
        with Horizontal(id="lab-bits-row"):
            yield Label("bits  ")
            yield BitEditor(self.src.bits, encoding_marks(self.src), id="lab-bits")
        yield Static(id="lab-value")
        yield Static(self._message, id="lab-message")
        if self.setup is not None and self.setup.origin:
            yield Static(Text.assemble(("from ", "bold"), self.setup.describe(),
                                       ("   (side A; side B compares)", "dim")),
                         id="lab-origin")
        yield Static(role_legend(), id="lab-legend")
        a = self.setup or LabSetup()
        b = side_b_default(*(parse_format(n) for n in self._conv))
        with Horizontal(id="lab-sides"):
            yield LabSide("a", a.mode, a.profile, a.sat)
            yield LabSide("b", b.mode, b.profile, b.sat)  # compares: see side_b_default
        yield IssSide()

    def on_mount(self) -> None:
        self._show_kind()
        self._sync_iss_pickers()
        self.query_one(BitEditor).set_layout(self.src.bits, encoding_marks(self.src), self.bits)
        self.refresh_all()

    def _show_kind(self) -> None:
        """Conversion controls and sides, or the ISS row and panel."""
        self.query_one("#lab-formats").display = not self.iss_mode
        self.query_one("#lab-sides").display = not self.iss_mode
        self.query_one("#lab-iss-row").display = self.iss_mode
        self.query_one(IssSide).display = self.iss_mode

    def _sync_iss_pickers(self) -> None:
        """Show the current primitive's parameter pickers, with its choices and values."""
        own = {p.name: p for p in self.prim.params}
        for name in ISS_PARAMS:
            self.query_one(f"#iss-box-{name}").display = name in own
            if name in own:
                picker = self.query_one(f"#iss-{name}", Select)
                picker.set_options(iss_options(own[name]))
                picker.value = self.iss_params[name]

    def set_kind(self, iss: bool) -> None:
        """Switch between conversions and ISS primitives, keeping the input value."""
        if iss == self.iss_mode:
            return
        self.iss_mode = iss
        self._show_kind()
        if iss:
            self._sync_iss_pickers()
            src, self.dst = iss_formats(self.prim, self.iss_params)
        else:
            src = parse_format(str(self.query_one("#lab-src", Select).value))
            self.dst = parse_format(str(self.query_one("#lab-dst", Select).value))
        self._change_src(src)

    def set_primitive(self, name: str, **params: Any) -> None:
        """Pick an ISS primitive and parameters (ValueError from IssPrimitive.bind)."""
        self.iss_params = ISS_PRIMITIVES[name].bind(**params)
        self.iss_name = name
        self._sync_iss_pickers()
        if self.iss_mode:
            src, self.dst = iss_formats(self.prim, self.iss_params)
            self._change_src(src)

    def _change_src(self, new: Format) -> None:
        """A new input format: keep the value (rounded into it) rather than the pattern."""
        if new != self.src:
            self.bits = carry_value(self.src, self.bits, new)
            self.src = new
            self.query_one(BitEditor).set_layout(new.bits, encoding_marks(new), self.bits)
            self.query_one("#lab-input", Input).value = fmt_value(value_of(new, self.bits))
        self._fit_side_b()
        self.refresh_all()

    def set_input(self, text: str) -> bool:
        """Parse `text` in the source format; False (and a message) when it does not parse."""
        msg = self.query_one("#lab-message", Static)
        try:
            parsed = read_input(text, self.src)
        except ValueError as exc:
            msg.update(Text(f"error: {exc}", style="bold red"))
            return False
        self.bits = parsed.bits
        msg.update(Text(input_note(text, self.src, parsed), style="yellow"))
        self.query_one(BitEditor).bits = self.bits
        self.refresh_all()
        return True

    def _fit_side_b(self) -> None:
        """A new pair: side B moves to its default for the pair when the pair refuses the
        set-up it has (a choice the user made that still applies is kept)."""
        if self.iss_mode:
            return
        side = self.query_one("#lab-side-b", LabSide)
        if not side.accepts(self.src, self.dst):
            side.set_up(side_b_default(self.src, self.dst))

    def step_value(self, direction: int) -> bool:
        """Move the input to the next (direction > 0) or previous representable value of
        the source format; False (and a message) when there is none."""
        code = adjacent_code(self.src, self.bits, direction)
        msg = self.query_one("#lab-message", Static)
        if code is None:
            x = fmt_value(value_of(self.src, self.bits))
            msg.update(Text(f"{self.src.name} has no value {'above' if direction > 0 else 'below'}"
                            f" {x}", style="yellow"))
            return False
        self.bits = code
        self.query_one("#lab-input", Input).value = fmt_value(value_of(self.src, code))
        msg.update("")
        self.query_one(BitEditor).bits = code
        self.refresh_all()
        return True

    def refresh_all(self) -> None:
        x = value_of(self.src, self.bits)
        digits = (self.src.bits + 3) // 4
        self.query_one("#lab-value", Static).update(Text.assemble(
            ("input ", "bold"), f"{self.src.name} 0x{self.bits:0{digits}X} = ",
            (fmt_value(x), "bold yellow"), f"   →  {self.dst.name}"))
        if self.iss_mode:
            self.query_one(IssSide).show(self.bits, self.prim, self.iss_params)
            return
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
        if not self.iss_mode:
            self._change_src(parse_format(str(event.value)))

    @on(Select.Changed, "#lab-dst")
    def _dst_changed(self, event: Select.Changed) -> None:
        if not self.iss_mode:
            self.dst = parse_format(str(event.value))
            self._fit_side_b()
            self.refresh_all()

    @on(Select.Changed, "#lab-kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        if self.is_mounted:
            self.set_kind(event.select.value == "iss")

    @on(Select.Changed, "#iss-prim")
    def _prim_changed(self, event: Select.Changed) -> None:
        name = str(event.select.value)
        if self.is_mounted and name != self.iss_name:
            self.set_primitive(name)

    @on(Select.Changed, ".iss-param Select")
    def _param_changed(self, event: Select.Changed) -> None:
        # Read the picker's current value: set_options posts a Changed for its first option
        # before the primitive's value is set, and that stale event must change nothing.
        name = str(event.select.id).removeprefix("iss-")
        value = event.select.value
        if not self.is_mounted or name not in self.iss_params or value == self.iss_params[name]:
            return
        try:
            self.set_primitive(self.iss_name, **{**self.iss_params, name: value})
        except ValueError:  # a choice of another primitive's parameter of that name
            return

    @on(Select.Changed, "LabSide Select")
    @on(Checkbox.Changed)
    def _side_changed(self, event: Select.Changed | Checkbox.Changed) -> None:
        if self.is_mounted:
            self.refresh_all()
