"""How field values and keys are written in assembly text (one declaration, three users).

The assembler reads these spellings, the disassembler writes them, and the
Program listing (machine.isa.listform) shows them; they live here, below
machine.asm, so the listing can be built from decoded fields without it.
"""

from __future__ import annotations

import re

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.addr import decode_addr4
from neurondbg.machine.isa.spec import Field, Struct
from neurondbg.machine.isa.structs import tensor_operands

INST_WORD_LEN = 16  # default header.inst_word_len; isa-facts §1.1: the validator requires 16
# Short operand names: the S4D4_TR operands are src_mem_pattern / dst_mem_pattern (ref 000 §3).
OPERAND_ALIASES = {"src_mem_pattern": "src", "dst_mem_pattern": "dst"}
# DTYPE_PAIR fields and the keys of their two nibbles (isa-facts §5.1, §6.4).
PAIR_KEYS = {"in0_in1_dtype": ("in0_dtype", "in1_dtype"),
             "in_out_dtype": ("in_dtype", "out_dtype")}
REG_NAMES = {**{i: f"R{i}" for i in range(64)}, 128: "PC_LO", 129: "PC_HI"}
SHORT_NAMES = ("step", "num")  # the keys of an operand's step_elem / num_elem arrays


def format_element(f: Field, v: int) -> str:
    """One element of field `f` as the assembler reads it back."""
    if f.role == "register" and v in REG_NAMES:
        return REG_NAMES[v]
    if f.enum is not None:
        try:
            return f.enum(v).name
        except ValueError:
            pass
    if f.itemsize >= 4 and not f.signed and v >= 10:
        return f"0x{v:x}"
    return str(v)


# An ASCII field is written as a bare name when the assembler reads it back as one.
_ASCII_NAME = re.compile(r"(?!(?:inf|nan)(?!\w))[A-Za-z_][\w.]*")


def ascii_text(value: tuple[int, ...]) -> str | None:
    """The text of an ASCII field's bytes (NUL-padded), or None when they are not a name
    written back to the same bytes (a byte after the padding, a non-name character)."""
    raw = bytes(value)
    text = raw.rstrip(b"\0")
    if b"\0" in text or not text.isascii():
        return None
    name = text.decode("ascii")
    return name if _ASCII_NAME.fullmatch(name) else None


def format_value(f: Field, value: int | tuple[int, ...]) -> str:
    if isinstance(value, tuple) and f.role == "ascii":
        name = ascii_text(value)
        if name is not None:
            return name
    if isinstance(value, tuple):
        return "[" + ",".join(format_element(f, v) for v in value) + "]"
    return format_element(f, value)


def format_addr4(word: int, gen: Gen) -> str:
    """`sb[p, 0xoff]`, `psum[p, 0xoff]`, `reg[Rn]`, or the raw word in hex."""
    a = decode_addr4(word, gen)
    if a.mode == "register" and word & 0x7FFFFF00 == 0:
        return f"reg[{REG_NAMES.get(a.register or 0, a.register)}]"
    if a.mode == "immediate" and a.space is not None:
        return f"{'sb' if a.space == 'sbuf' else 'psum'}[{a.partition}, 0x{a.offset:x}]"
    return f"0x{word:x}"


def field_key(struct: Struct, f: Field) -> str:
    """The shortest key the assembler maps back to `f` unambiguously."""
    seg = f.name.rpartition(".")[2]
    if seg == f.name:
        return f.name
    operands = set(tensor_operands(struct)) | {OPERAND_ALIASES.get(p, p)
                                               for p in tensor_operands(struct)}
    same = [g for g in struct.fields if g.name == seg or g.name.endswith("." + seg)]
    if len(same) == 1 and seg not in operands and seg not in SHORT_NAMES:
        return seg
    return f.name
