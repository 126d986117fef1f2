"""Session benchmarks. Prints figures; not part of the test run.

    /work/venv/bin/python benchmarks/sessions_bench.py [--trips 200000]

A counted SEQ loop runs 3 * trips + 1 steps; then the session is saved (atomic
TOML write) and loaded again (replay to the saved step + state digest check),
and the run is exported as a trace and replayed against the program.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from _harness import core, options, timed

from neurondbg.machine.isa.programs import counted_loop
from neurondbg.sessions.replay import replay
from neurondbg.sessions.store import load_session, save_session
from neurondbg.sessions.trace import trace_hook, write_header


def main() -> None:
    args = options(__doc__, trips=200_000, trace_trips=5_000).parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        src = d / "loop.asm"
        src.write_text(counted_loop(args.trips))
        c = core(src.read_text(), str(src))
        stop, run_s = timed(c.cont)
        steps = c.steps
        print(f"run: {steps:,} steps in {run_s:.3f} s (stop: {stop.reason})")
        session = d / "loop.toml"
        _, save_s = timed(lambda: save_session(session, c, program_path=src))
        print(f"save session at step {steps:,}: {save_s:.3f} s")
        loaded, load_s = timed(lambda: load_session(session))
        ok = loaded.digest_ok and loaded.machine.state.digest() == c.state().digest()
        print(f"load session (replay to step {loaded.machine.state.steps:,} + digest): "
              f"{load_s:.3f} s, digest {'matches' if ok else 'DIFFERS'}")

        small = d / "small.asm"
        small.write_text(counted_loop(args.trace_trips))
        c = core(small.read_text(), str(small))
        trace = d / "t.jsonl"
        with trace.open("w") as fp:
            write_header(c.machines[c.engines[0]].config, fp)
            c.on_step = trace_hook(fp)
            _, export_s = timed(c.cont)
        n = c.steps
        print(f"trace export: {n:,} steps in {export_s:.3f} s = {n / export_s:,.0f} steps/s")
        result, rep_s = timed(lambda: replay(trace, small))
        print(f"replay: {result.steps:,} steps in {rep_s:.3f} s = {result.steps / rep_s:,.0f} "
              f"steps/s ({'no divergence' if not result.diverged else 'DIVERGED'})")


if __name__ == "__main__":
    main()
