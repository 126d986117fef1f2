"""One opcode registry: the Opcode enum is the table, and every opcode with a
struct is fully registered (handler, predicate, listing form) or its gap is declared."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from neurondbg.machine.asm import assemble
from neurondbg.machine.asm.sections import has_sections
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.engines import HANDLERS, handler_for
from neurondbg.machine.engines.seq import FAST, FAST_OPCODES
from neurondbg.machine.isa import listing, listing_lines
from neurondbg.machine.isa.codec import decode_bytes, load_program
from neurondbg.machine.isa.opcodes import OPCODES, QUEUE_ENGINES, Opcode
from neurondbg.machine.isa.registry import NO_PREDICATE, NOT_MODELLED
from neurondbg.machine.legality.nki.bridge import CORRESPONDENCE
from neurondbg.machine.legality.wire.registry import PREDICATES, predicate_for

ROOT = Path(__file__).resolve().parents[2]
WITH_STRUCT = [Opcode(c) for c, i in OPCODES.items() if i.struct != "RAW"]
PREDICATE_OPCODES = {code for p in PREDICATES for code in p.opcodes}


def test_the_enum_is_the_table() -> None:
    assert {m.value: m.name for m in Opcode} == {c: i.name for c, i in OPCODES.items()}
    assert Opcode.CAST == 0x47 and Opcode(0xA7) is Opcode.MOVE


@pytest.mark.parametrize("op", WITH_STRUCT, ids=lambda o: o.name)
def test_every_struct_opcode_is_registered_or_its_gap_is_declared(op: Opcode) -> None:
    info = OPCODES[op]
    modelled = op in HANDLERS
    assert modelled != (op in NOT_MODELLED), "a handler or a NOT_MODELLED reason, not both"
    engines = QUEUE_ENGINES if "seq" in info.engines else sorted(info.engines)
    for gen in info.gens:
        for engine in engines:
            handler, why = handler_for(op, engine, gen)
            if modelled:
                assert handler is HANDLERS[op], (engine, gen, why)
            else:
                assert handler is None and why.endswith("is decoded but not modelled yet")
    has_predicate = op in PREDICATE_OPCODES
    assert has_predicate != (op in NO_PREDICATE), "a predicate or a NO_PREDICATE reason"
    pred = predicate_for(op)
    assert pred.struct == (info.struct if has_predicate else "RAW")
    text = listing(decode_bytes(bytes([op]) + bytes(63)).instruction(0))
    assert text.split(" ")[0] == info.name


def test_an_opcode_without_a_layout_says_so_when_run() -> None:
    raw = [op for op, i in OPCODES.items() if i.struct == "RAW" and not i.pseudo
           and Opcode(op) not in HANDLERS and i.engines - {"seq"}]
    assert Opcode.IOTA in raw
    for op in raw:
        info = OPCODES[op]
        for engine in sorted(info.engines - {"seq"}):
            handler, why = handler_for(op, engine, sorted(info.gens)[0])
            assert (handler, why) == (None, f"{info.name} ({op:#04x}) is not modelled: no "
                                            "reference gives its layout")


def test_the_gaps_name_only_struct_opcodes_and_give_reasons() -> None:
    assert set(NOT_MODELLED) | set(NO_PREDICATE) <= set(WITH_STRUCT)
    assert all(len(r) > 20 for r in (*NOT_MODELLED.values(), *NO_PREDICATE.values()))


def test_fast_path_and_nki_bridge_are_keyed_by_modelled_enum_members() -> None:
    assert FAST_OPCODES == frozenset(FAST) <= set(HANDLERS)
    assert all(isinstance(k, Opcode) for k in (*HANDLERS, *FAST, *CORRESPONDENCE))
    assert all(c.mnemonic == k.name and c.opcode == k for k, c in CORRESPONDENCE.items())


# -- the listing form, from decoded fields, equals the text-parsing listing ----------------
# listing_today.json holds the Program listing as views/program.py built it at 2ee8c02
# (disassemble, then re-parse the text with compact_text): every line of every example
# program and tour, and a sha256 of the lines of 8 random records of every opcode per generation.
TODAY = json.loads((Path(__file__).with_name("listing_today.json")).read_text(encoding="utf-8"))


def _listing(program, gen: Gen, labels: dict[int, str] | None = None) -> list[str]:
    return [listing(program.instruction(i), gen, labels) for i in range(len(program))]


def test_the_golden_covers_every_example_program() -> None:
    # examples/ links to sessions/examples; kernels (`.engine` sections) came later
    sources = {p.relative_to(ROOT).as_posix() for d in ("sessions/examples", "sessions/tours")
               for p in (ROOT / d).glob("*.asm") if not has_sections(p.read_bytes())}
    binaries = {p.relative_to(ROOT).as_posix()
                for p in (ROOT / "sessions" / "examples").glob("*.bin")}
    assert set(TODAY["sources"]) == sources and set(TODAY["binaries"]) == binaries


@pytest.mark.parametrize("name", sorted(TODAY["sources"]))
def test_listing_equals_todays_listing_for_every_example_source(name: str) -> None:
    a = assemble((ROOT / name).read_text(encoding="utf-8"), name)
    labels = {off: label for label, off in a.labels.items()}
    assert _listing(a.program(), a.gen, labels) == TODAY["sources"][name]
    assert listing_lines(a.program(), a.gen, labels) == TODAY["sources"][name]


@pytest.mark.parametrize("name", sorted(TODAY["binaries"]))
def test_listing_equals_todays_listing_for_every_example_binary(name: str) -> None:
    program = load_program(ROOT / name)
    for gen in Gen:  # these programs list alike on every generation
        assert _listing(program, gen) == TODAY["binaries"][name]


@pytest.mark.parametrize("gen", list(Gen), ids=lambda g: g.label)
def test_listing_equals_todays_listing_for_random_records_of_every_opcode(gen: Gen) -> None:
    rng = np.random.default_rng(11)
    raw = rng.integers(0, 256, size=(len(OPCODES) * 8, 64), dtype=np.uint8)
    raw[rng.random(raw.shape) < 0.7] = 0  # mostly-zero records exercise the defaults
    raw[:, 0] = np.repeat(np.array(sorted(OPCODES), dtype=np.uint8), 8)
    program = decode_bytes(raw.tobytes())
    labels = {64 * k: f"L{k}" for k in range(0, len(program), 5)}  # some branch targets
    lines = _listing(program, gen, labels)
    assert listing_lines(program, gen, labels) == lines  # the bulk form, line for line
    assert hashlib.sha256("\n".join(lines).encode()).hexdigest() == \
        TODAY["random_sha256"][gen.label]


def test_an_unassigned_byte_lists_as_its_raw_line_without_a_stray_equals() -> None:
    raw = bytes([0x5A]) + bytes(range(1, 64))  # the text-parsing listing appended "="
    assert listing(decode_bytes(raw).instruction(0)) == ".raw 0x" + raw.hex()
    halt = assemble("HALT").records
    assert listing_lines(decode_bytes(raw + halt)) == [".raw 0x" + raw.hex(), "HALT"]


def test_default_engine_is_the_machines() -> None:
    """The commands' `--engine` default (machine.isa.opcodes.DEFAULT_ENGINE, read without
    importing the model) is the queue a MachineConfig runs."""
    from neurondbg.machine.isa.opcodes import DEFAULT_ENGINE, QUEUE_ENGINES
    from neurondbg.machine.state import MachineConfig
    from neurondbg.params import DEFAULT_ENGINE as PARAM_DEFAULT

    assert DEFAULT_ENGINE == MachineConfig().engine == PARAM_DEFAULT  # one declaration, read thrice
    assert DEFAULT_ENGINE in QUEUE_ENGINES
