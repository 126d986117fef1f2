"""TUI benchmarks. Prints figures; not part of the test run.

    /work/venv/bin/python benchmarks/tui_bench.py

1. process start -> first frame painted of the demo program (target <= 0.5 s);
2. per step at 160x50 with every pane visible: the model step plus rendering
   every visible line of every widget, median over 200 steps (target <= 16 ms);
3. tracing one conversion lane and showing it in the Convert-trace pane;
4. per core step at 160x50 in the NeuronCore layout with five engines, the timeline
   already 10,000 steps long (target: median <= 8 ms; only visible columns render).

Per-step figures are wall milliseconds and, in brackets, CPU milliseconds of the
process (steadier on a shared machine). The screen is laid out once after the warm-up
(as the App does between frames), so each pane is measured at the height it is shown.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual.geometry import Region  # noqa: E402

from neurondbg.app import NeurondbgApp  # noqa: E402
from neurondbg.machine.isa.programs import handshake_loops, kernel_text  # noqa: E402
from neurondbg.screens.main import DebuggerScreen  # noqa: E402
from neurondbg.sessions.examples import DEMO  # noqa: E402
from neurondbg.views.lanes import LanesView  # noqa: E402

LOOP = ROOT / "tests" / "ui" / "data" / "loop.asm"
CAST = ROOT / "tests" / "ui" / "data" / "steps.asm"
SIZE = (160, 50)
CPU_MEDIAN = [0.0]  # the last _render_steps' median CPU ms per step
FIRST_FRAME = """
import asyncio, sys
from neurondbg.app import NeurondbgApp
display = NeurondbgApp._display
def first_paint(app, screen, update):  # the first debugger frame handed to the driver
    if update is not None and screen.id in ("debugger", "core") and not app.painted:
        app.painted = True
        print("frame", flush=True)
    display(app, screen, update)
NeurondbgApp._display = first_paint
NeurondbgApp.painted = False
async def main():
    app = NeurondbgApp({program!r})
    async with app.run_test(size=(160, 50)) as pilot:
        await app.wait_loaded()
        await pilot.pause()
        app.export_screenshot()
        print("loaded", flush=True)
asyncio.run(main())
"""


def first_frame(program: Path, runs: int = 3) -> tuple[float, float]:
    """Seconds from spawning the interpreter to the first frame painted (handed to the
    headless driver), and to the frame with the program loaded (it loads in a worker
    after the first frame); best of runs. benchmarks/tui_first_frame_bench.py breaks the
    first frame down."""
    best = [float("inf"), float("inf")]
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", FIRST_FRAME.format(program=str(program))],
                                stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("frame"):
                best[0] = min(best[0], time.perf_counter() - t0)
            elif line.startswith("loaded"):
                best[1] = min(best[1], time.perf_counter() - t0)
        proc.wait()
    return best[0], best[1]


def render_all(screen: DebuggerScreen) -> int:
    """Render every visible line of every widget of the screen; returns the line count."""
    lines = 0
    for widget in screen.query("*"):
        if not widget.display or widget.size.area == 0:
            continue
        crop = Region(0, 0, widget.size.width, widget.size.height)
        lines += len(widget.render_lines(crop))
    return lines


async def _render_steps(program: Path, screen_type: type, step: Callable[[Any], object],
                        steps: int, warm: Callable[[Any], object] | None = None,
                        reset: Callable[[Any], object] | None = None
                        ) -> tuple[float, float, int]:
    """(median ms, max ms, lines rendered per step) of `step(session)` + show + render on
    `program` open in the app at SIZE; `warm(session)` runs once first and `reset(session)`
    before each step, both untimed. The median CPU ms is kept in CPU_MEDIAN."""
    app = NeurondbgApp(program)
    times: list[float] = []
    cpu: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, screen_type)
        session = app.session
        if warm is not None:
            warm(session)
            screen.show(session.snapshot())
            await pilot.pause()  # the layout after the warm-up: the panes at their heights
        lines = 0
        for _ in range(steps):
            if reset is not None:
                reset(session)
            t0, c0 = time.perf_counter(), time.process_time()
            step(session)
            screen.show(session.snapshot())
            lines = render_all(screen)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    CPU_MEDIAN[0] = statistics.median(cpu) * 1e3
    return statistics.median(times) * 1e3, max(times) * 1e3, lines


async def per_step(program: Path, steps: int = 200) -> tuple[float, float, int]:
    """(median ms, max ms, lines rendered per step) of step + show + render; a halted
    program is reversed to its start (untimed) and stepped again."""
    def rewind(session: Any) -> None:
        if session.state.halted:
            session.reverse(session.state.steps)

    return await _render_steps(program, DebuggerScreen, lambda s: s.step(1), steps,
                               reset=rewind)


def five_engine_kernel(folder: Path, n: int = 2000) -> Path:
    """A five-engine `.engine` kernel, each a counted SEQ loop twice: POOL signals sem[1]
    between its loops, the others wait for it there."""
    wait = "wait_mode=SEM_GE_IMM wait_idx=1 semaphore_value=1"
    path = folder / "five_loops.asm"
    path.write_text(kernel_text(
        pool=handshake_loops(n, sync="update_mode=SEM_INC_READ update_idx=1"),
        **{e: handshake_loops(n, sync=wait) for e in ("dve", "act", "pe", "sp")}))
    return path


async def core_step(kernel: Path, warm: int = 10_000, steps: int = 200
                    ) -> tuple[float, float, int]:
    """(median ms, max ms, lines rendered per step) of a core step + show + render, with a
    `warm`-step timeline behind it."""
    return await _render_steps(kernel, DebuggerScreen, lambda s: s.step_core(), steps,
                               warm=lambda s: s.core.cont(max_steps=warm))


async def lane_trace(program: Path, repeats: int = 50) -> float:
    """Median ms to trace one lane and show it in the Convert-trace pane."""
    app = NeurondbgApp(program)
    times: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        await pilot.press("s", "s")
        await pilot.pause()
        lanes = app.screen.query_one(LanesView)
        for i in range(repeats):
            t0 = time.perf_counter()
            lanes.show_lane(i % 4)
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main() -> None:
    demo = DEMO if DEMO.exists() else CAST
    frame, loaded = first_frame(demo)
    print(f"first frame painted: {frame:.3f} s (target <= 0.5 s); {demo.name} loaded and shown: "
          f"{loaded:.3f} s")
    med, worst, lines = asyncio.run(per_step(LOOP))
    print(f"per step, SEQ loop, all panes ({lines} lines rendered): median {med:.2f} ms "
          f"({CPU_MEDIAN[0]:.2f} CPU), max {worst:.2f} ms   (target <= 16 ms)")
    med, worst, lines = asyncio.run(per_step(demo))
    print(f"per step, {demo.name} (with conversions): median {med:.2f} ms "
          f"({CPU_MEDIAN[0]:.2f} CPU), max {worst:.2f} ms")
    print(f"trace + show one lane: median {asyncio.run(lane_trace(CAST)):.2f} ms")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        med, worst, lines = asyncio.run(core_step(five_engine_kernel(Path(tmp))))
    print(f"per core step, five engines, 10,000-step timeline ({lines} lines rendered): "
          f"median {med:.2f} ms ({CPU_MEDIAN[0]:.2f} CPU), max {worst:.2f} ms   (target <= 8 ms)")


if __name__ == "__main__":
    main()
