"""What feeding the ALWAYS_FED panes (Program, SBUF) costs a step while they are hidden.

    python benchmarks/hidden_panes_bench.py

neurondbg/screens/main.py feeds "program" and "memory" every step even when a tab or a
maximised pane hides them (their cursor / window follow the steps). This measures, in
CPU time (time.process_time: the machine is shared), one step + `screen.show` + the
render of what is on screen, over STEPS steps of the demo, in two hidden states:
- 100x30 (compact), the Registers tab on show: SBUF hidden, Program shown;
- 160x50 with the Registers pane maximised (z): Program and SBUF both hidden;
each with ALWAYS_FED as shipped and with it emptied (the panes fed on show instead),
and also the two `show` calls alone. Prints medians and the best of ROUNDS rounds.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import neurondbg.screens.main as main_screen  # noqa: E402
from benchmarks.tui_bench import render_all  # noqa: E402
from neurondbg.app import NeurondbgApp  # noqa: E402
from neurondbg.sessions.examples import DEMO  # noqa: E402

STEPS = 150
ROUNDS = 3


async def run(size: tuple[int, int], maximise: bool, fed: tuple[str, ...]) -> dict[str, float]:
    """Median ms per step of (step + show + render) and of the hidden panes' show alone."""
    main_screen.ALWAYS_FED = fed
    app = NeurondbgApp(DEMO)
    step_ms: list[float] = []
    feed_ms: list[float] = []
    async with app.run_test(size=size) as pilot:
        await app.wait_loaded()
        await pilot.pause()
        screen = app.screen
        screen.build_views()
        if maximise:
            screen.maximize(screen.query_one("#pane-registers"))
        else:
            screen.select_tab("registers")
        await pilot.pause()
        hidden = [n for n in ("program", "memory") if not screen.pane_shown(n)]
        session = app.session
        program, memory = screen.query_one("#program"), screen.query_one("#memory")
        for _ in range(STEPS):
            if session.state.halted:
                session.reverse(session.state.steps)  # untimed: back to the start
            t0 = time.process_time()
            session.step(1)
            snap = session.snapshot()
            screen.show(snap)
            render_all(screen)
            step_ms.append((time.process_time() - t0) * 1e3)
            t1 = time.process_time()
            for name, view in (("program", program), ("memory", memory)):
                if name in hidden:
                    view.show(snap)
            feed_ms.append((time.process_time() - t1) * 1e3)
    return {"step": statistics.median(step_ms), "feed": statistics.median(feed_ms),
            "hidden": len(hidden)}


def main() -> None:
    shipped = main_screen.ALWAYS_FED
    for size, maximise, label in (((100, 30), False, "100x30, Registers tab (SBUF hidden)"),
                                  ((160, 50), True, "160x50, Registers maximised "
                                                    "(Program + SBUF hidden)")):
        for fed, name in ((shipped, "ALWAYS_FED as shipped"), ((), "fed on show only")):
            rounds = [asyncio.run(run(size, maximise, fed)) for _ in range(ROUNDS)]
            steps = [r["step"] for r in rounds]
            feeds = [r["feed"] for r in rounds]
            print(f"{label}, {name}: step+show+render median {min(steps):.2f} ms "
                  f"(rounds {min(steps):.2f}..{max(steps):.2f}); the hidden panes' show "
                  f"alone {min(feeds):.3f} ms ({min(feeds):.3f}..{max(feeds):.3f})")
    main_screen.ALWAYS_FED = shipped


if __name__ == "__main__":
    main()
