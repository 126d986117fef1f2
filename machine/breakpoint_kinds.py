"""The breakpoint kinds: one declaration that the parser (machine/breakpoints.py), the
run control, the console's completion and its help read.

Kept apart from machine/breakpoints.py (which needs numpy and the expression
language) so the TUI can list the kinds before the model is imported.
"""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    """Every breakpoint kind, in the order users see them listed (the parser, the
    console's completion, `help`); a member is its spec word ("op", "race", ...)."""

    OP = "op"
    PC = "pc"
    LABEL = "label"
    INVALID = "invalid"
    FAULT = "fault"
    IF = "if"
    WATCH = "watch"
    CHANGE = "change"
    SATURATE = "saturate"
    TIE = "tie"
    NAN = "nan"
    INF = "inf"
    RACE = "race"
    DEADLOCK = "deadlock"
    WAIT = "wait"
    DMA = "dma"  # a NEFF's DMA queue completed an entry (dma:qSPIO0)

    @property
    def takes_argument(self) -> bool:
        """Whether the spec is `KIND:ARG` (else the bare word)."""
        return self in _WITH_ARGUMENT

    @property
    def spec_word(self) -> str:
        """What a user types to start one: `op:` or `race`."""
        return f"{self}:" if self.takes_argument else str(self)

    @property
    def example(self) -> str:
        """A whole spec of this kind, for help texts: `op:CAST`, `race`."""
        return f"{self}:{_EXAMPLE_ARGUMENT[self]}" if self.takes_argument else str(self)


_EXAMPLE_ARGUMENT = {Kind.OP: "CAST", Kind.PC: "0x80", Kind.LABEL: "loop", Kind.IF: "R5>3",
                     Kind.WATCH: "R5", Kind.CHANGE: "sb[0,0:64]", Kind.DMA: "qSPIO0"}
_WITH_ARGUMENT = frozenset(_EXAMPLE_ARGUMENT)


def spec_words() -> list[str]:
    """Every kind as a user starts typing it (`op:`, `race`), in `Kind` order."""
    return [k.spec_word for k in Kind]


def examples() -> str:
    """One example of every kind, space-separated (help texts)."""
    return " ".join(k.example for k in Kind)
