"""The one error type of the sessions package."""

from __future__ import annotations


class SessionError(ValueError):
    """Bad session / trace input: the message is one line naming the file and the problem."""
