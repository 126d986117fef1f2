"""TUI benchmarks (issue 6). Prints figures; not part of the test run.

    /work/venv/bin/python benchmarks/tui_bench.py

1. process start -> first frame of the demo program (target <= 1 s);
2. per step at 160x50 with every pane visible: the model step plus rendering
   every visible line of every widget, median over 200 steps (target <= 16 ms);
3. tracing one conversion lane and showing it in the Convert-trace pane;
4. per core step at 160x50 in the NeuronCore layout with five engines, the timeline
   already 10,000 steps long (issue 16: median <= 16 ms; only visible columns render).
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual.geometry import Region  # noqa: E402

from neurondbg.app import NeurondbgApp  # noqa: E402
from neurondbg.screens.main import DebuggerScreen  # noqa: E402
from sessions.examples import DEMO  # noqa: E402
from views.lanes import LanesView  # noqa: E402

LOOP = ROOT / "tests" / "ui" / "data" / "loop.asm"
CAST = ROOT / "tests" / "ui" / "data" / "steps.asm"
SIZE = (160, 50)
FIRST_FRAME = """
import asyncio, sys
from neurondbg.app import NeurondbgApp
async def main():
    app = NeurondbgApp({program!r})
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        app.export_screenshot()
        print("frame", flush=True)
        await app.wait_loaded()
        await pilot.pause()
        app.export_screenshot()
        print("loaded", flush=True)
asyncio.run(main())
"""


def first_frame(program: Path, runs: int = 3) -> tuple[float, float]:
    """Seconds from spawning the interpreter to the first composed frame, and to the frame
    with the program loaded (it loads in a worker after the first frame); best of runs."""
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


async def per_step(program: Path, steps: int = 200) -> tuple[float, float, int]:
    """(median ms, max ms, lines rendered per step) of step + show + render."""
    app = NeurondbgApp(program)
    times: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DebuggerScreen)
        lines = 0
        for _ in range(steps):
            t0 = time.perf_counter()
            app.session.step(1)
            screen.show(app.session.snapshot())
            lines = render_all(screen)
            times.append(time.perf_counter() - t0)
            if app.session.state.halted:
                app.session.reverse(app.session.state.steps)
    return statistics.median(times) * 1e3, max(times) * 1e3, lines


# Five engines, each a counted SEQ loop, with a semaphore handshake between loops.
CORE_LOOP = """
    MOVE R1=0 R2={n}
loop:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=1
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop
    NOP {sync}
    MOVE R2={n}
again:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=1
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=again
    HALT
"""


def five_engine_kernel(folder: Path, n: int = 2000) -> Path:
    """A five-engine `.engine` kernel: POOL signals sem[1], the others wait for it."""
    parts = []
    for e in ("pool", "dve", "act", "pe", "sp"):
        sync = "update_mode=SEM_INC_READ update_idx=1" if e == "pool" else \
            "wait_mode=SEM_GE_IMM wait_idx=1 semaphore_value=1"
        parts.append(f".engine {e}\n" + CORE_LOOP.format(n=n, sync=sync))
    path = folder / "five_loops.asm"
    path.write_text("".join(parts))
    return path


async def core_step(kernel: Path, warm: int = 10_000, steps: int = 200
                    ) -> tuple[float, float, int]:
    """(median ms, max ms, lines rendered per step) of a core step + show + render, with a
    `warm`-step timeline behind it."""
    from neurondbg.screens.core import CoreScreen

    app = NeurondbgApp(kernel)
    times: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CoreScreen)
        session = app.session
        session.core.cont(max_steps=warm)
        lines = 0
        for _ in range(steps):
            t0 = time.perf_counter()
            session.step_core()
            screen.show(session.snapshot())
            lines = render_all(screen)
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3, max(times) * 1e3, lines


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
    print(f"first frame: {frame:.3f} s (target <= 1 s); {demo.name} loaded and shown: "
          f"{loaded:.3f} s")
    med, worst, lines = asyncio.run(per_step(LOOP))
    print(f"per step, SEQ loop, all panes ({lines} lines rendered): median {med:.2f} ms, "
          f"max {worst:.2f} ms   (target <= 16 ms)")
    med, worst, lines = asyncio.run(per_step(demo))
    print(f"per step, {demo.name} (with conversions): median {med:.2f} ms, max {worst:.2f} ms")
    print(f"trace + show one lane: median {asyncio.run(lane_trace(CAST)):.2f} ms")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        med, worst, lines = asyncio.run(core_step(five_engine_kernel(Path(tmp))))
    print(f"per core step, five engines, 10,000-step timeline ({lines} lines rendered): "
          f"median {med:.2f} ms, max {worst:.2f} ms   (target <= 16 ms)")


if __name__ == "__main__":
    main()
