"""One assembly file holding several engines' queues: `.engine NAME` sections.

    .gen cayman                 # before the first .engine: the generation of every section
    .data sb[0, 0] fp32 1 2     # data directives anywhere: the kernel's data
    .engine pool
    loop: COPY ...              # labels are per section (offsets from its record 0)
    .engine dve
    loop: CAST ...              # a different `loop`

Decisions: before the first `.engine` only comments, `.gen` and data directives may
stand (an instruction or a label there belongs to no engine: an error at its
line:column); `.gen` inside a section is an error (a kernel has one generation);
an engine name is one of ENGINE_ORDER, at most one section each; a section may be
empty (that engine has nothing to do). Every record keeps its line number in the
whole file. The file is split into lines once; each section then goes through the
assembler's passes on its own lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from neurondbg.machine.asm.assembler import (
    SECTION_DIRECTIVE,
    Assembly,
    Context,
    Line,
    Meter,
    Progress,
    assemble_lines,
    is_record,
    split_source,
)
from neurondbg.machine.asm.data import DataInit
from neurondbg.machine.asm.disasm import data_lines, disassemble_lines
from neurondbg.machine.asm.errors import AsmError
from neurondbg.machine.asm.parser import Atom, Statement, parse_line
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen, parse_gen
from neurondbg.machine.isa.codec import Program
from neurondbg.machine.isa.opcodes import QUEUE_ENGINES

# A line whose first word is `.engine` (any case), perhaps after a label (which is then
# reported as misplaced); `#` comments never match.
_SECTION_LINE = re.compile(rb"(?:\A|[\n\r\x0b\x0c\x1c-\x1e])[ \t]*(?:[A-Za-z_][\w.]*[ \t]*:[ \t]*)?"
                           rb"\.(?i:engine)(?![\w.])")


@dataclass(frozen=True)
class Section:
    """One engine's queue in the file: its `.engine` line and its assembly."""

    engine: str
    line: int  # line number of the `.engine` directive
    assembly: Assembly  # records, labels, the section's own data, whole-file line numbers


@dataclass(frozen=True)
class SectionedAssembly:
    """A whole `.engine` file: the generation, the data before the first section, and
    the sections in source order."""

    gen: Gen
    data: list[DataInit]  # data directives before the first `.engine`
    sections: tuple[Section, ...]

    @property
    def all_data(self) -> list[DataInit]:
        """Every data directive of the file, in line order."""
        out = list(self.data)
        for s in self.sections:
            out.extend(s.assembly.data)
        return sorted(out, key=lambda d: d.line)


def has_sections(raw: bytes | str) -> bool:
    """Does this source have an `.engine` line (so it is a kernel, not one program)?"""
    return _SECTION_LINE.search(raw.encode() if isinstance(raw, str) else raw) is not None


def _engine_of(st: Statement, name: str) -> tuple[str, int]:
    """(engine, column) named by an `.engine` statement; AsmError unless it names
    exactly one engine."""
    assert st.head is not None
    fail_at = st.head.column
    if st.label is not None:
        raise AsmError("a label cannot stand on an .engine line: put it on the section's "
                       "first instruction", name, st.lineno, st.label.column,
                       st.source.rstrip("\n"))
    args = st.args
    if len(args) != 1 or args[0].key is not None or not isinstance(args[0].value, Atom):
        col = args[1].column if len(args) > 1 else args[0].column if args else fail_at
        raise AsmError("expected: .engine NAME (one of " + ", ".join(QUEUE_ENGINES) + ")",
                       name, st.lineno, col, st.source.rstrip("\n"))
    atom = args[0].value
    engine = atom.text.lower()
    if engine not in QUEUE_ENGINES:
        raise AsmError(f"unknown engine {atom.text!r}; expected one of "
                       + ", ".join(QUEUE_ENGINES), name, st.lineno, atom.column,
                       st.source.rstrip("\n"))
    return engine, atom.column


def _check_preamble(lines: list[Line], name: str) -> None:
    """Nothing before the first `.engine` may make a record or carry a label."""
    for lineno, source, label, head, _ in lines:
        if label is None and not is_record(head):
            continue
        st = parse_line(source, name, lineno)
        if st.label is not None:
            raise AsmError(f"label {st.label.text!r} before the first .engine: labels belong to"
                           " an engine's section", name, lineno, st.label.column,
                           source.rstrip("\n"))
        assert st.head is not None
        raise AsmError("instruction before the first .engine: every instruction belongs to "
                       "an engine's section (.engine " + " | ".join(QUEUE_ENGINES) + ")",
                       name, lineno, st.head.column, source.rstrip("\n"))


def assemble_sections(text: str, name: str = "<asm>", gen: Gen | str = DEFAULT_GEN,
                      progress: Progress | None = None) -> SectionedAssembly:
    """Assemble a file of `.engine` sections (see the module docstring); AsmError
    (file:line:column) at the first problem, or when the file has no section.
    `progress(done, total)` counts the file's lines as `assemble` does."""
    meter = Meter(progress) if progress is not None else None
    lines, parsed = split_source(text, name, meter.reading if meter else None)
    starts: list[tuple[int, str, int]] = []  # (index in lines, engine, line number)
    seen: dict[str, int] = {}
    for i in parsed:  # only the parser reads directives: no look at every line
        lineno, source, _, head, rest = lines[i]
        if head is None or head.lower() != SECTION_DIRECTIVE:
            continue
        st = rest if isinstance(rest, Statement) else parse_line(source, name, lineno)
        engine, column = _engine_of(st, name)
        if engine in seen:
            raise AsmError(f"engine {engine!r} has a section already (line {seen[engine]}); "
                           "one section per engine", name, lineno, column, source.rstrip("\n"))
        seen[engine] = lineno
        starts.append((i, engine, lineno))
    if not starts:
        raise AsmError("no .engine section: a kernel source names each engine's queue with "
                       ".engine NAME", name, 1, 1)
    preamble = lines[:starts[0][0]]
    _check_preamble(preamble, name)
    advance = meter.passing if meter else None
    ctx = Context(name, parse_gen(gen))
    first = assemble_lines(preamble, ctx, advance)
    sections = []
    data_bytes = ctx.data_bytes
    bounds = [i for i, _, _ in starts] + [len(lines)]
    for (i, engine, lineno), stop in zip(starts, bounds[1:], strict=True):
        sctx = Context(name, first.gen, data_bytes=data_bytes, in_section=True)
        sections.append(Section(engine, lineno, assemble_lines(lines[i + 1:stop], sctx,
                                                               advance)))
        data_bytes = sctx.data_bytes  # MAX_DATA_BYTES holds for the whole file
    if meter:
        meter.finish()
    return SectionedAssembly(first.gen, first.data, tuple(sections))


def disassemble_sections(queues: Iterable[tuple[str, Program, Iterable[DataInit]]],
                         gen: Gen = DEFAULT_GEN, data: Iterable[DataInit] = ()) -> str:
    """The `.engine` form of several queues ((engine, program, its own data) each):
    `.gen` when not the default, kernel-wide `data` before the first section, then each
    section with its data and records. It re-assembles (assemble_sections) to the same
    records per engine and the same data."""
    lines = [] if gen == DEFAULT_GEN else [f".gen {gen.label}"]
    lines += data_lines(data)
    for engine, program, own in queues:
        lines.append(f"{SECTION_DIRECTIVE} {engine}")
        lines += data_lines(own)
        lines += disassemble_lines(program, gen)
    return "\n".join(lines) + "\n"
