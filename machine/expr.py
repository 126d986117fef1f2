"""A small safe expression language over machine state (never `eval`).

Operators, loosest first (Python's precedence, which C shares for all of these
except that C puts `==`/`<` below `&`, `^`, `|`; docs/expressions.md has the table):

    or  ||            short-circuit, result 0 or 1
    and &&            short-circuit, result 0 or 1
    not               prefix (Python: `not R5 == 3` is `not (R5 == 3)`)
    == != < <= > >=   chain like Python: `0 < R5 < 8` is `0 < R5 and R5 < 8`
    |   ^   &         bitwise, integers only
    << >>             shift counts 0..64
    + -
    * / %             integer `/` and `%` truncate toward zero (C); x / 0 is an error
    - + ~ !           prefix (`!` binds tightly like C's: `!R5 == 0` is `(!R5) == 0`)
    atom              NUMBER | inf | nan | R0..R63 | PC | sem[N] | shape[N] | acc[P]
                      | idx[P, K] | sb[P, BYTE] | psum[P, BYTE] | "(" expr ")"
                      | ENGINE.R3 | ENGINE.PC | ENGINE.shape[N] | ENGINE.acc[P] | ...

On a NeuronCore kernel (machine/core) each engine has its own registers: `dve.R3`,
`pool.PC` read that engine's, a bare `R3` the engine the expression is evaluated on
(the focused one). SBUF, PSUM and `sem[N]` are shared, so they take no engine.

Registers read as unsigned 32-bit; `R5:int32` / `R5:fp32` reinterpret them.
Memory reads default to uint8; `sb[3, 0x40]:fp32` reads 4 bytes as fp32.
Watch targets (`parse_target`) also accept byte ranges: `sb[0, 0:64]`, `sb[0:8, 16:32]`.

Errors: a text that does not parse is ValueError("column N: expected ..., found ...");
one that parses but cannot be evaluated on a state (division by zero, a read outside
memory, a float in a bitwise operation) raises `EvalError` (a ValueError), so `print`
shows it as one line and a breakpoint condition can treat it as false. Limits keep
every input small: MAX_LENGTH characters, MAX_DEPTH levels of nesting, 64-bit
integer literals, shift counts up to MAX_SHIFT.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from neurondbg.machine.convert.formats import IntFormat, parse_format
from neurondbg.machine.edits import bounds_error
from neurondbg.machine.engines.record import decode_values
from neurondbg.machine.isa.opcodes import QUEUE_ENGINES
from neurondbg.machine.state import NUM_INDEX_REGS, NUM_SEMS, NUM_SHAPE_REGS, MachineState

MAX_LENGTH = 1024  # characters in one expression or target
MAX_DEPTH = 64  # nested parentheses / prefix operators / operator levels
MAX_SHIFT = 64  # widest machine value (the PC) is 64 bits: larger shifts are mistakes
MAX_LITERAL = (1 << 64) - 1
MEMORIES = ("sb", "psum")
SCALAR_ARRAYS = ("sem", "shape", "acc")
# slots every machine has, checked as the text is parsed (so every command that takes an
# expression refuses `sem[300]` in one line, as it refuses R64)
_COUNTS = {"sem": NUM_SEMS, "shape": NUM_SHAPE_REGS}

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+
       |(?:\d[\d_]*\.[\d_]*|\.\d[\d_]*|\d[\d_]*)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*(?:\.[A-Za-z_][A-Za-z_0-9]*)?)
  | (?P<op>\|\||&&|==|!=|<=|>=|<<|>>|[-+*/%&|^~!<>()\[\],:])
""", re.VERBOSE)

Value = int | float


class EvalError(ValueError):
    """An expression that parsed but cannot be evaluated on this state."""


# -- operators ------------------------------------------------------------------------------
def _ints(op: str, a: Value, b: Value) -> tuple[int, int]:
    for v in (a, b):
        if not isinstance(v, int):
            raise EvalError(f"'{op}' needs integers, found {v!r}")
    return a, b  # type: ignore[return-value]


