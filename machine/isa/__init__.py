"""Instruction wire formats: field specs, structs, enums, opcodes, ADDR4, codec.

    from machine.isa.structs import STRUCTS          # name -> Struct (fields, numpy dtype)
    from machine.isa.opcodes import OPCODES           # byte -> OpcodeInfo
    from machine.isa.codec import decode, encode, load_program, decode_bytes
    from machine.isa.addr import decode_addr4, decode_addr4_array, geometry
    from machine.isa.opcodes import Opcode            # IntEnum generated from the table
    from machine.isa import listing, listing_lines    # Program listing lines (one / all)
"""

from machine.isa.listform import listing, listing_lines

__all__ = ["listing", "listing_lines"]
