"""The assembler's fast path for ordinary lines (labels, `MNEMONIC key=value ...`, `.raw`).

It never reports errors: anything unusual (a key set twice, an unknown key, a value
that does not parse or does not fit) returns None and the line goes through the full
parser and builder, which produce the same bytes or the positioned error. So the
fast path may only accept lines whose meaning it reproduces exactly; it shares the
key rules (keys.resolve_key) and value rules (values.field_value, semaphores.sem_fields)
with the builder, and follows the builder's order (moves, implied fields, DTYPE_PAIR
nibbles, then fields set by name, which win). tests/asm/test_fastpath.py holds both
paths to the same bytes and errors on generated lines.

Speed comes from what repeats in real programs, at three levels:
- the line's shape (`shape_lines`: its digits 3..9 made 2; `LineSplit`): the fast split
  (`split_line`, a regex of the lexer's and parser's rules) runs once per shape, and
  gives the spans that cut every line of that shape into label, head, keys and values;
- the instruction's shape (generation, mnemonic, keys in order; `_Shape`): the key
  plans, field slots, defaults and shorthand steps are worked out once;
- values per (struct, generation, field, text), and whole records of repeated lines
  (per generation and line text, unless a label is read; RECORD_CACHE of them).
Records are packed by one precompiled `struct.Struct` per layout.
"""

from __future__ import annotations

import re
import struct as _struct
from collections.abc import Callable
from functools import cache, lru_cache
from operator import itemgetter

from neurondbg.machine.asm.errors import AsmError
from neurondbg.machine.asm.keys import Kind, lookup_mnemonic, resolve_key
from neurondbg.machine.asm.parser import Atom, parse_value
from neurondbg.machine.asm.semaphores import KEYS as SEM_KEYS
from neurondbg.machine.asm.semaphores import VALUE as SEM_VALUE
from neurondbg.machine.asm.semaphores import sem_fields
from neurondbg.machine.asm.values import (
    SPACE_NAMES,
    check_range,
    dtype_nibble,
    field_value,
    fp32_bits,
    parse_int,
    parse_number,
    register_number,
    scalar,
)
from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.files import MAX_TOKEN_CHARS
from neurondbg.machine.isa.addr import encode_address
from neurondbg.machine.isa.enums import BrTargetMode, DataSrc
from neurondbg.machine.isa.spec import RECORD_BYTES, Field
from neurondbg.machine.isa.structs import STRUCTS, make_pair, pair_hi, pair_lo
from neurondbg.machine.isa.text import INST_WORD_LEN

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
# signal=sem[3]++@complete): lowercase, decimal, no spaces; `++` / `--` take no value,
# every other operator one (the parser reads `sem[0]>=` and `sem[0]++5` otherwise)
_SEM_VALUE = (r"sem\[[0-9]++\](?:\+\+|--|(?:\+=|-=|>=|<=|==|<|>|=)[0-9]++)(?:@[a-z]++)?+"
              r"(?![\w.\[])")
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


# The arguments of a split line: keys, value texts (in order) and, for `.raw`, the text
# after the head.
Args = tuple[tuple[str, ...], tuple[str, ...], str]
NO_ARGS: Args = ((), (), "")

# Digits 3..9 made 2: the line's shape. Every pattern above treats the digits as the
# classes {0}, {1}, {2..9} (`0x`, `0b[01]`, `[0-9]`, `\d`, `\w`), so a line and its shape
# match alike, with the same spans: the split of one line serves every line of its shape.
_SHAPE_TABLE = bytes.maketrans(b"3456789", b"2222222")


def shape_lines(lines: list[str]) -> list[str]:
    """The shapes of `lines` (which hold no line break), made in C over a block of
    them; the lines themselves when they cannot be encoded (lone surrogates)."""
    try:
        raw = "\n".join(lines).encode("utf-8")
    except UnicodeEncodeError:
        return lines
    return raw.translate(_SHAPE_TABLE).decode("utf-8").split("\n")


