"""What a debug session offers, asked by name (not by its class): the engines, whether
they share a schedule, whether it can be edited; the console and palette follow them."""

from __future__ import annotations

from pathlib import Path

import pytest

from neurondbg.console import REGISTRY, execute
from neurondbg.debug.session import Session
from neurondbg.panes import CORE_PANES, PANES

EXAMPLES = Path(__file__).parents[2] / "examples"
KERNEL = EXAMPLES / "kernels" / "producer_consumer.asm"


def test_a_program_has_one_engine_and_no_schedule() -> None:
    s = Session(EXAMPLES / "loop.asm", engine="act")
    assert (s.engines, s.has_schedule, s.can_edit) == (("act",), False, True)


def test_a_kernel_has_its_queues_engines_and_a_schedule() -> None:
    s = Session(KERNEL)
    assert (s.engines, s.has_schedule, s.can_edit) == (("pool", "dve"), True, True)


@pytest.mark.parametrize(("make", "panes"), [
    (lambda: Session(EXAMPLES / "loop.asm"), PANES),
    (lambda: Session(KERNEL), CORE_PANES),
])
def test_pane_completion_offers_the_layout_of_the_session(make, panes) -> None:
    assert REGISTRY.completions("pane ", make()) == [f"pane {p}" for p in panes]


def test_a_program_refuses_the_kernel_commands_saying_why() -> None:
    s = Session(EXAMPLES / "loop.asm")
    for line, what in (("step core", "step: step core"), ("schedule rr", "schedule: schedule"),
                       ("focus dve", "focus: focus")):  # the command's name, then the refusal
        assert [text for text, _ in execute(line, s).lines] == [
            f"error: {what} needs a kernel (several engine queues); this is one program"]
