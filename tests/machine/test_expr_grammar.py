"""The expression grammar: Python's precedence (checked against Python's own parser),
chained comparisons, division by zero as an error, and the input limits."""

from __future__ import annotations

import ast
import operator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine import expr as ex
from neurondbg.machine.state import MachineConfig, MachineState

REGS = {"R1": 3, "R2": 12, "R3": 0, "R4": 0xFFFFFFFF}


def machine() -> MachineState:
    s = MachineState.create(MachineConfig(partitions=4, sbuf_bytes=64, psum_bytes=32))
    for name, v in REGS.items():
        s.R[int(name[1:])] = v
    return s


STATE = machine()


# -- an independent reference: Python's parser decides the structure, this the values ----
class Refused(Exception):
    """The reference refuses what the language must refuse (x / 0, bad shift counts)."""


def _cdiv(a: int, b: int) -> int:
    if b == 0:
        raise Refused
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _shift(fn):
    def checked(a: int, b: int) -> int:
        if not 0 <= b <= 64:
            raise Refused
        return fn(a, b)
    return checked


BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
       ast.Div: _cdiv, ast.Mod: lambda a, b: a - b * _cdiv(a, b),
       ast.LShift: _shift(operator.lshift), ast.RShift: _shift(operator.rshift),
       ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor}
CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
       ast.Gt: operator.gt, ast.GtE: operator.ge}


def reference(node: ast.AST) -> int:
    if isinstance(node, ast.Expression):
        return reference(node.body)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return REGS[node.id]
    if isinstance(node, ast.BinOp):
        return BIN[type(node.op)](reference(node.left), reference(node.right))
    if isinstance(node, ast.UnaryOp):
        v = reference(node.operand)
        if isinstance(node.op, ast.Not):
            return int(not v)
        return -v if isinstance(node.op, ast.USub) else +v if isinstance(
            node.op, ast.UAdd) else ~v
    if isinstance(node, ast.BoolOp):  # short-circuit, like C: the result is 0 or 1
        if isinstance(node.op, ast.And):
            return int(all(reference(v) for v in node.values))
        return int(any(reference(v) for v in node.values))
    if isinstance(node, ast.Compare):
        left = reference(node.left)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = reference(right_node)
            if not CMP[type(op)](left, right):
                return 0
            left = right
        return 1
    raise AssertionError(f"unexpected node {node!r}")


LEAF = st.one_of(st.integers(0, 20).map(str), st.integers(0, 1 << 40).map(hex),
                 st.sampled_from(sorted(REGS)))
BINARY = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<", "<=", ">",
          ">=", "and", "or"]
PREFIX = ["-", "+", "~", "not "]


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, st.sampled_from(BINARY), children).map(" ".join),
        st.tuples(st.sampled_from(PREFIX), children).map("".join),
        children.map(lambda c: f"({c})"))


EXPRESSIONS = st.recursive(LEAF, _combine, max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(EXPRESSIONS)
def test_precedence_and_associativity_are_pythons(text: str) -> None:
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:  # e.g. `1 + not 2`: the language refuses it too
        with pytest.raises(ValueError):
            ex.parse(text)
        return
    try:
        want = reference(tree)
    except Refused:
        with pytest.raises(ex.EvalError):
            ex.parse(text)(STATE)
        return
    assert ex.parse(text)(STATE) == want, text


ARITH = ["+", "-", "*", "&", "|", "^", "==", "!=", "<", "<=", ">", ">="]


ARITH_EXPRESSIONS = st.recursive(LEAF, lambda c: st.one_of(
    st.tuples(c, st.sampled_from(ARITH), c).map(" ".join),
    st.tuples(c, st.sampled_from(["<<", ">>"]), st.integers(0, 8)).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})"),  # counts stay small whatever surrounds them
    st.tuples(st.sampled_from(["-", "~"]), c).map(lambda t: f"{t[0]}({t[1]})"),
    c.map(lambda x: f"({x})")), max_leaves=10)


@settings(max_examples=300, deadline=None)
@given(ARITH_EXPRESSIONS)
def test_integer_expressions_equal_pythons_own_value(text: str) -> None:
    assert ex.parse(text)(STATE) == eval(text, {}, dict(REGS)), text


@pytest.mark.parametrize("text, value", [
    ("1 + 2 << 1", 6), ("6 & 3 + 1", 4), ("R1 & 3 == 3", 1), ("1 | 2 ^ 3 & 4", 3),
    ("2 * 3 % 4", 2), ("10 - 2 - 3", 5), ("64 >> 2 >> 1", 8), ("1 << 2 + 1", 8),
    ("0 < R1 < 8", 1), ("0 < R2 < 8", 0), ("3 > 2 > 1", 1), ("1 == 1 == 1", 1),
    ("1 < 3 > 2", 1), ("!R3 == 1", 1), ("!R1 + 1", 1), ("not R1 == 3", 0),
    ("not R3 and R1", 1), ("R1 or R3 and 0", 1), ("R1 && R2 || R3", 1),
    ("-7 / 2", -3), ("-7 % 2", -1), ("7 % -2", 1), ("0xFFFFFFFFFFFFFFFF / 3", 0x5555555555555555),
    ("7.5 / 2", 3.75), ("-7.5 % 2", -1.5), ("+R1", 3), ("~R3 & 0xF", 15), ("0o17", 15),
    ("1_000", 1000), ("1 << 64", 1 << 64), ("0xFFFFFFFFFFFFFFFF", (1 << 64) - 1),
    ("R3 != 0 && 10 / R3 > 1", 0), ("R3 == 0 || 10 / R3", 1),
])
def test_values(text: str, value: float) -> None:
    assert ex.parse(text)(STATE) == value


