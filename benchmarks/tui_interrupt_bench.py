"""TUI interrupt benchmarks. Prints figures; not part of the test run.

    python benchmarks/tui_interrupt_bench.py [REVERSE_STEPS]

1. Loading a session saved at step 10**12 (it replays in the load worker): the
   status line's progress, and the time from Esc to the worker's end (target
   <= 100 ms).
2. `step N` and `reverse 2N/3` (default N = 5,000,000 steps of an endless loop):
   the time they take uninterrupted, and from Esc (0.2 s into one) to its end.
3. The UI while a load runs: the time a key press takes to be handled (the UI
   thread is not blocked by the worker).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual import events  # noqa: E402

from neurondbg.app import NeurondbgApp  # noqa: E402

LOOP = ROOT / "tests" / "ui" / "data" / "loop.asm"
SIZE = (160, 50)


async def load_interrupt(folder: Path) -> None:
    session = folder / "huge.toml"
    app = NeurondbgApp(LOOP)
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        app.run_command(f"save {session}")
        await pilot.pause()
        session.write_text(session.read_text().replace("steps = 0", f"steps = {10**12}"))
        app.run_command(f"open {session}")
        await pilot.pause(0.5)
        print(f"load of a session at step 10**12, 0.5 s in: {app.screen.sub_title}")
        # a key while loading: from posting it to its effect (the console focused);
        # not pilot.press, which also waits for the screen to settle
        t0 = time.perf_counter()
        app.post_message(events.Key("colon", ":"))
        while getattr(app.focused, "id", None) != "console-input":
            await asyncio.sleep(0.001)
        key = time.perf_counter() - t0
        t0 = time.perf_counter()
        app.post_message(events.Key("escape", None))
        while app.loading:  # until the worker has handed its result to the UI
            await asyncio.sleep(0.001)
        took = time.perf_counter() - t0
        print(f"  a key press while loading: {key * 1e3:.1f} ms")
        print(f"  Esc -> load stopped: {took * 1e3:.1f} ms (loading={app.loading})")


async def reverse_interrupt(n: int) -> None:
    back = 2 * n // 3  # not to the start (a checkpoint restore): undone step by step
    app = NeurondbgApp(LOOP)
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_loaded()
        t0 = time.perf_counter()
        await app.run_command_async(f"step {n}")
        print(f"step {n:,} (in the worker): {time.perf_counter() - t0:.2f} s")
        t0 = time.perf_counter()
        await app.run_command_async(f"reverse {back}")
        print(f"reverse {back:,} uninterrupted: {time.perf_counter() - t0:.2f} s "
              f"(now at step {app.session.state.steps:,})")
        await app.run_command_async(f"step {back}")
        for what in (f"reverse {back}", f"step {n}"):
            app.run_command(what)
            await pilot.pause(0.2)
            t0 = time.perf_counter()
            app.post_message(events.Key("escape", None))
            while app.running:
                await asyncio.sleep(0.001)
            took = time.perf_counter() - t0
            print(f"{what}, Esc after 0.2 s -> stopped: {took * 1e3:.1f} ms "
                  f"(at step {app.session.state.steps:,})")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000_000
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(load_interrupt(Path(folder)))
    asyncio.run(reverse_interrupt(n))


if __name__ == "__main__":
    main()
