"""Issue 17's small items: an unknown console command names the nearest command, and a
key means one thing per screen (no pane's key shadows a key of its screen or the App)."""

from __future__ import annotations

import pytest

from neurondbg.console import COMMANDS, REGISTRY, execute


@pytest.mark.parametrize(("typed", "meant"), [
    ("stpe", "step"), ("contineu", "continue"), ("brek", "break"), ("dignose", "diagnose"),
    ("reverse-contine", "reverse-continue"), ("step/3", "step")])
def test_an_unknown_command_names_the_nearest_one(typed: str, meant: str) -> None:
    lines = execute(typed, None).lines
    assert lines == [(f"error: unknown command {typed!r}; did you mean {meant!r}? "
                      "(`help` lists every command)", "bold red")]


def test_a_word_near_no_command_lists_them_all() -> None:
    lines = execute("frobnicate", None).lines
    assert lines == [("error: unknown command 'frobnicate'; expected one of: "
                      + ", ".join(COMMANDS), "bold red")]
    assert REGISTRY.nearest("frobnicate") is None
    assert REGISTRY.nearest("zz") is None  # not taken for the alias `z`-anything
