"""The error types of the sessions package."""

from __future__ import annotations


class SessionError(ValueError):
    """Bad session / trace input: the message is one line naming the file and the problem."""


class SessionInterrupted(SessionError):
    """A load or replay stopped because its `interrupt` Event was set (Esc / Ctrl+C).

    `step` is the step the machine had reached, `total` the step it was going to
    (None when not known in advance, as in a trace replay).
    """

    def __init__(self, message: str, step: int, total: int | None = None) -> None:
        super().__init__(message)
        self.step, self.total = step, total
