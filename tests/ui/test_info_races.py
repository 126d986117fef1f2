"""`info races`: the races a kernel run found so far, as the console lists them."""

from __future__ import annotations

from pathlib import Path

from neurondbg.console import REGISTRY, execute
from neurondbg.debug.session import Session
from neurondbg.views.console_view import complete

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def lines(reply) -> list[str]:
    return [text for text, _ in reply.lines]


def test_info_races_lists_each_race_and_follows_reverse() -> None:
    s = Session(EXAMPLES / "kernels" / "missing_wait.asm")
    assert lines(execute("info races", s)) == ["no races found so far"]
    assert execute("continue", s).action == "continue"
    assert "1 race found" in s.run()
    (line,) = lines(execute("info races", s))
    assert line.startswith("race 1 at step 2: pool CAST at pc 0x0 writes and dve CAST at "
                           "pc 0x0 reads sbuf[0:128, 0x100:0x120]: DVE should wait for "
                           "sem[0] >= 1 before 0x0")
    assert lines(execute("info ra", s)) == [line]  # a prefix, as gdb takes one
    s.reverse(s.core.steps)  # back to the start: the race has not been found yet
    assert lines(execute("info races", s)) == ["no races found so far"]


def test_info_races_on_a_race_free_kernel_and_a_program() -> None:
    s = Session(EXAMPLES / "kernels" / "producer_consumer.asm")
    execute("continue", s)
    s.run()
    assert lines(execute("info races", s)) == ["no races found so far"]
    p = Session(EXAMPLES / "loop.asm")
    assert lines(execute("info races", p)) == [
        "a program has one queue: there is nothing to race with"]
    assert lines(execute("info r", p))[0].startswith("R")  # `r` is still registers


def test_info_completes_races_only_for_a_kernel() -> None:
    kernel = Session(EXAMPLES / "kernels" / "missing_wait.asm")
    program = Session(EXAMPLES / "loop.asm")
    topics = REGISTRY.get("info").args[0].complete
    assert complete("ra", topics(kernel, "ra")) == "races"
    assert complete("ra", topics(program, "ra")) == "ra"
