"""Lines as the assembler numbers them (str.splitlines: `\\r\\n`, `\\r`, form feed, ... each
end a line), in ASCII and other text alike: ProgramFile.where finds a record's line, a
kernel's queues (which share one whole-file text) each find their own, and the line
limit counts every kind of break."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from neurondbg.machine.asm import assemble, loader
from neurondbg.machine.asm.assembler import _breaks
from neurondbg.machine.asm.errors import AsmError
from neurondbg.machine.asm.loader import from_text, line_starts
from neurondbg.machine.core.kernel import load_kernel
from neurondbg.machine.files import MAX_ASSEMBLY_LINES

BREAKS = ["\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("brk", BREAKS, ids=[f"U+{ord(b[-1]):04X}" for b in BREAKS])
def test_where_names_the_assemblers_line_and_column(brk: str) -> None:
    text = brk.join(["# é first", "  NOP", "", "top:   HALT", "\tNOP  # last"]) + brk
    if brk.isascii():
        text = text.replace("é", "e")  # ASCII text: the numpy scan; else LINE_END
    prog = from_text(Path("p.asm"), text)
    assert prog.lines == [2, 4, 5]
    assert [prog.where(i) for i in range(3)] == ["p.asm:2:3", "p.asm:4:8", "p.asm:5:2"]


@pytest.mark.parametrize("block", [1, 2, 3, 1 << 20])  # blocks of the ASCII scan
@pytest.mark.parametrize("text", ["", "NOP", "NOP\n", "\n\n", "a\r\nb\rc\r\n\r\n", "x\r",
                                  "é\r\ny\x85z", "\r\n\r", "\tab\r\n\x0c\x1d\r\r\n \x0b"])
def test_line_starts_are_those_of_splitlines(text: str, block: int, monkeypatch) -> None:
    monkeypatch.setattr(loader, "_BLOCK", block)  # a \r\n split between blocks too
    starts = line_starts(text)
    pieces = text.splitlines(keepends=True)
    want = np.cumsum([0] + [len(p) for p in pieces])
    if pieces and pieces[-1] == pieces[-1].rstrip("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
        want = want[:-1]  # an unended last line: no start after it
    assert starts.tolist() == want.tolist()


def test_each_queue_of_an_engine_file_finds_its_own_lines(tmp_path: Path) -> None:
    src = tmp_path / "k.asm"
    src.write_text(".engine pool\r\n  NOP\r\n.engine dve\r\n\x0c    HALT\r\n")
    kernel = load_kernel(src)
    assert kernel.queue("pool").program.where(0) == f"{src}:2:3"
    assert kernel.queue("dve").program.where(0) == f"{src}:5:5"


def test_a_kernels_queues_scan_their_shared_text_once_and_keep_nothing_alive(
        tmp_path: Path) -> None:
    import gc
    import weakref

    src = tmp_path / "k.asm"
    src.write_text(".engine pool\nNOP\n.engine dve\nHALT\n")
    kernel = load_kernel(src)
    pool, dve = kernel.queue("pool").program, kernel.queue("dve").program
    assert pool.text is dve.text
    assert pool.where(0) == f"{src}:2:1" and dve.where(0) == f"{src}:4:1"
    assert pool._line_starts is dve._line_starts  # one scan of the file
    other = from_text(Path("o.asm"), "\n\n  NOP\n")  # another text: its own lines
    assert other.where(0) == "o.asm:3:3"
    assert other._line_starts is not pool._line_starts
    gone = weakref.ref(other)
    del other
    gc.collect()
    assert gone() is None  # the share holds the last program weakly


@pytest.mark.parametrize("text", [
    "\u2028" * (MAX_ASSEMBLY_LINES + 1),  # a break only non-ASCII text can hold
    "é" + "\x85" * (MAX_ASSEMBLY_LINES + 1),
    "\r\n" * MAX_ASSEMBLY_LINES + "HALT",  # \r\n is one break: the unended line is over
    "\r" * (MAX_ASSEMBLY_LINES + 1),
], ids=["U+2028", "U+0085", "crlf", "cr"])
def test_the_line_limit_counts_every_kind_of_break(text: str) -> None:
    with pytest.raises(AsmError) as e:
        assemble(text, "p.asm")
    assert e.value.line == MAX_ASSEMBLY_LINES + 1
    assert "more than 2,097,152 lines" in e.value.message


@pytest.mark.parametrize("text", ["", "a", "\r\n", "\r\r\n\n", "\x0c\x1c\x1d\x1e\x0b",
                                  "é\x85\u2028\u2029\r\n\r", "\t \x1f\x1b"])
def test_breaks_are_counted_as_splitlines_splits(text: str) -> None:
    assert _breaks(text) == len((text + "x").splitlines()) - 1
