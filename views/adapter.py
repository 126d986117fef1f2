"""The old home of the UI's debugger wrapper: now views.session (Session), built into
panes' snapshots by views.snapshot_build. Kept only while neurondbg/app.py imports
`Session` from here."""

from views.session import Session

__all__ = ["Session"]
