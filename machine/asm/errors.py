"""The assembler's error: file, line, column, the line with a caret, and what was expected."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

# Characters of the source line shown under a message (a line may be megabytes long).
SOURCE_WINDOW = 120


class AsmError(ValueError):
    """Bad assembly input at one position (line and column are 1-based)."""

    def __init__(self, message: str, file: str = "<asm>", line: int = 0, column: int = 0,
                 source: str = "") -> None:
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.source = source
        super().__init__(self.render())

    @property
    def one_line(self) -> str:
        """`file:line:col: message` (for callers that print a single line)."""
        return f"{self.file}:{self.line}:{self.column}: {self.message}"

    def render(self) -> str:
        """The one-line message, then the source line and a caret under the column; of a
        line longer than SOURCE_WINDOW characters, the part around the column."""
        if not self.source:
            return self.one_line
        col = max(self.column - 1, 0)
        shown = self.source
        if len(shown) > SOURCE_WINDOW:
            start = max(0, min(col - SOURCE_WINDOW // 2, len(shown) - SOURCE_WINDOW))
            stop = start + SOURCE_WINDOW
            lead = "..." if start else ""
            shown = lead + shown[start:stop] + ("..." if stop < len(self.source) else "")
            col += len(lead) - start
        return f"{self.one_line}\n    {shown}\n    {' ' * col}^"


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`; did you mean 'x'?` for the known name closest to `word` (difflib, case
    ignored), or "" when none is close."""
    by_folded = {k.casefold(): k for k in known}
    close = difflib.get_close_matches(word.casefold(), by_folded, n=1, cutoff=0.6)
    return f"; did you mean {by_folded[close[0]]!r}?" if close else ""
