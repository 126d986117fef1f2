"""The distribution installs one top-level package, neurondbg: machine/, sessions/,
debug/ and views/ are its subpackages (links in neurondbg/), and no source names them
as top-level packages (run from the repository's root, the checkout is on sys.path,
where `import machine` would still work and hide a missed rewrite)."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("machine", "sessions", "debug", "views")


def top_level_imports(source: str) -> list[str]:
    """The modules of the layers a source imports as top-level packages."""
    out = []
    for node in ast.walk(ast.parse(source)):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                 else [])
        out += [n for n in names if n.split(".")[0] in LAYERS]
    return out


def test_top_level_imports_are_found() -> None:
    assert top_level_imports("import machine.asm\nfrom views import x\nimport os") == [
        "machine.asm", "views"]
    assert top_level_imports("from neurondbg.machine import asm\nimport neurondbg") == []


def test_no_source_imports_a_layer_at_the_top_level() -> None:
    files = {p.resolve() for top in (*LAYERS, "neurondbg", "tests", "benchmarks", "scripts")
             for p in (ROOT / top).rglob("*.py")} - {Path(__file__).resolve()}
    found = [f"{p.relative_to(ROOT)}: {name}" for p in sorted(files)
             for name in top_level_imports(p.read_text(encoding="utf-8"))]
    assert found == []


def test_the_subpackages_are_links_to_the_top_level_folders() -> None:
    for name in LAYERS:
        link = ROOT / "neurondbg" / name
        assert link.is_symlink() and link.resolve() == (ROOT / name).resolve()


def _can_build_a_wheel_offline() -> bool:
    """setuptools with a bdist_wheel: its own (70.1 on) or the `wheel` package's."""
    if importlib.util.find_spec("setuptools") is None:
        return False
    return (importlib.util.find_spec("wheel") is not None
            or importlib.util.find_spec("setuptools.command.bdist_wheel") is not None)


# .ci/run checks the wheel it builds the same way, whatever this environment holds
@pytest.mark.skipif(not _can_build_a_wheel_offline(),
                    reason="building the wheel offline needs setuptools with bdist_wheel")
def test_the_wheel_holds_only_neurondbg(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                        "--no-build-isolation", "--wheel-dir", str(tmp_path), str(ROOT)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    (wheel,) = tmp_path.glob("neurondbg-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/RECORD"))
        top = z.read(f"{info}/top_level.txt").decode().split()
        record = [line.split(",")[0] for line in z.read(f"{info}/RECORD").decode().splitlines()]
    assert top == ["neurondbg"]
    assert {p.split("/")[0] for p in record} == {"neurondbg", info}
    for name in ("neurondbg/machine/asm/assembler.py", "neurondbg/sessions/examples/demo.asm",
                 "neurondbg/views/neurondbg.tcss"):
        assert name in names
