"""What the README tells a new user happens, happens: the first five minutes' step 3
(after `s` on the invalid MOVE) and the semaphores tour's engine count."""

from __future__ import annotations

import re
from pathlib import Path

from neurondbg import console
from neurondbg.console import Action
from neurondbg.debug.session import Session
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.sessions.tours import find_tour

README = (Path(__file__).parents[1] / "README.md").read_text()
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


def _flat(text: str) -> str:
    return " ".join(text.split())


def _run(session: Session, *lines: str) -> None:
    for line in lines:
        reply = console.execute(line, session)
        if reply.action is Action.CONTINUE:
            session.run()
        elif reply.action is Action.STEPS:
            session.step(*reply.args)


def test_step_three_of_the_first_five_minutes() -> None:
    session = Session()  # the demo
    _run(session, "break op:CAST", "continue", "step", "delete 2", "continue")
    here = session.dbg.index_of(session.state.pc)
    assert here is not None and session.dbg.instruction(here).opcode == Opcode.MOVE
    assert not session.dbg.valid(here)
    _run(session, "step")  # `s` executes the MOVE anyway ...
    nxt = session.dbg.index_of(session.state.pc)
    assert nxt == here + 1 and session.dbg.instruction(nxt).opcode == Opcode.COPY
    assert session.dbg.verdict(nxt).failed == ("s4d4_tr_same_src_dst_type",)
    _run(session, "continue")  # ... and executing the Copy faults
    assert session.stop_text.startswith("fault: COPY")
    assert "`s` executes it anyway (the demo session allows it) and stops before the next " \
        "record, a Copy that fails `s4d4_tr_same_src_dst_type`" in _flat(README)
    assert "`s` or `c` executes that one, and it faults" in _flat(README)


def test_the_semaphores_tours_engine_count() -> None:
    kernel = (find_tour("semaphores").path.parent /
              re.search(r'^path = "(.+)"', find_tour("semaphores").path.read_text(),
                        re.M).group(1)).resolve()
    engines = re.findall(r"^\.engine (\w+)", kernel.read_text(), re.M)
    said = re.search(r"`semaphores` \(a (\w+)-engine kernel", _flat(README))
    assert said is not None and said.group(1) == WORDS[len(engines)]
