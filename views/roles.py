"""Bit roles and their colours: the one table every bit-level view uses.

The roles are those of a conversion trace step's marks (machine.convert.trace):
sign, exponent, mantissa, kept, guard, round, sticky, dropped, carry, pad.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text

ROLE_STYLES: dict[str, str] = {
    "sign": "bold #ff6b6b",
    "exponent": "bold #4dabf7",
    "mantissa": "bold #69db7c",
    "kept": "bold #69db7c",
    "guard": "bold black on #ffd43b",
    "round": "bold black on #ffa94d",
    "sticky": "bold black on #e599f7",
    "dropped": "#868e96",
    "carry": "bold black on #ff8787",
    "pad": "#495057",
}

ROLE_ORDER: tuple[str, ...] = tuple(ROLE_STYLES)


def role_legend(roles: Iterable[str] = ROLE_ORDER) -> Text:
    """A one-line key: each role name in its own colour."""
    text = Text()
    for role in roles:
        text.append(f" {role} ", style=ROLE_STYLES.get(role, ""))
        text.append(" ")
    return text


def role_per_bit(width: int, marks: Sequence[tuple[int, int, str]]) -> list[str | None]:
    """The role of each character of a bit string (index 0 = leftmost = MSB).

    A mark (start, end, role) covers string positions start..end-1; later marks
    win, so a trace can mark a field and then a guard bit inside it.
    """
    roles: list[str | None] = [None] * width
    for start, end, role in marks:
        for i in range(max(0, start), min(width, end)):
            roles[i] = role
    return roles


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


def field_marks(exp_bits: int, man_bits: int, signed: bool = True,
                pad_bits: int = 0) -> list[tuple[int, int, str]]:
    """Sign / exponent / mantissa / pad marks of a float encoding, MSB first."""
    marks: list[tuple[int, int, str]] = []
    pos = 0
    if signed:
        marks.append((0, 1, "sign"))
        pos = 1
    marks.append((pos, pos + exp_bits, "exponent"))
    pos += exp_bits
    if man_bits:
        marks.append((pos, pos + man_bits, "mantissa"))
        pos += man_bits
    if pad_bits:
        marks.append((pos, pos + pad_bits, "pad"))
    return marks
