"""A step's record judges the instruction that step ran, even when its verdict is first
read after the record was edited (a fix): the explanation waits until it is read
(Machine._lazy_verdict), but must not judge the edited record instead. The machine's last
conversion record is dropped once reversed past (stale; its arrays are freed then)."""

from __future__ import annotations

from tests.machine.helpers import (
    core_of,
    queue,
)

PATTERN = "nac=4 src=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1] dst=sb[0, 64] step=[1,0,0,0] " \
    "num=[4,1,1,1]"
TEXT = f"CAST in_dtype=FP32 out_dtype=BF16 {PATTERN}\n" \
    f"COPY in_dtype=FP32 out_dtype=BF16 {PATTERN}\nHALT"  # the COPY fails legality


def test_a_verdict_read_after_the_record_is_edited_is_the_executed_ones() -> None:
    m = core_of(TEXT)
    assert queue(m).valid(0) and not queue(m).valid(1)
    rec = m.step().record
    assert rec.executed
    m.edit_record(0, queue(m).program.record(1))  # record 0 is now the failing COPY
    assert not queue(m).valid(0)
    assert rec.verdict.valid and rec.instruction.mnemonic == "CAST"
    assert not queue(m).verdict(0).valid  # the record as it is now: judged afresh


def test_an_unedited_record_is_judged_once_for_every_step() -> None:
    m = core_of(TEXT)
    v = m.step().record.verdict
    assert v.valid and queue(m).verdict(0) is v
    m.reverse_step()
    assert m.step().record.verdict is v  # the same record again: the kept explanation


def test_the_last_conversion_is_dropped_once_reversed_past() -> None:
    m = core_of(f"CAST in_dtype=FP32 out_dtype=BF16 {PATTERN}\nMOVE R1=1\nHALT")
    rec = m.step().record
    assert queue(m).last_conversion is rec
    m.step()  # the MOVE: not a conversion, the CAST's stays
    assert queue(m).last_conversion is rec
    m.reverse_step()
    assert queue(m).last_conversion is rec  # the CAST is still in effect
    m.reverse_step()
    assert queue(m).last_conversion is None  # stale: dropped with the step
    m.step()
    m.reverse(1)
    assert queue(m).last_conversion is None
    m.step()
    m.add_breakpoint("op:CAST")
    m.reverse_continue()
    assert m.state().steps == 0 and queue(m).last_conversion is None
