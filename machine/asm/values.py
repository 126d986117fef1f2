"""Turn parsed values into field integers: numbers, enum/register names, operands, labels."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from neurondbg.machine.asm.errors import AsmError, did_you_mean
from neurondbg.machine.asm.parser import Atom, Bracket, ListValue, SemExpr, Value
from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.files import MAX_TOKEN_CHARS
from neurondbg.machine.isa.addr import encode_address, encode_register
from neurondbg.machine.isa.enums import parse_enum
from neurondbg.machine.isa.spec import Field

_INT = re.compile(r"[-+]?(0[xX][0-9a-fA-F_]+|0[bB][01_]+|\d[\d_]*)$")
REGISTERS = range(64)  # R0..R63
REGISTER_NAMES: dict[str, int] = {**{f"R{i}": i for i in REGISTERS}, "PC_LO": 128, "PC_HI": 129}
SPACE_NAMES = {"sb": "sbuf", "sbuf": "sbuf", "psum": "psum"}

Fail = Callable[[str, int], AsmError]  # (message, column) -> error to raise


def parse_int(text: str) -> int | None:
    """An integer literal (decimal, 0x, 0b, sign, underscores) or None; None too for
    one over MAX_TOKEN_CHARS (the parser reports those with their column)."""
    if len(text) > MAX_TOKEN_CHARS or not _INT.match(text):
        return None
    digits = text.replace("_", "")
    try:
        return int(digits, 0)
    except ValueError:  # base 0 rejects leading zeros ("010"): there are no octals, so decimal
        return int(digits, 10)


def parse_number(text: str) -> int | float | None:
    """An integer or float literal (incl. inf/nan) or None (see parse_int)."""
    if len(text) > MAX_TOKEN_CHARS:
        return None
    i = parse_int(text)
    if i is not None:
        return i
    try:
        return float(text)
    except ValueError:
        return None


def fp32_bits(x: float) -> int:
    """The fp32 encoding of x (round to nearest even)."""
    return int(np.array(x, dtype=np.float64).astype(np.float32).view(np.uint32))


def register_number(text: str) -> int | None:
    return REGISTER_NAMES.get(text.upper())


_REGISTER_LIKE = re.compile(r"[Rr]([0-9]+)")


def register_range_error(text: str) -> str | None:
    """The message for `R64` and beyond (a register name past the 64 registers), else
    None."""
    m = _REGISTER_LIKE.fullmatch(text)
    if m is None or int(m.group(1)) < len(REGISTERS):
        return None
    return f"register {text} is out of range (R0..R{len(REGISTERS) - 1})"


def check_range(f: Field, v: int, column: int, fail: Fail) -> int:
    """v if it fits the field's element (either signedness spelling), else an error."""
    lo, hi = f.bounds
    bits = 8 * f.itemsize
    if f.signed and hi < v < (1 << bits):
        v -= 1 << bits
    elif not f.signed and -(1 << (bits - 1)) <= v < 0:
        v += 1 << bits
    if not lo <= v <= hi:
        raise fail(f"{v} does not fit {f.name} ({f.itemsize}-byte "
                   f"{'signed' if f.signed else 'unsigned'}: {lo}..{hi})", column)
    return v


def _expected_names(f: Field) -> str:
    if f.role == "register":
        return "a register (R0..R63, PC_LO, PC_HI) or a number"
    if f.enum is not None:
        names = list(f.enum.__members__)
        shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
        return f"a {f.enum.__name__} name ({shown}) or a number"
    if f.role == "branch_offset":
        return "a label or a number"
    return "a number"


def scalar(f: Field, atom: Atom, fail: Fail, labels: dict[str, int] | None = None,
           here: int = 0) -> int:
    """One element of field `f` from an atom."""
    text = atom.text
    num = parse_number(text)
    if isinstance(num, int):
        return check_range(f, num, atom.column, fail)
    if isinstance(num, float):
        if f.itemsize != 4:
            raise fail(f"expected an integer for {f.name} (float literals are allowed only "
                       "in 4-byte fields, as fp32 bits)", atom.column)
        return check_range(f, fp32_bits(num), atom.column, fail)
    if f.role == "register":
        r = register_number(text)
        if r is not None:
            return r
        out_of_range = register_range_error(text)
        if out_of_range is not None:
            raise fail(out_of_range, atom.column)
    if f.enum is not None:
        try:
            return parse_enum(f.enum, text)
        except KeyError:
            pass
    if f.role == "branch_offset" and labels is not None:
        if text in labels:
            return check_range(f, labels[text] - here, atom.column, fail)
        if atom.kind == "name":
            raise fail(f"undefined label {text!r}" + (did_you_mean(text, labels) or (
                "; expected a label of this program (of its .engine section in a kernel) "
                "or a number")), atom.column)
    raise fail(f"expected {_expected_names(f)} for {f.name}", atom.column)


