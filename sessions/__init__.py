"""Session files, trace export and shipped tours (never imports Textual)."""
