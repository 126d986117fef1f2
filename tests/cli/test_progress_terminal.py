"""The progress bar as Unix terminals expect it: validate counts records against the
total, a double Ctrl+C leaves no bar line behind, a non-UTF-8 locale gets ASCII."""

from __future__ import annotations

import io
import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from neurondbg import progress as bars
from neurondbg.cli import cli
from neurondbg.progress_ascii import AsciiFile, ascii_bar, locale_is_utf8
from tests.helpers import run_on_pty, wait_for

ERASED = "\x1b[1A\x1b[2K"  # the bar's line: cursor up, line cleared
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SPIN = """\
top:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=-1 target=top
"""


def on_pty(args: list[str], env: dict[str, str] | None = None,
           ctrl_c_when: str | None = None, gap: float = 0.0,
           interrupts: int = 2) -> tuple[int, str]:
    """`neurondbg ARGS` with stderr on a pty: (exit code, what the pty showed). With
    `ctrl_c_when`, `interrupts` SIGINTs `gap` seconds apart once the pty shows that text."""
    code, _, tty = run_on_pty(args, ctrl_c_when, env=env, interrupts=interrupts, gap=gap)
    return code, tty


# -- validate counts records ------------------------------------------------------------
@given(st.lists(st.integers(1, 50), max_size=8))
def test_counting_counts_each_block_once_it_is_done(sizes: list[int]) -> None:
    counted: list[int] = []
    seen_when_handed: list[int] = []
    for _block in bars.counting([[0] * n for n in sizes], counted.append):
        seen_when_handed.append(sum(counted))
    assert counted == sizes  # every block, in order, exactly once
    assert seen_when_handed == [sum(sizes[:i]) for i in range(len(sizes))]  # after its work


def test_validate_summary_counts_records_against_the_total(tmp_path: Path,
                                                           monkeypatch) -> None:
    from neurondbg.machine.legality.wire import bulk

    monkeypatch.setattr(bulk, "CHUNK", 1000)  # blocks of ~1000 records: several counts
    program = tmp_path / "many.bin"
    np.zeros((5000, 64), np.uint8).tofile(program)
    buf = io.StringIO()
    monkeypatch.setattr(bars, "DELAY", 0.0)
    monkeypatch.setattr(bars, "stderr_is_terminal", lambda: True)
    monkeypatch.setattr(bars, "stderr_console", lambda: Console(
        file=buf, force_terminal=True, width=120, color_system=None))
    r = CliRunner().invoke(cli, ["validate", "--summary", str(program)])
    assert '"count": 5000' in r.stdout
    counts = re.findall(r"(\d+)/5000 instructions", buf.getvalue())
    assert counts and "validate many.bin" in buf.getvalue()
    assert all(int(c) % 1024 == 0 or c == "5000" for c in counts)  # whole blocks


# -- a double Ctrl+C --------------------------------------------------------------------
def test_a_ctrl_c_while_the_bar_ends_waits_until_it_is_erased(monkeypatch) -> None:
    class SlowTerminal(io.StringIO):
        def write(self, s: str) -> int:
            time.sleep(0.3)  # the erase reaches the terminal well after the Ctrl+C
            return super().write(s)

    monkeypatch.setattr(bars, "DELAY", 0.0)
    buf = SlowTerminal()
    console = Console(file=buf, force_terminal=True, width=100, color_system=None)
    with pytest.raises(KeyboardInterrupt):  # raised as the block ends
        with bars.progress(10, "work", "items", console=console):
            wait_for(lambda: "work" in buf.getvalue(), "the bar")
            threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
    assert buf.getvalue().endswith(ERASED)  # erased before the KeyboardInterrupt came out


@pytest.mark.parametrize("gap", [0.0, 0.002, 0.02])
def test_a_double_ctrl_c_leaves_no_bar_line(tmp_path: Path, gap: float) -> None:
    spin = tmp_path / "spin.asm"
    spin.write_text(SPIN)
    code, tty = on_pty(["run", str(spin), "--max-steps", str(10**12)],
                       ctrl_c_when="run spin.asm", gap=gap)
    assert "Traceback" not in tty and "Exception ignored" not in tty, tty[-2000:]
    # 130, or killed by the second SIGINT as the process exits (a shell says 130 too)
    assert code in (130, -signal.SIGINT), tty[-2000:]
    assert ERASED in tty
    after = tty.rsplit(ERASED, 1)[1]  # the last erase: nothing of a bar after it
    assert re.fullmatch(r"neurondbg: interrupted( at step \d+ \(engine pool, pc 0x0, "
                        r".*spin\.asm:2:5\))?\r\n", after), after


