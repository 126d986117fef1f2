"""The memory spaces of a NeuronCore: SBUF and PSUM, shared by every engine queue.

`Space` is a `StrEnum`: a member equals, formats as and serialises as its name
("sbuf", "psum"), so session files, `run --json`, data directives and expressions read
the strings they always did.
"""

from __future__ import annotations

from enum import StrEnum


class Space(StrEnum):
    """A memory space an instruction, a data directive or an expression names."""

    SBUF = "sbuf"
    PSUM = "psum"


SPACES: tuple[Space, ...] = tuple(Space)  # in the order files list them
