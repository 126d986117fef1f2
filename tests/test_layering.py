"""Dependencies point one way: machine <- sessions <- debug <- views <- neurondbg."""

import pytest

from tests.helpers import modules_after


def layer(module: str) -> str:
    """The layer a loaded module belongs to: machine, sessions, debug and views are
    neurondbg.machine, ...; the rest of neurondbg is the neurondbg layer, but for
    the package itself (no code: its __init__ holds the version), which is none."""
    top, _, rest = module.partition(".")
    sub = rest.split(".")[0]
    if top == "neurondbg" and not rest:
        return ""
    return sub if top == "neurondbg" and sub in ("machine", "sessions", "debug", "views") else top


def imported_by(package: str) -> set[str]:
    """The top-level packages loaded in a fresh interpreter that imports every module of
    `package`."""
    loaded = modules_after(
        "import importlib, pkgutil\n"
        f"pkg = importlib.import_module('neurondbg.' + {package!r})\n"
        "for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "    importlib.import_module(m.name)")
    return {layer(n) for n in loaded} - {""}


@pytest.mark.parametrize("package", ["machine", "sessions"])
def test_import_pulls_in_no_textual(package: str) -> None:
    assert imported_by(package) & {"textual", "rich", "views", "neurondbg", "click"} == set()


def test_debug_pulls_in_no_widgets() -> None:
    assert imported_by("debug") & {"textual", "rich", "views", "neurondbg", "click"} == set()


def test_sessions_does_not_import_debug() -> None:
    assert "debug" not in imported_by("sessions")


def test_machine_does_not_import_sessions() -> None:
    loaded = imported_by("machine")
    assert "machine" in loaded and "sessions" not in loaded
