"""The assembler's fast path for ordinary lines (labels, `MNEMONIC key=value ...`, `.raw`).

It never reports errors: anything unusual (a shorthand, a duplicate key, a value that
does not parse or does not fit) returns None and the line goes through the full
parser and builder, which produce the same bytes or the positioned error. So the
fast path may only accept lines whose meaning it reproduces exactly; it shares the
key rules (keys.resolve_key) and value rules (values.field_value) with the builder.

Speed comes from caching what repeats in real programs: key plans per (struct, key),
values per (struct, gen, field, text), whole records per (gen, line text) unless a
label is involved, and one precompiled `struct.Struct` per layout for packing.
"""

from __future__ import annotations

import re
import struct as _struct
from functools import cache, lru_cache

from machine.asm.errors import AsmError
from machine.asm.keys import Kind, lookup_mnemonic, resolve_key
from machine.asm.parser import Atom, parse_value
from machine.asm.semaphores import KEYS as SEM_KEYS
from machine.asm.semaphores import VALUE as SEM_VALUE
from machine.asm.semaphores import sem_fields
from machine.asm.values import (
    SPACE_NAMES,
    check_range,
    dtype_nibble,
    field_value,
    parse_int,
    parse_number,
    scalar,
)
from machine.dtypes import Gen
from machine.files import MAX_TOKEN_CHARS
from machine.isa.addr import encode_address
from machine.isa.spec import RECORD_BYTES, Field
from machine.isa.structs import STRUCTS, make_pair
from machine.isa.text import INST_WORD_LEN

# The plan kinds as module constants: in the per-key loop an Enum member lookup costs
# several times a global's.
_FIELD, _NIBBLE, _RELATIVE, _SHORTHAND = Kind.FIELD, Kind.NIBBLE, Kind.RELATIVE, Kind.SHORTHAND

# A line the lexer + parser read as label? head? (key=value)*; one value is a list
# `[...]`, a bracket `name[...]` or an atom. Whitespace must separate arguments, so
# the split is unique and equals the parser's whenever each value parses alone.
# A line is split here only when the lexer reads it as the same tokens and the parser
# accepts it (tests/asm/test_fastpath.py checks this): keys, labels and heads are names
# the lexer does not read as the numbers `inf` / `nan`; a value is a name or a plain
# number (matched whole, possessively, as the lexer does), or a list / bracket of
# those; anything else goes to the parser. The first alternatives are the forms real
# programs repeat (`[64,1,1,1]`, `sb[3, 0x100]`, `FP32`), to keep the split fast.
# `_ARG` then splits an accepted line's arguments.
_NAME = r"(?!(?:inf|nan)(?!\w))[A-Za-z_][\w.]*+"
_ATOM = (rf"(?>(?:inf|nan)(?![\w.])|{_NAME}|[-+]?(?:0[xX][0-9a-fA-F_]++|0[bB][01_]++"
         r"|[0-9][0-9_]*+(?:\.[0-9]*+)?(?:[eE][-+]?[0-9]++)?))")
_ITEM = rf"{_ATOM}(?:\s*+:\s*+{_ATOM})?"
# the semaphore shorthand as the disassembler writes it (wait=sem[3]>=1,
# signal=sem[3]++@complete): lowercase, decimal, no spaces
_SEM_VALUE = r"sem\[[0-9]++\](?:\+\+|--|\+=|-=|>=|<=|==|<|>|=)[0-9]*+(?:@[a-z]++)?+(?![\w.\[])"
_EXACT_VALUE = (rf"{_SEM_VALUE}|"
                r"\[[0-9]++(?:,[0-9]++)*+\]|(?:sb|psum)\[[0-9]++, (?:0x[0-9a-fA-F]++|[0-9]++)\]"
                r"|[A-Z][A-Z0-9_]*+(?![\w.\[])"
                rf"|\[\s*+{_ATOM}(?:\s*+,\s*+{_ATOM})*+\s*+\]"
                rf"|(?!(?:inf|nan)(?!\w))[A-Za-z_]\w*+\[\s*+{_ITEM}(?:\s*+,\s*+{_ITEM})*+\s*+\]"
                rf"|{_ATOM}")
_VALUE = rf"{_SEM_VALUE}|\[[^\[\]]*\]|[A-Za-z_]\w*\[[^\[\]]*\]|[^\s\[\]=,:]+"
_LINE = re.compile(rf"\s*(?:({_NAME})\s*:)?\s*"
                   rf"(?:(\.?{_NAME})((?:\s+{_NAME}\s*=\s*(?:{_EXACT_VALUE}))*))?\s*")
