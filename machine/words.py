"""Words that agree with their count ("1 step", "2 steps", "1 entry is")."""

from __future__ import annotations


def plural(n: int, one: str, many: str | None = None) -> str:
    """`one` when n is 1, else `many` (default: `one` + "s")."""
    return one if n == 1 else (many if many is not None else one + "s")


def counted(n: int, one: str, many: str | None = None) -> str:
    """n with thousands separators and its word: "1 step", "1,024 steps"."""
    return f"{n:,} {plural(n, one, many)}"
