"""How fast `neurondbg replay` honours Ctrl+C on a large trace. Prints figures; asserts
nothing about time.

    python benchmarks/replay_bench.py [--mb 474] [--keep DIR]

Writes (in a temporary folder, removed afterwards unless --keep) a trace of about MB
megabytes for a two-instruction loop, every line what `run --trace` writes (the first
two lines come from a real `run --trace`, the rest repeat them with the step and the
counter advanced), then runs `neurondbg replay` with stderr on a pty and sends one
SIGINT in each phase:

1. counting: as soon as the bar (a pulse while the trace's steps are counted) shows;
2. replay: once the bar counts steps;
3. after a divergence: a copy of the trace whose line 10 differs, interrupted while the
   lines after the divergence are checked (1 s after the bar shows its count).

For each: the seconds from the SIGINT to the process's exit, the exit code and the
last line it printed. A last phase times a whole count-and-check of the diverging trace.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LOOP = """\
top:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=-1 target=top
"""
NEURONDBG = [sys.executable, "-m", "neurondbg"]
COUNTING = re.compile(rb"replay \S+")
COUNTED = re.compile(rb"[1-9][0-9]*/[0-9]+ steps")
SHOWN = re.compile(rb"[0-9]+/[0-9]+ steps")
ESCAPE = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def write_trace(folder: Path, mb: int) -> tuple[Path, Path]:
    """(trace, program): a loop's trace of about `mb` megabytes."""
    program = folder / "loop.asm"
    program.write_text(LOOP)
    seed = folder / "seed.jsonl"
    subprocess.run([*NEURONDBG, "run", str(program), "--max-steps", "2", "--trace",
                    str(seed)], check=True, stdout=subprocess.DEVNULL)
    header, add, branch = seed.read_text().splitlines()
    # the counter's write is the only thing besides the step that changes per iteration
    assert json.loads(add)["writes"][0] == {"target": "R1", "old": 0, "new": 1}, add
    assert "%" not in add + branch
    add_t = add.replace('"step": 0', '"step": %d').replace('"old": 0, "new": 1',
                                                             '"old": %d, "new": %d')
    branch_t = branch.replace('"step": 1', '"step": %d')
    trace = folder / "big.jsonl"
    limit = mb << 20
    with trace.open("w") as fh:
        fh.write(header + "\n")
        k = 0
        while fh.tell() < limit:
            block = []
            for _ in range(4096):
                block.append(add_t % (2 * k, k, k + 1))
                block.append(branch_t % (2 * k + 1))
                k += 1
            fh.write("\n".join(block) + "\n")
    return trace, program


def interrupted(args: list[str], when: re.Pattern[bytes], after: float) -> dict[str, object]:
    """Run `neurondbg ARGS` (stderr on a pty), SIGINT `after` seconds once the pty shows
    `when`: seconds from the signal to the exit, exit code, last line."""
    main, child = pty.openpty()
    proc = subprocess.Popen([*NEURONDBG, *args], stdout=subprocess.DEVNULL, stderr=child)
    os.close(child)
    seen, sent = bytearray(), None
    try:
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if sent is None and when.search(ESCAPE.sub(b"", bytes(seen[-4096:]))):
                time.sleep(after)
                proc.send_signal(signal.SIGINT)
                sent = time.perf_counter()
        proc.wait(timeout=600)
        gone = time.perf_counter()
    finally:
        proc.kill()
        os.close(main)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.decode("utf-8", "replace"))
    last = [line for line in text.replace("\r", "\n").splitlines() if line.strip()][-1:]
    return {"seconds": None if sent is None else round(gone - sent, 3),
            "exit": proc.returncode, "said": last[0] if last else ""}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=474)
    ap.add_argument("--keep", type=Path, help="a folder to write the traces in and keep")
    args = ap.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="replay-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        t = time.perf_counter()
        trace, program = write_trace(folder, args.mb)
        print(f"trace: {trace.stat().st_size / (1 << 20):.0f} MiB, "
              f"{sum(1 for _ in trace.open('rb')) - 1} steps, written in "
              f"{time.perf_counter() - t:.1f} s")
        diverging = folder / "diverging.jsonl"
        with trace.open() as src, diverging.open("w") as dst:
            for n, line in enumerate(src):
                if n == 10:
                    d = json.loads(line)
                    d["pc"] += 64
                    line = json.dumps(d) + "\n"
                dst.write(line)
        run = ["replay", str(trace), str(program)]
        print("counting:", interrupted(run, COUNTING, 0.0))
        print("replay:", interrupted(run, COUNTED, 0.2))
        print("after a divergence:", interrupted(["replay", str(diverging), str(program)],
                                                 SHOWN, 1.0))
        t = time.perf_counter()
        done = subprocess.run([*NEURONDBG, "replay", str(diverging), str(program)],
                              capture_output=True, text=True)
        print(f"whole replay of the diverging trace: {time.perf_counter() - t:.1f} s, exit "
              f"{done.returncode}: {done.stdout.strip()[:100]}")
    finally:
        if args.keep is None:
            shutil.rmtree(folder)


if __name__ == "__main__":
    main()