def _div(a: Value, b: Value) -> Value:
    if b == 0:
        raise EvalError("division by zero")
    if isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b)  # exact: int(a / b) would round big values through a float
        return q if (a < 0) == (b < 0) else -q
    return a / b


def _mod(a: Value, b: Value) -> Value:
    if b == 0:
        raise EvalError("modulo by zero")
    if isinstance(a, int) and isinstance(b, int):
        return a - b * _div(a, b)  # C: the remainder has the sign of the dividend
    return math.fmod(a, b)


def _shift(op: str, a: Value, b: Value) -> int:
    x, n = _ints(op, a, b)
    if not 0 <= n <= MAX_SHIFT:
        raise EvalError(f"shift count {n} is outside 0..{MAX_SHIFT}")
    return x << n if op == "<<" else x >> n


def _bitwise(op: str, a: Value, b: Value) -> int:
    x, y = _ints(op, a, b)
    return x & y if op == "&" else x | y if op == "|" else x ^ y


_ARITH: dict[str, Callable[[Value, Value], Value]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": _div, "%": _mod,
    "<<": lambda a, b: _shift("<<", a, b), ">>": lambda a, b: _shift(">>", a, b),
    "&": lambda a, b: _bitwise("&", a, b), "|": lambda a, b: _bitwise("|", a, b),
    "^": lambda a, b: _bitwise("^", a, b),
}
_CMP: dict[str, Callable[[Value, Value], bool]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
# Binary operator levels, loosest first; `not` sits between "and" and the comparisons.
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||", "or"), ("&&", "and"), tuple(_CMP), ("|",), ("^",), ("&",), ("<<", ">>"),
    ("+", "-"), ("*", "/", "%"))
_NOT_LEVEL = 2  # `not X` parses X at the comparison level and above
_LEVEL_OF = {op: i for i, ops in enumerate(_LEVELS) for op in ops}
_WORD_OPS = {"or": "||", "and": "&&"}


def _shown(text: str) -> str:
    """A token for an error message: one line stays one short line."""
    return repr(text) if len(text) <= 24 else repr(text[:24])[:-1] + "...'"


@dataclass(frozen=True)
class Tok:
    kind: str
    text: str
    col: int  # 1-based


def tokenize(text: str) -> list[Tok]:
    if len(text) > MAX_LENGTH:
        raise ValueError(f"column {MAX_LENGTH + 1}: expected at most {MAX_LENGTH} characters, "
                         f"found {len(text)}")
    out: list[Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"column {pos + 1}: unexpected character {text[pos]!r}")
        if m.lastgroup != "ws":
            out.append(Tok(m.lastgroup or "", m.group(), pos + 1))
        pos = m.end()
    out.append(Tok("end", "", len(text) + 1))
    return out


@dataclass(frozen=True)
class Target:
    """A readable/watchable location: a register, PC, a memory block, a scalar array slot."""

    kind: str  # "reg", "pc", "mem", "sem", "shape", "acc", "idx"
    index: int = 0  # register / sem / shape number, or first partition
    p1: int = 0  # memory: partitions [index, p1)
    b0: int = 0  # memory: bytes [b0, b1)
    b1: int = 0
    space: str = ""  # "sbuf" / "psum"
    fmt: str = ""  # reinterpretation format ("" = default)
    k: int = 0  # idx: which of the 8 index registers
    engine: str = ""  # whose register (`dve.R3`); "" = the state it is read on

    @property
    def name(self) -> str:
        """How the target is shown (watches, messages): memory as its whole block."""
        if self.engine:
            return f"{self.engine}.{replace(self, engine='').name}"
        if self.kind == "mem":
            return f"{self.space}[{self.index}:{self.p1}, {self.b0}:{self.b1}]"
        return self._slot()

    @property
    def settable(self) -> str:
        """The canonical spelling of a settable target (round-trips through parse_target):
        memory as its first byte, the format after a register or memory; no engine."""
        fmt = f":{self.fmt}" if self.fmt else ""
        if self.kind == "mem":
            return f"{'sb' if self.space == 'sbuf' else 'psum'}[{self.index}, {self.b0}]{fmt}"
        return self._slot() + (fmt if self.kind == "reg" else "")

    def _slot(self) -> str:
        """A register, PC or scalar-array slot, as both spellings write it."""
        if self.kind == "reg":
            return f"R{self.index}"
        if self.kind == "pc":
            return "PC"
        if self.kind == "idx":
            return f"idx[{self.index}, {self.k}]"
        return f"{self.kind}[{self.index}]"