class LineSplit:
    """Where the label, head and arguments sit in every line of one shape."""

    __slots__ = ("head", "keys", "label", "pieces", "rest", "same_head", "values")

    def __init__(self, shape: str) -> None:
        cut = shape.find("#")
        m = _LINE.fullmatch(shape if cut < 0 else shape[:cut])
        assert m is not None
        self.label = slice(*m.span(1)) if m.start(1) >= 0 else None
        self.head = slice(*m.span(2)) if m.start(2) >= 0 else None
        # a head without a 2 in its shape has no digit 2..9: it is the same in every
        # line of the shape, and one string serves them all (keys likewise)
        self.same_head = m.group(2) if self.head is not None and "2" not in m.group(2) else None
        start = m.start(3)
        self.rest = slice(*m.span(3)) if start >= 0 else None
        args = [] if start < 0 else list(_ARG.finditer(m.group(3)))
        spans = [slice(a.start(g) + start, a.end(g) + start) for a in args for g in (1, 2)]
        # one C call slices every key and value (a getter of one slice returns no tuple)
        self.pieces = itemgetter(*spans) if len(spans) > 1 else None
        keys = tuple(a.group(1) for a in args)
        self.keys = keys if not any("2" in k for k in keys) else None
        self.values = itemgetter(*spans[1::2]) if len(args) > 1 else None

    def head_of(self, line: str) -> tuple[str | None, str | None]:
        """(label, head) of a line of this shape."""
        return (line[self.label] if self.label is not None else None,
                self.same_head or (line[self.head] if self.head is not None else None))

    def args(self, line: str) -> Args:
        """The arguments of a line of this shape (made when the line is encoded, so
        that pass 0 keeps no tuples per line)."""
        if self.pieces is None:
            return (), (), line[self.rest] if self.rest is not None else ""
        if self.keys is not None and self.values is not None:  # only values are cut
            return self.keys, self.values(line), ""
        got = self.pieces(line)
        return got[0::2], got[1::2], ""


def line_split(shape: str) -> LineSplit | None:
    """How lines of this shape split (see `split_line`), or None for the parser's."""
    return LineSplit(shape) if split_line(shape) is not None else None


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


# One step of a line shape: (value texts, record values, labels, this line's offset) ->
# None to decline the line, True when a label was read (the record is not reused),
# else False. A step writes its fields into the record values in place.
Step = Callable[[tuple[str, ...], list[int], dict[str, int], int], "bool | None"]
_MISSING = object()


# A field set by name from one value: (value index, first element, one past the last
# element for a list field else 0, the field's values by text, the maker of a new one).
FieldEntry = tuple[int, int, int, dict[str, "int | tuple[int, ...] | None"],
                   Callable[[str], "int | tuple[int, ...] | None"]]


class _Shape:
    """What every line of one shape (generation, mnemonic, keys in order) shares: the
    record's starting values (defaults, opcode and constant implied fields), the steps
    of moves, implied fields and DTYPE_PAIR nibbles, then the fields set by name (plain
    ones as entries, run in one loop; branch offsets and semaphores as steps): the
    builder's order, in which fields set by name win over implied ones."""

    __slots__ = ("after", "base", "before", "fields", "fmt")

    def __init__(self, fmt: _struct.Struct, base: list[int], before: list[Step],
                 fields: list[FieldEntry], after: list[Step]) -> None:
        self.fmt = fmt
        self.base = base
        self.before = before
        self.fields = fields
        self.after = after


# Records kept for lines that repeat: made again after this many distinct lines, so
# that a source of distinct lines holds no second copy of all of its program (each
# kept record costs ~150 bytes: at most ~40 MB). Real programs and the benchmark's
# repeat lines from far apart (a 1M-line source has ~300k distinct lines): 1 << 16
# made a third more lines again there, ~20% of the assembler's time.
RECORD_CACHE = 1 << 18


