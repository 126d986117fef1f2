"""The controller layer: what a debug session offers the TUI (step, continue,
reverse, breakpoints, edits, its engines and capabilities), the snapshot it hands to
the panes, and the text those panes show. It drives `machine` and `sessions` and
never imports Textual, rich or `views`."""
