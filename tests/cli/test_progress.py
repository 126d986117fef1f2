"""Long command-line work shows a progress bar on stderr when it is a terminal,
and nothing extra when piped; Ctrl+C still stops a run cleanly under a bar."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from rich.console import Console

from neurondbg import progress as bars
from neurondbg.cli import cli
from neurondbg.commands import asm, validate
from tests.helpers import run_on_pty, wait_for

SPIN = """\
top:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=-1 target=top
"""
ERASED = "\x1b[1A\x1b[2K"  # the bar's line: cursor up, line cleared
SPIN_STEPS = 400_000  # long enough to outlast the bar's DELAY on any machine
# The pty test's loop also adds floats: the integer loop runs as one compiled superblock
# (~8M steps/s), fast enough to end before the bar's DELAY; this one stays ~1.5M steps/s.
SLOW_SPIN = SPIN.replace("    COMPARE_BRANCH", "    ALU_OP op=ADD dtype=FP32 dst_dtype=FP32 dst=R2 "
                         "src0=R2 src1=R3\n    COMPARE_BRANCH")


@pytest.fixture
def spin(tmp_path: Path) -> Path:
    p = tmp_path / "spin.asm"
    p.write_text(SPIN)
    return p


# -- the helper ------------------------------------------------------------------------------
def test_piped_progress_is_a_no_op_and_starts_no_thread() -> None:
    before = threading.active_count()
    with bars.progress(10, "work", "items") as advance:  # pytest captures stderr: no tty
        assert threading.active_count() == before
        advance(5)
    assert advance is bars._ignore


def test_a_forced_terminal_draws_the_label_count_and_unit_then_erases(monkeypatch) -> None:
    monkeypatch.setattr(bars, "DELAY", 0.0)
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100, color_system=None)
    with bars.progress(1000, "crunch", "items", console=console) as advance:
        advance(250)
        advance(250)
        wait_for(lambda: "500/1000" in buf.getvalue(), "the count drawn")
    text = buf.getvalue()
    assert "crunch" in text and "items" in text
    assert "\x1b[?25h" in text and text.endswith(ERASED)  # transient: cursor back, erased


def test_poll_is_read_for_the_count(monkeypatch) -> None:
    monkeypatch.setattr(bars, "DELAY", 0.0)
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100, color_system=None)
    counter = [41]
    with bars.progress(None, "polled", "steps", poll=lambda: counter[0], console=console):
        counter[0] = 42
        wait_for(lambda: "42/?" in buf.getvalue(), "the polled count")


def test_quick_work_shows_no_bar_at_all() -> None:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100)
    with bars.progress(3, "quick", "items", console=console) as advance:
        advance(3)  # done well within DELAY
    assert buf.getvalue() == ""


def test_a_unitless_bar_shows_no_count(monkeypatch) -> None:
    monkeypatch.setattr(bars, "DELAY", 0.0)
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100, color_system=None)
    with bars.progress(None, "judging 7 things", console=console):
        wait_for(lambda: "judging 7 things" in buf.getvalue(), "the pulse")
    assert "/?" not in buf.getvalue() and "0:00:0" in buf.getvalue()  # elapsed time only


# -- the commands, piped: nothing extra ------------------------------------------------------
def test_piped_run_prints_nothing_extra_on_stderr(spin: Path, monkeypatch) -> None:
    monkeypatch.setattr(bars, "DELAY", 0.0)  # a bar would be drawn at once if it could be
    r = CliRunner().invoke(cli, ["run", str(spin), "--max-steps", str(SPIN_STEPS)])
    assert r.exit_code == 0
    assert r.stderr == ""
    assert r.stdout.startswith(f"stop: max-steps at pc 0x0 ({spin}:2:5): stopped after "
                               f"{SPIN_STEPS} steps\n")


def test_asm_shows_a_bar_only_above_large_bytes() -> None:
    for size in (0, 90, asm.LARGE_BYTES):
        assert isinstance(asm._assembling("s.asm", size), contextlib.nullcontext)
    assert not isinstance(asm._assembling("l.asm", asm.LARGE_BYTES + 1),
                          contextlib.nullcontext)


def test_validate_json_rows_advance_the_bar_by_every_row(tmp_path: Path) -> None:
    from neurondbg.machine.legality.explain import validate as judge

    raw = np.zeros((validate.ROWS_PER_WRITE * 2 + 5, 64), np.uint8)
    result = judge(raw, "cayman", "pool")
    seen: list[int] = []
    out = io.StringIO()
    validate._write_full(result, raw, out, seen.append)
    assert seen == [validate.ROWS_PER_WRITE, validate.ROWS_PER_WRITE, 5]
    assert json.loads(out.getvalue())["count"] == len(raw)


def test_a_block_that_prints_gets_no_bar_when_stdout_is_the_terminal(monkeypatch) -> None:
    monkeypatch.setattr(bars, "_is_terminal", lambda stream: True)  # stderr and stdout
    monkeypatch.setattr(bars, "stderr_console", lambda: pytest.fail("no bar may be drawn"))
    with bars.progress(10, "rows", "rows", prints=True) as advance:
        assert advance is bars._ignore
    with bars.progress(10, "rows", "rows") as advance:  # a block that does not print
        assert advance is not bars._ignore


# -- forced terminal through the CLI -----------------------------------------------------------
def forced_terminal(monkeypatch) -> io.StringIO:
    """stderr taken for a terminal, the bar drawn into the returned buffer at once."""
    buf = io.StringIO()
    monkeypatch.setattr(bars, "DELAY", 0.0)
    monkeypatch.setattr(bars, "stderr_is_terminal", lambda: True)
    monkeypatch.setattr(bars, "stderr_console", lambda: Console(
        file=buf, force_terminal=True, width=120, color_system=None))
    return buf


def test_validate_json_into_a_pipe_counts_rows_on_a_terminal(tmp_path: Path,
                                                            monkeypatch) -> None:
    program = tmp_path / "many.bin"
    np.zeros((20_000, 64), np.uint8).tofile(program)
    buf = forced_terminal(monkeypatch)
    r = CliRunner().invoke(cli, ["validate", "--json", str(program)])
    assert json.loads(r.stdout)["count"] == 20_000
    assert "validate many.bin: --json" in buf.getvalue() and "/20000 instructions" in \
        buf.getvalue()


def test_replay_and_diagnose_count_on_a_terminal(spin: Path, tmp_path: Path,
                                                 monkeypatch) -> None:
    trace = tmp_path / "t.jsonl"
    r = CliRunner().invoke(cli, ["run", str(spin), "--max-steps", "3000", "--trace", str(trace)])
    assert r.exit_code == 0
    x = np.arange(1, 100_001, dtype=np.float32) / 7
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", x)  # fp32 -> fp32: every lane matches
    buf = forced_terminal(monkeypatch)
    r = CliRunner().invoke(cli, ["replay", str(trace), str(spin)])
    assert r.stdout == f"no divergence: 3000 steps match {trace}\n"
    r = CliRunner().invoke(cli, ["diagnose", str(tmp_path / "x.npy"), str(tmp_path / "y.npy"),
                                 "--from", "fp32", "--to", "fp32"])
    assert r.exit_code == 0 and r.stdout.startswith("100,000 lanes: all match")
    drawn = buf.getvalue()
    assert "replay t.jsonl" in drawn and "/100000 lanes" in drawn  # diagnose counts lanes
    assert "/?" not in drawn  # a bar without its total never shows a count


def test_kernel_run_counts_global_steps_on_a_terminal(tmp_path: Path, monkeypatch) -> None:
    kernel = tmp_path / "k.asm"
    kernel.write_text(".engine pool\n" + SPIN + ".engine dve\n" + SPIN)
    buf = forced_terminal(monkeypatch)
    r = CliRunner().invoke(cli, ["run", str(kernel), "--max-steps", "60000", "--races", "off"])
    assert r.exit_code == 0, r.output
    assert "run k.asm" in buf.getvalue() and "/60000 steps" in buf.getvalue()
    assert "stopped after 60000 steps" in r.stdout


# -- a real terminal (a pty) -----------------------------------------------------------------
def test_run_on_a_terminal_shows_a_bar_and_the_same_stdout(tmp_path: Path) -> None:
    spin = tmp_path / "spin.asm"
    spin.write_text(SLOW_SPIN)
    steps = str(SPIN_STEPS * 10)
    code, out, tty = run_on_pty(["run", str(spin), "--max-steps", steps])
    piped = subprocess.run([sys.executable, "-m", "neurondbg", "run", str(spin),
                            "--max-steps", steps], capture_output=True, text=True, check=False)
    assert code == 0 == piped.returncode
    assert out == piped.stdout and piped.stderr == ""
    assert "run spin.asm" in tty and f"/{steps}" in tty and "steps" in tty
    assert "\x1b[?25h" in tty and tty.endswith(ERASED)  # erased at the end, cursor back


def test_ctrl_c_under_the_bar_stops_with_one_line_and_130(spin: Path) -> None:
    code, out, tty = run_on_pty(["run", str(spin), "--max-steps", str(10**12), "--json"],
                                 interrupt_when="run spin.asm")
    assert code == 130
    result = json.loads(out)
    assert result["stop"]["reason"] == "interrupt" and result["steps"] > 0
    after_bar = tty.rsplit(ERASED, 1)[-1]  # the bar is gone before the message
    assert after_bar.strip().splitlines() == [
        f"neurondbg: interrupted at step {result['steps']} (engine pool, pc 0x0, {spin}:2:5)"]


def test_rich_is_imported_before_the_work_starts() -> None:
    """A bar's imports run on the caller's thread as the block begins: imported by the bar's
    thread while the work holds the GIL, they took the whole of a 1M-line asm (the bar, and
    a Ctrl+C sent on seeing it, came after the work)."""
    import subprocess
    import sys

    probe = ("import io, sys\nfrom rich.console import Console\nimport neurondbg.progress as p\n"
             "with p.counted('x', 'lines', console=Console(file=io.StringIO())):\n"
             "    print('rich.progress' in sys.modules)\n")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "True"
