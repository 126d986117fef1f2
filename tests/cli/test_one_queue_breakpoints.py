"""`run PROGRAM --break KIND` refuses the kinds that never fire on one queue
(machine.breakpoints.NEVER_ON_ONE_QUEUE): one line on stderr, exit 2. A kernel takes
them."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.breakpoint_kinds import Kind
from neurondbg.machine.breakpoints import NEVER_ON_ONE_QUEUE

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SPECS = {"race": "race", "wait": "wait", "deadlock": "deadlock", "dma": "dma:qSPIO0"}


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["run", *args])
    return r.exit_code, r.stdout, r.stderr


def test_the_kinds_declared_never_to_fire_on_one_queue() -> None:
    assert set(NEVER_ON_ONE_QUEUE) == {Kind.RACE, Kind.DEADLOCK, Kind.WAIT, Kind.DMA}


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_a_program_refuses_them_in_one_line(kind: str) -> None:
    code, out, err = run(str(EXAMPLES / "loop.asm"), "--break", SPECS[kind])
    assert code == 2 and out == ""
    assert err == (f"neurondbg: error: --break '{SPECS[kind]}': {kind} never fires on one "
                   f"queue: {NEVER_ON_ONE_QUEUE[Kind(kind)]}; it is a kernel's breakpoint\n")


@pytest.mark.parametrize("kind", ["race", "wait", "deadlock"])
def test_a_kernel_takes_them(kind: str) -> None:
    code, _, err = run(str(EXAMPLES / "kernels" / "deadlock.asm"), "--break", kind)
    assert code != 2 and err == ""
