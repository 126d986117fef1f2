"""Counted bars for `replay` and `asm`: the library's `progress(done, total)`
drives neurondbg.progress.counted; Ctrl+C under them is still one line and exit 130."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from neurondbg import progress as bars
from neurondbg.cli import cli
from neurondbg.commands import asm
from neurondbg.machine.isa.programs import counted_loop, kernel_text
from tests.helpers import run_on_pty, wait_for

LINES = asm.LARGE_BYTES // 4 + 5  # "NOP\n" lines: a source long enough for asm's bar

KEEP = bytes(range(64))  # an earlier build in the way: a program (asm may replace it)


@pytest.fixture
def reports(monkeypatch) -> list[tuple[str, str, int, int]]:
    """Every (label, unit, done, total) a command reports to its bar (the real `counted`
    is replaced: nothing is drawn)."""
    seen: list[tuple[str, str, int, int]] = []

    @contextlib.contextmanager
    def counted(label: str, unit: str, *, console=None) -> Iterator[bars.Report]:
        yield lambda done, total: seen.append((label, unit, done, total))

    monkeypatch.setattr(bars, "counted", counted)
    return seen


def check(seen: list[tuple[str, str, int, int]], label: str, unit: str, total: int) -> None:
    assert {(lab, u) for lab, u, _, _ in seen} == {(label, unit)}
    dones = [d for _, _, d, _ in seen]
    assert dones == sorted(dones) and {t for *_, t in seen} == {total}
    assert seen[-1][2:] == (total, total)


# -- the helper ------------------------------------------------------------------------------
def test_counted_is_a_pulse_until_the_first_report_then_a_count(monkeypatch) -> None:
    monkeypatch.setattr(bars, "DELAY", 0.0)
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100, color_system=None)
    with bars.counted("crunch", "items", console=console) as report:
        wait_for(lambda: "crunch" in buf.getvalue(), "the pulse")
        assert "items" not in buf.getvalue() and "/?" not in buf.getvalue()
        report(5, 20)
        wait_for(lambda: "5/20 items" in buf.getvalue(), "the count")
        report(20, 20)
        wait_for(lambda: "20/20 items" in buf.getvalue(), "the count at the end")
    assert buf.getvalue().endswith("\x1b[1A\x1b[2K")  # transient: erased


def test_counted_piped_is_a_no_op_and_starts_no_thread() -> None:
    before = threading.active_count()
    with bars.counted("work", "items") as report:  # pytest captures stderr: no tty
        assert threading.active_count() == before
        report(1, 2)
    assert report is bars._ignore_report


# -- the commands ----------------------------------------------------------------------------
def test_asm_reports_lines_assembled_of_the_sources_lines(tmp_path: Path, reports) -> None:
    src = tmp_path / "big.asm"
    src.write_text("NOP\n" * (LINES - 1) + "HALT\n")
    r = CliRunner().invoke(cli, ["asm", str(src), "-o", str(tmp_path / "big.bin")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "big.bin").stat().st_size == 64 * LINES
    check(reports, "asm big.asm", "lines", LINES)
    assert len(reports) > 4  # it moved between the start and the end


def test_asm_of_a_kernel_reports_every_line_of_the_file(tmp_path: Path, reports) -> None:
    src = tmp_path / "k.asm"
    src.write_text(kernel_text(pool="NOP\n" * LINES, dve="HALT\n"))
    r = CliRunner().invoke(cli, ["asm", str(src), "-o", str(tmp_path / "k.toml")])
    assert r.exit_code == 0, r.output
    check(reports, "asm k.asm", "lines", LINES + 3)


def test_a_small_asm_has_no_bar(tmp_path: Path, reports) -> None:
    src = tmp_path / "s.asm"
    src.write_text("NOP\nHALT\n")
    assert CliRunner().invoke(cli, ["asm", str(src), "-o", str(tmp_path / "s.bin")]).exit_code == 0
    assert reports == []


def test_replay_reports_steps_replayed_of_the_traces_steps(tmp_path: Path, reports) -> None:
    prog = tmp_path / "p.asm"
    prog.write_text(counted_loop(700))  # 2,102 steps
    trace = tmp_path / "t.jsonl"
    assert CliRunner().invoke(cli, ["run", str(prog), "--trace", str(trace)]).exit_code == 0
    r = CliRunner().invoke(cli, ["replay", str(trace), str(prog)])
    assert r.stdout == f"no divergence: 2102 steps match {trace}\n"
    check(reports, "replay t.jsonl", "steps", 2102)


# -- Ctrl+C under the bars: the report callback sends the SIGINT ------------------------------
@pytest.fixture
def ctrl_c_at(monkeypatch):
    """Make the bar's report send this process a SIGINT once `done` reaches a count."""
    sent: list[int] = []

    def arm(count: int) -> list[int]:
        @contextlib.contextmanager
        def counted(label: str, unit: str, *, console=None) -> Iterator[bars.Report]:
            def report(done: int, total: int) -> None:
                if done >= count and not sent:
                    sent.append(done)
                    os.kill(os.getpid(), signal.SIGINT)
            yield report

        monkeypatch.setattr(bars, "counted", counted)
        return sent
    return arm


