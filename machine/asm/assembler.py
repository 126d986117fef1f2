"""Assemble source text into 64-byte records plus data initialisations (syntax: machine/asm).

Three passes over the lines: 0 splits each line (machine.asm.fastpath, by its shape)
or parses it (parser.parse_line: directives and anything unusual), raising the first
syntax error; 1 gives labels their byte offsets; 2 encodes each record, through the
fast path or else the builder here (`_instruction`, `_directive`), raising the first
error in line order. Errors are AsmError: `file:line:col: message` with the source
line and a caret; names that are not known get difflib's nearest one (`did you
mean`), a branch to a name that is no label says `undefined label`.
"""

from __future__ import annotations

import functools
import gc
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

import numpy as np

from neurondbg.machine.asm.data import DataInit, data_format, to_bytes
from neurondbg.machine.asm.errors import AsmError, did_you_mean
from neurondbg.machine.asm.fastpath import FastPath, LineSplit, line_split, shape_lines
from neurondbg.machine.asm.keys import Kind, lookup_mnemonic, resolve_key
from neurondbg.machine.asm.parser import Arg, Atom, Bracket, Statement, Value, parse_line
from neurondbg.machine.asm.semaphores import KEYS as SEM_KEYS
from neurondbg.machine.asm.semaphores import VALUE as SEM_VALUE
from neurondbg.machine.asm.semaphores import sem_fields
from neurondbg.machine.asm.values import (
    SPACE_NAMES,
    dtype_nibble,
    field_value,
    fp32_bits,
    parse_int,
    parse_number,
    partition_index,
    register_number,
    register_range_error,
)
from neurondbg.machine.dtypes import DEFAULT_GEN, Dtype, Gen, parse_gen
from neurondbg.machine.files import MAX_ASSEMBLY_LINES, MAX_DATA_BYTES, MAX_LINE_CHARS, size_text
from neurondbg.machine.isa.addr import geometry
from neurondbg.machine.isa.codec import Program, decode_bytes, encode
from neurondbg.machine.isa.enums import BrTargetMode, DataSrc
from neurondbg.machine.isa.opcodes import OPCODES
from neurondbg.machine.isa.spec import RECORD_BYTES, Struct
from neurondbg.machine.isa.structs import STRUCTS, make_pair, pair_hi, pair_lo
from neurondbg.machine.isa.text import INST_WORD_LEN

DIRECTIVES = (".gen", ".raw", ".data", ".bytes", ".fill", ".random")
SECTION_DIRECTIVE = ".engine"  # read by machine.asm.sections; an error in one program
MNEMONICS = tuple(info.name for info in OPCODES.values())  # for did-you-mean hints
PROGRESS_LINES = 4096  # lines between progress reports: a call per block costs nothing

Progress = Callable[[int, int], None]  # (done, total)

@dataclass
class Assembly:
    """The result of assembling one source."""

    records: bytes
    data: list[DataInit]
    labels: dict[str, int]  # label -> byte offset
    lines: list[int]  # source line of each record
    gen: Gen
    name: str = "<asm>"

    def program(self) -> Program:
        return decode_bytes(self.records, self.name)


@dataclass
class Context:
    """What the passes share: file name, generation, labels, data so far."""

    file: str
    gen: Gen
    labels: dict[str, int] = field(default_factory=dict)
    data_bytes: int = 0  # of the data directives so far (MAX_DATA_BYTES in all)
    in_section: bool = False  # inside an `.engine` section (machine.asm.sections)


Fail = Callable[[str, int], AsmError]  # (message, column) -> the error to raise


def _fail_for(st: Statement, file: str) -> Fail:
    def fail(message: str, column: int) -> AsmError:
        return AsmError(message, file, st.lineno, column, st.source.rstrip("\n"))
    return fail


def is_record(head: str | None) -> bool:
    """Does a line with this head make a record (an instruction or .raw)?"""
    return head is not None and (not head.startswith(".") or head.lower() == ".raw")


# One source line after pass 0: (lineno, source, label, head, how lines of its shape
# split) from the fast split, or (lineno, source, label, head, Statement) when the full
# parser read it.
Line = tuple[int, str, "str | None", "str | None", "LineSplit | Statement"]