def operand_word(value: Bracket, gen: Gen, fail: Fail) -> int:
    """ADDR4 word of `sb[p, off]`, `psum[p, off]` or `reg[Rn]`."""
    kind = value.name.text.lower()
    items = value.items
    if kind == "reg":
        if len(items) != 1 or items[0][1] is not None:
            raise fail("expected reg[Rn]", value.column)
        atom = items[0][0]
        r = register_number(atom.text)
        if r is None:
            r = parse_int(atom.text)
        out_of_range = register_range_error(atom.text)
        if out_of_range is not None:
            raise fail(out_of_range, atom.column)
        if r is None or not 0 <= r <= 0xFF:
            raise fail("expected a register R0..R63 (or a number 0..255)", atom.column)
        return encode_register(r)
    if kind not in SPACE_NAMES:
        raise fail(f"expected sb[partition, offset], psum[partition, offset] or reg[Rn], "
                   f"found {value.name.text!r}", value.column)
    if len(items) != 2 or items[0][1] is not None or items[1][1] is not None:
        raise fail(f"expected {kind}[partition, offset]", value.column)
    part = partition_index(items[0][0], fail)
    off = parse_int(items[1][0].text)
    if off is None:
        raise fail("expected a byte offset", items[1][0].column)
    try:
        return encode_address(SPACE_NAMES[kind], part, off, gen)
    except ValueError as e:
        raise fail(f"{e} ({gen.label})", value.column) from None


def partition_index(atom: Atom, fail: Fail) -> int:
    """A partition written `p3` or `3`."""
    text = atom.text
    if text[:1] in ("p", "P"):
        text = text[1:]
    v = parse_int(text)
    if v is None:
        raise fail("expected a partition (p0..p127 or a number)", atom.column)
    return v


def field_value(f: Field, value: Value, gen: Gen, fail: Fail,
                labels: dict[str, int] | None = None, here: int = 0) -> int | tuple[int, ...]:
    """The integer (or tuple) a value assigns to field `f`."""
    if isinstance(value, SemExpr):
        raise fail(f"a semaphore expression is written with wait= or signal=, not for "
                   f"{f.name}", value.column)
    if isinstance(value, Bracket):
        if f.role != "addr4":
            raise fail(f"{f.name} is not a tensor address; expected {_expected_names(f)}",
                       value.column)
        return operand_word(value, gen, fail)
    if isinstance(value, ListValue):
        if f.count == 1:
            raise fail(f"{f.name} holds one value, not a list", value.column)
        if len(value.items) != f.count:
            raise fail(f"expected {f.count} values for {f.name}, found {len(value.items)}",
                       value.column)
        return tuple(scalar(f, a, fail, labels, here) for a in value.items)
    if f.role == "ascii":  # a name, its bytes NUL-padded (struct spec role "ascii")
        text = value.text
        if not text.isascii() or len(text) > f.count:
            raise fail(f"expected an ASCII name of at most {f.count} characters for "
                       f"{f.name}", value.column)
        return tuple(text.encode("ascii").ljust(f.count, b"\0"))
    if f.count > 1:
        raise fail(f"expected a list of {f.count} values for {f.name}, like "
                   f"[{', '.join(['0'] * min(f.count, 4))}{', ...' if f.count > 4 else ''}]",
                   value.column)
    return scalar(f, value, fail, labels, here)


def dtype_nibble(atom: Atom, fail: Fail) -> int:
    """A dtype code for a DTYPE_PAIR nibble (0..15)."""
    num = parse_int(atom.text)
    if num is None:
        try:
            num = parse_enum(Dtype, atom.text)
        except KeyError:
            raise fail("expected a dtype name (FP32, BF16, INT8, ...) or a number",
                       atom.column) from None
    if not 0 <= num <= 0xF:
        raise fail(f"a DTYPE_PAIR nibble holds codes 0..15, found {num:#x}", atom.column)
    return num
