"""SVG snapshots at 160x50 (pytest-textual-snapshot). Regenerate only in the pinned
environment: `pytest tests/ui/test_snapshots.py --snapshot-update`."""

from __future__ import annotations

from neurondbg.app import NeurondbgApp

SIZE = (160, 50)


def test_convert_lab(snap_compare) -> None:
    assert snap_compare(NeurondbgApp(lab_only=True), terminal_size=SIZE)