# The line breaks of str.splitlines: counted (in C) before the split, so that a file of
# form feeds does not become a list of a hundred million empty lines first.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
ASCII_LINE_BREAKS = "".join(c for c in LINE_BREAKS if c.isascii())
LINE_END = re.compile(r"\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")  # one break each


def _breaks(text: str) -> int:
    """The line breaks of `text` as str.splitlines counts them, counted in C: ASCII
    text has only the ASCII ones, and `\r\n` (one break) only where there is a `\r`."""
    counts = {c: text.count(c) for c in (ASCII_LINE_BREAKS if text.isascii() else LINE_BREAKS)}
    return sum(counts.values()) - (text.count("\r\n") if counts["\r"] else 0)


SPLIT_CHARS = 1 << 20  # characters split at a time (_source_lines)


def _source_lines(text: str, name: str) -> list[str]:
    """text.splitlines(); AsmError past MAX_ASSEMBLY_LINES lines or at the first line
    over MAX_LINE_CHARS (machine.files).

    Split about SPLIT_CHARS at a time, each piece ending just after a `\n` (a line
    boundary for splitlines, `\r\n` included), so that no single C call holds the
    interpreter for long: a 1M-line source is otherwise one 0.2-0.4 s call, during
    which the progress bar's thread cannot draw (and Ctrl+C waits)."""
    lines: list[str] = []
    at, n = 0, len(text)
    while at < n:
        cut = text.find("\n", at + SPLIT_CHARS)
        stop = n if cut < 0 else cut + 1
        piece = text[at:stop] if at or stop < n else text
        room = MAX_ASSEMBLY_LINES - len(lines)
        # a piece no longer than the room cannot have more lines than it: nothing to count
        if len(piece) > room and _breaks(piece) > room:
            _check_line(MAX_ASSEMBLY_LINES + 1, 0, name)
        more = piece.splitlines()
        if max(map(len, more), default=0) > MAX_LINE_CHARS:
            i = next(i for i, line in enumerate(more) if len(line) > MAX_LINE_CHARS)
            _check_line(len(lines) + i + 1, len(more[i]), name)
        lines += more
        at = stop
    _check_line(len(lines), 0, name)  # one more than the breaks when the last is unended
    return lines


def _check_line(lineno: int, length: int, name: str) -> None:
    """AsmError if line number `lineno`, of `length` characters, is past a limit."""
    if lineno > MAX_ASSEMBLY_LINES:
        raise AsmError(f"more than {MAX_ASSEMBLY_LINES:,} lines; that is the limit for one "
                       "assembly source", name, lineno, 1)
    if length > MAX_LINE_CHARS:
        raise AsmError(f"line of {length:,} characters; at most {MAX_LINE_CHARS:,} are "
                       "accepted", name, lineno, MAX_LINE_CHARS + 1)


def _check_nul(text: str, name: str) -> None:
    """A NUL character is never assembly: say so where it is (usually a binary
    program named like a source file), before any line is split."""
    at = text.find("\x00")
    if at < 0:
        return
    lineno, start = 1, 0
    for m in LINE_END.finditer(text, 0, at):
        lineno, start = lineno + 1, m.end()
    raise AsmError("NUL character: this is not assembly text (binary programs of 64-byte "
                   "records are read as such unless named .asm, .s, .nasm or .txt)",
                   name, lineno, at - start + 1)


_NO_SPLIT = object()
P = ParamSpec("P")
R = TypeVar("R")


def without_gc(fn: Callable[P, R]) -> Callable[P, R]:
    """`fn` with Python's cyclic garbage collector paused while it runs. The passes
    keep a tuple per source line and make no reference cycles; with the collector on,
    its full collections rescan those millions of tuples over and over (a third of
    pass 0's time on a 1M-line source) and free nothing."""
    @functools.wraps(fn)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()
    return paused


