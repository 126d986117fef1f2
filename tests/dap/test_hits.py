"""Hit conditions and logpoint interpolation (neurondbg.dap.hits), then as an editor uses
them: a hit count on a loop's line, a logpoint that logs every pass and never stops."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from neurondbg.dap.hits import HitCondition, interpolate, parse_hit_condition
from tests.dap.client import InProcess
from tests.dap.test_adapter import LOOP, frame, launched, registers

OPS = {">=": lambda h, n: h >= n, ">": lambda h, n: h > n, "==": lambda h, n: h == n,
       "=": lambda h, n: h == n, "<=": lambda h, n: h <= n, "<": lambda h, n: h < n,
       "!=": lambda h, n: h != n, "%": lambda h, n: h % n == 0}


@pytest.mark.parametrize("op", [*OPS, ""])
@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_every_operator_on_small_counts(op: str, n: int) -> None:
    for text in (f"{op}{n}", f" {op} {n} "):
        cond = parse_hit_condition(text)
        want = OPS[op or ">="]
        assert [cond(h) for h in range(1, 30)] == [want(h, n) for h in range(1, 30)]


@pytest.mark.parametrize("text", ["", "x", "> ", ">= -1", "3.5", "==3==", "% 0", "1" * 19,
                                  "R1 > 3", "=> 3"])
def test_refused_hit_conditions_say_what_is_expected(text: str) -> None:
    with pytest.raises(ValueError, match=r"hitCondition .*expected"):
        parse_hit_condition(text)


def test_a_plain_number_is_at_least() -> None:
    assert parse_hit_condition("4") == HitCondition(">=", 4)
    assert str(parse_hit_condition("%3")) == "% 3"


plain = st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=20)


@given(st.lists(st.tuples(plain, st.text(alphabet="abcR0123456789 +", min_size=1,
                                         max_size=8)), max_size=5), plain)
def test_interpolation_replaces_each_expression_in_order(parts: list[tuple[str, str]],
                                                         tail: str) -> None:
    message = "".join(f"{text}{{{expr}}}" for text, expr in parts) + tail
    seen: list[str] = []

    def evaluate(expr: str) -> str:
        seen.append(expr)
        return f"<{len(seen)}>"

    out = interpolate(message, evaluate)
    assert seen == [expr.strip() for _, expr in parts]
    assert out == "".join(f"{text}<{i + 1}>" for i, (text, _) in enumerate(parts)) + tail


def test_interpolation_braces_errors_and_unclosed() -> None:
    def evaluate(expr: str) -> str:
        if expr == "bad":
            raise ValueError("column 1: nope")
        return expr.upper()

    assert interpolate("{{a}} {a} }} {bad} {b", evaluate) == \
        "{a} A } {bad: error: column 1: nope} {b"


def stop_or_exit(c: InProcess) -> dict[str, Any]:
    """The next `stopped` or `exited` event."""
    for i, e in enumerate(c.events):
        if e["event"] in ("stopped", "exited"):
            return c.events.pop(i)
    while True:
        m = c._next()
        if m["type"] == "event" and m["event"] in ("stopped", "exited"):
            return m
        c.events.append(m)


def outputs(c: object) -> list[str]:
    return [e["body"]["output"] for e in c.events  # type: ignore[attr-defined]
            if e["event"] == "output" and e["body"].get("category") == "console"]


@pytest.mark.parametrize(("condition", "r2_at_stops"), [
    ("3", [8, 7, 6, 5, 4, 3, 2, 1]), ("% 4", [7, 3]), ("== 2", [9]), ("< 3", [10, 9])])
def test_hit_conditions_on_the_loop(condition: str, r2_at_stops: list[int]) -> None:
    c = launched(LOOP)
    bp = c.ok("setBreakpoints", source={"path": str(LOOP)},
              breakpoints=[{"line": 8, "hitCondition": condition}])["breakpoints"][0]
    assert bp["verified"]
    c.ok("configurationDone")
    seen = []
    while (m := stop_or_exit(c))["event"] == "stopped":
        assert m["body"]["hitBreakpointIds"] == [bp["id"]] and frame(c)["line"] == 8
        seen.append(int(registers(c)["R2"].split()[1].strip("()")))
        c.ok("continue", threadId=1)
    assert seen == r2_at_stops


def test_a_bad_hit_condition_is_unverified() -> None:
    c = launched(LOOP)
    bp = c.ok("setFunctionBreakpoints",
              breakpoints=[{"name": "loop", "hitCondition": "often"}])["breakpoints"][0]
    assert not bp["verified"] and "expected a hit count" in bp["message"]


def test_logpoint_logs_every_pass_with_values_and_never_stops() -> None:
    c = launched(LOOP)
    c.ok("setBreakpoints", source={"path": str(LOOP)}, breakpoints=[
        {"line": 8, "logMessage": "R1={R1} R2={R2} {R2 +}"}])
    c.ok("configurationDone")
    assert c.event("exited")["body"]["exitCode"] == 0
    logs = [o for o in outputs(c) if o.startswith("R1=")]
    assert [line.split()[:2] for line in logs] == [
        [f"R1={3 * k}", f"R2={11 - k}"] for k in range(1, 11)]
    assert logs[0].startswith("R1=3 R2=10 {R2 +: error: column") and logs[0].endswith("}\n")
    event = next(e for e in c.events if e["event"] == "output"
                 and e["body"]["output"].startswith("R1=3 "))
    assert event["body"]["line"] == 8 and event["body"]["source"]["path"] == str(LOOP)


def test_logpoint_with_a_hit_condition_logs_only_from_then_and_a_breakpoint_stops() -> None:
    c = launched(LOOP)
    c.ok("setBreakpoints", source={"path": str(LOOP)}, breakpoints=[
        {"line": 7, "logMessage": "pass {R2}", "hitCondition": "> 8"},
        {"line": 10, "condition": "R2 == 1"}])
    c.ok("configurationDone")
    assert c.event("stopped")["body"]["reason"] == "breakpoint"
    assert registers(c)["R2"] == "0x00000001 (1)"
    assert [o for o in outputs(c) if o.startswith("pass")] == ["pass 2\n"]
    c.ok("continue", threadId=1)
    c.event("exited")
