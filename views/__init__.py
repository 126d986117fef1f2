"""Per-pane Textual widgets."""
