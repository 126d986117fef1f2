"""The adapter under Microsoft's own DAP test client (`@vscode/debugadapter-testsupport`,
pinned in tests/dap/node/package-lock.json): node/dap.test.mjs drives launch, breakpoints
of each kind, stepping both ways, variables, setVariable, evaluate, disassemble,
readMemory, a kernel's threads and terminate over stdio, as an editor does.

The client is installed from the npm registry by this test (`npm ci` into
tests/dap/node/node_modules); without node 18+ and npm, or when the install fails (no
network), the test is skipped saying why."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.dap.client import REPO

NODE_DIR = REPO / "tests" / "dap" / "node"
INSTALL_SECONDS = 300  # an install that hangs is skipped, not waited for forever
RUN_SECONDS = 900  # the four scenarios take seconds; this only bounds a hung adapter


def _node_major(node: str) -> int:
    out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60)
    try:
        return int(out.stdout.strip().lstrip("v").split(".")[0])
    except ValueError:
        return 0


def _install(npm: str) -> None:
    try:
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                              cwd=NODE_DIR, capture_output=True, text=True,
                              timeout=INSTALL_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm ci took over {INSTALL_SECONDS} s (no network?)")
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:]
        pytest.skip(f"npm could not install the DAP test client: {' '.join(last)}")


def test_microsofts_debug_client_drives_the_adapter() -> None:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed to run Microsoft's DAP test client")
    if _node_major(node) < 18:
        pytest.skip("node 18 or later is needed (its built-in test runner)")
    _install(npm)
    env = {**os.environ, "NEURONDBG_PYTHON": sys.executable, "NEURONDBG_REPO": str(REPO)}
    done = subprocess.run([node, "--test", "dap.test.mjs"], cwd=NODE_DIR, env=env,
                          capture_output=True, text=True, timeout=RUN_SECONDS)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "# pass 4" in done.stdout and "# fail 0" in done.stdout