# -- a locale that is not UTF-8 ---------------------------------------------------------
@pytest.mark.parametrize(("env", "utf8_mode", "utf8"), [
    ({"LANG": "C.UTF-8"}, 0, True), ({"LANG": "en_US.UTF-8"}, 0, True),
    ({"LANG": "de_DE.utf8@euro"}, 0, True), ({"LC_ALL": "en_GB.UTF-8", "LANG": "C"}, 0, True),
    ({"LANG": "C"}, 0, False), ({"LANG": "POSIX"}, 0, False), ({}, 0, False),
    ({"LANG": "en_US.ISO-8859-1"}, 0, False), ({"LC_ALL": "C", "LANG": "C.UTF-8"}, 0, False),
    ({"LC_CTYPE": "C", "LANG": "en_US.UTF-8"}, 0, False),
    # Python's own coercion of LANG=C: LC_CTYPE=C.UTF-8 in its environment, UTF-8 mode
    ({"LANG": "C", "LC_CTYPE": "C.UTF-8"}, 1, False),
    ({"LC_CTYPE": "C.UTF-8"}, 1, False),
    ({"LC_CTYPE": "C.UTF-8"}, 0, True),  # set by the user: no coercion, no UTF-8 mode
])
def test_locale_is_utf8(env: dict[str, str], utf8_mode: int, utf8: bool) -> None:
    assert locale_is_utf8(env, utf8_mode) is utf8


def test_the_ascii_bar_fills_with_the_count() -> None:
    from rich.progress import Progress

    column = ascii_bar(10)
    with Progress(console=Console(file=io.StringIO())) as p:
        task_id = p.add_task("x", total=10)
        for done in range(11):
            p.update(task_id, completed=done)
            task = p.tasks[0]
            assert column.render(task).plain == "[" + "#" * done + "-" * (10 - done) + "]"
        pulse_id = p.add_task("pulse", total=None)
        pulse = column.render(next(t for t in p.tasks if t.id == pulse_id)).plain
        assert len(pulse) == 12 and "<=>" in pulse and pulse.strip("[] <=>") == ""


def test_an_ascii_console_draws_only_ascii(monkeypatch) -> None:
    monkeypatch.setattr(bars, "DELAY", 0.0)
    buf = io.StringIO()
    console = Console(file=AsciiFile(buf), force_terminal=True, width=100, color_system=None)
    with bars.progress(1000, "crunch … naïve", "items", console=console) as advance:
        advance(500)
        wait_for(lambda: "500/1000" in buf.getvalue(), "the count drawn")
    text = buf.getvalue()
    assert text.isascii()
    assert "[##########----------]" in text and "crunch . na?ve" in text


def test_lang_c_draws_an_ascii_bar_on_a_terminal(tmp_path: Path) -> None:
    spin = tmp_path / "spin.asm"
    spin.write_text(SPIN)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k != "LANG"}
    for lang, ascii_only in (("C", True), ("C.UTF-8", False)):
        # a run long enough on any machine, stopped once its bar is drawn
        code, tty = on_pty(["run", str(spin), "--max-steps", str(10**12)],
                           env={**env, "LANG": lang}, ctrl_c_when="spin.asm", interrupts=1)
        assert code == 130
        plain = ESCAPES.sub("", tty)
        assert "run spin.asm" in plain
        assert tty.isascii() is ascii_only, lang
        assert ("[#" in plain or "[-" in plain) is ascii_only, lang


def test_a_ctrl_c_no_command_handled_is_one_line_with_no_blank_one(monkeypatch,
                                                                    capsys) -> None:
    """click prints an empty line on a KeyboardInterrupt it catches, which lands under
    an erased bar; the command line reports it itself, in one line."""
    import click

    from neurondbg.cli import main

    def interrupted(self: click.Group, ctx: click.Context) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(click.Group, "invoke", interrupted)
    monkeypatch.setattr(sys, "argv", ["neurondbg", "tour"])
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code == 130
    assert capsys.readouterr().err == "neurondbg: interrupted\n"
