"""Instruction wire formats: field specs, structs, enums, opcodes, ADDR4, codec.

    from machine.isa.structs import STRUCTS          # name -> Struct (fields, numpy dtype)
    from machine.isa.opcodes import OPCODES           # byte -> OpcodeInfo
    from machine.isa.codec import decode, encode, load_program, decode_bytes
    from machine.isa.addr import decode_addr4, decode_addr4_array, geometry
"""
