"""Parse one tokenized line into a statement: label, mnemonic or directive, and arguments.

Grammar (per line, after removing `# comment`):
    line      := [label ':'] [head arg*]
    head      := NAME                      (mnemonic, or directive starting with '.')
    arg       := NAME '=' value | value    (positional values are for directives)
    value     := atom | '[' atom (',' atom)* ']' | NAME '[' item (',' item)* ']'
    item      := atom [':' atom]
    atom      := NUMBER | NAME
"""

from __future__ import annotations

from dataclasses import dataclass, field

from neurondbg.machine.asm.errors import AsmError
from neurondbg.machine.asm.lexer import Token, tokenize, unexpected
from neurondbg.machine.files import MAX_TOKEN_CHARS

# Directives whose positional hex atoms are byte strings, not numbers: as long as the
# line allows (a `.bytes` line may fill a partition).
BLOB_DIRECTIVES = (".raw", ".bytes")


# An atom is the name or number token itself (the parser reads no other kind into one):
# its text and 1-based column are the value's.
Atom = Token


@dataclass(frozen=True)
class ListValue:
    items: tuple[Atom, ...]
    column: int


@dataclass(frozen=True)
class Bracket:
    """`name[item, ...]`, e.g. sb[3, 0x100], psum[p0:p8, 0], reg[R5]."""

    name: Atom
    items: tuple[tuple[Atom, Atom | None], ...]
    column: int


@dataclass(frozen=True)
class SemExpr:
    """`sem[i] OP [value] [@when]`: a semaphore wait (`sem[3]>=1`) or update
    (`sem[3]++@complete`, `sem[3]+=2@read`, `sem[3]=0@read`) of the wait=/signal= keys."""

    target: Bracket  # sem[i]
    op: Token  # one of lexer.SEM_OPS but "@", or the punct "="
    operand: Atom | None  # None for ++ and --
    when: Atom | None  # the name after "@"
    column: int


Value = Atom | ListValue | Bracket | SemExpr


@dataclass(frozen=True)
class Arg:
    key: Atom | None  # None for a positional value
    value: Value
    column: int


@dataclass
class Statement:
    lineno: int
    source: str
    label: Atom | None = None
    head: Atom | None = None
    args: list[Arg] = field(default_factory=list)


class _Cursor:
    def __init__(self, tokens: list[Token], file: str, lineno: int, source: str) -> None:
        self.tokens = tokens
        self.i = 0
        self.file = file
        self.lineno = lineno
        self.source = source

    def peek(self, k: int = 0) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def take(self) -> Token:
        t = self.peek()
        self.i += 1
        return t

    def error(self, message: str, tok: Token | None = None, operator: bool = False
              ) -> AsmError:
        """`message, found <token>` at the token; an operator token outside a semaphore
        expression (`operator` False) is the lexer's `unexpected character`, as before
        operators were tokens."""
        tok = tok or self.peek()
        if tok.kind == "op" and not operator:
            return AsmError(unexpected(tok.text[0]), self.file, self.lineno, tok.column,
                            self.source)
        shown = tok.text if len(tok.text) <= 40 else tok.text[:40] + "..."  # a token may be long
        found = "end of line" if tok.kind == "end" else repr(shown)
        return AsmError(f"{message}, found {found}", self.file, self.lineno, tok.column,
                        self.source)

    def expect_punct(self, text: str, what: str) -> Token:
        t = self.peek()
        if t.kind != "punct" or t.text != text:
            raise self.error(f"expected {what}")
        return self.take()

    def atom(self, what: str, operator: bool = False) -> Atom:
        t = self.peek()
        if t.kind not in ("name", "number"):
            raise self.error(f"expected {what}", operator=operator)
        return self.take()