class FastPath:
    """Per-assembly caches (dropped with the Assembly, so memory stays bounded)."""

    def __init__(self) -> None:
        self._values: dict[tuple[str, Gen, str], dict[str, int | tuple[int, ...] | None]] = {}
        # records of lines seen, per generation by line text; none that reads a label
        self._records: dict[Gen, dict[object, bytes]] = {}
        self._elements: dict[tuple[str, str, str], int | None] = {}
        self._shapes: dict[tuple[Gen, str, tuple[str, ...]], _Shape | None] = {}

    def records(self, gen: Gen) -> dict[object, bytes]:
        """The records of lines seen for generation `gen`, by line text (or what the
        caller gave as `same`); none that reads a label."""
        known = self._records.get(gen)
        if known is None:
            known = self._records[gen] = {}
        return known

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
        """The 64 bytes of `head rest` (`rest` as `split_line` gives it) at byte offset
        `here`, or None (use the full path)."""
        pairs = _ARG.findall(rest)
        keys, texts = (tuple(x) for x in zip(*pairs, strict=True)) if pairs else ((), ())
        return self.record_args(head, (keys, texts, rest), gen, labels, here, (head, rest))

    def encode_line(self, head: str, split: LineSplit, line: str, gen: Gen,
                    labels: dict[str, int], here: int) -> bytes | None:
        """The 64 bytes of source `line` (of `split`'s shape, with this `head`) at byte
        offset `here`, or None (use the full path). The caller looks in `records`
        first: a line made before is the same record unless it read a label."""
        return self._encode(head, split.args(line), gen, labels, here, line)

    def record_args(self, head: str, args: Args, gen: Gen, labels: dict[str, int],
                    here: int, same: object) -> bytes | None:
        """The 64 bytes of `head` with `args` at byte offset `here`, or None (use the
        full path). Lines with equal `same` (e.g. their text) are the same record
        unless a label is read: it is made once."""
        rec = self.records(gen).get(same)
        if rec is not None:
            return rec
        return self._encode(head, args, gen, labels, here, same)

    def _encode(self, head: str, args: Args, gen: Gen, labels: dict[str, int],
                here: int, same: object) -> bytes | None:
        keys, texts, rest = args
        if head[0] == ".":  # split_line lets only .raw through
            m = _RAW_HEX.fullmatch(rest)
            return bytes.fromhex(m.group(1)) if m else None
        shape = self._shapes.get((gen, head, keys), _MISSING)
        if shape is _MISSING:
            shape = self._shapes[(gen, head, keys)] = self._shape(head, gen, keys)
        if shape is None:
            return None
        assert isinstance(shape, _Shape)
        vals = shape.base.copy()
        uses_label = False
        for step in shape.before:
            if step(texts, vals, labels, here) is None:
                return None
        for i, at, stop, known, new in shape.fields:
            text = texts[i]
            v = known.get(text)
            if v is None:
                v = new(text)
                if v is None:
                    return None
            if stop:
                vals[at:stop] = v  # type: ignore[assignment]  # a tuple for a list field
            else:
                vals[at] = v  # type: ignore[assignment]  # an int for a one-element field
        for step in shape.after:
            used = step(texts, vals, labels, here)
            if used is None:
                return None
            uses_label |= used
        try:
            rec = shape.fmt.pack(*vals)
        except _struct.error:
            return None
        if not uses_label:  # a label's value depends on this line's offset
            seen = self.records(gen)
            if len(seen) >= RECORD_CACHE:
                seen.clear()
            seen[same] = rec
        return rec

    # Compiling a shape ------------------------------------------------------------
    def _shape(self, head: str, gen: Gen, keys: tuple[str, ...]) -> _Shape | None:
        """The shape of `head key=... key=...`, or None when the builder must judge
        every such line (an unknown key, a field set twice, a relative step without
        an operand, more than 8 moves, ...)."""
        found = lookup_mnemonic(head)
        if found is None:
            return None
        code, sname = found
        s = STRUCTS[sname]
        p = _packer(sname)
        slots = p.slots
        base = p.defaults.copy()
        base[p.opcode_slot] = code
        moves: list[tuple[int, int]] = []  # (value index, destination register)
        implied: list[Step] = []
        nibbles: list[Step] = []
        fields: list[FieldEntry] = []
        explicit: list[Step] = []
        names: set[str] = set()  # explicit fields
        nibble_slots: set[tuple[str, int]] = set()
        sems: list[tuple[int, str]] = []
        last: str | None = None
        for i, key in enumerate(keys):
            plan = resolve_key(sname, key)
            kind = plan.kind
            if kind is _FIELD or kind is _RELATIVE:
                if kind is _RELATIVE:
                    if last is None:
                        return None
                    name = f"{last}.{plan.name}"
                else:
                    name = plan.name
                    if plan.operand is not None:
                        last = plan.operand
                f = s.field(name)
                if f.role == "branch_offset":
                    step = self._branch_step(sname, f, gen, i, slots[name])
                    if step is None:
                        return None
                    explicit.append(step)
                else:
                    fields.append(self._field_entry(sname, f, gen, i, slots[name]))
                if name in names:
                    return None
                names.add(name)
            elif kind is _NIBBLE:
                if (plan.name, plan.slot) in nibble_slots:
                    return None
                nibble_slots.add((plan.name, plan.slot))
                nibbles.append(_nibble_step(i, slots[plan.name][0], plan.slot))
            elif kind is _SHORTHAND and key in SEM_KEYS:
                if any(k == key for _, k in sems):
                    return None  # set twice
                sems.append((i, key))
            elif kind is _SHORTHAND and sname == "CTRL_MV":
                moves.append((i, register_number(key) or 0))
            elif kind is _SHORTHAND and sname == "CTRL_AL":
                implied.append(_alu_step(i, key, slots))
            elif kind is _SHORTHAND and sname == "CTRL_BR":  # target=
                base[slots["target_mode"][0]] = int(BrTargetMode.REL_IMM)
                base[slots["header.debug_hint"][0]] = 2
                step = self._branch_step(sname, s.field("br_immediate"), gen, i,
                                         slots["br_immediate"])
                if step is None or "br_immediate" in names:
                    return None
                names.add("br_immediate")
                explicit.append(step)
            else:  # an error: the builder reports it
                return None
        if any(pair in names for pair, _ in nibble_slots):
            return None  # set whole and by nibble
        if sems:
            explicit.append(_sem_step(sems, slots, frozenset(names)))
        if moves:
            if len(moves) > 8:
                return None
            implied.insert(0, _move_step(moves, slots))
        return _Shape(p.fmt, base, implied + nibbles, fields, explicit)

    def _maker(self, sname: str, f: Field, gen: Gen
               ) -> tuple[dict[str, int | tuple[int, ...] | None],
                          Callable[[str], int | tuple[int, ...] | None]]:
        """The values of `f` by text (one cache per struct, generation and field) and
        the function that makes (and caches) a value not seen before, None if the
        builder would report it."""
        cache = self._values.setdefault((sname, gen, f.name), {})

        def new(text: str) -> int | tuple[int, ...] | None:
            v = self._new_value(sname, f, text, gen)
            if v is not None:
                cache[text] = v
            return v
        return cache, new

    def _field_entry(self, sname: str, f: Field, gen: Gen, i: int,
                     slot: tuple[int, int]) -> FieldEntry:
        """Field `f` set from value `i`."""
        at, count = slot
        return (i, at, at + count if count > 1 else 0, *self._maker(sname, f, gen))

    def _branch_step(self, sname: str, f: Field, gen: Gen, i: int,
                     slot: tuple[int, int]) -> Step | None:
        """Branch offset `f` set from value `i` (None if it is not one value)."""
        if slot[1] != 1 or f.enum is not None:
            return None
        return _branch_step(f, i, slot[0], *self._maker(sname, f, gen))