@pytest.mark.parametrize("text, message", [
    ("R1 / 0", "division by zero"), ("R1 / R3", "division by zero"),
    ("1.5 / 0", "division by zero"), ("R1 % 0", "modulo by zero"),
    ("1 << 100000000000", "shift count 100000000000 is outside 0..64"),
    ("1 >> -1", "shift count -1 is outside 0..64"), ("2.5 & 1", "'&' needs integers"),
    ("~1.5", "'~' needs integers"),
    ("1.5 * (1" + " << 64" * 17 + ")", "too large for a float"),
    ("sb[4, 0]", "sbuf partition 4 does not exist (0..3)"),
    ("sb[0, 62]:fp32", "sbuf bytes 62..65 are outside the partition (0..63)"),
    ("acc[4]", "partition 4 does not exist (0..3)"),
])  # sem[256] and idx[0, 8] are refused as they are parsed (test_expr_indices.py)
def test_evaluation_errors_are_one_line(text: str, message: str) -> None:
    e = ex.parse(text)
    with pytest.raises(ex.EvalError) as info:
        e(STATE)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_nesting_limit_is_an_error_not_a_recursion_error() -> None:
    deep = "(" * ex.MAX_DEPTH + "1" + ")" * ex.MAX_DEPTH
    assert ex.parse(deep)(STATE) == 1
    for n in (ex.MAX_DEPTH + 1, 141, 400):
        with pytest.raises(ValueError, match=r"^column \d+: expected at most 64 levels"):
            ex.parse("(" * n + "1" + ")" * n)
    with pytest.raises(ValueError, match="levels of nesting"):
        ex.parse("-" * 200 + "1")
    # each group wraps its left operand in every operator level: deep, with few parentheses
    text = "1"
    for _ in range(12):
        text = f"({text} * 1 + 1 << 0 & 7 ^ 0 | 0)"
    with pytest.raises(ValueError, match="levels of nesting"):
        ex.parse(text)


def test_long_flat_expressions_do_not_nest() -> None:
    text = "+".join(["1"] * 500)  # 999 characters, one node: no recursion per term
    assert ex.parse(text).tree[0] == "bin" and ex.parse(text)(STATE) == 500


def test_length_and_literal_limits() -> None:
    with pytest.raises(ValueError, match=r"^column 1025: expected at most 1024 characters"):
        ex.parse("1" + " + 1" * 400)
    with pytest.raises(ValueError, match=r"^column 5: expected an integer of at most 64 bits"):
        ex.parse("1 + " + "9" * 1000)
    with pytest.raises(ValueError, match=r"found 'RRRRRRRRRRRRRRRRRRRRRRRR\.\.\.'$"):
        ex.parse("1 " + "R" * 1000)
    with pytest.raises(ValueError, match="at most 64 bits"):
        ex.parse("0x1_0000_0000_0000_0000")
    with pytest.raises(ValueError, match="at most 64 bits"):
        ex.parse("18446744073709551616")
    assert ex.parse("18446744073709551615")(STATE) == (1 << 64) - 1
    assert ex.parse("0x" + "0" * 30 + "1")(STATE) == 1
    with pytest.raises(ValueError, match=r"^column 1: .*leading zeros.*0o123"):
        ex.parse("0123")
    assert ex.parse("00")(STATE) == 0


@pytest.mark.parametrize("text, col, what", [
    ("1 + not 2", 5, "'not' binds loosely"), ("R1 == not R2", 7, "'not' binds loosely"),
    ("2 ** 3", 4, "a number"), ("R100", 1, "R0..R63"), ("R005", 1, "R0..R63"),
    ("sb[-1, 0]", 4, "a partition"), ("1 + 0x_", 5, "digits after 0x"),
])
def test_syntax_errors(text: str, col: int, what: str) -> None:
    with pytest.raises(ValueError) as info:
        ex.parse(text)
    assert str(info.value).startswith(f"column {col}:") and what in str(info.value)


def test_targets_lists_every_read() -> None:
    e = ex.parse("R1 + sb[1, 2]:fp32 > acc[3] or not (sem[4] | -idx[0, 1])")
    assert [t.kind for t in e.targets] == ["reg", "mem", "acc", "sem", "idx"]
    assert ex.parse("1 + 2").targets == []
    # parsed twice, equal and hashable (breakpoints are compared by value)
    assert ex.parse("R1 + 1 < 2 or R2") == ex.parse("R1 + 1 < 2 or R2")
    assert len({ex.parse("R1 + 1 < 2 or R2"), ex.parse("R1 + 1 < 2 or R2")}) == 1