# -- parser ---------------------------------------------------------------------------------
# A parsed expression: tuples tagged by their first item (hashable, immutable).
Node = (tuple[Literal["const"], Value] | tuple[Literal["read"], "Target"]
        | tuple[Literal["unary"], str, "Node"]
        | tuple[Literal["bin", "cmp"], tuple[str, ...], tuple["Node", ...]]
        | tuple[Literal["and", "or"], tuple["Node", ...]])


class Parser:
    """Precedence climbing; recursion only for parentheses and prefix operators, so a
    long flat expression never nests deeply and the depth limit bounds every recursion."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = tokenize(text)
        self.i = 0
        self.depth = 0

    # -- token helpers -------------------------------------------------------
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def take(self) -> Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def fail(self, expected: str) -> ValueError:
        t = self.tok
        found = "end of input" if t.kind == "end" else _shown(t.text)
        return ValueError(f"column {t.col}: expected {expected}, found {found}")

    def expect(self, text: str, what: str | None = None) -> Tok:
        if self.tok.text != text:
            raise self.fail(what or repr(text))
        return self.take()

    def at(self, *texts: str) -> bool:
        t = self.tok
        return t.kind in ("op", "name") and t.text in texts

    def done(self) -> None:
        if self.tok.kind != "end":
            raise self.fail("an operator or end of input")

    def deeper(self, col: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ValueError(f"column {col}: expected at most {MAX_DEPTH} levels of nesting")

    def _binop(self) -> str | None:
        t = self.tok
        if t.kind == "op" and t.text in _LEVEL_OF:
            return t.text
        if t.kind == "name" and t.text in _WORD_OPS:
            return _WORD_OPS[t.text]
        return None

    # -- grammar -------------------------------------------------------------
    def expr(self, level: int = 0) -> Node:
        """Operators of `level` and tighter; a run of one level's operators is one node."""
        node = self.prefix_not() if level <= _NOT_LEVEL else self.unary()
        for lv in range(len(_LEVELS) - 1, level - 1, -1):  # tightest first
            node = self._chain(node, lv)
        return node

    def _chain(self, first: Node, level: int) -> Node:
        """`first` followed by operators of `level`, each with a tighter operand."""
        op = self._binop()
        if op is None or _LEVEL_OF[op] != level:
            return first
        self.deeper(self.tok.col)  # the operands below parse one level deeper
        ops: list[str] = []
        operands = [first]
        try:
            while op is not None and _LEVEL_OF[op] == level:
                self.take()
                ops.append(op)
                operands.append(self.expr(level + 1))
                op = self._binop()
        finally:
            self.depth -= 1
        if level == 0:
            return ("or", tuple(operands))
        if level == 1:
            return ("and", tuple(operands))
        return ("cmp" if level == _NOT_LEVEL else "bin", tuple(ops), tuple(operands))

    def prefix_not(self) -> Node:
        if self.at("not"):
            t = self.take()
            self.deeper(t.col)
            try:
                return ("unary", "not", self.expr(_NOT_LEVEL))
            finally:
                self.depth -= 1
        return self.unary()

    def unary(self) -> Node:
        if self.at("-", "+", "~", "!"):
            t = self.take()
            self.deeper(t.col)
            try:
                return ("unary", t.text, self.unary())
            finally:
                self.depth -= 1
        if self.at("not"):  # Python: `1 + not 2` is a syntax error too
            raise self.fail("an operand ('not' binds loosely: write (not X))")
        return self.atom()

    def number(self) -> int | float:
        t = self.tok
        if t.kind != "num":
            raise self.fail("a number")
        self.take()
        s = t.text.replace("_", "")
        low = s.lower()
        if low.startswith(("0x", "0o", "0b")):
            digits, base = low[2:], {"x": 16, "o": 8, "b": 2}[low[1]]
            if not digits:
                raise ValueError(f"column {t.col}: expected digits after {t.text[:2]}, "
                                 f"found {_shown(t.text)}")
        elif any(c in low for c in ".e"):
            return float(s)
        else:
            digits, base = s, 10
            if len(s) > 1 and s[0] == "0" and s.strip("0"):
                raise ValueError(f"column {t.col}: expected a number without leading zeros "
                                 f"(0{s.lstrip('0')} is octal in C): write {s.lstrip('0')} "
                                 f"or 0o{s.lstrip('0')}")
        digits = digits.lstrip("0") or "0"
        # 64 bits is at most 64 binary / 22 octal / 20 decimal / 16 hex digits: checking
        # the length first keeps int() away from huge strings (and its digit-limit error).
        if len(digits) > {2: 64, 8: 22, 10: 20, 16: 16}[base] or \
                int(digits, base) > MAX_LITERAL:
            raise ValueError(f"column {t.col}: expected an integer of at most 64 bits "
                             f"(<= {MAX_LITERAL:#x}), found {_shown(t.text)}")
        return int(digits, base)

    def integer(self, what: str) -> int:
        if self.tok.kind != "num":
            raise self.fail(what)
        v = self.number()
        if not isinstance(v, int):
            raise ValueError(f"column {self.toks[self.i - 1].col}: expected {what}, found {v!r}")
        return v

    def atom(self) -> Node:
        t = self.tok
        if t.kind == "num":
            return ("const", self.number())
        if t.text == "(":
            self.take()
            self.deeper(t.col)
            try:
                node = self.expr()
            finally:
                self.depth -= 1
            self.expect(")", "')'")
            return node
        if t.kind == "name":
            low = t.text.lower()
            if low in ("inf", "nan"):
                self.take()
                return ("const", float(low))
            return ("read", self.target(ranges=False))
        raise self.fail("a number, a register (R0..R63, PC), sb[...], psum[...] or '('")

    def target(self, ranges: bool = True) -> Target:
        t = self.tok
        if t.kind != "name":
            raise self.fail("a register (R0..R63, PC) or sb[...], psum[...], sem[N], acc[P]")
        name = self.take().text
        engine, dot, low = name.lower().rpartition(".")
        if dot:
            return replace(self._engine_target(engine, low, name, t.col), engine=engine)
        return self._plain_target(name, low, t.col, ranges)

    def _engine_target(self, engine: str, low: str, name: str, col: int) -> Target:
        """`dve.R3`: a target of one engine's own state (registers, PC, shape, acc, idx)."""
        if engine not in QUEUE_ENGINES:
            raise ValueError(f"column {col}: expected an engine ({', '.join(QUEUE_ENGINES)}) "
                             f"before '.', found {name.partition('.')[0]!r}")
        if low in MEMORIES or low == "sem":
            raise ValueError(f"column {col}: {low} is shared by every engine: write it "
                             f"without '{engine}.'")
        return self._plain_target(name.partition(".")[2], low, col + len(engine) + 1, False)

    def _plain_target(self, name: str, low: str, col: int, ranges: bool) -> Target:
        if re.fullmatch(r"r\d+", low):
            n = int(low[1:])
            if n > 63 or len(low) > 3:
                raise ValueError(f"column {col}: expected a register R0..R63, found {name!r}")
            return Target("reg", n, fmt=self.fmt())
        if low == "pc":
            return Target("pc")
        if low in MEMORIES:
            self.expect("[", "'['")
            p0, p1 = self.span(ranges, "a partition")
            self.expect(",", "',' between partition and byte offset")
            b0, b1 = self.span(ranges, "a byte offset")
            self.expect("]", "']'")
            fmt = self.fmt()
            if (b1 - b0 == 1 or not ranges) and fmt:
                b1 = b0 + _fmt_bytes(fmt)
            return Target("mem", p0, p1, b0, b1, "sbuf" if low == "sb" else "psum", fmt)
        if low in SCALAR_ARRAYS:
            self.expect("[", "'['")
            col_n = self.tok.col
            n = self.integer("an index")
            count = _COUNTS.get(low)  # acc[P]: the partitions are the machine's, checked later
            if count is not None and not n < count:  # machine.edits.bounds_error's words
                raise ValueError(f"column {col_n}: {low}[{n}] does not exist "
                                 f"({low}[0]..{low}[{count - 1}])")
            self.expect("]", "']'")
            return Target(low, n)
        if low == "idx":
            self.expect("[", "'['")
            p = self.integer("a partition")
            self.expect(",", "','")
            col_k = self.tok.col
            k = self.integer(f"an index register 0..{NUM_INDEX_REGS - 1}")
            if not k < NUM_INDEX_REGS:
                raise ValueError(f"column {col_k}: idx[{p}, {k}]: index register {k} does not "
                                 f"exist (0..{NUM_INDEX_REGS - 1})")
            self.expect("]", "']'")
            return Target("idx", p, k=k)
        raise ValueError(f"column {col}: expected a register (R0..R63, PC), sb[...], psum[...], "
                         f"sem[N], shape[N], acc[P] or idx[P, K], found {name!r}")

    def span(self, ranges: bool, what: str) -> tuple[int, int]:
        a = self.integer(what)
        if ranges and self.at(":"):
            self.take()
            b = self.integer(f"the end of the {what.split()[-1]} range")
            if b <= a:
                raise ValueError(f"column {self.toks[self.i - 1].col}: expected a range end > {a}")
            return a, b
        return a, a + 1

    def fmt(self) -> str:
        if not self.at(":"):
            return ""
        self.take()
        t = self.tok
        if t.kind != "name":
            raise self.fail("a format name such as fp32, bf16, int32")
        self.take()
        try:
            f = parse_format(t.text)
        except ValueError as e:
            raise ValueError(f"column {t.col}: {e}") from None
        return f.name


