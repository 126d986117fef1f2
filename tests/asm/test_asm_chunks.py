"""asm's long steps before the first pass go a chunk at a time, giving the same result."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.commands import asm
from neurondbg.errors import InputError
from neurondbg.machine.asm import assembler
from neurondbg.machine.asm.errors import AsmError

# characters that end lines for str.splitlines, and others
PIECES = ["a", "bc", " ", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028",
          "é", "\u20ac"]


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from(PIECES), max_size=60), chunk=st.integers(1, 9))
def test_source_lines_in_pieces_is_splitlines(parts: list[str], chunk: int) -> None:
    text = "".join(parts)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(assembler, "SPLIT_CHARS", chunk)
        assert assembler._source_lines(text, "s.asm") == text.splitlines()


def test_line_limits_name_the_line_in_a_later_piece(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assembler, "SPLIT_CHARS", 4)
    monkeypatch.setattr(assembler, "MAX_LINE_CHARS", 5)
    with pytest.raises(AsmError) as e:
        assembler._source_lines("ab\ncd\nef\ngh\n123456\nx\n", "s.asm")
    assert (e.value.line, e.value.column) == (5, 6)
    monkeypatch.setattr(assembler, "MAX_ASSEMBLY_LINES", 4)
    with pytest.raises(AsmError) as e:
        assembler._source_lines("a\nb\nc\nd\ne\n", "s.asm")
    assert e.value.line == 5
    with pytest.raises(AsmError) as e:  # form feeds: counted before they are split
        assembler._source_lines("a\n" + "\x0c" * 50, "s.asm")
    assert e.value.line == 5
    assert assembler._source_lines("a\nb\nc\nd\n", "s.asm") == ["a", "b", "c", "d"]


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(st.sampled_from(PIECES), max_size=60), chunk=st.integers(1, 9))
def test_decode_in_pieces_is_decode(parts: list[str], chunk: int) -> None:
    raw = "".join(parts).encode()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(asm, "CHUNK_BYTES", chunk)
        assert asm._decode("s.asm", raw) == raw.decode()
        bad = raw + b"\n\xff"
        with pytest.raises(InputError) as e:
            asm._decode("s.asm", bad)
    assert str(e.value) == f"s.asm: offset {len(raw) + 1}: expected UTF-8 assembly text"


def test_the_engine_word_is_found_across_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asm, "CHUNK_BYTES", 8)
    for pad in range(12):
        text = "NOP\n" + " " * pad + "\n.Engine pool\nHALT\n"
        assert asm._has_sections(text), pad
    assert not asm._has_sections("NOP\n" * 20 + "# an engine, no section\n")
