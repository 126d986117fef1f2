"""One record of a program's listing as the Program pane shows it: `ProgramLine`.

Its own module because both the snapshot types (imported by every pane before the
first frame) and the listing builder (debug.listing_text, which loads the model) need
it: importing it loads nothing heavy.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProgramLine:
    """One record of the listing."""

    index: int
    offset: int  # byte address (PC value) of the record
    text: str  # disassembly
    valid: bool | None = None  # legality verdict; None = not judged
    label: str | None = None
    failed: tuple[str, ...] = ()
    listing: str = ""  # the listing form (machine.isa.listing); "" = the disassembly