def _fmt_bytes(fmt: str) -> int:
    return max(1, parse_format(fmt).bits // 8)


# -- reading state --------------------------------------------------------------------------
def _decode(raw: bytes, fmt: str) -> int | float:
    f = parse_format(fmt)
    bits = np.frombuffer(raw, dtype=f.container)[:1]
    v = float(decode_values(bits, fmt)[0])
    return int(v) if isinstance(f, IntFormat) else v


def read(target: Target, state: MachineState) -> int | float:
    """The current value of a target (memory: the first element, in its format).

    EvalError when the target is outside this machine (the bounds rule of every
    command: machine.edits.bounds_error)."""
    if target.engine:
        try:
            state = state.peer(target.engine)
        except KeyError as e:
            raise EvalError(str(e.args[0])) from None
    k = target.kind
    if k == "reg":
        v = state.R[target.index]
        return _decode(struct.pack("<I", v), target.fmt) if target.fmt else v
    if k == "pc":
        return state.pc
    why = bounds_error(target, state)  # negative indices would wrap in Python and numpy
    if why is not None:
        raise EvalError(why)
    if k == "mem":
        raw = state.memory(target.space)[target.index, target.b0:target.b1].tobytes()
        return _decode(raw, target.fmt) if target.fmt else raw[0]
    if k == "acc":
        return float(state.acc[target.index])
    if k == "idx":
        return int(state.idx[target.index, target.k])
    value: Value = getattr(state, k)[target.index]  # sem, shape: arrays named by the kind
    return value


def snapshot(target: Target, state: MachineState) -> Value | bytes:
    """A comparable copy of everything a watch target covers."""
    if target.kind == "mem":  # memory is shared: no engine to look up
        mem = state.memory(target.space)
        return mem[target.index:target.p1, target.b0:target.b1].tobytes()
    return read(target, state)


# -- evaluation -----------------------------------------------------------------------------
Fn = Callable[[MachineState], Value]


def _compile(node: Node) -> Fn:
    """A closure per node: conditions run on every step, so no per-call dispatch."""
    match node:
        case ("const", value):
            return lambda s: value
        case ("read", target):
            return lambda s: read(target, s)
        case ("unary", op, operand):
            inner = _compile(operand)
            if op == "-":
                return lambda s: -inner(s)
            if op == "+":
                return inner
            if op == "~":
                return lambda s: ~_ints("~", inner(s), 0)[0]
            return lambda s: int(not inner(s))  # "!" / "not"
        case ("and", operands):
            parts = [_compile(n) for n in operands]
            return lambda s: int(all(p(s) for p in parts))  # all/any short-circuit
        case ("or", operands):
            parts = [_compile(n) for n in operands]
            return lambda s: int(any(p(s) for p in parts))
        case ("cmp", ops, operands):
            return _chain(ops, [_compile(n) for n in operands])
        case (_, ops, operands):  # "bin"
            return _fold(ops, [_compile(n) for n in operands])


def _chain(ops: tuple[str, ...], fns: list[Fn]) -> Fn:
    """A comparison chain: `a < b < c` is `a < b and b < c`, each operand read once."""
    first, rest = fns[0], fns[1:]
    tests = [_CMP[op] for op in ops]

    def chain(s: MachineState) -> int:
        a = first(s)
        for test, part in zip(tests, rest, strict=True):
            b = part(s)
            if not test(a, b):
                return 0  # Python: `a < b < c` stops at the first false link
            a = b
        return 1
    return chain


def _fold(ops: tuple[str, ...], fns: list[Fn]) -> Fn:
    """A run of one level's operators, applied left to right."""
    first, rest = fns[0], fns[1:]
    arith = [_ARITH[op] for op in ops]

    def fold(s: MachineState) -> Value:
        v = first(s)
        for fn, part in zip(arith, rest, strict=True):
            v = fn(v, part(s))
        return v
    return fold


def _children(node: Node) -> list[Node]:
    match node:
        case ("const", _) | ("read", _):
            return []
        case ("unary", _, operand):
            return [operand]
        case ("and" | "or", operands) | (_, _, operands):
            return list(operands)


def _tree_depth(tree: Node) -> int:
    """Without recursion: the parser bounds its own nesting, this bounds evaluation's
    (a left operand wrapped by every operator level, inside parentheses, again and
    again, is deeper than the parser's own nesting)."""
    deepest, todo = 0, [(tree, 1)]
    while todo:
        node, d = todo.pop()
        deepest = max(deepest, d)
        todo.extend((c, d + 1) for c in _children(node))
    return deepest


def _reads(node: Node) -> list[Target]:
    if node[0] == "read":
        return [node[1]]
    return [t for c in _children(node) for t in _reads(c)]


@dataclass(frozen=True)
class Expr:
    """A parsed expression: call it on a machine state for its value."""

    text: str
    tree: Node
    fn: Fn = field(repr=False, compare=False)

    def __call__(self, state: MachineState) -> Value:
        try:
            return self.fn(state)
        except OverflowError:  # a huge integer met a float, e.g. 1.5 * (1 << 64 << 64 ...)
            raise EvalError(f"{self.text}: a value is too large for a float") from None

    @property
    def targets(self) -> list[Target]:
        """Every location the expression reads (so callers can check them up front)."""
        return _reads(self.tree)


def parse(text: str) -> Expr:
    """Parse an expression; ValueError with the column on error."""
    p = Parser(text)
    if p.tok.kind == "end":
        raise p.fail("an expression")
    tree = p.expr()
    p.done()
    if _tree_depth(tree) > MAX_DEPTH:
        raise ValueError(f"column 1: expected at most {MAX_DEPTH} levels of nesting "
                         f"(operators and parentheses), found {_tree_depth(tree)}")
    return Expr(text, tree, _compile(tree))


def parse_target(text: str) -> Target:
    """Parse a watch target: R5, PC, sb[0, 0:64], psum[0:4, 0:16], sem[3], acc[2]."""
    p = Parser(text)
    t = p.target(ranges=True)
    p.done()
    return t
