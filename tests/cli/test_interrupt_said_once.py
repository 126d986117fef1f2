"""A Ctrl+C is reported in one line even when a second one lands while the first is
being reported (the CLI's own handler then stays quiet); each command starts afresh."""

from __future__ import annotations

import sys

import pytest

from neurondbg import cli
from neurondbg.errors import EXIT_INTERRUPTED, exit_interrupted, interrupt_said


def test_the_first_interruption_line_is_the_only_one(capsys: pytest.CaptureFixture[str]) -> None:
    interrupt_said(False)
    with pytest.raises(SystemExit) as first:
        exit_interrupted("neurondbg: interrupted at step 3")
    with pytest.raises(SystemExit) as second:  # the CLI's handler for the second Ctrl+C
        exit_interrupted()
    assert (first.value.code, second.value.code) == (EXIT_INTERRUPTED, EXIT_INTERRUPTED)
    assert capsys.readouterr().err == "neurondbg: interrupted at step 3\n"
    interrupt_said(False)


def test_a_new_command_says_its_interruption_again(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    interrupt_said(True)  # an earlier command in this process was interrupted
    monkeypatch.setattr(sys, "argv", ["neurondbg", "examples"])
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 0
    assert interrupt_said() is False
    capsys.readouterr()
    with pytest.raises(SystemExit):
        exit_interrupted()
    assert capsys.readouterr().err == "neurondbg: interrupted\n"
    interrupt_said(False)
