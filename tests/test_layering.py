"""Dependencies point one way: machine <- sessions <- views <- neurondbg."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize("package", ["machine", "sessions"])
def test_import_pulls_in_no_textual(package: str) -> None:
    code = (
        "import importlib, pkgutil, sys\n"
        f"pkg = importlib.import_module({package!r})\n"
        "for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in "
        "('textual', 'rich', 'views', 'neurondbg', 'click'))\n"
        "print(' '.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_machine_does_not_import_sessions() -> None:
    code = (
        "import importlib, pkgutil, sys\n"
        "import machine\n"
        "for m in pkgutil.walk_packages(machine.__path__, 'machine.'):\n"
        "    importlib.import_module(m.name)\n"
        "print('sessions' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
