"""The first frame comes before the model: the App's module leaves the
session model and the palette to the load worker, and the first load starts once that
frame is painted. Import checks, not timings (benchmarks/tui_bench.py times it)."""

from __future__ import annotations

from pathlib import Path

from neurondbg.sessions.examples import folder
from tests.helpers import modules_after

LOOP = Path(__file__).parent / "data" / "loop.asm"
KERNEL = folder() / "kernels" / "producer_consumer.asm"


def _loaded_after(code: str, modules: tuple[str, ...]) -> list[str]:
    """Which of `modules` a fresh interpreter has imported after running `code`."""
    return sorted(modules_after(code) & set(modules))


def test_the_app_module_leaves_the_session_model_and_the_palette_for_later() -> None:
    assert (
        _loaded_after(
            "import neurondbg.app",
            (
                "neurondbg.debug.session",
                "neurondbg.palette",
                "neurondbg.machine.debugger",
            ),
        )
        == []
    )


def test_choosing_the_layout_does_not_load_a_session_model() -> None:
    code = f"import neurondbg.app\nassert not neurondbg.app._is_kernel({str(LOOP)!r})"
    assert _loaded_after(code, ("neurondbg.debug.session",)) == []
    code = f"import neurondbg.app\nassert neurondbg.app._is_kernel({str(KERNEL)!r})"
    assert _loaded_after(code, ("neurondbg.debug.session",)) == []


def test_the_listing_register_struct_and_core_panes_import_without_numpy() -> None:
    panes = (
        "neurondbg.debug.snapshot",
        "neurondbg.views.program",
        "neurondbg.views.registers",
        "neurondbg.views.struct_view",
        "neurondbg.views.legality",
        "neurondbg.views.timeline",
        "neurondbg.views.engines",
        "neurondbg.views.semaphores",
        "neurondbg.views.pane",
        "neurondbg.views.lineview",
        "neurondbg.views.textlines",
    )
    assert _loaded_after("\n".join(f"import {m}" for m in panes), ("numpy",)) == []


def test_the_fp32_register_view_reads_the_bits_as_fp32() -> None:
    from neurondbg.views.registers import reg_text

    shown = {bits: reg_text(bits, "fp32") for bits in (
        0x3F800000, 0xC0490FDB, 0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001)}
    assert [s.strip() for s in shown.values()] == ["1", "-3.142", "inf", "-inf", "nan",
                                                   "1.401e-45"]
    assert {len(s) for s in shown.values()} == {11}


def test_the_app_guesses_a_kernel_layout_without_numpy_or_the_assembler() -> None:
    """App() picks the first screen's layout from a first look at the file
    (sessions.kernel_kind.looks_like_kernel); the load worker checks it."""
    for path, kernel in ((KERNEL, True), (LOOP, False)):
        code = (f"from neurondbg.app import NeurondbgApp\n"
                f"assert NeurondbgApp({str(path)!r}).core_mode is {kernel}")
        assert _loaded_after(code, ("numpy", "neurondbg.machine.asm.assembler",
                                    "neurondbg.machine.core.kernel")) == []
