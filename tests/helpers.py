"""Helpers for tests in more than one folder: what a fresh interpreter imports; one file
under other names; Ctrl+C a `neurondbg run` child process, and what every interrupted run
saves; a `neurondbg` child with stderr on a real terminal (a pty)."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any


def modules_after(code: str) -> set[str]:
    """The names in sys.modules of a fresh interpreter once it has run `code` (the import
    checks: what a command or a package pulls in, never how long it takes)."""
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))\n"
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                       check=True)
    return set(r.stdout.splitlines()[-1].split())


def aliases(path: Path) -> list[Path]:
    """The file `path` named four ways: itself, through `sub/..`, a hard link and a symbolic
    link (made beside it), for tests that an output naming an input is refused."""
    folder = path.parent
    (folder / "sub").mkdir()
    hard, sym = folder / f"hard{path.suffix}", folder / f"sym{path.suffix}"
    os.link(path, hard)
    sym.symlink_to(path)
    return [path, folder / "sub" / ".." / path.name, hard, sym]


def writing(target: Path) -> bool:
    """Whether an atomic write of `target` has begun putting data out: its temporary
    (`.NAME.*.tmp` beside it, sessions.atomic) is not empty."""
    return any(p.stat().st_size > 0 for p in target.parent.glob(f".{target.name}.*.tmp"))


def interrupted_run(args: list[str], ready: Callable[[int], bool]) -> tuple[int, str, str]:
    """Run `python -m neurondbg run ARGS` in a child and send it SIGINT (Ctrl+C) once
    `ready(pid)` holds, or when it has ended already; its exit code, stdout and stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "neurondbg", "run", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while proc.poll() is None and not ready(proc.pid):
            threading.Event().wait(0.02)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return proc.returncode, out, err


def interrupted_spin(folder: Path, text: str) -> tuple[dict[str, Any], str, Path]:
    """`run` the endless program (or kernel) `text` with --save-session, --trace and --json,
    Ctrl+C once the trace has data out, and check what every interrupted run gives: exit
    130, a stop "interrupt" at a step > 0, the session saved at that step and one trace line
    per step after the header. Returns the JSON result, stderr and the program's path."""
    spin = folder / "spin.asm"
    spin.write_text(text)
    sess, trace = folder / "s.toml", folder / "t.jsonl"
    code, out, err = interrupted_run([str(spin), "--max-steps", str(10**12), "--save-session",
                                      str(sess), "--trace", str(trace), "--json"],
                                     lambda _pid: writing(trace))
    assert code == 130, err
    result = json.loads(out)
    steps = result["steps"]
    assert result["stop"]["reason"] == "interrupt" and steps > 0
    assert tomllib.loads(sess.read_text())["position"]["steps"] == steps
    lines = trace.read_text().splitlines()
    assert len(lines) == steps + 1 and json.loads(lines[-1])["step"] == steps - 1
    return result, err, spin


def run_on_pty(args: list[str], interrupt_when: str | None = None,
               env: dict[str, str] | None = None, interrupts: int = 1,
               gap: float = 0.0) -> tuple[int, str, str]:
    """`neurondbg ARGS` with stderr on a pty and stdout piped: (code, stdout, pty text).
    With `interrupt_when`, `interrupts` SIGINTs `gap` seconds apart are sent once the
    pty has shown that text."""
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "neurondbg", *args], stdout=subprocess.PIPE,
                            stderr=child, text=True, env=env)
    os.close(child)
    seen = bytearray()
    sent = False
    try:
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the child closed the pty
                break
            if not chunk:
                break
            seen += chunk
            if interrupt_when and not sent and interrupt_when.encode() in seen:
                for n in range(interrupts):
                    if n:
                        time.sleep(gap)
                    proc.send_signal(signal.SIGINT)
                sent = True
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
        os.close(main)
    return proc.returncode, out, seen.decode("utf-8", "replace")


def wait_for(predicate: Callable[[], bool], what: str) -> None:
    """Wait (up to 30 s, not a timed assertion) until `predicate()` holds."""
    ev = threading.Event()
    for _ in range(3000):
        if predicate():
            return
        ev.wait(0.01)
    raise AssertionError(f"never saw {what}")
