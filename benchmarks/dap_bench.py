"""DAP benchmarks: a real `neurondbg dap` process over stdio. Prints figures.

    python benchmarks/dap_bench.py [--starts 10] [--launches 5] [--steps 200] [--reads 50]

0. Start-up: from spawning the adapter to its `initialize` response, median and worst
   of STARTS fresh processes, for each way it is started: `neurondbg dap` (the console
   script: the CLI, then the command; what editors run), `python -m neurondbg dap` and
   `python -m neurondbg.commands.dap`. `initialize` is answered before the model and
   dap_types are imported (neurondbg/dap/session.py).
1. Launch: from spawning the adapter to its `initialize` response, and from there
   through `launch` (stopOnEntry) and `configurationDone` to the `stopped` event,
   median of LAUNCHES fresh processes.
2. Step round trip: `next` sent -> its response and the `stopped` event received,
   median and 95th percentile over STEPS steps of a counted loop.
3. Variables: `variables` of the Registers scope (64 registers, PC, status), median
   over READS requests.

The client is the test suite's (tests/dap/client.py: Content-Length framing to
`python -m neurondbg.commands.dap`, the module the `neurondbg dap` console script runs).
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _harness import run, timed  # noqa: E402

from neurondbg.machine.isa.programs import counted_loop  # noqa: E402
from tests.dap.client import Process, encode  # noqa: E402

FOLDER = [Path(".")]  # the run's temporary folder (set in main, removed after)


def _program(trips: int) -> Path:
    path = FOLDER[0] / f"loop{trips}.asm"
    path.write_text(counted_loop(trips))
    return path


def _launched(program: Path) -> tuple[Process, float, float]:
    """A stopped-on-entry adapter on `program`; (client, spawn -> initialize response,
    initialize -> stopped)."""
    t0 = time.perf_counter()
    c = Process()
    c.ok("initialize", adapterID="neurondbg", linesStartAt1=True)
    t1 = time.perf_counter()
    c.ok("launch", program=str(program), stopOnEntry=True)
    c.event("initialized")
    c.ok("configurationDone")
    c.event("stopped")
    return c, t1 - t0, time.perf_counter() - t1


def _close(c: Process) -> None:
    c.ok("disconnect")
    c.close()


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.2f} ms"


def _spawn_to_initialize(argv: list[str]) -> float:
    """Seconds from spawning `argv` to the first byte of its `initialize` response."""
    request = encode({"seq": 1, "type": "request", "command": "initialize",
                      "arguments": {"adapterID": "bench"}})
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(request)
        proc.stdin.flush()
        first = proc.stdout.read(1)
        elapsed = time.perf_counter() - t0
        assert first == b"C", first
        return elapsed
    finally:
        proc.kill()
        proc.wait()


def starts(n: int) -> None:
    script = shutil.which("neurondbg", path=str(Path(sys.executable).parent))
    ways = {"neurondbg dap": [script, "dap"] if script else None,
            "python -m neurondbg dap": [sys.executable, "-m", "neurondbg", "dap"],
            "python -m neurondbg.commands.dap": [sys.executable, "-m",
                                                 "neurondbg.commands.dap"]}
    print(f"start-up: spawn -> initialize response ({n} processes each):")
    for name, argv in ways.items():
        if argv is None:
            print(f"  {name:34s} (no console script beside {sys.executable})")
            continue
        times = [_spawn_to_initialize(argv) for _ in range(n)]
        print(f"  {name:34s} median {_ms(statistics.median(times))}, worst {_ms(max(times))}")


def launches(n: int) -> None:
    program = _program(10)
    spawn, ready = [], []
    for _ in range(n):
        c, a, b = _launched(program)
        spawn.append(a)
        ready.append(b)
        _close(c)
    print(f"launch ({n} processes, median):")
    print(f"  spawn -> initialize response      {_ms(statistics.median(spawn))}")
    print(f"  initialize -> launch -> stopped   {_ms(statistics.median(ready))}")


def steps(n: int) -> None:
    c, _, _ = _launched(_program(n))  # 3 instructions a trip: never halts within n steps

    def one() -> None:
        c.ok("next", threadId=1)
        c.event("stopped")

    times = [timed(one)[1] for _ in range(n)]
    _close(c)
    p95 = statistics.quantiles(times, n=20)[-1]
    print(f"step round trip ({n} steps): median {_ms(statistics.median(times))}, "
          f"p95 {_ms(p95)}")


def reads(n: int) -> None:
    c, _, _ = _launched(_program(10))
    scopes = c.ok("scopes", frameId=1)["scopes"]
    ref = next(s["variablesReference"] for s in scopes if s["name"] == "Registers")
    count = len(c.ok("variables", variablesReference=ref)["variables"])
    times = [timed(lambda: c.ok("variables", variablesReference=ref))[1] for _ in range(n)]
    _close(c)
    print(f"variables, Registers scope ({count} variables, {n} requests): median "
          f"{_ms(statistics.median(times))}")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="dap-bench-") as tmp:
        FOLDER[0] = Path(tmp)
        run(__doc__, starts, launches, steps, reads, starts=10, launches=5, steps=200,
            reads=50)
