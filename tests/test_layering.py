"""Dependencies point one way: machine <- sessions <- views <- neurondbg."""

import pytest

from tests.helpers import modules_after


def imported_by(package: str) -> set[str]:
    """The top-level packages loaded in a fresh interpreter that imports every module of
    `package`."""
    loaded = modules_after(
        "import importlib, pkgutil\n"
        f"pkg = importlib.import_module({package!r})\n"
        "for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "    importlib.import_module(m.name)")
    return {n.split(".")[0] for n in loaded}


@pytest.mark.parametrize("package", ["machine", "sessions"])
def test_import_pulls_in_no_textual(package: str) -> None:
    assert imported_by(package) & {"textual", "rich", "views", "neurondbg", "click"} == set()


def test_machine_does_not_import_sessions() -> None:
    loaded = imported_by("machine")
    assert "machine" in loaded and "sessions" not in loaded