_ARG = re.compile(rf"({_NAME})\s*=\s*({_VALUE})")
_INT = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|\d[\d_]*)")
_ADDR = re.compile(r"(?i:(sb|sbuf|psum))\[\s*[pP]?(\d+)\s*,\s*(0[xX][0-9a-fA-F]+|[1-9]\d*|0)\s*\]")
_RAW_HEX = re.compile(r"\s+0[xX]([0-9a-fA-F]{128})")
_CTYPE_CHAR = {"u1": "B", "i1": "b", "u2": "H", "i2": "h", "u4": "I", "i4": "i", "u8": "Q",
               "i8": "q"}


def split_line(line: str) -> tuple[str | None, str | None, str] | None:
    """(label, head, argument text) of an ordinary line; None for directives other than
    `.raw` and for anything the full parser must judge."""
    cut = line.find("#")
    m = _LINE.fullmatch(line if cut < 0 else line[:cut])
    if m is None:
        return None
    label, head, rest = m.groups()
    if head is not None and head[0] == "." and head.lower() != ".raw":
        return None
    if label is not None and len(label) > MAX_TOKEN_CHARS:
        return None  # the parser reports it
    return label, head, rest or ""


def split_args(rest: str) -> list[tuple[str, str]]:
    """(key, value text) pairs of the argument text `split_line` returned."""
    return _ARG.findall(rest)


class _Packer:
    """One layout's `struct.Struct` and where each field's elements sit in its argument list."""

    def __init__(self, struct_name: str) -> None:
        s = STRUCTS[struct_name]
        # fields tile the record in offset order (spec.fill_gaps), so "<" packing has no gaps
        assert sum(f.size for f in s.fields) == RECORD_BYTES
        self.fmt = _struct.Struct("<" + "".join(f"{f.count}{_CTYPE_CHAR[f.ctype]}"
                                                for f in s.fields))
        self.slots: dict[str, tuple[int, int]] = {}
        pos = 0
        for f in s.fields:
            self.slots[f.name] = (pos, f.count)
            pos += f.count
        self.defaults = [0] * pos
        self.defaults[self.slots["header.inst_word_len"][0]] = INST_WORD_LEN
        self.opcode_slot = self.slots["header.opcode"][0]


@cache
def _packer(struct_name: str) -> _Packer:
    return _Packer(struct_name)


def _checked(f: Field, v: int | None) -> int | None:
    try:
        return None if v is None else check_range(f, v, 0, _fail)
    except AsmError:
        return None


def _element(f: Field, text: str) -> int | None:
    """One list element as values.scalar reads it (no labels inside lists), or None."""
    stripped = text.strip()
    if _INT.fullmatch(stripped):
        return _checked(f, parse_int(stripped))
    atom = parse_value(text)
    if not isinstance(atom, Atom):
        return None
    try:
        return scalar(f, atom, _fail)
    except ValueError:
        return None


def _fail(message: str, column: int) -> AsmError:
    return AsmError(message, column=column)


@lru_cache(maxsize=1024)
def _nibble(text: str) -> int | None:
    value = parse_value(text)
    if not isinstance(value, Atom):
        return None
    try:
        return dtype_nibble(value, _fail)
    except AsmError:
        return None


def _value(f: Field, text: str, gen: Gen, labels: dict[str, int] | None = None,
           here: int = 0) -> int | tuple[int, ...] | None:
    """What the builder assigns to `f` for `text` (values.field_value), or None if it
    would report an error."""
    parsed = parse_value(text)
    if parsed is None:
        return None
    try:
        return field_value(f, parsed, gen, _fail, labels, here)
    except ValueError:
        return None


def _semaphore(key: str, text: str, explicit: dict[str, int | tuple[int, ...]],
               sem_value: list[str]) -> bool:
    """Add the fields of `wait=` / `signal=` to `explicit` as the builder does (a value
    the two share must agree); False when the builder must judge the line."""
    value = parse_value(text)
    if value is None:
        return False
    try:
        fields = sem_fields(key, value, _fail)
    except AsmError:
        return False
    for name, v in fields.items():
        if name in explicit:
            if not (name == SEM_VALUE and sem_value and sem_value[0] != key
                    and explicit[name] == v):
                return False
            continue
        explicit[name] = v
        if name == SEM_VALUE:
            sem_value.append(key)
    return True


