"""The assembler's `progress(done, total)` callback: counted lines for `asm`'s
bar, at most one call per PROGRESS_LINES lines of a pass, monotone, ending at total."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest

from neurondbg.machine.asm import assemble
from neurondbg.machine.asm.assembler import (
    ENCODE_UNITS,
    LABEL_UNITS,
    LINE_UNITS,
    PROGRESS_LINES,
    READ_UNITS,
)
from neurondbg.machine.asm.errors import AsmError
from neurondbg.machine.asm.sections import assemble_sections

BODY = ("loop: ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=1\n"
        "COPY in_dtype=FP32 out_dtype=FP32 nac=4 src=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1] "
        "dst=sb[0, 0x40] step=[1,0,0,0] num=[4,1,1,1]\n"
        "# a comment line\n"
        "COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=-1 target=loop\n")


def calls_of(run) -> list[tuple[int, int]]:
    seen: list[tuple[int, int]] = []
    run(lambda done, total: seen.append((done, total)))
    return seen


def check(seen: list[tuple[int, int]], total: int) -> None:
    """Monotone, one total throughout, ending at (total, total), a call per block."""
    assert seen[-1] == (total, total)
    assert {t for _, t in seen} == {total}
    dones = [d for d, _ in seen]
    assert dones == sorted(dones) and dones[0] == 0
    assert all(0 <= d <= total for d in dones)
    assert len(seen) <= 3 * math.ceil(total / PROGRESS_LINES) + 9  # blocks, not lines


def test_assemble_reports_lines_monotone_to_the_total_and_the_same_bytes() -> None:
    text = BODY.replace("loop", "top", 1).replace("target=loop", "target=top") + \
        "NOP\n" * (3 * PROGRESS_LINES)
    total = len(text.splitlines())
    seen = calls_of(lambda p: assemble(text, "p.asm", progress=p))
    check(seen, total)
    assert len(seen) > 4  # it moved in between, not only at the end
    # each pass moves the count by its share of the work: reading, labelling, encoding
    dones = [d for d, _ in seen]
    read = total * READ_UNITS // LINE_UNITS
    labelled = total * (READ_UNITS + LABEL_UNITS) // LINE_UNITS
    assert read in dones and labelled in dones
    assert [d for d in dones if d < read] == [
        min(n, total) * READ_UNITS // LINE_UNITS for n in range(0, total, PROGRESS_LINES)]
    assert assemble(text, "p.asm", progress=lambda d, t: None).records == \
        assemble(text, "p.asm").records


def test_a_short_source_reports_its_total_and_the_end() -> None:
    seen = calls_of(lambda p: assemble("NOP\nHALT\n", progress=p))
    assert seen[-1] == (2, 2) and seen[0] == (0, 2)


def test_engine_sections_count_every_line_of_the_file() -> None:
    body = "NOP\n" * PROGRESS_LINES
    text = f".gen cayman\n.engine pool\n{body}.engine dve\n{body}HALT\n"
    total = len(text.splitlines())
    seen = calls_of(lambda p: assemble_sections(text, "k.asm", progress=p))
    check(seen, total)
    plain = assemble_sections(text, "k.asm")
    with_bar = assemble_sections(text, "k.asm", progress=lambda d, t: None)
    assert [s.assembly.records for s in with_bar.sections] == \
        [s.assembly.records for s in plain.sections]


def test_engine_lines_are_found_in_any_spelling_after_the_parsed_lines_only() -> None:
    # `.engine` lines reach the parser (the fast split leaves directives to it), so the
    # section scan that looks at parsed lines alone still sees every spelling of them
    sa = assemble_sections(".ENGINE pool\nNOP\n  .Engine   dve # queue two\nHALT\nNOP\n")
    assert [(s.engine, s.line, len(s.assembly.records) // 64) for s in sa.sections] == \
        [("pool", 1, 1), ("dve", 3, 2)]
    with pytest.raises(AsmError, match=r":3:1: a label cannot stand on an \.engine line"):
        assemble_sections(".engine pool\nNOP\nx: .engine dve\n")


def test_an_error_stops_the_count_where_it_is() -> None:
    text = "NOP\n" * (2 * PROGRESS_LINES) + "BOGUS x=1\n"
    seen: list[tuple[int, int]] = []
    with pytest.raises(AsmError, match=rf":{2 * PROGRESS_LINES + 1}:1: unknown mnemonic"):
        assemble(text, progress=lambda d, t: seen.append((d, t)))
    assert seen and all(d < t for d, t in seen)  # never claimed done


def test_the_count_moves_with_the_work_not_a_third_per_pass() -> None:
    """Encoding is most of the work and labelling little of it, so a count of a third
    per pass would run ahead through passes 0 and 1 and crawl through pass 2: a bar's
    time remaining would then be far too short (benchmarks/asm_bench.py measures the
    shares the units stand for)."""
    assert ENCODE_UNITS > READ_UNITS > LABEL_UNITS >= 1
    text = "NOP\n" * (4 * PROGRESS_LINES)
    total = 4 * PROGRESS_LINES
    dones = [d for d, _ in calls_of(lambda p: assemble(text, progress=p))]
    labelled = total * (READ_UNITS + LABEL_UNITS) // LINE_UNITS
    assert labelled in dones and labelled < total // 2  # half the count is in pass 2
    steps = sorted({b - a for a, b in pairwise(dones) if b > a})
    # a block moves the count by its pass's share (give or take the rounding down)
    for units in (LABEL_UNITS, READ_UNITS, ENCODE_UNITS):
        assert any(abs(step - PROGRESS_LINES * units / LINE_UNITS) <= 1 for step in steps)
    assert steps[-1] <= PROGRESS_LINES * ENCODE_UNITS / LINE_UNITS + 1
