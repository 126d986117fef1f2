"""The TUI's first frame is composed without the model. Which modules are
imported when the App's first debugger frame is painted (an import check, never a
timing: benchmarks/tui_first_frame_bench.py times it), and the first look that picks
the layout agrees with the full kernel check."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from neurondbg.sessions.examples import DEMO, folder
from neurondbg.sessions.kernel_kind import FIRST_LOOK_BYTES, cannot_be_kernel, opens_as_kernel
from tests.helpers import modules_after

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "numpy",
    "ml_dtypes",
    "textual_plotext",
    "neurondbg.machine.expr",
    "neurondbg.machine.convert",
    "neurondbg.machine.debugger",
    "neurondbg.machine.engines",
    "neurondbg.machine.core.kernel",
    "neurondbg.sessions.store",
    "neurondbg.debug.session",
    "neurondbg.views.memory",
    "neurondbg.views.plot",
    "neurondbg.views.lanes",
    "neurondbg.views.accum",
    "neurondbg.palette",
)
PROBE = """
import asyncio, json, sys
from neurondbg.app import NeurondbgApp
seen = {}
display = NeurondbgApp._display
def first_paint(app, screen, update):  # the first debugger frame handed to the driver
    if update is not None and screen.id == "debugger" and "painted" not in seen:
        seen["painted"] = [m for m in HEAVY if m in sys.modules]
    display(app, screen, update)
NeurondbgApp._display = first_paint
HEAVY = %r
async def main():
    app = NeurondbgApp(%r)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.wait_loaded()
        await pilot.pause()
        seen["loaded"] = [m for m in HEAVY if m in sys.modules]
        seen["stop"] = app.session.stop_text
asyncio.run(main())
print(json.dumps(seen))
"""


def test_the_first_frame_of_a_session_imports_no_model_and_the_load_does() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE % (HEAVY, str(DEMO))],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["painted"] == []
    # the probe can tell: once loaded, the session model and the numpy views are there
    assert {
        "numpy",
        "neurondbg.machine.debugger",
        "neurondbg.debug.session",
        "neurondbg.views.memory",
        "neurondbg.views.plot",
    } <= set(seen["loaded"])
    assert seen["stop"].startswith("session at step")


def test_the_console_commands_are_declared_without_the_model() -> None:
    code = "from neurondbg.console import REGISTRY\nassert 'diagnose' in REGISTRY.names"
    assert modules_after(code) & set(HEAVY) == set()


KERNEL_ASM = ".engine pool\n    HALT\n.engine dve\n    HALT\n"


@pytest.mark.parametrize(("name", "text", "first_look"), [
    ("plain.asm", "    MOVE R1=1\n    HALT\n", True),
    ("kernel.asm", KERNEL_ASM, False),
    ("shouting.asm", KERNEL_ASM.upper(), False),
    ("labelled.asm", "a: .Engine pool\n    HALT\n", False),
    ("session.toml", 'schema = 1\n[program]\npath = "x.asm"\n', True),
    ("manifest.toml", '[engines]\npool = "p.asm"\n', False),
    ("kernel_session.toml", 'schema = 1\n[kernel]\npath = "k.toml"\n', False),
    ("broken_manifest.toml", "[engines]\npool = \n", False),
    ("broken.toml", "[program\n", True),
    ("records.bin", "\x00" * 64, True),
])
def test_the_first_look_agrees_with_the_full_check(tmp_path: Path, name: str, text: str,
                                                   first_look: bool) -> None:
    path = tmp_path / name
    path.write_text(text)
    assert cannot_be_kernel(path) is first_look
    full = _full_check(path)
    assert opens_as_kernel(path) is full
    if first_look:  # "cannot be" must never contradict the full check
        assert full is False


def test_the_first_look_reads_no_large_file_and_no_missing_one(tmp_path: Path) -> None:
    big = tmp_path / "big.asm"
    big.write_bytes(b"    HALT\n" * (FIRST_LOOK_BYTES // 9 + 1))
    assert not cannot_be_kernel(big)  # the full check decides
    assert opens_as_kernel(big) is False
    assert not cannot_be_kernel(tmp_path / "missing.asm")
    assert opens_as_kernel(tmp_path / "missing.asm") is False


def test_the_shipped_examples_open_in_the_same_layout_as_before() -> None:
    paths = sorted(p for p in folder().rglob("*") if p.is_file() and p.suffix != ".py")
    assert len(paths) > 10
    assert {p.name: opens_as_kernel(p) for p in paths} == \
        {p.name: _full_check(p) for p in paths}
    assert any(opens_as_kernel(p) for p in paths)


def _full_check(path: Path) -> bool:
    """The layout choice without the first look (what opens_as_kernel did before)."""
    from neurondbg.machine.core.kernel import is_kernel_source
    from neurondbg.sessions.kernel_kind import kernel_session_spec

    try:
        return is_kernel_source(path) or kernel_session_spec(path) is not None
    except (OSError, ValueError):
        return False


def test_a_large_binary_program_is_painted_before_numpy_is_imported(tmp_path: Path) -> None:
    """Past the first look's size (FIRST_LOOK_BYTES), the full kernel check runs before
    the first frame: for records by name it reads nothing and imports neither numpy nor
    the assembler (machine.core.kernel and machine.files import them where used)."""
    big = tmp_path / "big.bin"
    big.write_bytes(bytes(64) * (FIRST_LOOK_BYTES // 64 + 1))  # NOP-free zero records
    model = (
        "numpy",
        "ml_dtypes",
        "neurondbg.machine.asm",
        "neurondbg.machine.isa.codec",
        "neurondbg.machine.debugger",
    )
    out = subprocess.run([sys.executable, "-c", PROBE % (model, str(big))],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["painted"] == []
    assert {"numpy", "neurondbg.machine.asm", "neurondbg.machine.debugger"} <= set(seen["loaded"])
