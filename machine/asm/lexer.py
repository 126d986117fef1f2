"""Tokens of one assembly line, each with its 1-based column."""

from __future__ import annotations

import re
from dataclasses import dataclass

from neurondbg.machine.asm.errors import AsmError


@dataclass(frozen=True)
class Token:
    kind: str  # "name", "number", "punct", "op", "end"
    text: str
    column: int


# The token patterns (machine.asm.fastpath matches whole lines with the same ones).
NUMBER = (r"[-+]?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
          r"|inf(?!\w)|nan(?!\w))")
NAME = r"\.?[A-Za-z_][\w.]*"
# Operators of the semaphore shorthand (`wait=sem[3]>=1`, `signal=sem[3]++@complete`);
# tried before numbers so that `--` and `-=` are not a sign, after them nothing else.
SEM_OPS = ("++", "--", "+=", "-=", ">=", "<=", "==", "<", ">", "@")
_OP = "|".join(re.escape(o) for o in SEM_OPS)
_TOKEN = re.compile(rf"(?P<space>\s+)|(?P<op>{_OP})|(?P<number>{NUMBER})|(?P<name>{NAME})"
                    r"|(?P<punct>[=\[\],:])")


def unexpected(char: str) -> str:
    """The message for a character no token starts with (the parser says the same of an
    operator outside a semaphore expression)."""
    return f"unexpected character {char!r}; expected a name, number, '=', '[', ']', ',' or ':'"


def strip_comment(line: str) -> str:
    """The line without a trailing `#` comment."""
    cut = line.find("#")
    return line if cut < 0 else line[:cut]


def tokenize(line: str, file: str, lineno: int) -> list[Token]:
    """Tokens of `line` (comments removed); AsmError at the first unexpected character."""
    text = strip_comment(line)
    out: list[Token] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise AsmError(unexpected(text[pos]), file, lineno, pos + 1, line)
        kind = m.lastgroup or ""
        if kind != "space":
            out.append(Token(kind, m.group(), pos + 1))
        pos = m.end()
    out.append(Token("end", "", len(text.rstrip()) + 1))
    return out
