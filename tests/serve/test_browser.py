"""`neurondbg serve` in a real browser: headless Chromium (Playwright), the TUI's screen
read from the page's terminal buffer, a key pressed, the step shown.

Skipped, saying why, where Chromium or Playwright is missing (`apt-get install -y
chromium`, `pip install playwright`: .ci/run installs both)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.dap.client import EXAMPLES, REPO

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium executable on PATH "
                                "(apt-get install -y chromium)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_MS = 60_000  # how long the page may take to show the app (a hang guard, not a measure)
# textual-serve keeps its xterm.js Terminal inside its bundle: catch it as it is stored
# (`this.terminal = new Terminal(...)`) so the test reads the screen's text, not pixels.
HOOK = """Object.defineProperty(Object.prototype, 'terminal', {configurable: true,
  set(v) { window.__term = v; Object.defineProperty(this, 'terminal',
    {value: v, writable: true, configurable: true, enumerable: true}); }});"""
SCREEN = """() => { const t = window.__term; if (!t) return '';
  const b = t.buffer.active, out = [];
  for (let y = 0; y < b.length; y++) { const l = b.getLine(y);
    out.push(l ? l.translateToString(true) : ''); }
  return out.join('\\n'); }"""


@pytest.fixture
def url() -> Iterator[str]:
    proc = subprocess.Popen([sys.executable, "-m", "neurondbg.commands.serve",
                             str(EXAMPLES / "loop.asm"), "--port", "0"], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.startswith("neurondbg serve: http://127.0.0.1:"), line
        yield line.split()[2]
    finally:
        proc.terminate()
        proc.wait(30)


def _screen_has(text: str) -> str:
    return f"() => ({SCREEN})().includes({text!r})"


def test_step_in_the_browser_shows_the_registers(url: str) -> None:
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.add_init_script(HOOK)
            page.goto(url)
            page.wait_for_function(_screen_has("loaded loop.asm"), timeout=WAIT_MS)
            before = page.evaluate(SCREEN)
            assert "Registers" in before and "PC  0x00000000  record 0   steps 0" in before
            page.click(".textual-terminal")
            page.keyboard.press("s")
            page.wait_for_function(_screen_has("steps 1"), timeout=WAIT_MS)
            after = page.evaluate(SCREEN)
        finally:
            browser.close()
    assert "stepped MOVE at pc 0x0" in after
    assert "PC  0x00000040  record 1   steps 1" in after
    row = next(r for r in after.splitlines() if "R2  0x" in r)
    assert "R2  0x0000000A" in row  # MOVE R1=0 R2=10 ran
