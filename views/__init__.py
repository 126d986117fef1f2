"""The TUI's widgets: one module per pane's view (or a widget several views share).

What belongs here, as `tests/test_views_hold_widgets.py` checks it: every module
defines a Textual widget (a subclass of `textual.widget.Widget`), or it renders for
widgets of this package: it builds rich text and no module outside `views` imports it
(the bit roles' colours, a conversion trace's text). Whatever is not a widget or such
rendering (session controllers, snapshot types and builders, text and numbers that a
console command, the CLI or a pane all print, the Convert Lab's model) is the
controller layer, `debug/`, which loads neither Textual nor rich.
"""
