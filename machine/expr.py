"""A small safe expression language over machine state (never `eval`).

    expr    := or
    or      := and (("||" | "or") and)*
    and     := not (("&&" | "and") not)*
    not     := ("!" | "not") not | cmp
    cmp     := sum (("==" | "!=" | "<" | "<=" | ">" | ">=") sum)?
    sum     := term (("+" | "-" | "|" | "^") term)*
    term    := unary (("*" | "/" | "%" | "&" | "<<" | ">>") unary)*
    unary   := ("-" | "~") unary | atom
    atom    := NUMBER | R0..R63 | PC | sem[N] | shape[N] | acc[P] | idx[P, K]
             | sb[P, BYTE](:FORMAT)? | psum[P, BYTE](:FORMAT)? | "(" expr ")"

Registers read as unsigned 32-bit; `R5:int32` / `R5:fp32` reinterpret them.
Memory reads default to uint8; `sb[3, 0x40]:fp32` reads 4 bytes as fp32.
Watch targets (`target()`) also accept byte ranges: `sb[0, 0:64]`, `sb[0:8, 16:32]`.
Errors are ValueError("column N: expected ..., found ...").
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

from machine.convert.formats import IntFormat, parse_format
from machine.engines.record import decode_values

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>0[xX][0-9a-fA-F_]+|0[bB][01_]+|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>\|\||&&|==|!=|<=|>=|<<|>>|[-+*/%&|^~!<>()\[\],:])
""", re.VERBOSE)

_CMP = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
_SUM = {"+": lambda a, b: a + b, "-": lambda a, b: a - b,
        "|": lambda a, b: int(a) | int(b), "^": lambda a, b: int(a) ^ int(b)}
_TERM = {"*": lambda a, b: a * b, "/": lambda a, b: _div(a, b), "%": lambda a, b: _mod(a, b),
         "&": lambda a, b: int(a) & int(b), "<<": lambda a, b: int(a) << int(b),
         ">>": lambda a, b: int(a) >> int(b)}
MEMORIES = ("sb", "psum")
SCALAR_ARRAYS = ("sem", "shape", "acc")


def _div(a: float, b: float) -> float:
    if isinstance(a, int) and isinstance(b, int):
        return 0 if b == 0 else int(a / b)  # C-style truncation; x/0 reads as 0, never raises
    return a / b if b else (math.copysign(math.inf, a) if a else math.nan)


def _mod(a: float, b: float) -> float:
    if b == 0:
        return math.nan if isinstance(a, float) else 0
    return math.fmod(a, b) if isinstance(a, float) or isinstance(b, float) else int(math.fmod(a, b))


@dataclass(frozen=True)
class Tok:
    kind: str
    text: str
    col: int  # 1-based


def tokenize(text: str) -> list[Tok]:
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

    @property
    def name(self) -> str:
        if self.kind == "reg":
            return f"R{self.index}"
        if self.kind == "pc":
            return "PC"
        if self.kind == "mem":
            return f"{self.space}[{self.index}:{self.p1}, {self.b0}:{self.b1}]"
        if self.kind == "idx":
            return f"idx[{self.index}, {self.k}]"
        return f"{self.kind}[{self.index}]"


class Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = tokenize(text)
        self.i = 0

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
        found = "end of input" if t.kind == "end" else repr(t.text)
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

    # -- grammar -------------------------------------------------------------
    def expr(self) -> tuple:
        node = self.and_()
        while self.at("||", "or"):
            self.take()
            node = ("or", node, self.and_())
        return node

    def and_(self) -> tuple:
        node = self.not_()
        while self.at("&&", "and"):
            self.take()
            node = ("and", node, self.not_())
        return node

    def not_(self) -> tuple:
        if self.at("!", "not"):
            self.take()
            return ("not", self.not_())
        node = self.sum()
        if self.tok.kind == "op" and self.tok.text in _CMP:
            op = self.take().text
            node = ("bin", _CMP[op], node, self.sum())
        return node

    def sum(self) -> tuple:
        node = self.term()
        while self.tok.kind == "op" and self.tok.text in _SUM:
            node = ("bin", _SUM[self.take().text], node, self.term())
        return node

    def term(self) -> tuple:
        node = self.unary()
        while self.tok.kind == "op" and self.tok.text in _TERM:
            node = ("bin", _TERM[self.take().text], node, self.unary())
        return node

    def unary(self) -> tuple:
        if self.at("-"):
            self.take()
            return ("neg", self.unary())
        if self.at("~"):
            self.take()
            return ("inv", self.unary())
        return self.atom()

    def number(self) -> int | float:
        t = self.tok
        if t.kind != "num":
            raise self.fail("a number")
        self.take()
        s = t.text.replace("_", "")
        return float(s) if any(c in s for c in ".eE") and not s.lower().startswith("0x") \
            else int(s, 0)

    def integer(self, what: str) -> int:
        neg = self.at("-") and bool(self.take())
        if self.tok.kind != "num":
            raise self.fail(what)
        v = self.number()
        if not isinstance(v, int):
            raise ValueError(f"column {self.toks[self.i - 1].col}: expected {what}, found {v!r}")
        return -v if neg else v

    def atom(self) -> tuple:
        t = self.tok
        if t.kind == "num":
            return ("const", self.number())
        if t.text == "(":
            self.take()
            node = self.expr()
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
        low = name.lower()
        if re.fullmatch(r"r\d+", low):
            n = int(low[1:])
            if n > 63:
                raise ValueError(f"column {t.col}: expected a register R0..R63, found {name!r}")
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
            n = self.integer("an index")
            self.expect("]", "']'")
            return Target(low, n)
        if low == "idx":
            self.expect("[", "'['")
            p = self.integer("a partition")
            self.expect(",", "','")
            k = self.integer("an index register 0..7")
            self.expect("]", "']'")
            return Target("idx", p, k=k)
        raise ValueError(f"column {t.col}: expected a register (R0..R63, PC), sb[...], psum[...], "
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


def _decode(raw: bytes, fmt: str) -> int | float:
    f = parse_format(fmt)
    bits = np.frombuffer(raw, dtype=f.container)[:1]
    v = float(decode_values(bits, fmt)[0])
    return int(v) if isinstance(f, IntFormat) else v


def read(target: Target, state: Any) -> int | float:
    """The current value of a target (memory: the first element, in its format)."""
    k = target.kind
    if k == "reg":
        v = state.R[target.index]
        return _decode(struct.pack("<I", v), target.fmt) if target.fmt else v
    if k == "pc":
        return state.pc
    if k == "mem":
        mem = state.memory(target.space)
        p, b = target.index, target.b0
        size = _fmt_bytes(target.fmt) if target.fmt else 1
        if not (0 <= p < mem.shape[0] and 0 <= b and b + size <= mem.shape[1]):
            raise ValueError(f"{target.space}[{p}, {b}] is outside {mem.shape[0]} partitions x "
                             f"{mem.shape[1]} bytes")
        raw = mem[p, b:b + size].tobytes()
        return _decode(raw, target.fmt) if target.fmt else raw[0]
    if k == "acc":
        return float(state.acc[target.index])
    if k == "idx":
        return int(state.idx[target.index, target.k])
    return getattr(state, k)[target.index]


def snapshot(target: Target, state: Any) -> Any:
    """A comparable copy of everything a watch target covers."""
    if target.kind == "mem":
        mem = state.memory(target.space)
        return mem[target.index:target.p1, target.b0:target.b1].tobytes()
    return read(target, state)


@dataclass(frozen=True)
class Expr:
    text: str
    tree: tuple

    def __call__(self, state: Any) -> int | float:
        return _eval(self.tree, state)


def _eval(node: tuple, state: Any) -> Any:
    kind = node[0]
    if kind == "const":
        return node[1]
    if kind == "read":
        return read(node[1], state)
    if kind == "bin":
        r = node[1](_eval(node[2], state), _eval(node[3], state))
        return int(r) if isinstance(r, bool) else r
    if kind == "and":
        return int(bool(_eval(node[1], state)) and bool(_eval(node[2], state)))
    if kind == "or":
        return int(bool(_eval(node[1], state)) or bool(_eval(node[2], state)))
    if kind == "not":
        return int(not _eval(node[1], state))
    if kind == "neg":
        return -_eval(node[1], state)
    return ~int(_eval(node[1], state))  # "inv"


def parse(text: str) -> Expr:
    """Parse an expression; ValueError with the column on error."""
    p = Parser(text)
    if p.tok.kind == "end":
        raise p.fail("an expression")
    tree = p.expr()
    p.done()
    return Expr(text, tree)


def parse_target(text: str) -> Target:
    """Parse a watch target: R5, PC, sb[0, 0:64], psum[0:4, 0:16], sem[3], acc[2]."""
    p = Parser(text)
    t = p.target(ranges=True)
    p.done()
    return t