def _branch_step(f: Field, i: int, at: int, cache: dict[str, int | tuple[int, ...] | None],
                 new: Callable[[str], int | tuple[int, ...] | None]) -> Step:
    """A branch offset: a number (cached) or a label (its offset minus this line's, as
    values.scalar reads it: a text that is a number is never a label)."""
    is_label: dict[str, bool] = {}
    lo, hi = f.bounds

    def step(texts: tuple[str, ...], vals: list[int], labels: dict[str, int],
             here: int) -> bool | None:
        text = texts[i]
        v = cache.get(text)
        if v is not None:
            vals[at] = v  # type: ignore[assignment]
            return False
        label = is_label.get(text)
        if label is None:  # a label's name is an atom; a number never names one
            label = is_label[text] = text in labels and parse_number(text) is None
        if not label:
            v = new(text)
            if v is None:
                return None
            vals[at] = v  # type: ignore[assignment]
            return False
        target = labels.get(text)
        if target is None:
            return None
        off = target - here
        if not lo <= off <= hi:
            checked = _checked(f, off)
            if checked is None:
                return None
            off = checked
        vals[at] = off
        return True
    return step


def _nibble_step(i: int, at: int, slot: int) -> Step:
    """One nibble of a DTYPE_PAIR byte (the other nibble kept, as the builder keeps it)."""
    def step(texts: tuple[str, ...], vals: list[int], labels: dict[str, int],
             here: int) -> bool | None:
        nib = _nibble(texts[i])
        if nib is None:
            return None
        cur = vals[at]
        vals[at] = make_pair(nib, pair_hi(cur)) if slot == 0 else make_pair(pair_lo(cur), nib)
        return False
    return step


@lru_cache(maxsize=4096)
def _move_operand(text: str) -> tuple[bool, int] | None:
    """(is a register, register or 32-bit immediate) of one MOVE value, as the builder's
    `_moves` reads it; None for what it reports."""
    value = parse_value(text)
    if not isinstance(value, Atom):
        return None
    reg = register_number(value.text)
    if reg is not None:
        return True, reg
    num = parse_number(value.text)
    if num is None:
        return None
    if isinstance(num, float):
        return False, fp32_bits(num)
    if not -(1 << 31) <= num < (1 << 32):
        return None
    return False, num & 0xFFFFFFFF


