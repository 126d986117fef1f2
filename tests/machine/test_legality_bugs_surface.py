"""A bug in the legality engine surfaces from the debugger: no broad `except` swallows it
(that would make every record valid and every verdict None)."""

from __future__ import annotations

import importlib

import pytest

from .helpers import machine

# the module (machine.legality re-exports a function of the same name)
legality = importlib.import_module("neurondbg.machine.legality.explain")

PROGRAM = "MOVE R1=5\nHALT\n"


class LegalityBug(Exception):
    """Stands for any defect inside the legality engine."""


def _boom(*args, **kwargs):
    raise LegalityBug("a clause check crashed")


@pytest.mark.parametrize("name, ask", [("validate", lambda m: m.valid(0)),
                                       ("explain", lambda m: m.verdict(0))])
def test_a_legality_bug_raises_instead_of_passing_every_record(monkeypatch, name, ask) -> None:
    m = machine(PROGRAM)
    monkeypatch.setattr(legality, name, _boom)
    monkeypatch.setattr(f"neurondbg.machine.debugger.{name}", _boom, raising=False)
    with pytest.raises(LegalityBug):
        ask(m)


def test_an_opcode_without_a_documented_predicate_still_gets_a_verdict() -> None:
    m = machine(PROGRAM)
    v = m.verdict(1)  # HALT: the references document no predicate for it
    assert v.predicate == "header_and_events_only"
    assert m.valid(1) is True
    assert m.valid(0) is True and m.verdict(0).predicate == "is_valid_ctrl_mv"