class FastPath:
    """Per-assembly caches (dropped with the Assembly, so memory stays bounded)."""

    def __init__(self) -> None:
        self._values: dict[tuple[str, Gen], dict[tuple[str, str], int | tuple[int, ...]]] = {}
        self._records: dict[tuple[Gen, str, str], bytes] = {}
        self._elements: dict[tuple[str, str, str], int | None] = {}

    def _new_value(self, sname: str, f: Field, text: str,
                   gen: Gen) -> int | tuple[int, ...] | None:
        """A value not seen before: integers, integer lists and `sb[p, off]` directly
        (list elements cached one by one), anything else through the parser."""
        if f.count == 1:
            if f.role != "addr4" and _INT.fullmatch(text):
                return _checked(f, parse_int(text))
            m = _ADDR.fullmatch(text) if f.role == "addr4" else None
            if m:
                space, part, off = m.groups()
                try:
                    return encode_address(SPACE_NAMES[space.lower()], int(part), int(off, 0), gen)
                except ValueError:
                    return None
            return _value(f, text, gen)
        items = text[1:-1].split(",") if text[:1] == "[" else ()
        if len(items) != f.count:
            return _value(f, text, gen)
        out = []
        elements = self._elements
        for item in items:
            key = (sname, f.name, item)
            if key in elements:
                v = elements[key]
            else:
                v = elements[key] = _element(f, item)
            if v is None:
                return None
            out.append(v)
        return tuple(out)

    def record(self, head: str, rest: str, gen: Gen, labels: dict[str, int],
               here: int) -> bytes | None:
        """The 64 bytes of `head rest` at byte offset `here`, or None (use the full path)."""
        key = (gen, head, rest)
        rec = self._records.get(key)
        if rec is not None:
            return rec
        if head[0] == ".":  # split_line lets only .raw through
            m = _RAW_HEX.fullmatch(rest)
            return bytes.fromhex(m.group(1)) if m else None
        out = self._encode(head, rest, gen, labels, here)
        if out is None:
            return None
        rec, uses_label = out
        if not uses_label:
            self._records[key] = rec
        return rec

    def _encode(self, head: str, rest: str, gen: Gen, labels: dict[str, int],
                here: int) -> tuple[bytes, bool] | None:
        found = lookup_mnemonic(head)
        if found is None:
            return None
        code, sname = found
        cache = self._values.get((sname, gen))
        if cache is None:
            cache = self._values[(sname, gen)] = {}
        explicit: dict[str, int | tuple[int, ...]] = {}
        sem_value: list[str] = []  # the wait=/signal= key that set the semaphore value
        pairs: dict[str, dict[int, int]] = {}
        last: str | None = None
        uses_label = False
        for key, text in _ARG.findall(rest):
            plan = resolve_key(sname, key)
            kind = plan.kind
            if kind is _FIELD:
                name = plan.name
                if plan.operand is not None:
                    last = plan.operand
            elif kind is _RELATIVE and last is not None:
                name = f"{last}.{plan.name}"
            elif kind is _SHORTHAND and key in SEM_KEYS:
                if not _semaphore(key, text, explicit, sem_value):
                    return None
                continue
            elif kind is _NIBBLE:
                nib = _nibble(text)
                parts = pairs.setdefault(plan.name, {})
                if nib is None or plan.slot in parts:
                    return None
                parts[plan.slot] = nib
                continue
            else:  # shorthands and errors: the builder handles them
                return None
            if name in explicit:
                return None
            value = cache.get((name, text))
            if value is None:
                f = STRUCTS[sname].field(name)
                # a label's value depends on this line's offset: never cached
                if f.role == "branch_offset" and parse_number(text) is None:
                    uses_label = True
                    value = _value(f, text, gen, labels, here)
                else:
                    value = cache[(name, text)] = self._new_value(sname, f, text, gen)
                if value is None:
                    return None
            explicit[name] = value
        p = _packer(sname)
        vals = p.defaults.copy()
        vals[p.opcode_slot] = code
        slots = p.slots
        for pair, parts in pairs.items():
            if pair in explicit:
                return None
            vals[slots[pair][0]] = make_pair(parts.get(0, 0), parts.get(1, 0))
        for name, value in explicit.items():
            i, n = slots[name]
            if n == 1:
                vals[i] = value
            else:
                vals[i:i + n] = value
        try:
            return p.fmt.pack(*vals), uses_label
        except _struct.error:
            return None
