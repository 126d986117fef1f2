"""Scalar-array indices are checked as the expression is parsed, as register numbers
are: sem[N] and shape[N] take 0..255, idx[P, K] takes K 0..7 (the machine's counts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.expr import Target, parse, parse_target
from neurondbg.machine.state import NUM_INDEX_REGS, NUM_SEMS, NUM_SHAPE_REGS


@pytest.mark.parametrize("kind,count", [("sem", NUM_SEMS), ("shape", NUM_SHAPE_REGS)])
def test_every_index_up_to_the_count_parses(kind: str, count: int) -> None:
    for n in range(count):
        assert parse(f"{kind}[{n}] > 0").targets == [Target(kind, n)]
        assert parse_target(f"{kind}[{n}]") == Target(kind, n)


@pytest.mark.parametrize("kind,count", [("sem", NUM_SEMS), ("shape", NUM_SHAPE_REGS)])
@pytest.mark.parametrize("over", [0, 1, 44, 1 << 40])
def test_an_index_past_the_count_is_refused(kind: str, count: int, over: int) -> None:
    n = count + over
    for text, parser in ((f"{kind}[{n}] > 0", parse), (f"{kind}[{n}]", parse_target)):
        with pytest.raises(ValueError) as e:
            parser(text)
        col = len(kind) + 2
        assert str(e.value) == (f"column {col}: {kind}[{n}] does not exist "
                                f"({kind}[0]..{kind}[{count - 1}])")


def test_index_register_number_is_checked() -> None:
    for k in range(NUM_INDEX_REGS):
        assert parse_target(f"idx[0, {k}]") == Target("idx", 0, k=k)
    with pytest.raises(ValueError) as e:
        parse_target(f"idx[0, {NUM_INDEX_REGS}]")
    assert str(e.value) == (f"column 8: idx[0, {NUM_INDEX_REGS}]: index register "
                            f"{NUM_INDEX_REGS} does not exist (0..7)")


@pytest.mark.parametrize("argv", [["run", "{p}", "--break", "if:sem[300] > 0"],
                                  ["run", "{p}", "--break", "watch:sem[256]"]])
def test_commands_refuse_it_in_one_line(tmp_path: Path, argv: list[str]) -> None:
    p = tmp_path / "p.asm"
    p.write_text("MOVE R1=1\nHALT\n")
    r = CliRunner().invoke(cli, [a.format(p=p) for a in argv])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    line, = r.output.strip().splitlines()
    assert line.startswith(f"neurondbg: error: --break {argv[-1]!r}: column ") and \
        "does not exist (sem[0]..sem[255])" in line, line
