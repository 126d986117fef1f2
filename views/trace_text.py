"""Render one lane's conversion trace (machine.convert.trace.Trace) as rich Text.

Used by the Convert Lab and by the Convert-trace pane, so a lane looks the same
everywhere. Reads the trace's fields; computes nothing about rounding.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from rich.text import Text

from neurondbg.debug.lab_model import bit_string, encoding_marks, fmt_value, value_of
from neurondbg.debug.numfmt import number, shorten
from neurondbg.machine.convert._trace_model import LANE_FLAGS
from neurondbg.machine.convert.formats import Format
from neurondbg.machine.convert.roles import bit_parts, elide
from neurondbg.views.roles import styled_bits

WRAP = 72  # explanation lines are wrapped (with indent) to this width
ELIDE_OVER = 24  # a bit-string part longer than this reads 1000…(N bits)…0001
LINE_WIDTH = 29  # the candidates' number line, in cells
# the flags a trace raises beyond exact/inexact's "exact" (summary_text says "exact" itself)
FLAG_NAMES: tuple[str, ...] = tuple(f for f in LANE_FLAGS if f != "exact")
FLAG_STYLES: dict[str, str] = {
    "inexact": "yellow", "tie": "bold magenta", "saturated": "bold red",
    "overflow": "red", "underflow": "cyan", "nan": "bold red", "inf": "red",
}


def trace_flags(trace: Any) -> list[str]:
    """The flag names a trace raises, in FLAG_NAMES order."""
    return [f for f in FLAG_NAMES if bool(getattr(trace, f, False))]


def _num(v: Any) -> str:
    """A step's named value: numbers as every pane prints them (debug.numfmt)."""
    if isinstance(v, Fraction | float | int):
        return number(v)
    return str(v)


def encoding_text(fmt: Format, bits: int) -> Text:
    """`0 01111111 0000000` coloured by field, then the hex code."""
    text = styled_bits(bit_string(fmt, bits), encoding_marks(fmt, bits))
    digits = max(1, (fmt.bits + 3) // 4)
    text.append(f"  0x{bits:0{digits}X}", style="dim")
    return text


def neighbours_text(dst: Format, out_bits: int, x: float,
                    near: Sequence[tuple[int, float | int]]) -> Text:
    """Representable values around the exact input x; the result highlighted."""
    text = Text("neighbours  ", style="bold")
    placed = False
    for code, value in near:
        if not placed and value > x:
            text.append(f"▶ {fmt_value(x)} ◀  ", style="bold yellow")
            placed = True
        style = "reverse bold" if code == out_bits else ""
        text.append(f"{fmt_value(value)}", style=style)
        text.append(f" ({code:#x})  ", style="dim")
    if not placed and near:
        text.append(f"▶ {fmt_value(x)} ◀", style="bold yellow")
    return text


def summary_text(trace: Any, src: Format, dst: Format) -> Text:
    """Result line, error and flags of a trace."""
    out = int(trace.output_bits)
    text = Text()
    text.append("out  ", style="bold")
    text.append_text(encoding_text(dst, out))
    text.append(f"  = {fmt_value(value_of(dst, out))}\n", style="bold")
    error = getattr(trace, "error", None)
    if error is not None:
        text.append("error ", style="bold")
        text.append(_num(error))
        text.append("   ")
    flags = trace_flags(trace)
    text.append("flags ", style="bold")
    if flags:
        for f in flags:
            text.append(f" {f} ", style=f"reverse {FLAG_STYLES[f]}")
            text.append(" ")
    else:
        text.append("exact", style="green")
    return text


def trace_bits(bits: str, marks: Sequence[tuple[int, int, str]]) -> Text:
    """A step's bit string: parts coloured by role and, as the panes always did, a space
    between them (so they stay apart without colour too: NO_COLOR); a long part elided
    in the middle with its count. The CLI's piped text uses `|` (machine.convert.roles)."""
    shown, shown_marks, pos = "", [], 0
    for chunk, role in bit_parts(bits, marks):
        part = elide(chunk, ELIDE_OVER)
        if role is not None:
            shown_marks.append((pos, pos + len(part), role))
        shown += part
        pos += len(part)
    return styled_bits(shown, shown_marks)


def number_line(c: dict[str, Any]) -> Text:
    """The two candidates on a small number line: `├` below, `┼` halfway, `┤` above, `●`
    the exact input; the chosen end in reverse video.

    `c` is a trace's candidates (machine.convert trace: below/above {bits, value},
    halfway, chosen, distance_below)."""
    lo, hi = Fraction(c["below"]["value"]), Fraction(c["above"]["value"])
    x = lo + Fraction(c["distance_below"])
    span = hi - lo
    width = LINE_WIDTH

    def at(v: Fraction) -> int:
        return min(width - 1, max(0, round((v - lo) / span * (width - 1))))

    cells = ["─"] * width
    cells[0], cells[-1], cells[at(Fraction(c["halfway"]))] = "├", "┤", "┼"
    cells[at(x)] = "●"
    text = Text("   ")
    for side in ("below", "above"):
        cand = c[side]
        label = f"{_num(Fraction(cand['value']))} ({cand['bits'] or 'none'})"
        style = "reverse bold" if c["chosen"] == side else ""
        if side == "above":
            text.append(" ")
        text.append(label, style=style)
        if side == "below":
            text.append(" ")
            text.append("".join(cells), style="bold yellow")
    text.append(f"\n   ● exact {_num(x)}  ┼ halfway  chosen: {c['chosen']}, "
                f"error {c['error_ulps']:+.3g} ulp\n", style="dim")
    return text


def steps_text(trace: Any) -> Text:
    """Every step: title, bits before -> after coloured by role, why, named values."""
    text = Text()
    for n, step in enumerate(getattr(trace, "steps", ()), 1):
        text.append(f"{n:2} {step.name}", style="bold cyan")
        title = getattr(step, "title", "")
        if title:
            text.append(f"  {title}", style="bold")
        text.append("\n")
        marks = list(getattr(step, "marks", ()) or ())
        before = getattr(step, "bits_before", "") or ""
        after = getattr(step, "bits_after", "") or ""
        marks_before = list(getattr(step, "marks_before", ()) or ())
        if before and before != after:
            text.append("   ")
            text.append_text(trace_bits(before, marks_before))
            if after:
                text.append("\n   → ", style="dim")
                text.append_text(trace_bits(after, marks))
            text.append("\n")
        elif after:
            text.append("   ")
            text.append_text(trace_bits(after, marks))
            text.append("\n")
        why = getattr(step, "text", "")
        if why:  # wrapped here so continuation lines keep the step's indent
            text.append(textwrap.fill(shorten(why), WRAP, initial_indent="   ",
                                      subsequent_indent="   ") + "\n", style="italic")
        values = getattr(step, "values", None) or {}
        cand = values.get("candidates")
        if isinstance(cand, dict):
            text.append_text(number_line(cand))
        values = {k: v for k, v in values.items() if not isinstance(v, dict)}
        if values:
            named = "  ".join(f"{k}={_num(v)}" for k, v in values.items())
            text.append(textwrap.fill(named, WRAP, initial_indent="   ",
                                      subsequent_indent="   ") + "\n", style="dim")
    return text
