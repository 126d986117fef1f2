"""The replays' `progress(done, total)` callback: the steps compared out of the
trace's steps, once the trace is checked, every PROGRESS_STEPS steps and at the end."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.isa.programs import counted_loop, kernel_text
from neurondbg.sessions.replay import PROGRESS_STEPS, replay, replay_kernel


def traced(tmp_path: Path, source: str, name: str = "p.asm") -> tuple[Path, Path]:
    """(trace, program) of a `run --trace` of `source`."""
    program = tmp_path / name
    program.write_text(source)
    trace = tmp_path / "t.jsonl"
    r = CliRunner().invoke(cli, ["run", str(program), "--trace", str(trace)])
    assert r.exit_code == 0, r.output
    return trace, program


def steps_in(trace: Path) -> int:
    return sum(1 for line in trace.read_text().splitlines() if '"step"' in line)


def test_replay_counts_steps_monotone_to_the_traces_total(tmp_path: Path) -> None:
    trace, program = traced(tmp_path, counted_loop(800))  # 2,402 steps
    total = steps_in(trace)
    seen: list[tuple[int, int]] = []
    result = replay(trace, program, progress=lambda d, t: seen.append((d, t)))
    assert not result.diverged and result.steps == total == 2402
    # the total first, then every PROGRESS_STEPS steps, then the end
    assert seen == [(0, total), (PROGRESS_STEPS, total), (2 * PROGRESS_STEPS, total),
                    (total, total)]


def test_a_divergence_ends_the_count_at_the_steps_compared(tmp_path: Path) -> None:
    trace, program = traced(tmp_path, counted_loop(800))
    lines = trace.read_text().splitlines()
    bad = json.loads(lines[1500])
    bad["pc"] += 64
    lines[1500] = json.dumps(bad)
    trace.write_text("\n".join(lines) + "\n")
    seen: list[tuple[int, int]] = []
    result = replay(trace, program, progress=lambda d, t: seen.append((d, t)))
    assert result.diverged and result.divergence is not None
    assert seen[-1] == (result.steps, 2402) and result.steps < 2402
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_a_kernel_replay_counts_global_steps(tmp_path: Path) -> None:
    trace, kernel = traced(tmp_path, kernel_text(pool=counted_loop(400), dve=counted_loop(300)),
                           "k.asm")
    total = steps_in(trace)
    seen: list[tuple[int, int]] = []
    result = replay_kernel(trace, kernel, progress=lambda d, t: seen.append((d, t)))
    assert not result.diverged and result.steps == total == 1202 + 902
    assert seen == [(0, total), (PROGRESS_STEPS, total), (2 * PROGRESS_STEPS, total),
                    (total, total)]