@without_gc
def split_source(text: str, name: str, progress: Progress | None = None
                 ) -> tuple[list[Line], list[int]]:
    """Pass 0: split every line (fast path) or parse it (raises the first syntax error).
    Also the indices of the lines the full parser read: every directive but `.raw` is
    one of them (split_line leaves those to the parser), so `.engine` lines are found
    without a second look at every line. `progress(lines read, lines)` is called at
    the start and every PROGRESS_LINES lines."""
    _check_nul(text, name)
    source = _source_lines(text, name)
    total = len(source)
    out: list[Line] = []
    parsed: list[int] = []
    splits: dict[str, LineSplit | None] = {}  # programs repeat line shapes
    if progress is not None:
        progress(0, total)  # the total, at once
    for start in range(0, total, PROGRESS_LINES):  # blocks: the callback costs nothing
        stop = start + PROGRESS_LINES
        block = source[start:stop]
        for i, (line, shape) in enumerate(zip(block, shape_lines(block), strict=True),
                                          start + 1):
            split = splits.get(shape, _NO_SPLIT)
            if split is _NO_SPLIT:
                split = splits[shape] = line_split(shape)
            if split is not None:
                assert isinstance(split, LineSplit)
                out.append((i, line, *split.head_of(line), split))
                continue
            st = parse_line(line, name, i)
            parsed.append(i - 1)
            out.append((i, line, st.label.text if st.label else None,
                        st.head.text if st.head else None, st))
        if progress is not None:
            progress(min(stop, total), total)
    return out, parsed


def read_lines(text: str, name: str) -> list[Line]:
    """Pass 0 (split_source) without the parsed lines' indices."""
    return split_source(text, name)[0]


# What a line's three passes cost, in units: their shares of the CPU time on mixed
# sources (benchmarks/asm_bench.py; 1M lines: reading 28%, labels 7%, encoding 65%),
# so the count a bar shows moves about as fast in every pass and its time remaining
# holds throughout.
READ_UNITS, LABEL_UNITS, ENCODE_UNITS = 11, 3, 26
LINE_UNITS = READ_UNITS + LABEL_UNITS + ENCODE_UNITS


