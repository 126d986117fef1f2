"""neurondbg: the application shell (CLI, Textual App, command language)."""

__version__ = "0.1.0"
