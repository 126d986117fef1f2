"""`neurondbg check-nki` input limits: a FIFO is refused rather than read
forever, a huge file is refused from its size, and an integer past Python's digit
limit is a one-line positioned error, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def check_nki(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The CLI in a subprocess, so a blocking read fails the test by timeout."""
    return subprocess.run([sys.executable, "-m", "neurondbg", "check-nki", *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def assert_one_line_exit_2(r: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert fragment in r.stderr, r.stderr


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "calls.json"
    os.mkfifo(fifo)
    assert_one_line_exit_2(check_nki(fifo), f"{fifo}: is a FIFO (named pipe); expected a "
                                            "regular file holding a calls file")


def test_a_directory_is_refused(tmp_path: Path) -> None:
    assert_one_line_exit_2(check_nki(tmp_path), f"{tmp_path}: is a directory")


def test_a_file_over_the_json_limit_is_refused_from_its_size(tmp_path: Path) -> None:
    big = tmp_path / "calls.json"
    with big.open("wb") as f:
        f.truncate(65 * 1024**2)  # sparse
    assert_one_line_exit_2(check_nki(big), "65 MiB is over the 64 MiB limit for a calls file")


@pytest.mark.parametrize("digits", [4301, 20000])
def test_an_integer_past_the_digit_limit_is_a_positioned_error(tmp_path: Path,
                                                               digits: int) -> None:
    calls = tmp_path / "calls.json"
    calls.write_text('[{"op": "select_reduce",\n  "args": {"on_false": ' + "9" * digits + "}}]")
    assert_one_line_exit_2(check_nki(calls), f"{calls}:2:24: an integer with more than 4300 "
                                             "digits")
