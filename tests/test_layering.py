"""Dependencies point one way: machine <- sessions <- views <- neurondbg."""

import subprocess
import sys

import pytest


def imported_by(package: str) -> set[str]:
    """The top-level packages loaded in a fresh interpreter that imports every module of
    `package`."""
    code = (
        "import importlib, pkgutil, sys\n"
        f"pkg = importlib.import_module({package!r})\n"
        "for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(' '.join(sorted({n.split('.')[0] for n in sys.modules})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize("package", ["machine", "sessions"])
def test_import_pulls_in_no_textual(package: str) -> None:
    assert imported_by(package) & {"textual", "rich", "views", "neurondbg", "click"} == set()


def test_machine_does_not_import_sessions() -> None:
    loaded = imported_by("machine")
    assert "machine" in loaded and "sessions" not in loaded