class Meter:
    """The (done, total) of the three passes for a `progress` callback: a line counts
    in parts as it is read (pass 0), labelled (pass 1) and encoded (pass 2), each part
    its pass's share of the work (READ_UNITS, ...), so the count moves through each
    pass at the pace of the work; `finish` reports (total, total), lines no pass after
    the first sees (`.engine`) included. Counts only grow."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.total = self.read = self.passed = 0

    def reading(self, done: int, total: int) -> None:
        self.read, self.total = done * READ_UNITS, total
        self.progress(self.read // LINE_UNITS, total)

    def passing(self, units: int) -> None:
        """`units` more of passes 1 and 2 done (LABEL_UNITS / ENCODE_UNITS a line)."""
        self.passed += units
        self.progress(min((self.read + self.passed) // LINE_UNITS, self.total), self.total)

    def finish(self) -> None:
        self.progress(self.total, self.total)


def assemble(text: str, name: str = "<asm>", gen: Gen | str = DEFAULT_GEN,
             progress: Progress | None = None) -> Assembly:
    """Assemble `text`; AsmError (file:line:col + caret) at the first problem.
    `progress(done, total)` (lines of `text`, counted as Meter says) is called at the
    start, every PROGRESS_LINES lines of each pass, and with (total, total) at the end."""
    ctx = Context(name, parse_gen(gen))
    if progress is None:
        return assemble_lines(read_lines(text, name), ctx)
    meter = Meter(progress)
    asm = assemble_lines(split_source(text, name, meter.reading)[0], ctx, meter.passing)
    meter.finish()
    return asm


@without_gc
def assemble_lines(src_lines: list[Line], ctx: Context,
                   advance: Callable[[int], None] | None = None) -> Assembly:
    """Passes 1 and 2 over lines of `read_lines` (all of a source, or one `.engine`
    section of it: line numbers stay those of the whole file). `advance(units)` is
    called as each pass is done with a block of lines (PROGRESS_LINES): LABEL_UNITS a
    line in pass 1, ENCODE_UNITS in pass 2 (Meter.passing)."""
    name = ctx.file
    count = 0
    for start in range(0, len(src_lines), PROGRESS_LINES):  # pass 1: label addresses
        block = src_lines[start:start + PROGRESS_LINES]
        for lineno, source, label, head, _ in block:
            if label is not None:
                if label in ctx.labels:
                    st = parse_line(source, name, lineno)
                    assert st.label is not None
                    raise _fail_for(st, name)(f"label {label!r} defined twice",
                                              st.label.column)
                ctx.labels[label] = count * RECORD_BYTES
            # is_record(head), inlined: this loop runs once per line
            if head is not None and (head[0] != "." or head.lower() == ".raw"):
                count += 1
        if advance is not None:
            advance(len(block) * LABEL_UNITS)
    fast = FastPath()
    records = bytearray()  # 64 bytes a record, not a bytes object each
    lines: list[int] = []
    data: list[DataInit] = []
    labels = ctx.labels
    gen = ctx.gen
    known = fast.records(gen)  # repeated lines: looked up here, the loop's most common case
    for start in range(0, len(src_lines), PROGRESS_LINES):  # pass 2, in blocks
        block = src_lines[start:start + PROGRESS_LINES]
        for lineno, source, _, head, rest in block:  # encode
            if head is None:
                continue
            here = len(records)
            rec = None
            if not isinstance(rest, Statement):
                rec = known.get(source) or fast.encode_line(head, rest, source, gen, labels,
                                                            here)
                if rec is None:  # the full path gives the same bytes, or the positioned error
                    rest = parse_line(source, name, lineno)
            if rec is None:
                assert isinstance(rest, Statement)
                fail = _fail_for(rest, name)
                if head.startswith("."):
                    rec = _directive(rest, ctx, fail, data)
                    if ctx.gen is not gen:  # `.gen`: the lines after it are of another
                        gen = ctx.gen
                        known = fast.records(gen)
                else:
                    rec = _instruction(rest, ctx, fail, here)
            if rec is not None:
                records += rec
                lines.append(lineno)
        if advance is not None:
            advance(len(block) * ENCODE_UNITS)
    return Assembly(bytes(records), data, ctx.labels, lines, ctx.gen, name)


# ---------------------------------------------------------------- instructions

def _lookup(head: Atom, fail: Fail) -> tuple[int, Struct]:
    found = lookup_mnemonic(head.text)
    if found is None:
        hint = did_you_mean(head.text, MNEMONICS)
        raise fail(f"unknown mnemonic {head.text!r}" + (hint or (
            "; expected an opcode name like COPY, CAST, MOVE, OP_xx for any byte, or a "
            "directive (" + ", ".join(DIRECTIVES) + ")")), head.column)
    code, struct_name = found
    return code, STRUCTS[struct_name]


class _Builder:
    """Collects explicit and implied field values of one instruction."""

    def __init__(self, struct: Struct, ctx: Context, fail: Fail, here: int) -> None:
        self.struct = struct
        self.ctx = ctx
        self.fail = fail
        self.here = here
        self.explicit: dict[str, int | tuple[int, ...]] = {}
        self.implied: dict[str, int | tuple[int, ...]] = {}
        self.last_operand: str | None = None
        self.moves: list[tuple[int, Atom]] = []
        self.pair_parts: dict[str, dict[int, int]] = {}
        self.sem_value_by = ""  # the wait=/signal= key that set events.semaphore_value

    def set(self, name: str, value: int | tuple[int, ...], column: int) -> None:
        if name in self.explicit:
            raise self.fail(f"{name} is set twice on this line", column)
        self.explicit[name] = value

    def value(self, name: str, arg: Arg) -> int | tuple[int, ...]:
        return field_value(self.struct.field(name), arg.value, self.ctx.gen, self.fail,
                           self.ctx.labels, self.here)

    def atom(self, arg: Arg, what: str) -> Atom:
        if not isinstance(arg.value, Atom):
            raise self.fail(f"expected {what}", arg.value.column)
        return arg.value

    def add(self, arg: Arg) -> None:
        if arg.key is None:
            raise self.fail("expected field=value", arg.column)
        key = arg.key.text
        plan = resolve_key(self.struct.name, key)
        kind = plan.kind
        if kind is Kind.FIELD:
            if plan.operand is not None:
                self.last_operand = plan.operand
            self.set(plan.name, self.value(plan.name, arg), arg.column)
        elif kind is Kind.NIBBLE:
            nib = dtype_nibble(self.atom(arg, "a dtype"), self.fail)
            parts = self.pair_parts.setdefault(plan.name, {})
            if plan.slot in parts:
                raise self.fail(f"{key} is set twice on this line", arg.column)
            parts[plan.slot] = nib
        elif kind is Kind.RELATIVE:
            if self.last_operand is None:
                raise self.fail(plan.message, arg.column)
            name = f"{self.last_operand}.{plan.name}"
            self.set(name, self.value(name, arg), arg.column)
        elif kind is Kind.SHORTHAND:
            self._shorthand(key, arg)
        else:
            raise self.fail(plan.message, arg.key.column)

    # Readable shorthands of the SEQ structs -----------------------------------
    def _shorthand(self, key: str, arg: Arg) -> None:
        """Apply a shorthand (keys.Kind.SHORTHAND decides which keys are shorthands)."""
        name = self.struct.name
        if key in SEM_KEYS:
            self._semaphore(key, arg)
        elif name == "CTRL_MV":
            self.moves.append((register_number(key) or 0, self.atom(arg, "a register or a number")))
        elif name == "CTRL_AL":
            atom = self.atom(arg, "a register or a number")
            reg = register_number(atom.text)
            out_of_range = register_range_error(atom.text)
            if out_of_range is not None:
                raise self.fail(out_of_range, atom.column)
            if reg is not None:
                self.implied[f"{key}_lo"] = reg
                if key == "src1":
                    self.implied["src1_datasrc"] = int(DataSrc.REGISTER)
                return
            if key != "src1":
                raise self.fail(f"{key} must be a register (R0..R63, PC_LO, PC_HI)", atom.column)
            self.implied["src1_datasrc"] = int(DataSrc.IMMEDIATE)
            self.implied["immediate"] = _imm64(atom, self.fail)
        else:  # CTRL_BR target=
            self.implied["target_mode"] = int(BrTargetMode.REL_IMM)
            self.implied["header.debug_hint"] = 2  # builders' habit for relative branches
            self.set("br_immediate", self.value("br_immediate", arg), arg.column)

    def _semaphore(self, key: str, arg: Arg) -> None:
        """wait= / signal= (machine.asm.semaphores); the two may share the value field
        when they agree on it."""
        for name, value in sem_fields(key, arg.value, self.fail).items():
            if name == SEM_VALUE and self.sem_value_by not in ("", key):
                if self.explicit[name] != value:
                    raise self.fail(f"wait= and signal= share {SEM_VALUE}: "
                                    f"{self.explicit[name]} and {value} differ", arg.column)
                continue
            self.set(name, value, arg.column)
            if name == SEM_VALUE:
                self.sem_value_by = key

    def finish(self, code: int) -> dict[str, int | tuple[int, ...]]:
        out: dict[str, int | tuple[int, ...]] = {
            "header.opcode": code, "header.inst_word_len": INST_WORD_LEN}
        if self.moves:
            out.update(self._moves())
        out.update(self.implied)
        for pair, parts in self.pair_parts.items():
            if pair in self.explicit:
                raise self.fail(f"{pair} is set both whole and by nibble", 1)
            cur = out.get(pair, 0)
            assert isinstance(cur, int)
            out[pair] = make_pair(parts.get(0, pair_lo(cur)), parts.get(1, pair_hi(cur)))
        out.update(self.explicit)
        return out

    def _moves(self) -> dict[str, int | tuple[int, ...]]:
        if len(self.moves) > 8:
            raise self.fail("MOVE holds at most 8 moves", self.moves[8][1].column)
        regs = [register_number(a.text) for _, a in self.moves]
        if all(r is not None for r in regs):
            src, mode, imm = [r or 0 for r in regs], DataSrc.REGISTER, [0] * len(regs)
        elif all(r is None for r in regs):
            imm = [_imm32(a, self.fail) for _, a in self.moves]
            src, mode = [0] * len(regs), DataSrc.IMMEDIATE
        else:
            raise self.fail("one MOVE moves either registers or immediates, not both",
                            self.moves[0][1].column)
        pad = 8 - len(regs)
        return {"num_mov": len(regs), "dtype": int(Dtype.INT32), "move_source": int(mode),
                "dst_registers": tuple([d for d, _ in self.moves] + [0] * pad),
                "src_registers": tuple(src + [0] * pad), "immediate": tuple(imm + [0] * pad)}


def _imm32(atom: Atom, fail: Fail) -> int:
    num = parse_number(atom.text)
    out_of_range = register_range_error(atom.text)
    if out_of_range is not None:
        raise fail(out_of_range, atom.column)
    if num is None:
        raise fail("expected a register (R0..R63) or a number", atom.column)
    if isinstance(num, float):
        return fp32_bits(num)
    if not -(1 << 31) <= num < (1 << 32):
        raise fail(f"{num} does not fit 32 bits", atom.column)
    return num & 0xFFFFFFFF


def _imm64(atom: Atom, fail: Fail) -> tuple[int, int]:
    num = parse_number(atom.text)
    if num is None:
        raise fail("expected a register (R0..R63, PC_LO, PC_HI) or a number", atom.column)
    if isinstance(num, float):
        return fp32_bits(num), 0
    if not -(1 << 63) <= num < (1 << 64):
        raise fail(f"{num} does not fit 64 bits", atom.column)
    num &= (1 << 64) - 1
    return num & 0xFFFFFFFF, num >> 32


def _instruction(st: Statement, ctx: Context, fail: Fail, here: int) -> bytes:
    assert st.head is not None
    code, struct = _lookup(st.head, fail)
    b = _Builder(struct, ctx, fail, here)
    for arg in st.args:
        b.add(arg)
    fields = b.finish(code)
    try:
        return encode(struct, fields)
    except ValueError as e:  # defensive: values are range-checked above
        raise fail(str(e), st.head.column) from None


# ---------------------------------------------------------------- directives

def _directive(st: Statement, ctx: Context, fail: Fail, data: list[DataInit]) -> bytes | None:
    assert st.head is not None
    head = st.head.text.lower()
    if head == ".gen":
        if ctx.in_section:
            raise fail(".gen inside an .engine section: a kernel has one generation; put "
                       ".gen before the first .engine", st.head.column)
        a = _positional(st, fail, 1, ".gen NAME")[0]
        try:
            ctx.gen = parse_gen(a.text)
        except ValueError as e:
            raise fail(str(e), a.column) from None
        return None
    if head == ".raw":
        blob = _hex_blob(_positional(st, fail, None, ".raw 0x<128 hex digits>"), fail)
        if len(blob) != RECORD_BYTES:
            raise fail(f"expected {RECORD_BYTES} bytes (128 hex digits), found {len(blob)}",
                       st.args[0].column)
        return blob
    if head in (".data", ".bytes", ".fill", ".random"):
        data.append(_data_directive(head, st, ctx, fail))
        return None
    if head == SECTION_DIRECTIVE:
        raise fail(".engine starts an engine's section of a multi-engine kernel, and this "
                   "reads a single program (kernels are read by neurondbg run, asm, disasm)",
                   st.head.column)
    hint = did_you_mean(st.head.text, (*DIRECTIVES, SECTION_DIRECTIVE))
    raise fail(f"unknown directive {st.head.text!r}"
               + (hint or "; expected one of: " + ", ".join(DIRECTIVES)), st.head.column)


def _positional(st: Statement, fail: Fail, n: int | None, usage: str) -> list[Atom]:
    atoms = []
    for a in st.args:
        if a.key is not None or not isinstance(a.value, Atom):
            raise fail(f"expected: {usage}", a.column)
        atoms.append(a.value)
    if (n is not None and len(atoms) != n) or not atoms:
        col = st.args[n].column if n is not None and len(atoms) > n else len(st.source) + 1
        raise fail(f"expected: {usage}", col)
    return atoms


def _hex_blob(atoms: list[Atom], fail: Fail) -> bytes:
    parts = []
    for a in atoms:
        t = a.text.replace("_", "")
        if not re.fullmatch(r"0[xX][0-9a-fA-F]*", t) or len(t) % 2:
            raise fail("expected hex bytes like 0x00ff10 (an even number of digits)", a.column)
        parts.append(bytes.fromhex(t[2:]))
    return b"".join(parts)  # one copy: a line may hold a partition's worth of atoms


def _region(value: Value, ctx: Context, fail: Fail) -> tuple[str, int, int, int, int]:
    """(space, p0, p1, offset, bytes per partition) of `sb[p, off]` / `sb[p0:p1, off]`."""
    usage = "a region like sb[p0, 0] or sb[p0:p128, 0x100]"
    if not isinstance(value, Bracket) or value.name.text.lower() not in SPACE_NAMES:
        raise fail(f"expected {usage}", value.column)
    if len(value.items) != 2 or value.items[1][1] is not None:
        raise fail(f"expected {usage}", value.column)
    space = SPACE_NAMES[value.name.text.lower()]
    (start, stop), (off_atom, _) = value.items
    p0 = partition_index(start, fail)
    p1 = partition_index(stop, fail) if stop is not None else p0 + 1
    g = geometry(ctx.gen)
    if not 0 <= p0 < p1 <= g.partitions:
        raise fail(f"partition range {p0}:{p1} is outside 0:{g.partitions} (or empty)",
                   start.column)
    off = parse_int(off_atom.text)
    if off is None or off < 0:
        raise fail("expected a byte offset", off_atom.column)
    size = g.sbuf_bytes if space == "sbuf" else g.psum_bytes
    return space, p0, p1, off, size


def _options(args: list[Arg], allowed: tuple[str, ...], fail: Fail) -> dict[str, Atom]:
    out: dict[str, Atom] = {}
    for a in args:
        if a.key is None or a.key.text not in allowed or not isinstance(a.value, Atom):
            raise fail("expected one of " + ", ".join(f"{k}=" for k in allowed), a.column)
        out[a.key.text] = a.value
    return out


def _num(atom: Atom, fail: Fail, what: str = "a number") -> int | float:
    v = parse_number(atom.text)
    if v is None:
        raise fail(f"expected {what}", atom.column)
    return v


def _data_directive(head: str, st: Statement, ctx: Context, fail: Fail) -> DataInit:
    """One data initialisation. Sizes are checked before values are made: a directive
    is held to its partition (and the assembly to MAX_DATA_BYTES of data in all)
    whatever count it names."""
    assert st.head is not None  # a directive's line
    head_column = st.head.column
    usage = {".data": ".data REGION DTYPE value...", ".bytes": ".bytes REGION 0xHEX...",
             ".fill": ".fill REGION DTYPE count=N [start=S] [step=D] [pstep=E]",
             ".random": ".random REGION DTYPE count=N [seed=S] [low=L] [high=H]"}[head]
    if not st.args or st.args[0].key is not None:
        raise fail(f"expected: {usage}", st.args[0].column if st.args else len(st.source) + 1)
    space, p0, p1, off, size = _region(st.args[0].value, ctx, fail)
    nparts = p1 - p0
    rest = st.args[1:]

    def fits(nbytes: int) -> None:
        if off + nbytes > size:
            raise fail(f"{nbytes} bytes at offset {off} overrun the {size}-byte {space} "
                       f"partition ({ctx.gen.label})", st.args[0].column)
        if ctx.data_bytes + nbytes * nparts > MAX_DATA_BYTES:
            raise fail(f"the data directives hold more than {size_text(MAX_DATA_BYTES)} in "
                       "all; that is the limit for one assembly", head_column)

    if head == ".bytes":
        blob = _hex_blob(_positional(Statement(st.lineno, st.source, None, None, rest), fail,
                                     None, usage), fail)
        fits(len(blob))
        rows = np.tile(np.frombuffer(blob, dtype=np.uint8), (nparts, 1))
        fmt = "bytes"
    else:
        if not rest or rest[0].key is not None or not isinstance(rest[0].value, Atom):
            raise fail(f"expected a data type after the region: {usage}",
                       rest[0].column if rest else len(st.source.rstrip()) + 1)
        type_atom = rest[0].value
        try:
            fmt, dt = data_format(type_atom.text, ctx.gen)
        except ValueError as e:
            raise fail(str(e), type_atom.column) from None
        rows = _directive_rows(head, rest[1:], dt, nparts, fail, usage, type_atom, fits)
    ctx.data_bytes += rows.size
    return DataInit(space, (p0, p1), off, rows, fmt, st.lineno)


def _directive_rows(head: str, args: list[Arg], dt: np.dtype, nparts: int, fail: Fail, usage: str,
                    type_atom: Atom, fits: Callable[[int], None]) -> np.ndarray:
    """The (nparts, bytes) rows of a .data / .fill / .random directive; `fits(n)` judges
    n bytes per partition before they are made."""
    is_int = dt.kind in "iu"
    if head == ".data":
        atoms = _positional(Statement(0, "", None, None, args), fail, None, usage) if args else []
        if not atoms:
            raise fail(f"expected values after the data type: {usage}", type_atom.column)
        fits(len(atoms) * dt.itemsize)
        vals = [_num(a, fail) for a in atoms]
        row = np.array([vals], dtype=object if is_int else np.float64)
        return np.tile(_to_bytes(row, dt, fail, atoms[0].column), (nparts, 1))
    allowed = ("count", "start", "step", "pstep") if head == ".fill" else (
        "count", "seed", "low", "high")
    opts = _options(args, allowed, fail)
    if "count" not in opts:
        raise fail(f"expected count=N: {usage}", type_atom.column)
    count = _num(opts["count"], fail, "a count")
    if not isinstance(count, int) or count < 1:
        raise fail("count must be a positive integer", opts["count"].column)
    col = opts["count"].column
    fits(count * dt.itemsize)
    if head == ".fill":
        start = _num(opts["start"], fail) if "start" in opts else 0
        step = _num(opts["step"], fail) if "step" in opts else 1
        pstep = _num(opts["pstep"], fail) if "pstep" in opts else 0
        if is_int:
            if not all(isinstance(x, int) for x in (start, step, pstep)):
                raise fail("integer data needs integer start/step/pstep", col)
            return _int_fill(dt, nparts, count, int(start), int(step), int(pstep), fail, col)
        i = np.arange(count, dtype=np.float64)
        p = np.arange(nparts, dtype=np.float64)[:, None]
        return _to_bytes(start + i * step + p * pstep, dt, fail, col)
    seed = _num(opts["seed"], fail) if "seed" in opts else 0
    if not isinstance(seed, int) or seed < 0:
        raise fail("seed must be a non-negative integer", opts["seed"].column)
    rng = np.random.default_rng(seed)
    if is_int:
        info = np.iinfo(dt)
        low = _num(opts["low"], fail) if "low" in opts else info.min
        high = _num(opts["high"], fail) if "high" in opts else info.max + 1
        if not (isinstance(low, int) and isinstance(high, int) and low < high):
            raise fail("integer data needs integers low < high", col)
        low, high = max(low, info.min), min(high, info.max + 1)
        if low >= high:
            raise fail(f"low..high is outside {dt.name} ({info.min}..{info.max})", col)
        ints = rng.integers(low, high, size=(nparts, count), dtype=np.int64 if dt.itemsize < 8
                            or dt.kind == "i" else np.uint64, endpoint=False)
        return _to_bytes(ints, dt, fail, col)
    low = float(_num(opts["low"], fail)) if "low" in opts else -1.0
    high = float(_num(opts["high"], fail)) if "high" in opts else 1.0
    return _to_bytes(rng.uniform(low, high, size=(nparts, count)), dt, fail, col)


def _to_bytes(values: np.ndarray, dt: np.dtype, fail: Fail, column: int) -> np.ndarray:
    try:
        return to_bytes(values, dt)
    except ValueError as e:
        raise fail(str(e), column) from None


def _int_fill(dt: np.dtype, nparts: int, count: int, start: int, step: int, pstep: int,
              fail: Fail, column: int) -> np.ndarray:
    """Bytes of `start + i*step + p*pstep` in integer type `dt`, without a Python int per
    element: the values are linear, so they fit `dt` when the four corners do, and then
    uint64 arithmetic modulo 2**64 gives each one exactly."""
    info = np.iinfo(dt)
    corners = [start + i * step + p * pstep for i in (0, count - 1) for p in (0, nparts - 1)]
    if not all(info.min <= v <= info.max for v in corners):
        v, where = _first_outside(info, nparts, count, start, step, pstep)
        raise fail(f"{v} does not fit {dt.name} ({info.min}..{info.max}): element {where}"
                   " of the region",
                   column)
    wrap = (1 << 64) - 1
    ramp = np.arange(count, dtype=np.uint64) * np.uint64(step & wrap)
    out = np.empty((nparts, count), dtype=dt)
    for p in range(nparts):  # a row at a time: 8 bytes per element are made, not 8 * nparts
        row = ramp + np.uint64((start + p * pstep) & wrap)  # wraps modulo 2**64, as intended
        out[p] = (row.view(np.int64) if dt.kind == "i" else row).astype(dt)
    return out.view(np.uint8).reshape(nparts, -1)


def _first_outside(info: np.iinfo, nparts: int, count: int, start: int, step: int,
                   pstep: int) -> tuple[int, str]:
    """The first value (partition by partition) of a linear fill outside `info`'s range,
    with its position; found per partition by arithmetic, not by making the values."""
    for p in range(nparts):
        a = start + p * pstep
        if not info.min <= a <= info.max:
            i = 0
        elif step > 0:
            i = (info.max - a) // step + 1
        elif step < 0:
            i = (a - info.min) // -step + 1
        else:
            continue
        if i < count:
            return a + i * step, f"{i} of row {p}"
    raise AssertionError("a corner is outside, so some element is")