def test_ctrl_c_under_the_replay_bar_is_one_line_and_130(tmp_path: Path, ctrl_c_at) -> None:
    prog = tmp_path / "p.asm"
    prog.write_text(counted_loop(700))
    trace = tmp_path / "t.jsonl"
    assert CliRunner().invoke(cli, ["run", str(prog), "--trace", str(trace)]).exit_code == 0
    sent = ctrl_c_at(1024)
    r = CliRunner().invoke(cli, ["replay", str(trace), str(prog)])
    assert sent == [1024] and r.exit_code == 130 and r.stdout == ""
    assert r.stderr.startswith(f"neurondbg: {trace}: replay interrupted at step 10")
    assert len(r.stderr.splitlines()) == 1 and "steps matched)" in r.stderr


def test_ctrl_c_under_the_asm_bar_is_one_line_130_and_writes_nothing(tmp_path: Path,
                                                                     ctrl_c_at) -> None:
    src = tmp_path / "big.asm"
    src.write_text("NOP\n" * (4 * LINES))
    out = tmp_path / "big.bin"
    out.write_bytes(KEEP)
    sent = ctrl_c_at(1)
    r = CliRunner().invoke(cli, ["asm", str(src), "-o", str(out)])
    assert sent and r.exit_code == 130
    assert r.stderr == (f"neurondbg: interrupted: {src} was not assembled; nothing was "
                        "written\n")
    assert out.read_bytes() == KEEP


# -- a real terminal (a pty) -----------------------------------------------------------------
def test_asm_on_a_terminal_counts_lines_and_ctrl_c_stops_it(tmp_path: Path) -> None:
    """The real bar on a pty, Ctrl+C sent once it shows a count: one line after the
    erased bar, exit 130, the output left as it was."""
    src = tmp_path / "big.asm"
    lines = 1_000_000  # a second of work: the bar (after 0.3 s) is seen well before the end
    src.write_text("NOP\n" * lines)
    out = tmp_path / "big.bin"
    out.write_bytes(KEEP)
    code, _, tty = run_on_pty(["asm", str(src), "-o", str(out)], interrupt_when=f"/{lines}")
    assert code == 130  # SIGINT once a count is on the screen
    assert "asm big.asm" in tty and f"/{lines}" in tty and "lines" in tty
    after_bar = tty.rsplit("\x1b[1A\x1b[2K", 1)[-1]  # the bar is erased before the message
    assert after_bar.strip().splitlines() == [
        f"neurondbg: interrupted: {src} was not assembled; nothing was written"]
    assert out.read_bytes() == KEEP
