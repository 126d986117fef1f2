"""Bit roles and their colours: the one table every bit-level view uses.

The roles are those of a conversion trace step's marks (machine.convert.trace):
sign, exponent, mantissa, kept, guard, round, sticky, dropped, carry, pad, and
HiFloat8's dot / exp_sign, hybrid's frac / thr. The table itself lives in
machine.convert.roles; this module renders it with rich.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text

# the one table (machine.convert.roles: the `convert` CLI reads it without Textual)
from neurondbg.machine.convert.roles import ROLE_STYLES, ROLES, field_marks, role_per_bit

__all__ = ["ROLE_ORDER", "ROLE_STYLES", "field_marks", "role_legend", "role_per_bit",
           "styled_bits"]

ROLE_ORDER: tuple[str, ...] = ROLES


def role_legend(roles: Iterable[str] = ROLE_ORDER) -> Text:
    """A one-line key: each role name in its own colour."""
    text = Text()
    for role in roles:
        text.append(f" {role} ", style=ROLE_STYLES.get(role, ""))
        text.append(" ")
    return text


def styled_bits(bits: str, marks: Sequence[tuple[int, int, str]] = (),
                split: bool = True, cursor: int | None = None) -> Text:
    """`bits` coloured by role; with `split`, a space where the role changes."""
    roles = role_per_bit(len(bits), marks)
    text = Text()
    for i, (ch, role) in enumerate(zip(bits, roles, strict=True)):
        if split and i and role != roles[i - 1]:
            text.append(" ")
        style = ROLE_STYLES.get(role, "") if role else ""
        if cursor == i:
            style = f"{style} reverse".strip()
        text.append(ch, style=style)
    return text
