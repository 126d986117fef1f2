"""Bit roles of a trace's marks: their colours, and bit strings split into parts as text.

The one table of role styles (DESIGN "Traces in plain text"): the `convert` CLI (rich,
no Textual) and the views (views.roles) both read ROLE_STYLES from here. The styles are
plain rich style strings, so this module imports nothing but the standard library.

Without colour every bit string separates its parts with `|` (`plain_bits`); a part
longer than a limit is elided in the middle with a count (`1000…(118 bits)…0001`), so a
125-bit dropped part does not break a table. Elision is for display only: the JSON and
the Step keep every bit.
"""

from __future__ import annotations

from collections.abc import Sequence

Mark = tuple[int, int, str]

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
    "dot": "bold #fcc419",  # HiFloat8: the prefix-coded field that gives D
    "exp_sign": "bold #f783ac",  # HiFloat8: the sign bit of the sign-magnitude exponent
    "frac": "bold black on #e599f7",  # hybrid: the bits compared with thr
    "thr": "bold black on #63e6be",  # hybrid: the threshold read from the low bits
}

ROLES: tuple[str, ...] = tuple(ROLE_STYLES)

ELIDE_KEEP = 4  # bits shown at each end of an elided part


def role_per_bit(width: int, marks: Sequence[Mark]) -> list[str | None]:
    """The role of each character of a bit string (index 0 = leftmost = MSB).

    A mark (start, end, role) covers string positions start..end-1; later marks win,
    so a trace can mark a field and then a guard bit inside it.
    """
    roles: list[str | None] = [None] * width
    for start, end, role in marks:
        for i in range(max(0, start), min(width, end)):
            roles[i] = role
    return roles


def bit_parts(bits: str, marks: Sequence[Mark]) -> list[tuple[str, str | None]]:
    """`bits` cut where the role changes: [(chunk, role)], left to right."""
    parts: list[tuple[str, str | None]] = []
    for ch, role in zip(bits, role_per_bit(len(bits), marks), strict=True):
        if parts and parts[-1][1] == role:
            parts[-1] = (parts[-1][0] + ch, role)
        else:
            parts.append((ch, role))
    return parts


def elide(chunk: str, limit: int | None) -> str:
    """`chunk` itself, or its ends around `…(N bits)…` when longer than `limit`."""
    if limit is None or len(chunk) <= max(limit, 2 * ELIDE_KEEP + 1):
        return chunk
    return f"{chunk[:ELIDE_KEEP]}…({len(chunk)} bits)…{chunk[-ELIDE_KEEP:]}"


def plain_bits(bits: str, marks: Sequence[Mark], limit: int | None = None) -> str:
    """The bit string with `|` between its parts (sign|exponent|mantissa, kept|guard|...)."""
    return "|".join(elide(chunk, limit) for chunk, _ in bit_parts(bits, marks))


def field_marks(exp_bits: int, man_bits: int, signed: bool = True,
                pad_bits: int = 0) -> list[Mark]:
    """Sign / exponent / mantissa / pad marks of a float encoding, MSB first."""
    marks: list[Mark] = []
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
