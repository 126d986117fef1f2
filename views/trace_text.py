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

from machine.convert.formats import Format
from views.lab_model import bit_string, encoding_marks, fmt_value, value_of
from views.roles import styled_bits

WRAP = 72  # explanation lines are wrapped (with indent) to this width
FLAG_NAMES: tuple[str, ...] = ("inexact", "tie", "saturated", "overflow", "nan", "inf")
FLAG_STYLES: dict[str, str] = {
    "inexact": "yellow", "tie": "bold magenta", "saturated": "bold red",
    "overflow": "red", "nan": "bold red", "inf": "red",
}


def trace_flags(trace: Any) -> list[str]:
    """The flag names a trace raises, in FLAG_NAMES order."""
    return [f for f in FLAG_NAMES if bool(getattr(trace, f, False))]


def _num(v: Any) -> str:
    if isinstance(v, Fraction):
        if v.denominator == 1 and abs(v.numerator) < 10**12:
            return str(v.numerator)
        return f"{float(v):.10g}"
    if isinstance(v, float):
        return fmt_value(v)
    return str(v)


def encoding_text(fmt: Format, bits: int) -> Text:
    """`0 01111111 0000000` coloured by field, then the hex code."""
    text = styled_bits(bit_string(fmt, bits), encoding_marks(fmt))
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
        if before and before != after:
            text.append("   ")
            text.append_text(styled_bits(before, marks if len(before) == len(after) else []))
            text.append("\n   → ", style="dim")
            text.append_text(styled_bits(after, marks))
            text.append("\n")
        elif after:
            text.append("   ")
            text.append_text(styled_bits(after, marks))
            text.append("\n")
        why = getattr(step, "text", "")
        if why:  # wrapped here so continuation lines keep the step's indent
            text.append(textwrap.fill(why, WRAP, initial_indent="   ",
                                      subsequent_indent="   ") + "\n", style="italic")
        values = getattr(step, "values", None) or {}
        if values:
            named = "  ".join(f"{k}={_num(v)}" for k, v in values.items())
            text.append(textwrap.fill(named, WRAP, initial_indent="   ",
                                      subsequent_indent="   ") + "\n", style="dim")
    return text
