"""`neurondbg serve` in a real browser: headless Chromium (Playwright), the TUI's screen
read from the page's terminal buffer, a key pressed, the step shown.

Skipped, saying why, where Chromium or Playwright is missing (`apt-get install -y
chromium`, `pip install playwright`: .ci/run installs both)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

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
            page.wait_for_function(_screen_has("PC  0x00000000  record 0   steps 0"),
                                   timeout=WAIT_MS)
            # the screen is drawn while the program loads, and keys wait for the load
            page.wait_for_function(_screen_has("loaded loop.asm"), timeout=WAIT_MS)
            before = page.evaluate(SCREEN)
            assert "Registers" in before
            # no click first: the page gave the terminal the keyboard focus on load
            page.wait_for_function("() => document.activeElement && document.activeElement"
                                   ".classList.contains('xterm-helper-textarea')",
                                   timeout=WAIT_MS)
            page.keyboard.press("s")
            # the header, not just the console: a frame can reach xterm in several writes
            page.wait_for_function(_screen_has("loop.asm · cayman · pool · stepped MOVE at pc 0x0"),
                                   timeout=WAIT_MS)
            after = page.evaluate(SCREEN)
            # a reload after working in the page asks first (its app and work end)...
            asked: list[str] = []

            def answer(dialog: Any) -> None:
                asked.append(dialog.type)
                dialog.accept()

            page.on("dialog", answer)
            page.reload(timeout=WAIT_MS)
            assert asked == ["beforeunload"]
            page.reload(timeout=WAIT_MS)  # ...one before any key does not
            assert asked == ["beforeunload"]
        finally:
            browser.close()
    assert "neurondbg — loop.asm · cayman · pool · stepped MOVE at pc 0x0" in after
    assert "▶  040 loop: ALU_OP" in after  # the Program pane's cursor on record 1
    row = next(r for r in after.splitlines() if "R2  0x" in r)
    assert "R2  0x0000000A" in row  # MOVE R1=0 R2=10 ran
