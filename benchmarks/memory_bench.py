"""History memory benchmarks. Prints figures; asserts nothing about time.

    python benchmarks/memory_bench.py [--run-steps 50000000] [--cont-steps 20000000]
                                      [--long-steps 40000000]

1. A headless `run` (journal_budget=0: no history) of a tight SEQ loop: peak RSS growth
   and the bytes history holds.
2. A TUI-style `continue` with history under the default budget (256 MiB): the same.
3. A longer `continue` (its journal would be ~2x the budget, so history is folded), then
   reverse past the kept window (restore a checkpoint, replay): time of a jump to the
   middle and to near the start, of one reverse-step there, and of a reverse-continue
   that has to search the folded history for a watched register.

Each scenario runs in a child process, so its peak RSS (ru_maxrss) is its own; the
figure is the growth over the RSS just before the run started.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys

from _harness import core, options, timed

from neurondbg.machine.core.core import Core
from neurondbg.machine.history import JOURNAL_BUDGET
from neurondbg.machine.isa.programs import counted_loop

# R5 is written once, by the MOVE at step 1: the reverse-continue target.
WRITE_R5 = "    MOVE R5=7\n"
MIB = 1 << 20


def _rss() -> int:
    """Current resident set size in bytes (Linux /proc)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def _peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def scenario(name: str, steps: int) -> dict[str, float]:
    budget = 0 if name == "run" else JOURNAL_BUDGET
    m = core(counted_loop(max(1, (steps - 3) // 3), prelude=WRITE_R5),
             journal_budget=budget)
    base = _rss()
    stop, dt = timed(m.cont)
    st = m.state()
    out = {"steps": st.steps, "seconds": dt, "stop": stop.reason,
           "peak_growth": _peak() - base, "history": m.history_nbytes,
           "journal": st.journal.nbytes, "checkpoints": len(m._timeline.checkpoints),
           "window_start": st.journal.origin}
    if name == "long":
        out.update(_reverse_figures(m))
    return out


def _reverse_figures(m: Core) -> dict[str, float]:
    st = m.state()
    end = st.steps
    _, mid = timed(lambda: m.reverse(end - end // 2))
    assert st.steps == end // 2
    _, near = timed(lambda: m.reverse(st.steps - 1000))
    _, one = timed(m.reverse_step)
    m.cont()
    m.add_breakpoint("watch:R5")  # written once, at step 1: deep in the folded history
    stop, rc = timed(m.reverse_continue)
    assert stop.reason == "breakpoint" and st.steps == 1, stop
    return {"reverse_mid": mid, "reverse_near_start": near, "reverse_step_there": one,
            "reverse_continue_to_step_1": rc}


def _child(name: str, steps: int) -> dict[str, float]:
    cmd = [sys.executable, __file__, "--child", name, "--steps", str(steps)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main() -> None:
    ap = options(__doc__, run_steps=50_000_000, cont_steps=20_000_000,
                 long_steps=40_000_000, steps=0)
    ap.add_argument("--child", choices=("run", "cont", "long"))
    args = ap.parse_args()
    if args.child:
        print(json.dumps(scenario(args.child, args.steps)))
        return
    r = _child("run", args.run_steps)
    print(f"headless run, no history: {r['steps']:,} steps in {r['seconds']:.1f} s "
          f"({r['steps'] / r['seconds']:,.0f}/s, stop: {r['stop']}); peak RSS growth "
          f"{r['peak_growth'] / MIB:.1f} MiB; history holds {r['history'] / MIB:.2f} MiB")
    for name, steps in (("cont", args.cont_steps), ("long", args.long_steps)):
        c = _child(name, steps)
        print(f"continue with history (budget {JOURNAL_BUDGET / MIB:.0f} MiB): "
              f"{c['steps']:,} steps in {c['seconds']:.1f} s ({c['steps'] / c['seconds']:,.0f}"
              f"/s); peak RSS growth {c['peak_growth'] / MIB:.1f} MiB; history holds "
              f"{c['history'] / MIB:.1f} MiB (journal {c['journal'] / MIB:.1f} MiB, "
              f"{c['checkpoints']:.0f} checkpoints, kept window from step "
              f"{c['window_start']:,})")
    print(f"  reverse to the middle (before that window): {c['reverse_mid']:.2f} s; to step 1000: "
          f"{c['reverse_near_start']:.2f} s; one reverse-step there: "
          f"{c['reverse_step_there'] * 1e3:.2f} ms")
    print(f"  reverse-continue to a watch hit at step 1 (searching folded history): "
          f"{c['reverse_continue_to_step_1']:.1f} s")


if __name__ == "__main__":
    main()
