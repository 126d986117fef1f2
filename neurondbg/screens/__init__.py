"""Screens of the TUI beyond the main debugger layout."""
