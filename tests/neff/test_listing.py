"""A NEFF stream's Program listing (debug.listing_text.Listing): a long one builds only
the lines read, and each line is the one the bulk functions build."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.debug.listing_text import EAGER_LINES, listing_lines_with_events, program_listing
from neurondbg.machine.asm.disasm import disassemble_lines
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.codec import Program
from neurondbg.machine.isa.opcodes import Opcode
from tests.neff.synth import record, stream

OPS = (Opcode.MEMSET, Opcode.EVENT_SEMAPHORE, Opcode.NOP, Opcode.MATMUL, Opcode.LDWEIGHTS)
N = EAGER_LINES + 300


def _program() -> Program:
    recs = [record(OPS[i % len(OPS)], wait=(8 + i % 16, i) if i % 3 else None,
                   update=4 if i % 2 else None) for i in range(N)]
    return Program(stream(*recs), "PE.bin")


PROGRAM = _program()
LABELS = {"top": 0, "mid": 64 * (N // 2)}
FULL = disassemble_lines(PROGRAM, Gen.SUNDA)
SHORT = listing_lines_with_events(PROGRAM, Gen.SUNDA, {v: k for k, v in LABELS.items()})


def test_a_long_listing_builds_only_the_lines_read() -> None:
    lines = program_listing(PROGRAM, LABELS, Gen.SUNDA, "pe")
    assert len(lines) == N and not lines.built
    assert lines[N // 2].label == "mid" and lines[-1].index == N - 1
    assert lines._built.keys() == {N // 2, N - 1}
    assert lines.label_width == len("mid:")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, N - 1), min_size=1, max_size=8))
def test_each_line_is_the_bulk_listings_line(indices: list[int]) -> None:
    lines = program_listing(PROGRAM, LABELS, Gen.SUNDA, "pe")
    for i in indices:
        line = lines[i]
        assert (line.index, line.offset) == (i, 64 * i)
        assert line.text == FULL[i].strip() and line.listing == SHORT[i]


def test_given_verdicts_are_the_lines_validity_and_a_copy_edits_alone() -> None:
    valid = np.arange(N) % 7 != 3
    lines = program_listing(PROGRAM, LABELS, Gen.SUNDA, "pe", valid)
    assert [lines[i].valid for i in (2, 3, 10)] == [True, False, False]
    edited = lines.copy()
    edited[5] = lines[6]
    assert edited[5] == lines[6] and lines[5].index == 5 and edited != lines


def test_a_short_listing_is_built_at_once() -> None:
    short = Program(PROGRAM.raw[:100].copy(), "PE.bin")
    lines = program_listing(short, {}, Gen.SUNDA, "pe")
    assert lines.built and [x.text for x in lines] == [t.strip() for t in FULL[:100]]
