"""Instruction wire formats: field specs, structs, enums, opcodes, ADDR4, codec.

    from machine.isa.structs import STRUCTS          # name -> Struct (fields, numpy dtype)
    from machine.isa.opcodes import OPCODES           # byte -> OpcodeInfo
    from machine.isa.codec import decode, encode, load_program, decode_bytes
    from machine.isa.addr import decode_addr4, decode_addr4_array, geometry
    from machine.isa.opcodes import Opcode            # IntEnum, one member per table row
    from machine.isa import listing, listing_lines    # Program listing lines (one / all)

Importing a submodule (machine.isa.opcodes) does not import the listing form and the
codec behind it: `listing` and `listing_lines` are loaded on first use
(`validate --summary` needs the opcode table, not the listing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what the lazy __getattr__ below returns, for a type checker
    from neurondbg.machine.isa.listform import listing, listing_lines

__all__ = ["listing", "listing_lines"]

# isa-facts §1: every v2+ instruction is 16 dwords. Declared here, machine.isa.spec
# re-exports it: reading records needs their size, not the field specs.
RECORD_BYTES = 64


def __getattr__(name: str) -> object:
    if name in __all__:
        from neurondbg.machine.isa import listform
        return getattr(listform, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
