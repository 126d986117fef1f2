"""The Legality pane repaints whenever what it shows changes: a new verdict object (even
one whose id() a freed verdict had) and the `a` toggle (cached lines keyed by
the verdicts' ids would keep drawing the collapsed tree's lines after a toggle)."""

from __future__ import annotations

import neurondbg.views.legality  # noqa: F401
from neurondbg import views
from neurondbg.debug.snapshot import Snapshot
from neurondbg.machine.legality.explain import explain
from neurondbg.machine.legality.wire.samples import example
from neurondbg.views.legality import LegalityView
from tests.ui.helpers import started

COPY_MISMATCH = "sessions/examples/copy_type_mismatch.asm"


def drawn(view: LegalityView) -> list[str]:
    """The pane's rows as painted (through its line cache)."""
    return [view.render_line(y).text.rstrip() for y in range(view.size.height)]


def wanted(view: LegalityView) -> list[str]:
    top = int(view.scroll_offset.y)
    return [t.plain.rstrip() for t in view.lines[top:top + view.size.height]]


async def test_a_new_verdict_with_a_reused_id_is_shown(monkeypatch) -> None:
    # Every object gets the same id(): a verdict freed and another made at its address.
    monkeypatch.setattr(views.legality, "id", lambda obj: 1, raising=False)
    valid = explain(example("is_valid_copy"), "cayman")
    invalid = explain(example("is_valid_copy", dst_mem_pattern__start_addr=0x401), "cayman")
    assert valid.valid and not invalid.valid
    async with started(COPY_MISMATCH) as (app, _pilot):
        view = app.screen.query_one(LegalityView)
        view.show(Snapshot(verdict=valid))
        assert "VALID" in view.lines[0].plain and "INVALID" not in view.lines[0].plain
        view.show(Snapshot(verdict=invalid))
        assert "INVALID" in view.lines[0].plain


async def test_the_same_verdict_objects_do_not_rebuild_the_text() -> None:
    verdict = explain(example("is_valid_copy"), "cayman")
    async with started(COPY_MISMATCH) as (app, _pilot):
        view = app.screen.query_one(LegalityView)
        view.show(Snapshot(verdict=verdict))
        lines = view.lines
        view.show(Snapshot(verdict=verdict, steps=3))
        assert view.lines is lines


async def test_a_draws_the_expanded_tree_where_the_view_is_scrolled() -> None:
    async with started(COPY_MISMATCH) as (app, pilot):
        view = app.screen.query_one(LegalityView)
        for _ in range(6):  # to the failing COPY
            if view._snap is not None and view._snap.verdict is not None \
                    and not view._snap.verdict.valid:
                break
            await pilot.press("s")
            await pilot.pause()
        view.focus()
        await pilot.pause()
        folded = next(i for i, t in enumerate(view.lines) if "▸" in t.plain)
        view.scroll_to(y=folded, animate=False)
        await pilot.pause()
        top = int(view.scroll_offset.y)
        assert drawn(view) == wanted(view)  # the collapsed rows, drawn and cached
        await pilot.press("a")
        view.scroll_to(y=top, animate=False)
        await pilot.pause()
        assert int(view.scroll_offset.y) == top
        assert "▸" not in "".join(wanted(view))
        assert drawn(view) == wanted(view)


async def test_a_new_text_after_a_kept_one_draws_its_own_lines() -> None:
    # A kept text shown again brings back its older version; the next new text must not
    # take the version after it, which another kept text holds (its cached lines).
    valid = explain(example("is_valid_copy"), "cayman")
    invalid = explain(example("is_valid_copy", dst_mem_pattern__start_addr=0x401), "cayman")
    async with started(COPY_MISMATCH) as (app, _pilot):
        view = app.screen.query_one(LegalityView)
        for snap in (Snapshot(verdict=valid), Snapshot(verdict=invalid),
                     Snapshot(verdict=valid), Snapshot(), Snapshot(verdict=invalid)):
            view.show(snap)
            want = wanted(view)
            assert drawn(view)[:len(want)] == want
