"""Served in a browser (`neurondbg serve`), a saved session also reaches the browser."""

from __future__ import annotations

from pathlib import Path

from neurondbg.app import NeurondbgApp
from tests.ui.helpers import started

STEPS = Path(__file__).parent / "data" / "steps.asm"


async def test_a_save_is_delivered_to_the_browser_only_when_served(monkeypatch,
                                                                   tmp_path) -> None:
    delivered: list[tuple[Path, str | None]] = []

    def deliver(self, path, *, save_filename=None, **_):
        delivered.append((Path(path), save_filename))

    monkeypatch.setattr(NeurondbgApp, "deliver_binary", deliver)
    async with started(STEPS) as (app, pilot):
        app.run_command(f"save {tmp_path / 'here.toml'}")
        await pilot.pause()
        assert (tmp_path / "here.toml").is_file() and delivered == []  # a terminal: no copy
        monkeypatch.setattr(NeurondbgApp, "is_web", property(lambda self: True))
        app.run_command(f"save {tmp_path / 'web.toml'}")
        await pilot.pause()
        assert delivered == [(tmp_path / "web.toml", "web.toml")]