def _value(c: _Cursor) -> Value:
    t = c.peek()
    if t.kind == "punct" and t.text == "[":
        c.take()
        items = [c.atom("a value")]
        while c.peek().text == ",":
            c.take()
            items.append(c.atom("a value"))
        c.expect_punct("]", "',' or ']'")
        return ListValue(tuple(items), t.column)
    atom = c.atom("a value (number, name or [list])")
    if atom.kind == "name" and c.peek().text == "[" and c.peek().kind == "punct":
        c.take()
        entries: list[tuple[Atom, Atom | None]] = []
        while True:
            start = c.atom("an index")
            stop = None
            if c.peek().text == ":":
                c.take()
                stop = c.atom("the end of the range")
            entries.append((start, stop))
            if c.peek().text == ",":
                c.take()
                continue
            c.expect_punct("]", "',' or ']'")
            break
        bracket = Bracket(atom, tuple(entries), atom.column)
        nxt = c.peek()
        if atom.text.lower() == "sem" and (
                nxt.kind == "op" or (nxt.kind == "punct" and nxt.text == "=")):
            return _sem_expr(c, bracket)
        return bracket
    return atom


def _sem_expr(c: _Cursor, target: Bracket) -> SemExpr:
    """The rest of `sem[i] OP [value] [@when]` after its bracket."""
    op = c.take()
    if op.text == "@":
        raise c.error("expected a comparison (>= > == <= <) or an update (++ -- += -= =) "
                      "before '@'", op, operator=True)
    operand = None
    if op.text not in ("++", "--"):
        operand = c.atom("a value after " + repr(op.text), operator=True)
    when = None
    if c.peek().kind == "op" and c.peek().text == "@":
        c.take()
        when = c.atom("read or complete after '@'", operator=True)
    return SemExpr(target, op, operand, when, target.column)


def parse_line(line: str, file: str, lineno: int) -> Statement:
    """The statement on one source line (possibly empty)."""
    c = _Cursor(tokenize(line, file, lineno), file, lineno, line)
    st = Statement(lineno, line)
    if c.peek().kind == "name" and c.peek(1).text == ":" and c.peek(1).kind == "punct":
        st.label = c.take()
        _check_length(st.label, c)
        c.take()
    if c.peek().kind == "end":
        return st
    if c.peek().kind != "name":
        raise c.error("expected a mnemonic, a directive or a label")
    st.head = c.take()
    _check_length(st.head, c)
    while c.peek().kind != "end":
        start = c.peek()
        if start.kind == "name" and c.peek(1).text == "=" and c.peek(1).kind == "punct":
            key = c.take()
            c.take()
            st.args.append(Arg(key, _value(c), start.column))
        else:
            st.args.append(Arg(None, _value(c), start.column))
    blobs = st.head.text.lower() in BLOB_DIRECTIVES
    for arg in st.args:
        if arg.key is not None:
            _check_length(arg.key, c)
        if not (blobs and arg.key is None and isinstance(arg.value, Atom)):
            _check_value_length(arg.value, c)
    return st


def _check_length(atom: Atom, c: _Cursor) -> None:
    """A name or number over MAX_TOKEN_CHARS is an error at its column: no field,
    label or 64-bit value needs one, and Python refuses to convert decimal
    literals of over 4300 digits (which would surface as a traceback)."""
    if len(atom.text) > MAX_TOKEN_CHARS:
        kind = "number" if atom.kind == "number" else "name"
        raise AsmError(f"{kind} of {len(atom.text):,} characters; at most {MAX_TOKEN_CHARS} "
                       "are accepted", c.file, c.lineno, atom.column, c.source)


def _check_value_length(value: Value, c: _Cursor) -> None:
    if isinstance(value, SemExpr):
        _check_value_length(value.target, c)
        for atom in (value.operand, value.when):
            if atom is not None:
                _check_length(atom, c)
    elif isinstance(value, Atom):
        _check_length(value, c)
    elif isinstance(value, ListValue):
        for atom in value.items:
            _check_length(atom, c)
    else:
        _check_length(value.name, c)
        for start, stop in value.items:
            _check_length(start, c)
            if stop is not None:
                _check_length(stop, c)


def parse_value(text: str) -> Value | None:
    """`text` as exactly one value (atom, list or bracket), or None if it is not one."""
    try:
        c = _Cursor(tokenize(text, "", 0), "", 0, text)
        value = _value(c)
        _check_value_length(value, c)
    except AsmError:
        return None
    return value if c.peek().kind == "end" else None
