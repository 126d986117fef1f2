"""Counts and their words agree: "1 step", "2 steps", "1 entry is"."""

from __future__ import annotations

import pytest

from machine.words import counted, plural


@pytest.mark.parametrize(("n", "expected"), [
    (0, "0 steps"), (1, "1 step"), (2, "2 steps"), (1024, "1,024 steps"), (-1, "-1 steps"),
])
def test_counted_steps(n: int, expected: str) -> None:
    assert counted(n, "step") == expected


def test_irregular_plurals() -> None:
    assert [plural(n, "entry", "entries") for n in (0, 1, 2)] == ["entries", "entry", "entries"]
    assert [plural(n, "is", "are") for n in (1, 3)] == ["is", "are"]
    assert counted(1, "entry", "entries") == "1 entry"
