"""`Opcode` is written out so a type checker sees its members; these tests hold it equal
to the opcode table (machine/isa/opcodes.py) and to the reference's opcode table
(isa-facts §7, with §4.1 for the control band), whose rows are copied verbatim in
isa_facts_opcodes.md beside this file."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import neurondbg.machine.isa.opcodes as opcodes_module
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.opcodes import OPCODES, Opcode, mnemonic, opcodes_of

HERE = Path(__file__).resolve().parent
REFERENCE = (HERE / "isa_facts_opcodes.md").read_text(encoding="utf-8")
_ROW = re.compile(r"^\| (0x[0-9a-f]{2}) \| ([A-Z0-9_]+)(?: \((\+v[345]|v2 only)\))? \|", re.M)
_GENS_OF_MARK: dict[str | None, frozenset[Gen]] = {
    None: frozenset(Gen),
    "v2 only": frozenset({Gen.SUNDA}),
    "+v3": frozenset({Gen.CAYMAN, Gen.MARIANA, Gen.MAVERICK}),
    "+v4": frozenset({Gen.MARIANA, Gen.MAVERICK}),
    "+v5": frozenset({Gen.MAVERICK}),
}


def _section(title: str) -> str:
    return REFERENCE.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def _rows(title: str) -> dict[int, tuple[str, str | None]]:
    """code -> (name, generation mark) of a section's single-code rows (ranges skipped)."""
    rows: dict[int, tuple[str, str | None]] = {}
    for m in _ROW.finditer(_section(title)):
        code = int(m[1], 16)
        assert code not in rows, f"{m[1]} listed twice in §{title}"
        rows[code] = (m[2], m[3])
    return rows


def _reference() -> dict[int, tuple[str, str | None]]:
    """§7's rows, completed by §4.1's for the codes §7 gives only as a range."""
    s7, s41 = _rows("§7"), _rows("§4.1")
    for code in s7.keys() & s41.keys():
        assert s7[code] == s41[code], f"§7 and §4.1 disagree on 0x{code:02x}"
    return s41 | s7


def _byte_ranges(text: str) -> set[int]:
    """`0x0b–0x20, 0x50` -> the bytes it names."""
    out: set[int] = set()
    for part in text.split(", "):
        lo, _, hi = part.partition("–")
        out.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    return out


def test_the_source_declares_every_member_with_its_literal_value() -> None:
    # What a checker reads is the class body; it must be the enum the program runs with.
    tree = ast.parse(Path(opcodes_module.__file__).read_text(encoding="utf-8"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Opcode"]
    declared = [(a.targets[0].id, a.value.value) for a in cls.body
                if isinstance(a, ast.Assign) and isinstance(a.targets[0], ast.Name)
                and isinstance(a.value, ast.Constant)]
    assert declared == [(m.name, m.value) for m in Opcode]
    assert [b.id for b in cls.bases if isinstance(b, ast.Name)] == ["IntEnum"]


def test_each_member_has_exactly_one_table_row_in_enum_order() -> None:
    table = opcodes_module._TABLE
    assert [row[0] for row in table] == list(Opcode)
    assert list(OPCODES) == [m.value for m in Opcode]
    assert [m.value for m in Opcode] == sorted(m.value for m in Opcode)
    for code, info in OPCODES.items():
        # plain ints, as before the enum was written out (reprs and JSON keep their form)
        assert type(code) is int and type(info.code) is int
        assert (info.code, info.name) == (code, Opcode(code).name)


def test_the_members_are_the_reference_opcodes() -> None:
    assert {code: name for code, (name, _) in _reference().items()} == \
        {m.value: m.name for m in Opcode}


@pytest.mark.parametrize("op", list(Opcode), ids=lambda o: o.name)
def test_generations_follow_the_reference_mark(op: Opcode) -> None:
    _, mark = _reference()[op.value]
    assert OPCODES[op].gens == _GENS_OF_MARK[mark]


def test_every_byte_is_an_opcode_or_a_reference_hole() -> None:
    m = re.search(r"^Holes in every generation: (.*?)\. 0x81 is a hole in v2 only\.$",
                  _section("§7"), re.M)
    assert m is not None
    holes = _byte_ranges(m[1])
    codes = {op.value for op in Opcode}
    assert holes.isdisjoint(codes) and holes | codes == set(range(256))
    for byte in range(256):
        assert mnemonic(byte) == (Opcode(byte).name if byte in codes else f"OP_{byte:02X}")
    assert 0x81 not in opcodes_of(Gen.SUNDA) and 0x81 in opcodes_of(Gen.CAYMAN)


def test_enumerator_counts_per_generation_are_the_reference_counts() -> None:
    m = re.search(r"\*\*v2 (\d+), v3 (\d+), v4/v4\+ (\d+), v5 (\d+)\*\*.*?is (\d+) names",
                  _section("§7"))
    assert m is not None
    *per_gen, union = (int(g) for g in m.groups())
    assert [len(opcodes_of(g)) for g in Gen] == per_gen
    assert len(Opcode) == union
