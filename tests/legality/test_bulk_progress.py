"""validate_raw's `progress`: records judged, block by block, adding up to the program's
count whether records are deduplicated or not; an exception it raises stops the run;
and `validate`'s bar counts against the known total."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from neurondbg import progress as bars
from neurondbg.cli import cli
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.wire import bulk

from .test_summary_bulk import records


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 3000), st.booleans(), st.booleans(), st.sampled_from([97, 1000, 1 << 20]),
       st.sampled_from([64, 512, 1 << 14]))
def test_the_counts_add_up_to_the_records(n: int, distinct: bool, dedup: bool, chunk: int,
                                          block: int) -> None:
    raw = records(n, distinct)
    seen: list[int] = []
    old = bulk.BLOCK
    bulk.BLOCK = block  # many blocks per group
    try:
        result = bulk.validate_raw(raw, Gen.CAYMAN, None, chunk, dedup, progress=seen.append)
        plain = bulk.validate_raw(raw, Gen.CAYMAN, None, chunk, dedup)
    finally:
        bulk.BLOCK = old
    assert sum(seen) == n == result.count
    assert all(k > 0 for k in seen)
    # at least one call per block of records judged: with dedup, each chunk's distinct
    # records are judged once (and at least those are)
    judged = n if not dedup else sum(len(np.unique(raw[s:s + chunk], axis=0))
                                      for s in range(0, n, chunk))
    assert len(seen) >= -(-judged // block)
    assert result.invalid == plain.invalid and result.failures == plain.failures


def test_an_exception_from_progress_stops_the_validation() -> None:
    raw = records(5000, True)
    seen: list[int] = []

    class Stopped(Exception):
        pass

    def stop_after_two(k: int) -> None:
        seen.append(k)
        if len(seen) == 2:
            raise Stopped

    old = bulk.BLOCK
    bulk.BLOCK = 256
    try:
        with pytest.raises(Stopped):
            bulk.validate_raw(raw, Gen.CAYMAN, progress=stop_after_two)
    finally:
        bulk.BLOCK = old
    assert len(seen) == 2 and sum(seen) < 5000


def test_validates_bar_counts_records_against_the_total(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(bulk, "BLOCK", 512)
    monkeypatch.setattr(bars, "REFRESH", 0.02)  # redraws (and so the slowed blocks) quicker
    judge = bulk.evaluate

    def slow_judge(*args: Any) -> Any:  # a block outlasts a redraw on any machine
        time.sleep(bars.REFRESH)
        return judge(*args)

    monkeypatch.setattr(bulk, "evaluate", slow_judge)
    program = tmp_path / "many.bin"
    # repeated records: a few dozen blocks to judge (random bytes make thousands, each
    # slowed by a redraw, and a fix searched for every one)
    records(5000, False).tofile(program)
    buf = io.StringIO()
    monkeypatch.setattr(bars, "DELAY", 0.0)
    monkeypatch.setattr(bars, "stderr_is_terminal", lambda: True)
    monkeypatch.setattr(bars, "stderr_console", lambda: Console(
        file=buf, force_terminal=True, width=120, color_system=None))
    r = CliRunner().invoke(cli, ["validate", str(program)])
    assert r.exit_code == 1  # corrupted copies among them: invalid records
    counts = [int(c) for c in re.findall(r"(\d+)/5000 instructions", buf.getvalue())]
    assert "validate many.bin" in buf.getvalue()
    assert counts == sorted(counts) and 0 < counts[-1] <= 5000  # a count, not a pulse
