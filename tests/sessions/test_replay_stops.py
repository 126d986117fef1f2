"""A replay stops on its interrupt in every phase: while the trace's steps are counted,
while steps are compared, while the lines after a divergence are checked; and the count
it shows as the bar's total is the number of step lines read_trace yields."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import neurondbg.sessions.replay as rp
from neurondbg.cli import cli
from neurondbg.machine.isa.programs import counted_loop, kernel_text
from neurondbg.sessions.errors import SessionError, SessionInterrupted
from tests.sessions.test_replay_progress import traced

BAD_LINE = '{"step": 1, "pc": \n'  # an unfinished object: the trace is bad input


def with_bad_last_line(trace: Path) -> None:
    with trace.open("a") as fh:
        fh.write(BAD_LINE)


def diverging_at(trace: Path, line: int) -> None:
    """Change the pc of the trace's `line` (0-based, the header is line 0)."""
    lines = trace.read_text().splitlines(keepends=True)
    d = json.loads(lines[line])
    d["pc"] += 64
    lines[line] = json.dumps(d) + "\n"
    trace.write_text("".join(lines))


def test_an_interrupt_stops_the_count_before_the_trace_is_read(tmp_path: Path) -> None:
    trace, program = traced(tmp_path, counted_loop(50))
    with_bad_last_line(trace)  # read to the end, the trace would be refused
    stop = threading.Event()
    stop.set()
    with pytest.raises(SessionInterrupted, match="counting the trace's steps"):
        rp.replay(trace, program, interrupt=stop)


def test_a_bad_line_is_reported_when_the_steps_before_it_match(tmp_path: Path) -> None:
    trace, program = traced(tmp_path, counted_loop(50))
    with_bad_last_line(trace)
    lines = len(trace.read_text().splitlines())
    with pytest.raises(SessionError, match=rf"t\.jsonl:{lines}:"):
        rp.replay(trace, program)


def test_a_bad_line_after_a_divergence_is_still_reported(tmp_path: Path) -> None:
    trace, program = traced(tmp_path, counted_loop(50))
    diverging_at(trace, 10)
    with_bad_last_line(trace)
    with pytest.raises(SessionError, match=r"t\.jsonl:\d+:"):
        rp.replay(trace, program)
    # without the bad line, the divergence
    trace.write_text("".join(trace.read_text().splitlines(keepends=True)[:-1]))
    result = rp.replay(trace, program)
    assert result.divergence is not None and result.divergence.line == 11


@pytest.mark.parametrize("kernel", [False, True])
def test_an_interrupt_stops_the_check_after_a_divergence(tmp_path: Path, monkeypatch,
                                                         kernel: bool) -> None:
    source = (kernel_text(pool=counted_loop(40), dve=counted_loop(30)) if kernel
              else counted_loop(50))
    trace, program = traced(tmp_path, source)
    diverging_at(trace, 10)
    with_bad_last_line(trace)
    stop = threading.Event()
    found = rp.first_difference

    def and_ctrl_c(expected: Any, actual: Any, path: str = "") -> Any:
        d = found(expected, actual, path)
        if d is not None:
            stop.set()  # Ctrl+C as the divergence is found
        return d

    monkeypatch.setattr(rp, "first_difference", and_ctrl_c)
    run = rp.replay_kernel if kernel else rp.replay
    with pytest.raises(SessionInterrupted, match="after the divergence") as e:
        run(trace, program, interrupt=stop)
    assert e.value.step == 10


def test_an_interrupt_during_the_steps_names_the_line_reached(tmp_path: Path) -> None:
    trace, program = traced(tmp_path, counted_loop(50))
    stop = threading.Event()

    def ctrl_c_at_the_first_report(done: int, total: int) -> None:
        stop.set()

    with pytest.raises(SessionInterrupted, match=r"at step 0 \(trace line 2; 0 steps matched"):
        rp.replay(trace, program, interrupt=stop, progress=ctrl_c_at_the_first_report)


def test_the_cli_exits_130_with_one_line(tmp_path: Path, monkeypatch) -> None:
    trace, program = traced(tmp_path, counted_loop(50))
    counting = rp._count_steps

    def ctrl_c_while_counting(trace: Path, interrupt: threading.Event | None) -> int:
        assert interrupt is not None
        interrupt.set()
        return counting(trace, interrupt)

    monkeypatch.setattr(rp, "_count_steps", ctrl_c_while_counting)
    r = CliRunner().invoke(cli, ["replay", str(trace), str(program)])
    assert r.exit_code == 130
    assert r.stderr.count("\n") == 1 and "replay interrupted while counting" in r.stderr


LINE = st.sampled_from(['{"step": 0}', "", " ", "\t ", "\r", '  {"step": 3}', '{"step":1} ',
                        '{"neurondbg_trace": 1, "gen": "cayman", "engine": "pool"}'])


@settings(max_examples=200, deadline=None)
@given(st.lists(LINE, max_size=12), st.sampled_from(["\n", "\r\n"]), st.booleans(),
       st.integers(1, 40))
def test_the_count_is_the_step_lines_read_trace_yields(tmp_path_factory, lines: list[str],
                                                       end: str, final_newline: bool,
                                                       chunk: int) -> None:
    header = '{"neurondbg_trace": 1, "gen": "cayman", "engine": "pool"}'
    lines = [line for i, line in enumerate(lines) if i == 0 or line != header]
    trace = tmp_path_factory.mktemp("count") / "t.jsonl"
    trace.write_bytes((end.join(lines) + (end if final_newline else "")).encode())
    read = sum(1 for _ in rp.read_trace(trace))
    old = rp.COUNT_CHUNK
    rp.COUNT_CHUNK = chunk  # lines split across blocks of every size
    try:
        assert rp._count_steps(trace, None) == read
    finally:
        rp.COUNT_CHUNK = old
