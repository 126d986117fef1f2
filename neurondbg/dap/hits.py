"""Hit conditions and logpoint messages: what a DAP breakpoint adds to a model breakpoint.

    when = parse_hit_condition(">= 3")        # ValueError (one line) for anything else
    when(4) -> True
    text = interpolate("R1 is {R1}", evaluate)  # "R1 is 6"

A hit condition is a comparison of the breakpoint's hit count (1 on its first hit) with a
non-negative integer: `N` (the same as `>= N`: gdb's ignore count, lldb-dap's and
js-debug's reading), `>= N`, `> N`, `== N` (also `=`), `<= N`, `< N`, `!= N`, or `% N`
(every Nth hit). A logpoint's message is text with `{EXPR}` parts, each replaced by the
value of EXPR in the expression language (docs/expressions.md); `{{` and `}}` are
literal braces; an expression that does not evaluate shows as `{EXPR: error: WHY}` so
the log says what went wrong and the run goes on.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

MAX_HIT_DIGITS = 18  # a count no run reaches; longer numbers are refused, not parsed

_OPS: dict[str, Callable[[int, int], bool]] = {
    ">=": operator.ge, ">": operator.gt, "==": operator.eq, "=": operator.eq,
    "<=": operator.le, "<": operator.lt, "!=": operator.ne,
    "%": lambda hits, n: hits % n == 0,
}
_HIT = re.compile(r"\s*(>=|<=|==|!=|=|>|<|%)?\s*([0-9]+)\s*")


@dataclass(frozen=True)
class HitCondition:
    """`hits OP number`, as parsed from the editor's text."""

    op: str
    number: int

    def __call__(self, hits: int) -> bool:
        return _OPS[self.op](hits, self.number)

    def __str__(self) -> str:
        return f"{self.op} {self.number}"


def parse_hit_condition(text: str) -> HitCondition:
    """The condition `text` spells (module docstring); ValueError saying what was expected."""
    m = _HIT.fullmatch(text)
    if m is None or len(m.group(2)) > MAX_HIT_DIGITS:
        raise ValueError(f"hitCondition {text.strip()[:40]!r}: expected a hit count such as "
                         "3, >= 3, == 3 or % 2")
    op, number = m.group(1) or ">=", int(m.group(2))
    if op == "%" and number == 0:
        raise ValueError("hitCondition '% 0': expected a positive number after %")
    return HitCondition(op, number)


def interpolate(message: str, evaluate: Callable[[str], str]) -> str:
    """`message` with each `{EXPR}` replaced by `evaluate(EXPR)` (ValueError from it shows
    inline); `{{` / `}}` are braces; an unclosed `{` is kept as typed."""
    out: list[str] = []
    i, n = 0, len(message)
    while i < n:
        ch = message[i]
        if ch in "{}" and message.startswith(ch * 2, i):
            out.append(ch)
            i += 2
        elif ch == "{":
            end = message.find("}", i + 1)
            if end < 0:
                out.append(message[i:])
                break
            expr = message[i + 1:end].strip()
            try:
                out.append(evaluate(expr))
            except ValueError as e:
                out.append(f"{{{expr}: error: {e}}}")
            i = end + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)
