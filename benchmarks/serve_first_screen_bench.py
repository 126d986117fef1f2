"""How long a `neurondbg serve` page takes to become usable (goal: <= 3 s after the
page loads). Prints figures; not part of the test run.

    python benchmarks/serve_first_screen_bench.py [--runs N] [--settle S] [--warm W ...]

For each `--warm` count (default: 0, textual-serve's way, one cold `neurondbg tui` per
page; and 1, the default, one app started ahead), a server is started on
examples/loop.asm; then N times: wait S seconds (a visitor arriving while the server is
idle, so a waiting app has started), load the page as a browser does (GET with the
token), open the WebSocket the page names, and time until the app's screen says
`loaded loop.asm` (the program is loaded: keys step it). A last visitor arrives right
after another, before a replacement has started ("back to back"). Wall seconds from the
page request; the machine's load is printed with them (a shared machine skews them).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = ROOT / "examples" / "loop.asm"
READY = b"loaded loop.asm"
WAIT_S = 120.0  # a hang guard per visitor


async def visit(base: str, token: str) -> float:
    """Seconds from the page's request until its app's screen shows READY."""
    jar = aiohttp.CookieJar(unsafe=True)
    t0 = time.perf_counter()
    async with aiohttp.ClientSession(cookie_jar=jar) as session:
        async with session.get(f"{base}/?token={token}") as r:
            page = await r.text()
        path = re.search(r'data-websocket-path="([^"]+)"', page)
        assert path is not None, page[:400]
        ws = await session.ws_connect(f"{base}{path.group(1)}?width=120&height=40",
                                      origin=base)
        seen = b""
        async with asyncio.timeout(WAIT_S):
            async for msg in ws:
                if msg.type == aiohttp.WSMsgType.BINARY:
                    seen += bytes(msg.data)
                    if READY in seen:
                        break
        elapsed = time.perf_counter() - t0
        await ws.close()
    return elapsed


def bench(warm: int, runs: int, settle: float) -> None:
    with tempfile.TemporaryDirectory() as saves:
        proc = subprocess.Popen(
            [sys.executable, "-m", "neurondbg", "serve", str(PROGRAM), "--port", "0",
             "--warm", str(warm), "--save-dir", saves], cwd=ROOT,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stderr is not None
            url = proc.stderr.readline().split()[2]
            base, _, token = url.partition("/?token=")
            idle = []
            for _ in range(runs):
                time.sleep(settle)
                idle.append(asyncio.run(visit(base, token)))
            back_to_back = asyncio.run(visit(base, token))
        finally:
            proc.terminate()
            proc.wait(30)
    load = os.getloadavg()[0]
    print(f"--warm {warm}: page to usable screen, idle server: best {min(idle):.2f} s, "
          f"median {statistics.median(idle):.2f} s, worst {max(idle):.2f} s "
          f"({runs} visits); back to back: {back_to_back:.2f} s; load average {load:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--settle", type=float, default=12.0)
    ap.add_argument("--warm", type=int, nargs="+", default=[0, 1])
    args = ap.parse_args()
    for warm in args.warm:
        bench(warm, args.runs, args.settle)


if __name__ == "__main__":
    main()