def _move_step(moves: list[tuple[int, int]], slots: dict[str, tuple[int, int]]) -> Step:
    """`MOVE R3=5 R4=R7`: all registers or all immediates (the builder's `_moves`)."""
    n = len(moves)
    pad = [0] * (8 - n)
    num_mov, dtype, source = (slots[k][0] for k in ("num_mov", "dtype", "move_source"))
    dst, src, imm = (slots[k][0] for k in ("dst_registers", "src_registers", "immediate"))
    dsts = [d for _, d in moves] + pad
    idx = [i for i, _ in moves]

    def step(texts: tuple[str, ...], vals: list[int], labels: dict[str, int],
             here: int) -> bool | None:
        ops = [_move_operand(texts[i]) for i in idx]
        if None in ops:
            return None
        kinds = {op[0] for op in ops if op is not None}
        if len(kinds) != 1:
            return None
        got = [op[1] for op in ops if op is not None] + pad
        vals[num_mov], vals[dtype] = n, int(Dtype.INT32)
        vals[dst:dst + 8] = dsts
        if True in kinds:
            vals[source] = int(DataSrc.REGISTER)
            vals[src:src + 8] = got
            vals[imm:imm + 8] = [0] * 8
        else:
            vals[source] = int(DataSrc.IMMEDIATE)
            vals[src:src + 8] = [0] * 8
            vals[imm:imm + 8] = got
        return False
    return step


@lru_cache(maxsize=4096)
def _alu_operand(key: str, text: str) -> tuple[tuple[str, int | tuple[int, int]], ...] | None:
    """The implied fields of ALU_OP's `dst=` / `src0=` / `src1=` (the builder's
    `_shorthand`), or None for what it reports."""
    value = parse_value(text)
    if not isinstance(value, Atom):
        return None
    reg = register_number(value.text)
    if reg is not None:
        if key == "src1":
            return (("src1_lo", reg), ("src1_datasrc", int(DataSrc.REGISTER)))
        return ((f"{key}_lo", reg),)
    if key != "src1":
        return None
    num = parse_number(value.text)
    if num is None:
        return None
    if isinstance(num, float):
        imm = (fp32_bits(num), 0)
    elif not -(1 << 63) <= num < (1 << 64):
        return None
    else:
        num &= (1 << 64) - 1
        imm = (num & 0xFFFFFFFF, num >> 32)
    return (("src1_datasrc", int(DataSrc.IMMEDIATE)), ("immediate", imm))


_ALU_TEXTS = 4096  # texts an ALU step keeps the writes of


def _alu_step(i: int, key: str, slots: dict[str, tuple[int, int]]) -> Step:
    # the writes of each text, with their slots looked up once (a line's ALU operands
    # repeat: registers, small immediates)
    writes: dict[str, tuple[tuple[int, int, int | tuple[int, int]], ...] | None] = {}

    def step(texts: tuple[str, ...], vals: list[int], labels: dict[str, int],
             here: int) -> bool | None:
        text = texts[i]
        if text in writes:
            got = writes[text]
        else:
            if len(writes) >= _ALU_TEXTS:
                writes.clear()
            fields = _alu_operand(key, text)
            got = writes[text] = None if fields is None else tuple(
                (slots[name][0], slots[name][1], v) for name, v in fields)
        if got is None:
            return None
        for at, count, v in got:
            if isinstance(v, int):
                vals[at] = v
            else:
                vals[at:at + count] = v
        return False
    return step


@lru_cache(maxsize=4096)
def _sem_operand(key: str, text: str) -> tuple[tuple[str, int], ...] | None:
    """The events fields of `wait=` / `signal=` (semaphores.sem_fields), or None."""
    value = parse_value(text)
    if value is None:
        return None
    try:
        return tuple(sem_fields(key, value, _fail).items())
    except AsmError:
        return None


def _sem_step(sems: list[tuple[int, str]], slots: dict[str, tuple[int, int]],
              explicit: frozenset[str]) -> Step:
    """`wait=` and / or `signal=`: a value both set must agree, and no field they set
    may be set by name too (the builder's rules)."""
    def step(texts: tuple[str, ...], vals: list[int], labels: dict[str, int],
             here: int) -> bool | None:
        shared: int | None = None
        for i, key in sems:
            fields = _sem_operand(key, texts[i])
            if fields is None:
                return None
            for name, v in fields:
                if name in explicit:
                    return None
                if name == SEM_VALUE:
                    if shared is not None and shared != v:
                        return None
                    shared = v
                vals[slots[name][0]] = v
        return False
    return step
