"""views/ holds widgets only (the rule in views/__init__.py): each module defines a
Textual widget, or builds rich text for the widgets of views/ alone."""

from __future__ import annotations

import ast
import importlib
import inspect
import os
from pathlib import Path

import pytest
from textual.widget import Widget

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("machine", "sessions", "debug", "views", "neurondbg")  # the package's folders
# The session controllers and snapshot types still in views/ until they join debug/.
def view_modules() -> list[str]:
    return sorted(p.stem for p in (ROOT / "views").glob("*.py") if p.stem != "__init__")


def imports_of(path: Path) -> set[str]:
    """The modules `path` imports (`from a.b import c` counts a.b and a.b.c)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def package_files() -> dict[str, Path]:
    """Every module of the package by dotted name (the links under neurondbg/ skipped:
    their folders are walked as themselves)."""
    files: dict[str, Path] = {}
    for layer in LAYERS:
        for folder, _dirs, names in os.walk(ROOT / layer):  # does not follow the links
            for name in names:
                if name.endswith(".py"):
                    rel = (Path(folder) / name).relative_to(ROOT).with_suffix("")
                    parts = rel.parts if layer == "neurondbg" else ("neurondbg", *rel.parts)
                    files[".".join(parts)] = Path(folder) / name
    return files


def defines_widget(name: str) -> bool:
    module = importlib.import_module(f"neurondbg.views.{name}")
    return any(issubclass(cls, Widget) and cls.__module__ == module.__name__
               for _, cls in inspect.getmembers(module, inspect.isclass))


def broken_rule(target: str, widget: bool, files: dict[str, Path]) -> str:
    """Why module `target` of views/ breaks the rule ("" when it keeps it): it defines
    a widget (`widget`), or it imports rich and no module outside views/ imports it."""
    if widget:
        return ""
    if not any(m == "rich" or m.startswith("rich.") for m in imports_of(files[target])):
        return f"{target}: no widget and no rich text: it belongs in debug/"
    outside = sorted(m for m, path in files.items()
                     if not m.startswith("neurondbg.views.") and target in imports_of(path))
    return f"{target} renders for widgets, but {outside} import it" if outside else ""


@pytest.mark.parametrize("name", view_modules())
def test_a_views_module_is_a_widget_or_renders_for_one(name: str) -> None:
    assert broken_rule(f"neurondbg.views.{name}", defines_widget(name), package_files()) == ""


def test_the_rule_refuses_a_model_and_a_shared_helper(tmp_path: Path) -> None:
    """A module with no widget and no rich text breaks it, and so does rich text that a
    module outside views/ imports; a widget module, or rich text only views/ reads, keeps
    it. (The shipped modules all keep it: this shows the check can fail.)"""
    model = tmp_path / "model.py"
    model.write_text("import math\n")
    text = tmp_path / "text.py"
    text.write_text("from rich.text import Text\n")
    reader = tmp_path / "reader.py"
    reader.write_text("from neurondbg.views.text import Text\n")
    files = {"neurondbg.views.model": model, "neurondbg.views.text": text,
             "neurondbg.views.reader": reader}
    assert "belongs in debug/" in broken_rule("neurondbg.views.model", False, files)
    assert broken_rule("neurondbg.views.model", True, files) == ""
    assert broken_rule("neurondbg.views.text", False, files) == ""
    files["neurondbg.console"] = reader
    assert "['neurondbg.console'] import it" in broken_rule("neurondbg.views.text", False, files)
    assert defines_widget("program") and not defines_widget("roles")
