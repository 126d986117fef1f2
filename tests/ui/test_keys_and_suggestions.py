"""Console and key details: an unknown console command names the nearest command, the
grey suggestion completes a command word (after one `:` too), and a
key means one thing per screen (no pane's key shadows a key of its screen or the App)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.binding import Binding

from neurondbg.console import COMMANDS, REGISTRY, execute
from neurondbg.sessions.examples import folder
from neurondbg.views.console_view import CommandSuggester
from neurondbg.views.legality import LegalityView
from tests.ui.helpers import started


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


def _keys(bindings: object) -> dict[str, Binding]:
    """key -> its Binding, for every key of a BINDINGS list ("escape,q": two keys)."""
    out: dict[str, Binding] = {}
    for b in bindings:  # type: ignore[attr-defined]
        if isinstance(b, Binding):
            out.update((k.strip(), b) for k in b.key.split(","))
    return out


@pytest.mark.parametrize("program", [None, folder() / "kernels" / "producer_consumer.asm"])
async def test_no_pane_key_shadows_a_key_of_its_screen_or_the_app(program: Path | None
                                                                  ) -> None:
    """A pane's own key would win over the screen's while that pane has the focus (the
    Legality pane's `e` over the kernel screen's `e` next engine, before). Escape is
    the one key every level takes in turn (stop this pane's work, then the App's)."""
    async with started(program) as (app, _pilot):
        screen = app.screen
        top = {k: b for k, b in {**_keys(type(app).BINDINGS),
                                 **_keys(type(screen).BINDINGS)}.items()
               if not b.priority and k != "escape"}
        shadowed = sorted((type(w).__name__, k) for w in screen.query("*")
                          for k in w._bindings.key_to_bindings if k in top)
        assert shadowed == []
        assert "a" in _keys(LegalityView.BINDINGS)  # all clauses


async def test_a_expands_the_legality_tree_and_e_on_a_kernel_still_moves_the_focus(
        ) -> None:
    async with started(folder() / "kernels" / "producer_consumer.asm") as (app, pilot):
        legality = app.screen.query_one(LegalityView)
        legality.focus()
        engine = app.session.engine
        await pilot.press("a")
        assert legality.expand
        await pilot.press("e")
        assert app.session.engine != engine and legality.expand


def test_the_help_lists_every_listing_key_from_its_binding() -> None:
    from neurondbg.screens.help import help_text, key_name
    from neurondbg.views.lineview import LineView

    text = help_text().plain
    for b in LineView.BINDINGS:
        for key in b.key.split(","):
            assert f"{key_name(key)}" in text and f"listing: {b.description}" in text


@pytest.mark.parametrize(("typed", "shown"), [
    ("brea", "break"), (":brea", ":break"), (": brea", ": break"), (":", None),
    ("::brea", None), (":zz", None)])
def test_the_grey_suggestion_completes_a_command_after_one_colon(
        typed: str, shown: str | None) -> None:
    suggester = CommandSuggester(list(COMMANDS), case_sensitive=True)
    assert asyncio.run(suggester.get_suggestion(typed)) == shown
