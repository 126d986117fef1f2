"""Session benchmarks (issue 7). Prints figures; not part of the test run.

    /work/venv/bin/python benchmarks/sessions_bench.py [--trips 200000]

A counted SEQ loop runs 3 * trips + 1 steps; then the session is saved (atomic
TOML write) and loaded again (replay to the saved step + state digest check),
and the run is exported as a trace and replayed against the program.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from machine.asm import assemble
from machine.debugger import Machine
from machine.state import MachineConfig
from sessions.replay import replay
from sessions.store import load_session, save_session
from sessions.trace import trace_hook, write_header

LOOP = """
    MOVE R1=0 R2={trips}
loop:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=3
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop
    HALT
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trips", type=int, default=200_000)
    ap.add_argument("--trace-trips", type=int, default=5_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        src = d / "loop.asm"
        src.write_text(LOOP.format(trips=args.trips))
        asm = assemble(src.read_text(), str(src))
        m = Machine(asm.program(), MachineConfig(), labels=asm.labels)
        t = time.perf_counter()
        stop = m.cont()
        run_s = time.perf_counter() - t
        steps = m.state.steps
        print(f"run: {steps:,} steps in {run_s:.3f} s (stop: {stop.reason})")
        session = d / "loop.toml"
        t = time.perf_counter()
        save_session(session, m, program_path=src)
        print(f"save session at step {steps:,}: {time.perf_counter() - t:.3f} s")
        t = time.perf_counter()
        loaded = load_session(session)
        load_s = time.perf_counter() - t
        ok = loaded.digest_ok and loaded.machine.state.digest() == m.state.digest()
        print(f"load session (replay to step {loaded.machine.state.steps:,} + digest): "
              f"{load_s:.3f} s, digest {'matches' if ok else 'DIFFERS'}")

        small = d / "small.asm"
        small.write_text(LOOP.format(trips=args.trace_trips))
        asm = assemble(small.read_text(), str(small))
        m = Machine(asm.program(), MachineConfig(), labels=asm.labels)
        trace = d / "t.jsonl"
        with trace.open("w") as fp:
            write_header(m.config, fp)
            m.on_step = trace_hook(fp)
            t = time.perf_counter()
            m.cont()
            export_s = time.perf_counter() - t
        n = m.state.steps
        print(f"trace export: {n:,} steps in {export_s:.3f} s = {n / export_s:,.0f} steps/s")
        t = time.perf_counter()
        result = replay(trace, small)
        rep_s = time.perf_counter() - t
        print(f"replay: {result.steps:,} steps in {rep_s:.3f} s = {result.steps / rep_s:,.0f} "
              f"steps/s ({'no divergence' if not result.diverged else 'DIVERGED'})")


if __name__ == "__main__":
    main()
